/**
 * The wallet check of a payout journaled without its key's id (payouts/unkeyed-wallet.ts) when
 * the run's wallets cannot be read (probe K57 finding 2). Before, `history reconcile` (all,
 * --json, named) exited 1 "Server Error" and resolved nothing, not even payouts with a key id,
 * which need no wallet check, and `payout create --payout-id` of such a payout exited 1 too. Now
 * only the entries that need the check are left unknown, said so with the read's cause
 * (OUTCOME_UNKNOWN), the rest are resolved, and the run exits 4.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createWithLostAnswer, payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet } from '../helpers/sandbox.js';
import { useTwoAccounts } from '../helpers/two-accounts.js';
import { Journal } from '../../src/payouts/journal.js';

const t = useTwoAccounts();
const { a, run } = t;
const entry = t.entry;

/** `id` journaled as a payctl before key ids did: its keyId taken out, written through the ledger (which signs it). */
async function asOlderPayctl(id: string): Promise<void> {
  const journal = new Journal(t.dir);
  const e = await journal.get(t.base, id);
  delete e!.keyId;
  await journal.put(e!);
  expect((await journal.get(t.base, id))?.keyId).toBeUndefined();
}

/** An older build's payout and this build's, both of unknown outcome, sent with teama. */
async function oldAndNew(): Promise<{ wallet: string; oldArgs: string[]; oldId: string; newId: string }> {
  const wallet = freshWallet(a.sb, '10000.00');
  const oldArgs = [...payoutArgs(wallet, randomUUID()), '--profile', 'teama'];
  const oldId = await createWithLostAnswer(a.sb, run, oldArgs);
  await asOlderPayctl(oldId);
  const newId = await createWithLostAnswer(a.sb, run, [...payoutArgs(wallet, randomUUID(), ['--amount', '18.81']), '--profile', 'teama']);
  return { wallet, oldArgs: [...oldArgs, '--payout-id', oldId], oldId, newId };
}

describe("a payout journaled without its key's id, when the run's wallets cannot be read", () => {
  it("is left unknown with the read's cause; the others are resolved; exit 4, never 1", async () => {
    const { oldId, newId } = await oldAndNew();
    a.sb.faults.add({ method: 'GET', path: '/v2/wallets*', kind: 'status', status: 500, times: Infinity });

    const json = await run(['history', 'reconcile', '--profile', 'teama', '--json']);
    expect(json.code, json.stdout + json.stderr).toBe(4);
    const doc = JSON.parse(json.stdout) as { results: Array<Record<string, unknown>> };
    const old = doc.results.find((r) => r.payout_id === oldId);
    expect(old).toMatchObject({ action: 'unchecked', outcome: 'unknown', code: 'OUTCOME_UNKNOWN', cause: 'SERVICE_ERROR' });
    expect(doc.results.find((r) => r.payout_id === newId)).toMatchObject({ action: 'resent', outcome: 'accepted' });
    expect((await entry(newId))?.outcome?.kind).toBe('accepted');
    expect((await entry(oldId))?.outcome?.kind).toBe('unknown');

    const all = await run(['history', 'reconcile', '--profile', 'teama']);
    expect(all.code, all.stdout + all.stderr).toBe(4);
    expect(all.stdout).toContain(`payout ${oldId} (journaled by an older payctl without the id of the key that sent it) cannot be told`);
    expect(all.stdout).toContain(`run it again when the service can be reached: payctl history reconcile --profile teama --payout-id ${oldId}`);

    const named = await run(['history', 'reconcile', '--profile', 'teama', '--payout-id', oldId, '--json']);
    expect(named.code, named.stderr).toBe(4);
    const err = JSON.parse(named.stderr.trim().split('\n').at(-1)!) as { error: Record<string, unknown> };
    expect(err.error).toMatchObject({ code: 'OUTCOME_UNKNOWN', cause: 'SERVICE_ERROR', payout_id: oldId });
    expect((await entry(oldId))?.outcome?.kind).toBe('unknown');
  });

  it('payout create --payout-id of it exits 4 naming it, nothing sent', async () => {
    const { oldArgs, oldId } = await oldAndNew();
    a.sb.faults.add({ method: 'GET', path: '/v2/wallets*', kind: 'status', status: 500, times: Infinity });
    const posts = t.postsWith('A');
    const again = await run(oldArgs);
    expect(again.code, again.stderr).toBe(4);
    expect(again.stderr).toContain(`payout ${oldId}`);
    expect(again.stderr).toContain('its outcome is still unknown');
    expect(t.postsWith('A')).toBe(posts);
  });
});
