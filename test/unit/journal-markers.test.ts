/**
 * The local journal's look-up markers (src/payouts/ledger/markers.ts) are leads only: a marker
 * emptied, cut or edited outside payctl says nothing of the entry it stood for, so find() reads
 * every entry for that key instead. Read as "no entry", an emptied marker let the repeat guard
 * pass a payout typed twice (found probing: two payouts of 33.00 to one account). A deleted
 * index folder did the same for every entry: it is made again from the entries.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/payouts/journal.js';
import { Markers } from '../../src/payouts/ledger/markers.js';
import { EntryNames } from '../../src/payouts/ledger/names.js';
import { LogReader } from '../../src/payouts/ledger/log-reader.js';

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

describe('a deleted index folder', () => {
  it('is made again from the entries, files and a batch log alike, at the first look-up of a process', async () => {
    const { dir, id } = await journalWithOne();
    const logged = new Journal(dir);
    const batchId = randomUUID();
    await logged.begin({ baseUrl: BASE, payoutId: batchId, body: '{}', now: new Date(), log: true, origin: { fingerprint: 'fp-batch', repeatKey: 'rk-1' } });
    await logged.closeLog();
    const index = join(dir, 'journal', 'index');
    rmSync(index, { recursive: true });

    const j = new Journal(dir);
    expect((await j.find(BASE, 'repeat', 'rk-1')).map((e) => e.payoutId).sort()).toEqual([id, batchId].sort());
    expect((await j.find(BASE, 'fingerprint', 'fp-1')).map((e) => e.payoutId)).toEqual([id]);
    expect((await j.find(BASE, 'fingerprint', 'fp-batch')).map((e) => e.payoutId)).toEqual([batchId]);
    expect(await j.find(BASE, 'repeat', 'rk-other')).toEqual([]);
    // Written again: the next process finds them through the markers.
    expect(existsSync(index)).toBe(true);
    expect(markerFiles(dir).length).toBeGreaterThanOrEqual(3);
    expect((await new Journal(dir).find(BASE, 'fingerprint', 'fp-batch')).map((e) => e.payoutId)).toEqual([batchId]);
  });

  it('where it cannot be made again, every look-up of the process reads every entry', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'payctl-markers-')), 'not-a-folder');
    dirs.push(dirname(file));
    writeFileSync(file, '');
    // The journal folder under a file: the index can be neither read nor made (ENOTDIR).
    const journal = join(file, 'journal');
    const markers = new Markers(new EntryNames(journal), new LogReader(journal));
    markers.ensureIndex(() => []);
    expect(markers.leads(BASE, 'repeat', 'rk-1')).toBe('damaged');
  });
});
