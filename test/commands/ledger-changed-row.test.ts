/**
 * A shared-ledger row changed in the database, met by the commands that read it, through
 * payctl's main, in process, against a real PostgreSQL and the sandbox (README "Working as a
 * team"): the refusal's `payctl ledger verify` carries the run's profile and base URL, and run
 * as printed it checks that ledger (it said "Nothing to verify" of the default profile); a
 * ledger PAYCTL_LEDGER_URL named is said to be needed too; and `history` (table, --csv,
 * --json) lists what verifies but exits 2, the list being incomplete (it exited 0).
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newKey, oneJson, useConfigDir, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { printed } from '../helpers/printed.js';
import { payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { sharedPostgres, sql, type SharedPostgres } from '../helpers/postgres.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const run = (args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<Run> => payctl(args, { dir: cfg.dir, ...opts });

let server: SharedPostgres;
beforeAll(async () => {
  server = await sharedPostgres();
});
beforeEach(async () => {
  // Only profile "team": a bare command would use "default", which has no ledger.
  await writeLoggedIn(ctx.sb, cfg.dir, KEY, 'team');
  ctx.sb.clearRequests();
});

/** Two payouts journaled in a fresh shared ledger of profile "team", then the outcome column of `changed` edited by hand. */
async function changedRow(changed: string, kept: string): Promise<string> {
  const url = await server.freshDatabase('changedrow');
  const set = await run(['config', 'set', 'ledger', '--stdin', '--profile', 'team'], { input: `${url}\n` });
  expect(set.code, set.stderr).toBe(0);
  const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  for (const id of [changed, kept]) {
    const sent = await run([...payoutArgs(wallet, id), '--profile', 'team']);
    expect(sent.code, sent.stderr).toBe(0);
  }
  await sql(url, `UPDATE payctl_ledger_entries SET outcome = 'rejected' WHERE payout_id = $1`, [changed]);
  return url;
}

describe('a shared-ledger row changed in the database', () => {
  it('the refusal prints ledger verify with the run profile and base URL; run as printed it names the row (exit 1)', async () => {
    await changedRow('chg-1', 'chg-2');
    const get = await run(['payout', 'get', 'chg-1', '--profile', 'team', '--base-url', ctx.sb.baseUrl]);
    expect(get.code, get.stderr).toBe(2);
    expect(get.stderr).toContain('The entry of payout chg-1 in the payout ledger');
    const verify = printed(get.stderr, 'ledger verify');
    expect(verify).toEqual(['ledger', 'verify', '--profile', 'team', '--base-url', ctx.sb.baseUrl]);
    const checked = await run(verify);
    expect(checked.code, checked.stderr).toBe(1);
    expect(checked.stdout).toContain('1 row does not verify');
    expect(checked.stdout).toContain('  chg-1 (');

    // --json: the hint carries the same command.
    const j = await run(['payout', 'get', 'chg-1', '--profile', 'team', '--json']);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stderr).error.hint).toMatch(/with: payctl ledger verify --profile team$/);
  });

  it('a ledger PAYCTL_LEDGER_URL named: the hint says it is needed for the printed command', async () => {
    const url = await changedRow('env-1', 'env-2');
    const get = await run(['payout', 'get', 'env-1', '--profile', 'team'], { env: { PAYCTL_LEDGER_URL: url } });
    expect(get.code, get.stderr).toBe(2);
    expect(get.stderr).toContain('With PAYCTL_LEDGER_URL set as for this run, list every such row and who signed the others with: payctl ledger verify --profile team\n');
    const checked = await run(printed(get.stderr, 'ledger verify'), { env: { PAYCTL_LEDGER_URL: url } });
    expect(checked.code, checked.stderr).toBe(1);
    expect(checked.stdout).toContain('  env-1 (');
  });

  it('history lists the rows that verify, names the one that does not, and exits 2 (table, --csv, --json)', async () => {
    await changedRow('hist-1', 'hist-2');
    for (const format of [[], ['--csv'], ['--json']]) {
      const h = await run(['history', '--profile', 'team', ...format]);
      expect(h.code, `${format.join(' ')}: ${h.stderr}`).toBe(2);
      expect(h.stdout).toContain('hist-2');
      expect(h.stdout).not.toContain('hist-1');
      expect(h.stderr).toContain('1 journal entry was passed over: it could not be read or verified, so the list is incomplete (exit 2).');
      expect(h.stderr).toContain('The entry of payout hist-1 in the payout ledger');
    }
    const j = await run(['history', '--profile', 'team', '--json']);
    expect((oneJson(j.stdout) as { count: number }).count).toBe(1);
  });
});
