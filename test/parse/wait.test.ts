/**
 * Parser tests of `--wait` and `--wait-timeout` on `payout create` and `payout get`
 * (argv -> options, test/helpers/parse.ts): the flags as the run gets them, whole and
 * decimal seconds, and what commander refuses (bad values, the upper bound, a missing
 * value, --wait-timeout without --wait), each with exactly what a user sees on stderr.
 */
import { describe, expect, it } from 'vitest';
import { parse, refuse } from '../helpers/parse.js';
import { usageHint } from '../helpers/usage-hint.js';
import type { PayoutCreateOptions } from '../../src/commands/payout/create.js';
import type { PayoutGetOptions } from '../../src/commands/payout/get.js';

/** What stderr holds for a usage error: the message, then the hint. */
/** What stderr holds for a usage error of `command`: the message, then the pointer to its help. */
const seen = (command: string, message: string) => `error: ${message}\n${usageHint(command)}\n`;

const CREATE = ['payout', 'create', '--wallet', 'wal_1', '--amount', '10', '--currency', 'SLE', '--yes'];
const GET = ['payout', 'get', 'po_1'];
const COMMANDS: Array<[string, string[]]> = [
  ['payout create', CREATE],
  ['payout get', GET],
];

describe('payout get --wait', () => {
  it('without --wait: no wait options at all', async () => {
    const p = await parse(...GET);
    expect(p.opts).toEqual({ id: 'po_1' } satisfies PayoutGetOptions);
  });

  it('--wait alone: the default limit is the run’s (no waitTimeout)', async () => {
    const p = await parse(...GET, '--wait');
    expect(p.opts).toEqual({ id: 'po_1', wait: true } satisfies PayoutGetOptions);
  });

  it('--wait --wait-timeout 120, the flags before the id too', async () => {
    expect((await parse(...GET, '--wait', '--wait-timeout', '120')).opts).toEqual({ id: 'po_1', wait: true, waitTimeout: 120 } satisfies PayoutGetOptions);
    expect((await parse('payout', 'get', '--wait-timeout=2.5', '--wait', 'po_1')).opts).toEqual({ id: 'po_1', wait: true, waitTimeout: 2.5 } satisfies PayoutGetOptions);
  });
});

describe('payout create --wait', () => {
  it('--wait --wait-timeout 2 beside the payout flags', async () => {
    const p = await parse(...CREATE, '--wait', '--wait-timeout', '2');
    expect(p.path).toBe('payout create');
    expect(p.opts).toMatchObject({ wallet: 'wal_1', amount: '10', currency: 'SLE', yes: true, wait: true, waitTimeout: 2 } satisfies PayoutCreateOptions);
  });

  it('without --wait the options hold no wait key', async () => {
    const p = await parse(...CREATE);
    expect(p.opts).not.toHaveProperty('wait');
    expect(p.opts).not.toHaveProperty('waitTimeout');
  });

  it('--wait works with --json (a global option)', async () => {
    const p = await parse(...CREATE, '--wait', '--json');
    expect(p.opts).toMatchObject({ wait: true });
    expect(p.globals().json).toBe(true);
  });
});

for (const [name, argv] of COMMANDS) {
  describe(`${name} --wait-timeout values`, () => {
    for (const [value, seconds] of [
      ['1', 1],
      ['600', 600],
      ['0.5', 0.5],
      ['.25', 0.25],
      ['2.', 2],
      ['86400', 86_400],
    ] as const) {
      it(`--wait-timeout ${value} is ${seconds} s`, async () => {
        expect((await parse(...argv, '--wait', '--wait-timeout', value)).opts.waitTimeout).toBe(seconds);
      });
    }

    const bad = (v: string) =>
      `option '--wait-timeout <seconds>' argument '${v}' is invalid. --wait-timeout must be ${
        ['0', '0.0'].includes(v)
          ? 'a number of seconds, more than 0.'
          : 'a plain number of seconds (digits and at most one ".", e.g. 30 or 2.5), more than 0 and at most 86400.'
      }`;
    for (const value of ['0', '0.0', '-1', 'abc', '1e3', '10s', '1,5', '', ' 5', 'Infinity', 'NaN']) {
      it(`--wait-timeout ${JSON.stringify(value)} is refused`, async () => {
        const r = await refuse(...argv, '--wait', '--wait-timeout', value);
        expect(r.code).toBe('commander.invalidArgument');
        expect(r.message).toBe(bad(value));
        expect(r.stderr).toBe(seen(name, bad(value)));
      });
    }

    it('more than a day is refused with the upper bound', async () => {
      const r = await refuse(...argv, '--wait', '--wait-timeout', '86400.5');
      expect(r.code).toBe('commander.invalidArgument');
      expect(r.message).toBe("option '--wait-timeout <seconds>' argument '86400.5' is invalid. --wait-timeout must be at most 86400 seconds (a day).");
    });

    it('--wait-timeout without a value', async () => {
      const r = await refuse(...argv, '--wait', '--wait-timeout');
      expect(r.code).toBe('commander.optionMissingArgument');
      expect(r.stderr).toBe(seen(name, "option '--wait-timeout <seconds>' argument missing"));
    });

    it('--wait-timeout without --wait is refused, and nothing runs', async () => {
      const r = await refuse(...argv, '--wait-timeout', '30');
      expect(r.code).toBe('payctl.invalidOptions');
      expect(r.message).toBe('--wait-timeout needs --wait.');
      expect(r.stderr).toBe(seen(name, '--wait-timeout needs --wait.'));
    });

    it('--wait takes no value: a word after it is an argument, not a time', async () => {
      const r = await refuse(...argv, '--wait', '30');
      expect(r.code).toBe('commander.excessArguments');
    });
  });
}
