/**
 * Every exit code of README.md, in process (payctl's main with in-memory streams, the sandbox
 * over real HTTP): 0 success; 1 the service refused or failed (404, 422, 5xx after bounded
 * retries); 2 usage errors with nothing sent; 3 not logged in or credentials refused; 4
 * network failure or timeout; 130 Ctrl-C. Plus --version and --help. Retries against a
 * sandbox that answers at once run on a TestClock (the back-off asked for is checked, not
 * waited); the exit code as the shell sees it is in test/e2e/exit-codes.test.ts.
 */
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { closedPort, newKey, since, until, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

const run = (...args: string[]) => payctl(args, { dir: cfg.dir });
/** A run on a TestClock: retry waits are recorded, not waited. */
const runTimed = (clock: TestClock, ...args: string[]) => payctl(args, { dir: cfg.dir, clock });

/** Full-jitter back-off of the read policy (base 250 ms): retry n waits within [step/2, step]. */
function expectReadBackoff(waits: number[], retries: number): void {
  expect(waits).toHaveLength(retries);
  waits.forEach((w, i) => {
    const step = 250 * 2 ** i;
    expect(w, `wait before retry ${i + 1}`).toBeGreaterThanOrEqual(step / 2);
    expect(w, `wait before retry ${i + 1}`).toBeLessThanOrEqual(step);
  });
}

beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));
afterEach(() => ctx.sb.faults.clear());

describe('0: success', () => {
  it('balances works and says nothing on stderr', async () => {
    const r = await run('balances');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').length).toBeGreaterThan(2);
  });
});

describe('1: the service refused or failed', () => {
  it('404 NOT_FOUND (unknown payout)', async () => {
    const id = 'TXN-BOK-00000000000000000000000000';
    const from = ctx.sb.requests().length;
    const r = await run('payout', 'get', id);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^Error: No payout ${id}: the service has no transaction with this id \\(it said: Transfer not found\\), and this machine's journal has no payout with it\\.\n {2}HTTP 404 NOT_FOUND\n {2}Request ID: req_[0-9a-f]{24}\n` +
          'Payouts this machine sent, with their transaction ids: payctl history\nAll payouts at the service: payctl payouts list\n$',
      ),
    );
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual([`GET /v2/payout/${id} 404`]);
  });

  it('an id that is neither a transaction id nor a journaled payout id: exit 1, nothing sent', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('payout', 'get', 'TRX00000000000000000000');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Error: No payout TRX00000000000000000000: it is not a transaction id \(TXN-BOK- and 26 hex digits;/);
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('422 is not retried', async () => {
    ctx.sb.faults.add({ kind: 'status', status: 422, path: '/v2/payout/list', method: 'GET', times: Infinity });
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: The request cannot be processed.\n  HTTP 422 UNPROCESSABLE\n  Request ID: req_');
    expect(
      since(ctx.sb, from)
        .filter((x) => x.path === '/v2/payout/list')
        .map((x) => x.outcome),
    ).toEqual([422]);
  });

  it('a Laravel validation 422 is not retried; its message and field errors are shown', async () => {
    const laravel = { message: 'The per page field must not be greater than 100.', errors: { per_page: ['The per page field must not be greater than 100.'] } };
    ctx.sb.faults.add({ kind: 'status', status: 422, path: '/v2/payout/list', method: 'GET', body: JSON.stringify(laravel), times: Infinity });
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^Error: The per page field must not be greater than 100\.\n {2}HTTP 422\n {2}- per_page: The per page field must not be greater than 100\.\n {2}Request ID: req_[0-9a-f]{24}\n$/,
    );
    expect(
      since(ctx.sb, from)
        .filter((x) => x.path === '/v2/payout/list')
        .map((x) => x.outcome),
    ).toEqual([422]);
  });

  it('5xx after a bounded number of retries, with the request id and what to do', async () => {
    ctx.sb.faults.add({ kind: 'status', status: 500, path: '/v2/wallets/balances', times: Infinity });
    const from = ctx.sb.requests().length;
    const clock = new TestClock();
    const r = await runTimed(clock, 'balances');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: Internal error; please retry.\n  HTTP 500 INTERNAL_ERROR\n  Request ID: req_');
    expect(r.stderr).toContain('try again later');
    const attempts = since(ctx.sb, from).filter((x) => x.path === '/v2/wallets/balances');
    expect(attempts.map((x) => x.outcome)).toEqual([500, 500, 500, 500]);
    expectReadBackoff(clock.waits, 3);
  });

  it('5xx with --json: the error as JSON on stderr', async () => {
    ctx.sb.faults.add({ kind: 'status', status: 500, path: '/v2/payout/summary', times: Infinity });
    const clock = new TestClock();
    const r = await runTimed(clock, 'summary', '--json');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
    expectReadBackoff(clock.waits, 3);
  });

  it('a 5xx that clears up is retried into a success (exit 0)', async () => {
    ctx.sb.faults.add({ kind: 'status', status: 502, path: '/v2/wallets/balances', times: 2 });
    const from = ctx.sb.requests().length;
    const clock = new TestClock();
    const r = await runTimed(clock, 'balances', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).status).toBe('Successful');
    expect(
      since(ctx.sb, from)
        .filter((x) => x.path === '/v2/wallets/balances')
        .map((x) => x.outcome),
    ).toEqual([502, 502, 200]);
    expectReadBackoff(clock.waits, 2);
  });
});

describe('2: usage errors, nothing sent', () => {
  it.each([
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
    [['balances', '-p', '__proto__'], '"__proto__" is not a valid profile name.'],
    [['config', 'set', 'base-url', 'https://x.example/v2', '-p', 'a b'], '"a b" is not a valid profile name.'],
    [['payout', 'get'], "error: missing required argument 'id'"],
    [['config', 'set', 'base-url'], "error: missing required argument 'value'"],
  ])('payctl %j', async (args, message) => {
    const from = ctx.sb.requests().length;
    const r = await payctl(args, { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/^\s+at\s/m);
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('an unknown command suggests the closest one', async () => {
    const r = await run('balance');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("error: unknown command 'balance'\n(Did you mean balances?)\n(run `payctl --help` for usage)\n");

    const sub = await run('payouts', 'lst');
    expect(sub.code, sub.stderr).toBe(2);
    expect(sub.stderr).toBe("error: unknown command 'lst'\n(Did you mean payouts list?)\n(run `payctl payouts --help` for usage)\n");
  });
});

describe('3: not logged in, or credentials refused', () => {
  it('no profile at all', async () => {
    writeProfile(cfg.dir, {}, 'other');
    const r = await run('balances');
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: Not logged in: profile "default" has no base URL.');
    expect(r.stderr).toContain('payctl login');
  });

  it('a profile with a base URL but no API key', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl });
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list');
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('Not logged in: profile "default" has no API key.');
    expect(r.stderr).toContain('Run `payctl login`');
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('a key the service refuses', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: newKey() });
    const r = await run('balances');
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: The service refused the API key (Unauthenticated.).');
    expect(r.stderr).toContain('HTTP 401 UNAUTHORIZED');
    expect(r.stderr).toContain('Run `payctl login` with a valid key.');
  });

  it('a PAYCTL_API_KEY the service refuses (one request, never retried)', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances'], { dir: cfg.dir, env: { PAYCTL_API_KEY: newKey() } });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: The service refused the API key (Unauthenticated.).');
    expect(r.stderr).toContain('PAYCTL_API_KEY was refused');
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/wallets/balances 401']);
  });

  it('a retired PAYCTL_TOKEN is never a credential: not logged in without a key, nothing sent', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl });
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances'], { dir: cfg.dir, env: { PAYCTL_TOKEN: KEY } });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('PAYCTL_TOKEN is no longer used');
    expect(r.stderr).toContain('Not logged in: profile "default" has no API key.');
    expect(since(ctx.sb, from)).toEqual([]);
  });
});

describe('4: network failure or timeout', () => {
  it('a base URL on a closed port', async () => {
    const port = await closedPort();
    writeProfile(cfg.dir, { baseUrl: `http://127.0.0.1:${port}/v2`, apiKey: KEY });
    const clock = new TestClock();
    const r = await runTimed(clock, 'balances', '--verbose');
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Error: Could not connect to 127.0.0.1:${port}: connection refused.`);
    expect(r.stderr).not.toMatch(/^\s+at\s/m);
    // Bounded: the request is tried 4 times in all (not 4 times 4), then nothing else is sent.
    const attempts = r.stderr.split('\n').filter((l) => /^> [A-Z]+ http/.test(l));
    expect(attempts).toEqual(Array(4).fill(`> GET http://127.0.0.1:${port}/v2/wallets/balances`));
    expectReadBackoff(clock.waits, 3);
  });

  it('a service that never answers, with --timeout 0.5 (bounded retries)', async () => {
    ctx.sb.faults.add({ kind: 'hang', path: '/v2/wallets/balances', times: Infinity });
    const from = ctx.sb.requests().length;
    // Each attempt hangs for the real second; the back-off between them is on a TestClock.
    const clock = new TestClock();
    const r = await payctl(['balances', '--timeout', '0.5', '--json'], { dir: cfg.dir, clock });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr).error;
    expect(err.message).toBe(`No answer from 127.0.0.1:${ctx.sb.port} within 0.5 s.`);
    expect(err.code).toBe('UND_ERR_HEADERS_TIMEOUT');
    const hung = since(ctx.sb, from).filter((x) => x.path === '/v2/wallets/balances');
    expect(hung.length).toBeGreaterThanOrEqual(2);
    expect(hung.length).toBeLessThanOrEqual(4);
    expect(hung.every((x) => x.outcome === 'hang')).toBe(true);
    expectReadBackoff(clock.waits, hung.length - 1);
    expect(r.ms).toBeLessThan(15_000);
  });
});

describe('130: interrupted', () => {
  it('SIGINT while a request hangs ends payctl with 130', async () => {
    ctx.sb.faults.add({ kind: 'hang', path: '/v2/wallets/balances' });
    const from = ctx.sb.requests().length;
    const started = startPayctl(['balances'], { dir: cfg.dir });
    await until(() => since(ctx.sb, from).some((x) => x.path === '/v2/wallets/balances' && x.outcome === 'hang'));
    started.interrupt();
    const r = await started.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('Error: Interrupted.\n');
  });
});

describe('--version and --help', () => {
  it('--version and -V print the version', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await run(flag);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${VERSION}\n`);
      expect(r.stderr).toBe('');
    }
  });

  it('--help lists every command and the global options, on stdout', async () => {
    const r = await run('--help');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: payctl /);
    for (const cmd of ['login', 'logout', 'status', 'balances', 'payout', 'payouts', 'summary', 'config']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${cmd}\\b`, 'm'));
    }
    for (const opt of ['--profile', '--base-url', '--json', '--no-input', '--no-color', '--verbose', '--timeout', '--version', '--help']) {
      expect(r.stdout).toContain(opt);
    }
    expect(r.stdout).toContain('Examples:');
  });

  it('payout --help lists its subcommands', async () => {
    const r = await run('payout', '--help');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: payctl payout /);
    expect(r.stdout).toMatch(/^ {2}create\b/m);
    expect(r.stdout).toMatch(/^ {2}get \[options\] <id>|^ {2}get <id>/m);
  });

  it('payouts list --help shows every filter and an example', async () => {
    const r = await run('payouts', 'list', '--help');
    expect(r.code, r.stderr).toBe(0);
    for (const opt of ['--status', '--wallet', '--currency', '--from', '--to', '--limit', '--page', '--all', '--csv']) {
      expect(r.stdout).toContain(opt);
    }
    expect(r.stdout).toContain('$ payctl payouts list');
  });
});
