/**
 * Every exit code of README.md as the shell sees it, from the built binary: one
 * representative case each for 0, 1, 2, 3, 4 and 130 (a real SIGINT), and a reader that
 * goes away (EPIPE). The behaviour of every case (and many more) is tested in process in
 * test/commands/exit-codes.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { BIN, cliEnv } from '../helpers/cli.js';
import { closedPort, newKey, payctl, since, startCli, until, useConfigDir, writeProfile } from '../helpers/e2e.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();

const run = (...args: string[]) => payctl(args, { dir: cfg.dir });

beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));
afterEach(() => ctx.sb.faults.clear());

describe('0: success', () => {
  it('balances works and says nothing on stderr', async () => {
    const r = await run('balances');
    expect(r.code, r.stderr).toBe(0);
    expect(r.signal).toBeNull();
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
});

describe('2: usage errors, nothing sent', () => {
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
});

describe('4: network failure or timeout', () => {
  it('a base URL on a closed port', async () => {
    const port = await closedPort();
    writeProfile(cfg.dir, { baseUrl: `http://127.0.0.1:${port}/v2`, apiKey: KEY });
    const r = await run('balances', '--verbose');
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Error: Could not connect to 127.0.0.1:${port}: connection refused.`);
    expect(r.stderr).not.toMatch(/^\s+at\s/m);
    // Bounded: the request is tried 4 times in all (not 4 times 4), then nothing else is sent.
    const attempts = r.stderr.split('\n').filter((l) => /^> [A-Z]+ http/.test(l));
    expect(attempts).toEqual(Array(4).fill(`> GET http://127.0.0.1:${port}/v2/wallets/balances`));
  });
});

describe('130: interrupted', () => {
  // A real SIGINT to the process.
  it('SIGINT while a request hangs ends payctl with 130', async () => {
    ctx.sb.faults.add({ kind: 'hang', path: '/v2/wallets/balances' });
    const from = ctx.sb.requests().length;
    const { child, done } = startCli(['balances'], { dir: cfg.dir });
    await until(() => since(ctx.sb, from).some((x) => x.path === '/v2/wallets/balances' && x.outcome === 'hang'));
    child.kill('SIGINT');
    const r = await done;
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('Error: Interrupted.\n');
  });
});

describe('a reader that goes away', () => {
  // A pipe closed by another process.
  it('help piped to `head -1` ends quietly: exit 0, no EPIPE stack trace', () => {
    const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" sandbox start --help | head -1`], { env: cliEnv(cfg.dir), encoding: 'utf8' });
    expect(r.stdout).toBe('Usage: payctl sandbox start [options]\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
