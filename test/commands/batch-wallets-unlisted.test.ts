/**
 * A batch resumed whose rows this payctl journaled and left of unknown outcome, when the run's
 * wallets are read without a fault but do not list the rows' wallet (a front answering an empty
 * list, a partial answer, a key whose access changed: probe R62 finding 3). Before, each row was
 * refused as "not one of your wallets", exit 2, "Fix the rows above": a row so fixed (another
 * wallet id) is a new payout, though the first may have been made. Now the run stops as when the
 * read fails: exit 4 OUTCOME_UNKNOWN, the rows named (`--json`: `errors`, one a row), the unlisted
 * wallet said, the resume printed runnable, nothing sent. A row not of unknown outcome whose wallet
 * is not listed is still a row problem (exit 2).
 */
import { describe, expect, it } from 'vitest';
import { useTwoAccounts } from '../helpers/two-accounts.js';
import * as unknownBatch from '../helpers/unknown-batch.js';

const t = useTwoAccounts();
const { run } = t;
const twoRows = () => unknownBatch.twoRows(t);
const sentUnknown = (batch: string[]) => unknownBatch.sentUnknown(t, batch);

const emptyWallets = () => t.answerWith('GET', '/v2/wallets', { status: 'Successful', data: [] });

describe("a batch of this build's unknown rows resumed while the wallets read lists none of theirs", () => {
  it('exits 4 OUTCOME_UNKNOWN naming the rows, their wallet and the command to run again, nothing sent', async () => {
    const { file, wallet, batch } = twoRows();
    const ids = await sentUnknown(batch);
    const listed = emptyWallets();
    const posts = t.postsWith('A');

    const said = await run(batch);
    expect(said.code, said.stderr).toBe(4);
    expect(said.stderr).not.toContain('Fix the rows');
    expect(said.stderr).not.toContain('not one of your wallets');
    expect(said.stderr).toContain(
      `Cannot send this batch: 2 payouts (rows 2, 3) of unknown outcome were not sent: this run's account's wallets, as the service listed them just now, do not list wallet ${wallet} this run's API key sent them from (the service may have answered in part, or the key's access changed since); left unknown (they may or may not have been made), not rows to fix: another wallet id would send a new payout. Nothing was sent.`,
    );
    expect(said.stderr).toContain(`row 2: payout_id "${ids[0]}" is of unknown outcome, not sent`);
    expect(said.stderr).toContain(`row 3: payout_id "${ids[1]}" is of unknown outcome, not sent`);
    expect(said.stderr).toContain(
      `Check that payctl balances --profile teama lists wallet ${wallet}, then run it again:\n  payctl payout batch ${file} --profile teama --batch-id w2 --yes`,
    );

    const json = await run([...batch, '--json']);
    expect(json.code, json.stderr).toBe(4);
    const err = JSON.parse(json.stderr.trim().split('\n').at(-1)!) as { error: Record<string, unknown> };
    expect(err.error).toMatchObject({ code: 'OUTCOME_UNKNOWN', cause: null });
    expect(err.error.errors).toEqual([
      { field: 'payout_id', message: `"${ids[0]}" is of unknown outcome, not sent`, row: 2 },
      { field: 'payout_id', message: `"${ids[1]}" is of unknown outcome, not sent`, row: 3 },
    ]);

    expect(t.postsWith('A')).toBe(posts);
    for (const id of ids) expect((await t.entry(id))?.outcome?.kind).toBe('unknown');

    // The command printed, run once the service lists the wallet again, settles the rows.
    listed();
    const again = await run(said.stderr.split('\n  ').at(-1)!.trim().split(' ').slice(1));
    expect(again.code, again.stderr).toBe(0);
    for (const id of ids) expect((await t.entry(id))?.outcome?.kind).toBe('accepted');
  });

  it('keeps a row problem (exit 2) for a row not of unknown outcome whose wallet is not listed', async () => {
    const { batch } = twoRows();
    emptyWallets();
    const said = await run(batch);
    expect(said.code, said.stderr).toBe(2);
    expect(said.stderr).toContain('row 2: wallet_id');
    expect(said.stderr).toContain('is not one of your wallets');
    expect(said.stderr).not.toContain('unknown outcome');
    expect(t.postsWith('A')).toBe(0);
  });
});
