/**
 * The local journal's look-up markers (src/payouts/ledger/markers.ts) are leads only: a marker
 * emptied, cut or edited outside payctl says nothing of the entry it stood for, so find() reads
 * every entry for that key instead. Read as "no entry", an emptied marker let the repeat guard
 * pass a payout typed twice (found probing: two payouts of 33.00 to one account). A deleted
 * index folder did the same for every entry: it is made again from the entries.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/payouts/journal.js';
import { Markers } from '../../src/payouts/ledger/markers.js';
import { EntryNames } from '../../src/payouts/ledger/names.js';
import { fileHolds, LogReader } from '../../src/payouts/ledger/log-reader.js';
import { JournalMac } from '../../src/payouts/ledger/mac.js';
import { recentOwner } from '../../src/payouts/send-result.js';

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

/**
 * Day markers (markers.ts daysFrom): the policy's daily total reads the entries of today, not
 * every entry the journal ever held. Before: every payout create under a daily_total read the
 * whole journal (20,000 entries: 1.6 s against 0.12 s without the policy).
 */
describe('day markers', () => {
  const DAY = 86_400_000;
  const today = new Date(Math.floor(Date.now() / DAY) * DAY);
  const body = (id: string) => `{"amount":5,"currency":"SLE","payoutId":"${id}","walletId":"6643665465"}`;

  /** A journal with two entries of yesterday (one damaged since), and today's: a file, batch rows in two logs, one under another base URL. */
  async function journalOfTwoDays(): Promise<{ dir: string; journal: string; todays: string[]; damagedName: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-days-'));
    dirs.push(dir);
    const j = new Journal(dir);
    const yesterday = new Date(today.getTime() - 3_600_000);
    for (const id of ['old-1', 'old-2']) await j.begin({ baseUrl: BASE, payoutId: id, body: body(id), now: yesterday });
    await j.begin({ baseUrl: BASE, payoutId: 'new-file', body: body('new-file'), now: new Date(today.getTime() + 60_000) });
    const logged = new Journal(dir);
    for (const id of ['row-1', 'row-2']) await logged.begin({ baseUrl: BASE, payoutId: id, body: body(id), now: new Date(today.getTime() + 120_000), log: true });
    await logged.closeLog();
    // A second run's log the same day: its rows are found through its own claim file's marker.
    const second = new Journal(dir);
    await second.begin({ baseUrl: BASE, payoutId: 'row-3', body: body('row-3'), now: new Date(today.getTime() + 180_000), log: true });
    await second.closeLog();
    await j.begin({ baseUrl: 'http://127.0.0.1:8/v2', payoutId: 'elsewhere', body: body('elsewhere'), now: new Date(today.getTime() + 60_000) });
    // One of yesterday's entries damaged since: a listing of every entry says so.
    const damagedName = new EntryNames(j.dir).of(BASE, 'old-1');
    truncateSync(join(j.dir, damagedName), 10);
    return { dir, journal: j.dir, todays: ['new-file', 'row-1', 'row-2', 'row-3'], damagedName };
  }

  const listed = async (j: InstanceType<typeof Journal>, since: Date) => {
    const ids: string[] = [];
    const errors: string[] = [];
    for await (const it of j.scanSince(BASE, since)) {
      if ('error' in it) errors.push(it.name);
      else if (it.entry.baseUrl === BASE && Date.parse(it.entry.createdAt) >= since.getTime()) ids.push(it.entry.payoutId);
    }
    return { ids: ids.sort(), errors };
  };

  it("lists the day's entries from their markers, files and batch rows alike: yesterday's are not read", async () => {
    const { dir, todays, damagedName } = await journalOfTwoDays();
    const j = new Journal(dir);
    expect(await listed(j, today)).toEqual({ ids: todays, errors: [] });
    // A whole listing reads yesterday's damaged entry too.
    const all: string[] = [];
    for await (const it of j.scan()) if ('error' in it) all.push(it.name);
    expect(all).toEqual([damagedName]);
    // Yesterday on: the two days' entries, the damaged one among them.
    expect(await listed(new Journal(dir), new Date(today.getTime() - DAY))).toEqual({ ids: ['old-2', ...todays].sort(), errors: [damagedName] });
  });

  it('a journal written before day markers (no days/complete) is marked at the first listing: the same entries, and the next process reads the markers', async () => {
    const { dir, journal, todays } = await journalOfTwoDays();
    rmSync(join(journal, 'days'), { recursive: true });
    // Read as it is, every entry: yesterday's damaged one comes as its error, never passed over.
    const first = await listed(new Journal(dir), today);
    expect(first.ids).toEqual(todays);
    expect(existsSync(join(journal, 'days', 'complete'))).toBe(true);
    expect(await listed(new Journal(dir), today)).toEqual({ ids: todays, errors: [] });
  });

  it('a day marker not as payctl writes it: every entry is read instead (never fewer)', async () => {
    const { dir, journal, todays, damagedName } = await journalOfTwoDays();
    const days = join(journal, 'days');
    const base = readdirSync(days).find((n) => !n.endsWith('complete') && readdirSync(join(days, n)).includes(today.toISOString().slice(0, 10)))!;
    // Replaced (a marker is a hard link of an entry: written in place, the entry would change too).
    const marker = join(days, base, today.toISOString().slice(0, 10));
    rmSync(marker);
    writeFileSync(marker, '{"not":"a marker"}');
    expect(await listed(new Journal(dir), today)).toEqual({ ids: todays, errors: [damagedName] });
  });
});

/**
 * A payout create checks its answer's transaction id against the day's entries (send-result.ts
 * recentOwner). It parsed and verified every one of them: 3,000 entries of the day made a create
 * cost 400-470 ms of CPU instead of 100-110 (docs/performance.md). Only an entry that can have the
 * transaction id is verified now; counted here through JournalMac.verified, not timed.
 */
describe("a transaction id looked up among the day's entries", () => {
  const accepted = (transactionId: string) => ({ kind: 'accepted' as const, status: 201, transactionId, fee: '0.10', replayed: false, at: new Date().toISOString() });
  const body = (id: string) => `{"amount":5,"currency":"SLE","payoutId":"${id}","walletId":"6643665465"}`;

  /** 20 entries in files of their own and 30 batch rows in a log, all of today, each accepted with its own transaction. */
  async function dayOfFifty(): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-txn-'));
    dirs.push(dir);
    const j = new Journal(dir);
    for (let i = 0; i < 20; i++) {
      const e = await j.begin({ baseUrl: BASE, payoutId: `file-${i}`, body: body(`file-${i}`), now: new Date(), origin: { repeatKey: `rk-file-${i}` } });
      await j.record(e, accepted(`TXN-FILE-${i}`));
    }
    const logged = new Journal(dir);
    for (let i = 0; i < 30; i++) {
      const e = await logged.begin({
        baseUrl: BASE,
        payoutId: `row-${i}`,
        body: body(`row-${i}`),
        now: new Date(),
        log: true,
        origin: { batch: { id: 'b', file: '/b.csv', row: i + 2 }, repeatKey: `rk-row-${i}` },
      });
      await logged.record(e, accepted(`TXN-ROW-${i}`));
    }
    await logged.closeLog();
    return dir;
  }

  it('verifies only the entry that has it (files and batch rows alike), and still needs it to verify', async () => {
    const dir = await dayOfFifty();
    const verified = vi.spyOn(JournalMac.prototype, 'verified');
    try {
      for (const [txn, owner] of [
        ['TXN-FILE-7', 'file-7'],
        ['TXN-ROW-12', 'row-12'],
        ['TXN-NONE', undefined],
      ] as const) {
        verified.mockClear();
        expect(await recentOwner(new Journal(dir), BASE, txn, new Date())).toBe(owner);
        expect(verified.mock.calls.length, txn).toBeLessThanOrEqual(1);
      }
    } finally {
      verified.mockRestore();
    }
    // A candidate that does not verify (its fee edited, its transaction id kept) is passed over.
    const file = join(dir, 'journal', new EntryNames(join(dir, 'journal')).of(BASE, 'file-7'));
    writeFileSync(file, readFileSync(file, 'utf8').replace('"fee": "0.10"', '"fee": "0.01"'));
    expect(await recentOwner(new Journal(dir), BASE, 'TXN-FILE-7', new Date())).toBeUndefined();
  });

  it('the search of a log finds a text wherever a chunk ends (cut in two, at either end), and nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-holds-'));
    dirs.push(dir);
    const file = join(dir, 'x.log');
    const text = 'TXN-BOK-0123456789';
    for (let at = 0; at < 40; at++) {
      writeFileSync(file, `${'-'.repeat(at)}${text}${'-'.repeat(7)}`);
      for (const chunk of [1, 5, 8, 16, 64]) expect(fileHolds(file, ['nope', text], chunk), `at ${at}, chunk ${chunk}`).toBe(true);
      expect(fileHolds(file, ['TXN-BOK-01234567890'], 8)).toBe(false);
    }
    expect(fileHolds(join(dir, 'missing.log'), [text])).toBe(false);
  });

  it("parses no line of the day's batch log when none holds it (a new transaction, the usual answer)", async () => {
    const dir = await dayOfFifty();
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(await recentOwner(new Journal(dir), BASE, 'TXN-NONE', new Date())).toBeUndefined();
      // The day's markers (a few small files); the log's 30 lines (compacted: one a row) were each parsed before.
      expect(parse.mock.calls.length).toBeLessThan(10);
      parse.mockClear();
      // One that a row has: its log is read as before, and the row found.
      expect(await recentOwner(new Journal(dir), BASE, 'TXN-ROW-29', new Date())).toBe('row-29');
      expect(parse.mock.calls.length).toBeGreaterThanOrEqual(30);
    } finally {
      parse.mockRestore();
    }
  });
});
