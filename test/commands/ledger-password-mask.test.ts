/**
 * A short ledger password (3-4 characters, below what the run's secret mask looks for) under
 * every key libpq reads as `password` (`password`, `pass%77ord`, `%70assword`) or in the user
 * part, through payctl's main, in process: the "Cannot reach the payout ledger" error shows the
 * URL with `****` in text, --json and --verbose, as `config` and `ledger status` do (one masker,
 * config/ledger-setting.ts maskLedgerUrl; the error path had its own, which knew only `password=`),
 * against a closed port and a real PostgreSQL that refuses the password.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closedPort, useConfigDir, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { useSandbox } from '../helpers/sandbox.js';
import { sharedPostgres, type SharedPostgres } from '../helpers/postgres.js';

const ctx = useSandbox();
const cfg = useConfigDir();
const run = (args: string[], env: Record<string, string>): Promise<Run> => payctl(args, { dir: cfg.dir, env });

let server: SharedPostgres;
beforeAll(async () => {
  server = await sharedPostgres();
});
beforeEach(async () => {
  await writeLoggedIn(ctx.sb, cfg.dir);
});

const PASSWORDS = ['Qz7', 'Jx4w'];
const KEYS = ['password', 'pass%77ord', '%70assword'];

/** Neither stream holds the password anywhere. */
function expectMasked(r: Run, password: string): void {
  expect(r.stdout).not.toContain(password);
  expect(r.stderr).not.toContain(password);
}

describe('a short ledger password in a run that cannot reach the ledger', () => {
  it.each(KEYS.flatMap((key) => PASSWORDS.map((pw) => [key, pw])))('?%s=%s is **** in the error (text, --json, --verbose)', async (key, pw) => {
    const base = `postgres://payctl@127.0.0.1:${await closedPort()}/payctl`;
    const env = { PAYCTL_LEDGER_URL: `${base}?${key}=${pw}` };
    const shown = `${base}?${key}=****`;
    const text = await run(['history'], env);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain(`Cannot reach the payout ledger ${shown}: `);
    const json = await run(['history', '--json'], env);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr).error.message).toContain(`Cannot reach the payout ledger ${shown}: `);
    const verbose = await run(['ledger', 'status', '--verbose'], env);
    expect(verbose.code).toBe(2);
    expect(verbose.stderr).toContain(`Cannot reach the payout ledger ${shown}: `);
    for (const r of [text, json, verbose]) expectMasked(r, pw);
  });

  it.each(PASSWORDS)('in the user part (%s): **** in the error', async (pw) => {
    const port = await closedPort();
    const r = await run(['history', '--json', '--verbose'], { PAYCTL_LEDGER_URL: `postgres://payctl:${pw}@127.0.0.1:${port}/payctl` });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr.trimEnd().split('\n').pop()!).error.message).toContain(`Cannot reach the payout ledger postgres://payctl:****@127.0.0.1:${port}/payctl: `);
    expectMasked(r, pw);
  });

  it('a real server refusing a short password given as pass%77ord: **** in the error and the --verbose lines', async () => {
    const url = new URL(await server.freshDatabase('shortpw'));
    const base = `postgres://${url.username}@${url.host}${url.pathname}`;
    const r = await run(['ledger', 'status', '--verbose'], { PAYCTL_LEDGER_URL: `${base}?pass%77ord=Jx4w` });
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain(`${base}?pass%77ord=****`);
    expectMasked(r, 'Jx4w');
  });
});
