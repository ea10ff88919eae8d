/**
 * A batch resumed whose rows an older payctl journaled (without the id of the key that sent
 * them) and left of unknown outcome, when the run's wallets cannot be read (probe R58a finding
 * 4). Before, the batch's own read of the wallets (its wallet check and balances) failed first:
 * exit 1 "Server Error" (`--json`: no OUTCOME_UNKNOWN), naming no row. Now the run stops as a
 * resume that leaves such rows unknown does: exit 4 OUTCOME_UNKNOWN with the read's cause, the
 * rows named (`--json`: `errors`, one a row), the command to run again printed runnable, and
 * nothing sent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshWallet } from '../helpers/sandbox.js';
import { useTwoAccounts } from '../helpers/two-accounts.js';
import { Journal } from '../../src/payouts/journal.js';

const t = useTwoAccounts();
const { a, run } = t;
const HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';

describe("an older payctl's batch of unknown rows resumed while the run's wallets cannot be read", () => {
  it('exits 4 OUTCOME_UNKNOWN naming the rows and the command to run again, nothing sent', async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    const file = join(t.dir, 'pay.csv');
    writeFileSync(file, HEADER + [1, 2].map((i) => `u-${i},${wallet},5${i}.00,SLE,bank,Ibrahim,ecobank,0011223344,,row${i}`).join('\n') + '\n');
    const batch = ['payout', 'batch', file, '--batch-id', 'nov1', '--profile', 'teama', '--yes', '--concurrency', '1'];
    a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await run(batch)).code).toBe(4);
    a.sb.faults.clear();
    const journal = new Journal(t.dir);
    for (const id of ['u-1', 'u-2']) {
      const e = (await journal.get(t.base, id))!;
      delete e.keyId;
      await journal.put(e);
    }
    a.sb.faults.add({ method: 'GET', path: '/v2/wallets*', kind: 'status', status: 500, times: Infinity });
    const posts = t.postsWith('A');

    const said = await run(batch);
    expect(said.code, said.stderr).toBe(4);
    expect(said.stderr).toContain('2 payouts (rows 2, 3) journaled by an older payctl without the id of the key that sent them were not sent');
    expect(said.stderr).toContain(
      "this run's account's wallets, which tell whether this run's key sent them, could not be read (Internal error; please retry); left unknown (they may or may not have been made). Nothing was sent.",
    );
    expect(said.stderr).toContain('row 2: payout_id "u-1" is of unknown outcome, not sent');
    expect(said.stderr).toContain(`Run it again when the service can be reached:\n  payctl payout batch ${file} --profile teama --batch-id nov1 --concurrency 1 --yes`);

    const json = await run([...batch, '--json']);
    expect(json.code, json.stderr).toBe(4);
    const err = JSON.parse(json.stderr.trim().split('\n').at(-1)!) as { error: Record<string, unknown> };
    expect(err.error).toMatchObject({ code: 'OUTCOME_UNKNOWN', cause: 'SERVICE_ERROR', status: null });
    expect(err.error.errors).toEqual([
      { field: 'payout_id', message: '"u-1" is of unknown outcome, not sent', row: 2 },
      { field: 'payout_id', message: '"u-2" is of unknown outcome, not sent', row: 3 },
    ]);
    expect(err.error.hint).toContain(`payctl payout batch ${file} --profile teama --batch-id nov1 --concurrency 1 --yes`);

    expect(t.postsWith('A')).toBe(posts);
    for (const id of ['u-1', 'u-2']) expect((await journal.get(t.base, id))?.outcome?.kind).toBe('unknown');
  });
});
