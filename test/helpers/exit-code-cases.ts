/**
 * Every exit code of README.md, as one table of cases shared by two tiers: in process
 * (test/commands/exit-codes.test.ts runs every case with payctl's main) and from the built
 * binary (test/e2e/exit-codes.test.ts runs the cases marked `shell`, one per exit code: the
 * thin check that the binary's exit codes reach the shell). A case says what to run and what
 * must hold of the run; the tier says how it is run (in memory, or a child process).
 *
 * 0 success; 1 the service refused or failed (404, 422, 5xx after bounded retries, a payout
 * that settled Failed); 2 usage errors with nothing sent; 3 not logged in or credentials
 * refused; 4 network failure or timeout; 5 still pending when --wait ran out of time; 130
 * Ctrl-C. Plus --version and --help.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import { closedPort, newKey, since, writeProfile, writeProfiles, type Run } from './e2e.js';
import { freshWallet, type Sandbox } from './sandbox.js';

/** What a case runs against: a fresh config folder, logged in to `sb` with `key` unless the case changes it. */
export interface CaseWorld {
  /** Settles payouts in a minute: a payout stays Pending for the whole test. */
  sb: Sandbox;
  /** Settles payouts in 300 ms, for --wait to see them settle. */
  settling: Sandbox;
  /** PAYCTL_CONFIG_DIR of the run. */
  dir: string;
  /** The API key both sandboxes accept. */
  key: string;
}

export interface Prepared {
  args: string[];
  env?: Record<string, string>;
  /** Ctrl-C once this holds: interrupt() in process, a real SIGINT to the binary. */
  interruptWhen?: () => boolean;
  /**
   * What must hold of the run besides its exit code. `waits` is every wait asked of the
   * TestClock in process (cases with `testClock`); undefined from the binary, which waits for real.
   */
  check(r: Run, waits: number[] | undefined): void;
}

export interface ExitCodeCase {
  title: string;
  /** The exit code README.md documents for the case. */
  code: number;
  /** Also run from the built binary, as the shell sees it (one case per exit code). */
  shell?: true;
  /** In process, back-off and --wait run on a TestClock: their waits are checked, not waited. */
  testClock?: true;
  prepare(w: CaseWorld): Prepared | Promise<Prepared>;
}

/** The error document a --json create ends its stderr with (lines before it are the retries'). */
function lastJsonError(stderr: string): Record<string, unknown> {
  return (JSON.parse(stderr.trimEnd().split('\n').at(-1)!) as { error: Record<string, unknown> }).error;
}

/**
 * payout create --json left with an unknown outcome by a hang past --timeout, by HTTP 500s, or by
 * a signal: code OUTCOME_UNKNOWN (or INTERRUPTED, exit 130) whatever the cause, with the payout id;
 * before, undici's UND_ERR_HEADERS_TIMEOUT, NETWORK_ERROR for an HTTP 500, and null (probe C53, 2).
 */
function unknownCreateCases(): ExitCodeCase[] {
  const create = (sb: Sandbox, id: string, account: string) => [...waitArgs(freshWallet(sb, '1000.00', 'SLE'), id, account).filter((a) => a !== '--wait'), '--json'];
  return [
    {
      title: 'payout create --json that hangs past --timeout: OUTCOME_UNKNOWN, cause TIMEOUT',
      code: 4,
      testClock: true,
      prepare: ({ sb }) => {
        sb.faults.add({ kind: 'hang', method: 'POST', path: '/v2/payout', times: Infinity });
        const id = randomUUID();
        return {
          args: [...create(sb, id, '0123456787'), '--timeout', '0.5'],
          check: (r) => expect(lastJsonError(r.stderr)).toMatchObject({ code: 'OUTCOME_UNKNOWN', cause: 'TIMEOUT', payout_id: id }),
        };
      },
    },
    {
      title: 'payout create --json answered HTTP 500 every time: OUTCOME_UNKNOWN, cause SERVICE_ERROR',
      code: 4,
      testClock: true,
      prepare: ({ sb }) => {
        sb.faults.add({ kind: 'status', status: 500, method: 'POST', path: '/v2/payout', times: Infinity });
        const id = randomUUID();
        return {
          args: create(sb, id, '0123456786'),
          check: (r) => expect(lastJsonError(r.stderr)).toMatchObject({ code: 'OUTCOME_UNKNOWN', cause: 'SERVICE_ERROR', payout_id: id }),
        };
      },
    },
    {
      title: 'payout create --json interrupted while the request hangs: exit 130, code INTERRUPTED',
      code: 130,
      prepare: ({ sb }) => {
        sb.faults.add({ kind: 'hang', method: 'POST', path: '/v2/payout', times: Infinity });
        const id = randomUUID();
        const from = sb.requests().length;
        return {
          args: create(sb, id, '0123456785'),
          interruptWhen: () => since(sb, from).some((x) => x.path === '/v2/payout' && x.outcome === 'hang'),
          check: (r) => expect(lastJsonError(r.stderr)).toMatchObject({ code: 'INTERRUPTED', payout_id: id }),
        };
      },
    },
  ];
}

/** What each exit code means, as README.md says it (the describe blocks of both tiers). */
export const EXIT_CODES: ReadonlyArray<[number, string]> = [
  [0, 'success'],
  [1, 'the service refused or failed'],
  [2, 'usage errors, nothing sent'],
  [3, 'not logged in, or credentials refused'],
  [4, 'network failure or timeout'],
  [5, 'still pending when --wait ran out of time'],
  [130, 'interrupted'],
];

const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** Full-jitter back-off of the read policy (base 250 ms): retry n waits within [step/2, step]. */
export function expectReadBackoff(waits: number[], retries: number): void {
  expect(waits).toHaveLength(retries);
  waits.forEach((w, i) => {
    const step = 250 * 2 ** i;
    expect(w, `wait before retry ${i + 1}`).toBeGreaterThanOrEqual(step / 2);
    expect(w, `wait before retry ${i + 1}`).toBeLessThanOrEqual(step);
  });
}

/** Back-off is checked where the waits are known (in process, on a TestClock). */
function backoff(waits: number[] | undefined, retries: number): void {
  if (waits) expectReadBackoff(waits, retries);
}

/** `payout create --wait` of 10 SLE to a bank account (an account ending in 0000 settles Failed). */
function waitArgs(wallet: string, id: string, account: string): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    wallet,
    '--amount',
    '10',
    '--currency',
    'SLE',
    '--type',
    'bank',
    '--name',
    'Chinedu Okafor',
    '--provider',
    'ecobank',
    '--account',
    account,
    '--payout-id',
    id,
    '--yes',
    '--wait',
  ];
}

/** Usage errors: exit 2, the message on stderr, no stack trace, nothing sent. */
const USAGE: Array<[string[], string]> = [
  [['balances', '--bogus'], "error: unknown option '--bogus'"],
  [['payouts', 'list', '--limit', '0'], "error: option '--limit <n>' argument '0' is invalid. --limit must be a whole number from 1 to 100."],
  [['payouts', 'list', '--limit', '101'], '--limit must be a whole number from 1 to 100.'],
  [['payouts', 'list', '--limit', 'ten'], '--limit must be a whole number from 1 to 100.'],
  [['payouts', 'list', '--page', '0'], '--page must be a whole number of at least 1.\n(run `payctl payouts list --help` for usage)\n'],
  [['payouts', 'list', '--from', 'yesterday'], '--from: "yesterday" is not a date (2026-11-01) or an ISO timestamp'],
  [['payouts', 'list', '--from', '2026-02-30'], '--from: "2026-02-30" is not a real date'],
  [['payouts', 'list', '--from', '2026-11-02', '--to', '2026-11-01'], '--from is later than --to'],
  [['payouts', 'list', '--all', '--page', '2'], '--all and --page cannot be used together'],
  [['payouts', 'list', '--csv', '--json'], '--csv and --json cannot be used together'],
  [['summary', '--to', '11/30/2026'], '--to: "11/30/2026" is not a date'],
  [['balances', '--currency', 'XYZ'], '--currency: "XYZ" is not an ISO 4217 currency code'],
  [['balances', '--timeout', '0'], '--timeout must be a number of seconds, at least 0.1.'],
  [['balances', '--timeout', '0.0001'], '--timeout must be a number of seconds, at least 0.1.'],
  [['balances', '-p', '__proto__'], '"__proto__" is a reserved name: no profile may have it.'],
  [['config', 'set', 'base-url', 'https://x.example/v2', '-p', 'a b'], '"a b" is not a valid profile name.'],
  [['payout', 'get'], "error: missing required argument 'id'"],
  [['config', 'set', 'base-url'], "error: missing required argument 'value'"],
];

export const EXIT_CODE_CASES: readonly ExitCodeCase[] = [
  // 0: success
  {
    title: 'balances works and says nothing on stderr',
    code: 0,
    shell: true,
    prepare: () => ({
      args: ['balances'],
      check: (r) => {
        expect(r.stderr).toBe('');
        expect(r.stdout.split('\n').length).toBeGreaterThan(2);
      },
    }),
  },
  {
    title: 'a 5xx that clears up is retried into a success (exit 0)',
    code: 0,
    testClock: true,
    prepare: ({ sb }) => {
      sb.faults.add({ kind: 'status', status: 502, path: '/v2/wallets/balances', times: 2 });
      const from = sb.requests().length;
      return {
        args: ['balances', '--json'],
        check: (r, waits) => {
          expect(r.stderr).toBe('');
          expect(JSON.parse(r.stdout).status).toBe('Successful');
          expect(
            since(sb, from)
              .filter((x) => x.path === '/v2/wallets/balances')
              .map((x) => x.outcome),
          ).toEqual([502, 502, 200]);
          backoff(waits, 2);
        },
      };
    },
  },
  {
    title: 'payout create --wait exits 0 when the payout settles Successful',
    code: 0,
    prepare: ({ settling, dir, key }) => {
      writeProfile(dir, { baseUrl: settling.baseUrl, apiKey: key });
      const id = randomUUID();
      return {
        args: waitArgs(freshWallet(settling, '1000.00', 'SLE'), id, '0123456789'),
        check: (r) => {
          expect(r.stdout).toMatch(/Status\s+Successful/);
          // Named by its payout id and the transaction id it is read by.
          expect(r.stderr).toMatch(new RegExp(`Payout ${id} \\(transaction TXN-BOK-[0-9A-F]{26}\\) is Successful`));
        },
      };
    },
  },
  ...(['--version', '-V'] as const).map((flag): ExitCodeCase => ({
    title: `${flag} prints the version`,
    code: 0,
    prepare: () => ({
      args: [flag],
      check: (r) => {
        expect(r.stdout).toBe(`${VERSION}\n`);
        expect(r.stderr).toBe('');
      },
    }),
  })),
  {
    title: '--help lists every command and the global options, on stdout',
    code: 0,
    prepare: () => ({
      args: ['--help'],
      check: (r) => {
        expect(r.stderr).toBe('');
        expect(r.stdout).toMatch(/^Usage: payctl /);
        for (const cmd of ['login', 'logout', 'status', 'balances', 'payout', 'payouts', 'summary', 'config']) {
          expect(r.stdout).toMatch(new RegExp(`^  ${cmd}\\b`, 'm'));
        }
        for (const opt of ['--profile', '--base-url', '--json', '--no-input', '--no-color', '--verbose', '--timeout', '--version', '--help']) {
          expect(r.stdout).toContain(opt);
        }
        expect(r.stdout).toContain('Examples:');
      },
    }),
  },
  {
    title: 'payout --help lists its subcommands',
    code: 0,
    prepare: () => ({
      args: ['payout', '--help'],
      check: (r) => {
        expect(r.stderr).toBe('');
        expect(r.stdout).toMatch(/^Usage: payctl payout /);
        expect(r.stdout).toMatch(/^ {2}create\b/m);
        expect(r.stdout).toMatch(/^ {2}get \[options\] <id>|^ {2}get <id>/m);
      },
    }),
  },
  {
    title: 'payouts list --help shows every filter and an example',
    code: 0,
    prepare: () => ({
      args: ['payouts', 'list', '--help'],
      check: (r) => {
        for (const opt of ['--status', '--wallet', '--currency', '--from', '--to', '--limit', '--page', '--all', '--csv']) {
          expect(r.stdout).toContain(opt);
        }
        expect(r.stdout).toContain('$ payctl payouts list');
      },
    }),
  },

  // 1: the service refused or failed
  {
    title: '404 NOT_FOUND (unknown payout)',
    code: 1,
    shell: true,
    prepare: ({ sb }) => {
      const id = 'TXN-BOK-00000000000000000000000000';
      const from = sb.requests().length;
      return {
        args: ['payout', 'get', id],
        check: (r) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toMatch(
            new RegExp(
              `^Error: No payout ${id}: the service has no transaction with this id \\(it said: Transfer not found\\), and this config folder's journal has no payout with it\\.\n {2}HTTP 404 NOT_FOUND\n {2}Request ID: req_[0-9a-f]{24}\n` +
                'Payouts sent from this config folder, with their transaction ids: payctl history\nAll payouts at the service: payctl payouts list\n$',
            ),
          );
          expect(since(sb, from).map((x) => x.line)).toEqual([`GET /v2/payout/${id} 404`]);
        },
      };
    },
  },
  {
    title: 'an id that is neither a transaction id nor a journaled payout id: exit 1, nothing sent',
    code: 1,
    prepare: ({ sb }) => {
      const from = sb.requests().length;
      return {
        args: ['payout', 'get', 'TRX00000000000000000000'],
        check: (r) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toMatch(/^Error: No payout TRX00000000000000000000: it is not a transaction id \(TXN-BOK- and hex digits;/);
          expect(since(sb, from)).toEqual([]);
        },
      };
    },
  },
  {
    title: '422 is not retried',
    code: 1,
    prepare: ({ sb }) => {
      sb.faults.add({ kind: 'status', status: 422, path: '/v2/payout/list', method: 'GET', times: Infinity });
      const from = sb.requests().length;
      return {
        args: ['payouts', 'list'],
        check: (r) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toContain('Error: The request cannot be processed.\n  HTTP 422 UNPROCESSABLE\n  Request ID: req_');
          expect(
            since(sb, from)
              .filter((x) => x.path === '/v2/payout/list')
              .map((x) => x.outcome),
          ).toEqual([422]);
        },
      };
    },
  },
  {
    title: 'a Laravel validation 422 is not retried; its message and field errors are shown',
    code: 1,
    prepare: ({ sb }) => {
      const laravel = { message: 'The per page field must not be greater than 100.', errors: { per_page: ['The per page field must not be greater than 100.'] } };
      sb.faults.add({ kind: 'status', status: 422, path: '/v2/payout/list', method: 'GET', body: JSON.stringify(laravel), times: Infinity });
      const from = sb.requests().length;
      return {
        args: ['payouts', 'list'],
        check: (r) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toMatch(
            /^Error: The per page field must not be greater than 100\.\n {2}HTTP 422\n {2}- per_page: The per page field must not be greater than 100\.\n {2}Request ID: req_[0-9a-f]{24}\n$/,
          );
          expect(
            since(sb, from)
              .filter((x) => x.path === '/v2/payout/list')
              .map((x) => x.outcome),
          ).toEqual([422]);
        },
      };
    },
  },
  {
    title: '5xx after a bounded number of retries, with the request id and what to do',
    code: 1,
    testClock: true,
    prepare: ({ sb }) => {
      sb.faults.add({ kind: 'status', status: 500, path: '/v2/wallets/balances', times: Infinity });
      const from = sb.requests().length;
      return {
        args: ['balances'],
        check: (r, waits) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toContain('Error: Internal error; please retry.\n  HTTP 500 INTERNAL_ERROR\n  Request ID: req_');
          expect(r.stderr).toContain('try again later');
          const attempts = since(sb, from).filter((x) => x.path === '/v2/wallets/balances');
          expect(attempts.map((x) => x.outcome)).toEqual([500, 500, 500, 500]);
          backoff(waits, 3);
        },
      };
    },
  },
  {
    title: '5xx with --json: the error as JSON on stderr',
    code: 1,
    testClock: true,
    prepare: ({ sb }) => {
      sb.faults.add({ kind: 'status', status: 500, path: '/v2/payout/summary', times: Infinity });
      return {
        args: ['summary', '--json'],
        check: (r, waits) => {
          expect(r.stdout).toBe('');
          expect(JSON.parse(r.stderr).error).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
          backoff(waits, 3);
        },
      };
    },
  },
  {
    title: 'payout create --wait exits 1 with the failure reason when the payout settles Failed',
    code: 1,
    prepare: ({ settling, dir, key }) => {
      writeProfile(dir, { baseUrl: settling.baseUrl, apiKey: key });
      const id = randomUUID();
      return {
        args: waitArgs(freshWallet(settling, '1000.00', 'SLE'), id, '1230000'),
        check: (r) => {
          expect(r.stdout).toMatch(/Status\s+Failed/);
          expect(r.stderr).toMatch(
            new RegExp(`Error: Payout ${id} \\(transaction TXN-BOK-[0-9A-F]{26}\\) failed: Recipient account rejected by the provider \\(account not found\\)\\.`),
          );
        },
      };
    },
  },

  // 2: usage errors, nothing sent
  ...USAGE.map(([args, message]): ExitCodeCase => ({
    title: `payctl ${JSON.stringify(args)}`,
    code: 2,
    prepare: ({ sb }) => {
      const from = sb.requests().length;
      return {
        args,
        check: (r) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toContain(message);
          expect(r.stderr).not.toMatch(/^\s+at\s/m);
          expect(since(sb, from)).toEqual([]);
        },
      };
    },
  })),
  {
    title: 'an unknown command suggests the closest one',
    code: 2,
    shell: true,
    prepare: () => ({
      args: ['balance'],
      check: (r) => {
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe("error: unknown command 'balance'\n(Did you mean balances?)\n(run `payctl --help` for usage)\n");
      },
    }),
  },
  {
    title: 'an unknown subcommand suggests the closest one',
    code: 2,
    prepare: () => ({
      args: ['payouts', 'lst'],
      check: (r) => {
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe("error: unknown command 'lst'\n(Did you mean payouts list?)\n(run `payctl payouts --help` for usage)\n");
      },
    }),
  },

  // 3: not logged in, or credentials refused
  {
    title: 'no profile at all',
    code: 3,
    shell: true,
    prepare: ({ dir }) => {
      writeProfile(dir, {}, 'other');
      return {
        args: ['balances'],
        check: (r) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toContain('Error: Not logged in: profile "default" has no base URL.');
          expect(r.stderr).toContain('payctl login');
        },
      };
    },
  },
  {
    title: 'a profile with a base URL but no API key',
    code: 3,
    prepare: ({ sb, dir }) => {
      writeProfile(dir, { baseUrl: sb.baseUrl });
      const from = sb.requests().length;
      return {
        args: ['payouts', 'list'],
        check: (r) => {
          expect(r.stderr).toContain('Not logged in: profile "default" has no API key.');
          expect(r.stderr).toContain('Run `payctl login`');
          expect(since(sb, from)).toEqual([]);
        },
      };
    },
  },
  {
    title: 'a key the service refuses',
    code: 3,
    prepare: ({ sb, dir }) => {
      writeProfile(dir, { baseUrl: sb.baseUrl, apiKey: newKey() });
      return {
        args: ['balances'],
        check: (r) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toContain('Error: The service refused the API key (Unauthenticated.).');
          expect(r.stderr).toContain('HTTP 401 UNAUTHORIZED');
          expect(r.stderr).toContain('Run `payctl login` with a valid key.');
        },
      };
    },
  },
  ...(
    [
      ['a refused key under the only profile `tty`, chosen with --profile, prints `payctl login --profile tty`', ['balances', '--profile', 'tty'], {}],
      ['a refused key under the only profile `tty`, chosen with PAYCTL_PROFILE, prints `payctl login --profile tty`', ['balances'], { PAYCTL_PROFILE: 'tty' }],
    ] as const
  ).map(([title, args, env]): ExitCodeCase => ({
    title,
    code: 3,
    prepare: ({ sb, dir }) => {
      // The key is the bearer token: the sandbox refuses it with Laravel's 401 "Unauthenticated.".
      writeProfiles(dir, { tty: { baseUrl: sb.baseUrl, apiKey: 'sk_sandbox_refused_0000000000000000' } });
      const from = sb.requests().length;
      return {
        args: [...args],
        env: { ...env },
        check: (r) => {
          expect(r.stderr).toContain('Error: The service refused the API key (Unauthenticated.).');
          expect(r.stderr).toContain('The key may be wrong or revoked. Run `payctl login --profile tty` with a valid key.');
          expect(since(sb, from).map((x) => [x.path, x.headers.authorization])).toEqual([['/v2/wallets/balances', 'Bearer sk_sandbox_refused_0000000000000000']]);
          // The profile is kept as it was: still the only one.
          expect(existsSync(join(dir, 'config.json'))).toBe(true);
          expect(Object.keys((JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: object }).profiles)).toEqual(['tty']);
        },
      };
    },
  })),
  {
    title: 'a PAYCTL_API_KEY the service refuses (one request, never retried)',
    code: 3,
    prepare: ({ sb }) => {
      const from = sb.requests().length;
      return {
        args: ['balances'],
        env: { PAYCTL_API_KEY: newKey() },
        check: (r) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toContain('Error: The service refused the API key (Unauthenticated.).');
          expect(r.stderr).toContain('PAYCTL_API_KEY was refused');
          expect(since(sb, from).map((x) => x.line)).toEqual(['GET /v2/wallets/balances 401']);
        },
      };
    },
  },
  {
    title: 'a retired PAYCTL_TOKEN is never a credential: not logged in without a key, nothing sent',
    code: 3,
    prepare: ({ sb, dir, key }) => {
      writeProfile(dir, { baseUrl: sb.baseUrl });
      const from = sb.requests().length;
      return {
        args: ['balances'],
        env: { PAYCTL_TOKEN: key },
        check: (r) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toContain('PAYCTL_TOKEN is no longer used');
          expect(r.stderr).toContain('Not logged in: profile "default" has no API key.');
          expect(since(sb, from)).toEqual([]);
        },
      };
    },
  },

  // 4: network failure or timeout
  {
    title: 'a base URL on a closed port',
    code: 4,
    shell: true,
    testClock: true,
    prepare: async ({ dir, key }) => {
      const port = await closedPort();
      writeProfile(dir, { baseUrl: `http://127.0.0.1:${port}/v2`, apiKey: key });
      return {
        args: ['balances', '--verbose'],
        check: (r, waits) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toContain(`Error: Could not connect to 127.0.0.1:${port}: connection refused.`);
          expect(r.stderr).not.toMatch(/^\s+at\s/m);
          // Bounded: the request is tried 4 times in all (not 4 times 4), then nothing else is sent.
          const attempts = r.stderr.split('\n').filter((l) => /^> [A-Z]+ http/.test(l));
          expect(attempts).toEqual(Array(4).fill(`> GET http://127.0.0.1:${port}/v2/wallets/balances`));
          backoff(waits, 3);
        },
      };
    },
  },
  {
    title: 'a service that never answers, with --timeout 0.5 (bounded retries)',
    code: 4,
    // Each attempt hangs for the real half second; the back-off between them is on a TestClock.
    testClock: true,
    prepare: ({ sb }) => {
      sb.faults.add({ kind: 'hang', path: '/v2/wallets/balances', times: Infinity });
      const from = sb.requests().length;
      return {
        args: ['balances', '--timeout', '0.5', '--json'],
        check: (r, waits) => {
          expect(r.stdout).toBe('');
          const err = JSON.parse(r.stderr).error;
          const hung = since(sb, from).filter((x) => x.path === '/v2/wallets/balances');
          // The per-attempt limit with the attempts and the time in all (the back-off, on the
          // TestClock; probe 70-S, 7: before, "within 0.5 s." alone).
          expect(err.message).toMatch(new RegExp(`^No answer from 127\\.0\\.0\\.1:${sb.port} within 0\\.5 s, ${hung.length} attempts over \\d+ s\\.$`));
          // payctl's documented code, never undici's name for it (UND_ERR_HEADERS_TIMEOUT before; probe C53, 2).
          expect(err.code).toBe('TIMEOUT');
          expect(hung.length).toBeGreaterThanOrEqual(2);
          expect(hung.length).toBeLessThanOrEqual(4);
          expect(hung.every((x) => x.outcome === 'hang')).toBe(true);
          backoff(waits, hung.length - 1);
          expect(r.ms).toBeLessThan(15_000);
        },
      };
    },
  },

  {
    title: 'payout create --json whose answer never arrives: exit 4, the error names the payout for scripts',
    code: 4,
    testClock: true,
    prepare: ({ sb }) => {
      sb.faults.add({ kind: 'reset-after-commit', method: 'POST', path: '/v2/payout', times: Infinity });
      const id = randomUUID();
      return {
        args: [...waitArgs(freshWallet(sb, '1000.00', 'SLE'), id, '0123456788').filter((a) => a !== '--wait'), '--json'],
        check: (r) => {
          expect(r.stdout).toBe('');
          const err = JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!).error;
          expect(err.message).toMatch(new RegExp(`^The outcome of payout ${id} is unknown: it may or may not have been made`));
          // What a script needs to find out: the payout id, apart from the text.
          expect(err.payout_id).toBe(id);
          expect(err.hint).toContain(`payctl history reconcile --payout-id ${id}`);
          // One code for an unknown outcome, as `payout get` gives; what left it so in `cause`.
          expect(err).toMatchObject({ code: 'OUTCOME_UNKNOWN', cause: 'CONNECTION_RESET', status: null });
        },
      };
    },
  },
  ...unknownCreateCases(),
  {
    title: 'balances --json against a reset connection: code CONNECTION_RESET',
    code: 4,
    testClock: true,
    prepare: ({ sb }) => {
      sb.faults.add({ kind: 'reset-before-commit', path: '/v2/wallets/balances', times: Infinity });
      return {
        args: ['balances', '--json'],
        check: (r) => expect(JSON.parse(r.stderr).error.code).toBe('CONNECTION_RESET'),
      };
    },
  },
  {
    title: 'balances --json against a closed port: code CONNECTION_REFUSED',
    code: 4,
    testClock: true,
    prepare: async ({ dir, key }) => {
      writeProfile(dir, { baseUrl: `http://127.0.0.1:${await closedPort()}/v2`, apiKey: key });
      return { args: ['balances', '--json'], check: (r) => expect(JSON.parse(r.stderr).error.code).toBe('CONNECTION_REFUSED') };
    },
  },

  // 5: still pending when --wait ran out of time
  {
    title: 'payout create --wait --wait-timeout 1 exits 5 with the command to keep waiting',
    code: 5,
    shell: true,
    testClock: true,
    prepare: ({ sb }) => {
      const id = randomUUID();
      return {
        args: [...waitArgs(freshWallet(sb, '1000.00', 'SLE'), id, '0123456789'), '--wait-timeout', '1'],
        check: (r) => {
          expect(r.stdout).toMatch(/Status\s+Pending/);
          const txn = /\(transaction (TXN-BOK-[0-9A-F]{26})\)/.exec(r.stderr)?.[1];
          expect(txn, r.stderr).toBeDefined();
          expect(r.stderr).toContain(`Error: Payout ${id} (transaction ${txn}) is still Pending after 1 s (--wait-timeout 1). It was accepted and may still settle.\n`);
          // The printed command names the transaction id: the service looks payouts up by it.
          expect(r.stderr).toContain(`Keep waiting with: payctl payout get ${txn} --wait\n`);
        },
      };
    },
  },

  // 130: interrupted
  {
    title: 'SIGINT while a request hangs ends payctl with 130',
    code: 130,
    shell: true,
    prepare: ({ sb }) => {
      sb.faults.add({ kind: 'hang', path: '/v2/wallets/balances' });
      const from = sb.requests().length;
      return {
        args: ['balances'],
        interruptWhen: () => since(sb, from).some((x) => x.path === '/v2/wallets/balances' && x.outcome === 'hang'),
        check: (r) => {
          expect(r.stdout).toBe('');
          expect(r.stderr).toBe('Error: Interrupted.\n');
        },
      };
    },
  },
];
