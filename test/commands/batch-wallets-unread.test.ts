/**
 * A batch resumed whose rows this payctl journaled (with the id of the key that sent them) and
 * left of unknown outcome, when the run's wallets cannot be read (probe R60 finding 4). Before,
 * only rows an older payctl journaled without their key's id were named: these got the read's
 * raw error, exit 1 "The service failed; try again later", as if nothing were pending. Now the run
 * stops as for those rows: exit 4 OUTCOME_UNKNOWN with the read's cause, the rows named (`--json`:
 * `errors`, one a row) in words that fit rows this build journaled, the command to run again
 * printed runnable, and nothing sent. A batch with no such row still fails as the read did.
 */
import { describe, expect, it } from 'vitest';
import { useTwoAccounts } from '../helpers/two-accounts.js';
import * as unknownBatch from '../helpers/unknown-batch.js';
import { Journal } from '../../src/payouts/journal.js';

const t = useTwoAccounts();
const { a, run } = t;
const twoRows = () => unknownBatch.twoRows(t);
const sentUnknown = (batch: string[]) => unknownBatch.sentUnknown(t, batch);

const failWallets = () => a.sb.faults.add({ method: 'GET', path: '/v2/wallets*', kind: 'status', status: 503, times: Infinity });

describe("a batch of this build's unknown rows resumed while the run's wallets cannot be read", () => {
  it('exits 4 OUTCOME_UNKNOWN naming the rows and the command to run again, nothing sent', async () => {
    const { file, batch } = twoRows();
    const ids = await sentUnknown(batch);
    failWallets();
    const posts = t.postsWith('A');

    const said = await run(batch);
    expect(said.code, said.stderr).toBe(4);
    expect(said.stderr).not.toContain('older payctl');
    expect(said.stderr).toMatch(
      /Cannot send this batch: 2 payouts \(rows 2, 3\) of unknown outcome were not sent: this run's account's wallets, which the batch's wallet check needs before it sends any row, could not be read \([^)]+\); left unknown \(they may or may not have been made\)\. Nothing was sent\./,
    );
    expect(said.stderr).toContain(`row 2: payout_id "${ids[0]}" is of unknown outcome, not sent`);
    expect(said.stderr).toContain(`Run it again when the service can be reached:\n  payctl payout batch ${file} --profile teama --batch-id w2 --yes`);

    const json = await run([...batch, '--json']);
    expect(json.code, json.stderr).toBe(4);
    const err = JSON.parse(json.stderr.trim().split('\n').at(-1)!) as { error: Record<string, unknown> };
    expect(err.error).toMatchObject({ code: 'OUTCOME_UNKNOWN', cause: 'SERVICE_ERROR' });
    expect(err.error.errors).toEqual([
      { field: 'payout_id', message: `"${ids[0]}" is of unknown outcome, not sent`, row: 2 },
      { field: 'payout_id', message: `"${ids[1]}" is of unknown outcome, not sent`, row: 3 },
    ]);

    expect(t.postsWith('A')).toBe(posts);
    for (const id of ids) expect((await t.entry(id))?.outcome?.kind).toBe('unknown');

    // The command printed, run once the service answers, settles the rows.
    a.sb.faults.clear();
    const again = await run(said.stderr.split('\n  ').at(-1)!.trim().split(' ').slice(1));
    expect(again.code, again.stderr).toBe(0);
  });

  it("names an older payctl's rows apart from this build's, one sentence each", async () => {
    const { batch } = twoRows();
    const ids = await sentUnknown(batch);
    const journal = new Journal(t.dir);
    const e = (await journal.get(t.base, ids[0]!))!;
    delete e.keyId;
    await journal.put(e);
    failWallets();

    const said = await run(batch);
    expect(said.code, said.stderr).toBe(4);
    expect(said.stderr).toContain('Cannot send this batch: 1 payout (row 2) journaled by an older payctl without the id of the key that sent it was not sent');
    expect(said.stderr).toContain('; 1 payout (row 3) of unknown outcome was not sent: ');
  });

  it('fails as the read did (exit 1) when no row is of unknown outcome', async () => {
    const { batch } = twoRows();
    failWallets();
    const said = await run(batch);
    expect(said.code, said.stderr).toBe(1);
    expect(said.stderr).not.toContain('unknown outcome');
    expect(t.postsWith('A')).toBe(0);
  });
});
