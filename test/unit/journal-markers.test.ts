/**
 * The local journal's look-up markers (src/payouts/ledger/markers.ts) are leads only: a marker
 * emptied, cut or edited outside payctl says nothing of the entry it stood for, so find() reads
 * every entry for that key instead. Read as "no entry", an emptied marker let the repeat guard
 * pass a payout typed twice (found probing: two payouts of 33.00 to one account).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/payouts/journal.js';

const BASE = 'http://127.0.0.1:9/v2';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Every marker file under journal/index (not the .more folders). */
function markerFiles(dir: string): string[] {
  const index = join(dir, 'journal', 'index');
  return readdirSync(index)
    .map((n) => join(index, n))
    .filter((p) => statSync(p).isFile());
}

async function journalWithOne(): Promise<{ dir: string; id: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-markers-'));
  dirs.push(dir);
  const j = new Journal(dir);
  const id = randomUUID();
  await j.begin({
    baseUrl: BASE,
    payoutId: id,
    body: `{"amount":33,"currency":"SLE","payoutId":"${id}","walletId":"6643665465"}`,
    now: new Date(),
    origin: { fingerprint: 'fp-1', repeatKey: 'rk-1' },
  });
  // Recorded: the entry's file is replaced, the marker keeps the entry as first written.
  await j.record((await j.get(BASE, id))!, { kind: 'accepted', status: 201, transactionId: 'TXN-BOK-1', fee: undefined, replayed: false, at: new Date().toISOString() });
  return { dir, id };
}

describe('a damaged look-up marker', () => {
  it.each([
    ['emptied', (p: string) => truncateSync(p, 0)],
    ['cut', (p: string) => truncateSync(p, 20)],
    ['edited', (p: string) => writeFileSync(p, '{"payctl_journal_claim":1,"log":"x.log","extra":1}')],
  ])('%s: the entry is still found by its repeat key and fingerprint', async (_how, damage) => {
    const { dir, id } = await journalWithOne();
    expect(markerFiles(dir).length).toBeGreaterThan(0);
    for (const m of markerFiles(dir)) damage(m);
    const j = new Journal(dir);
    expect((await j.find(BASE, 'repeat', 'rk-1')).map((e) => e.payoutId)).toEqual([id]);
    expect((await j.find(BASE, 'fingerprint', 'fp-1')).map((e) => e.payoutId)).toEqual([id]);
    expect(await j.find(BASE, 'repeat', 'rk-other')).toEqual([]);
  });
});
