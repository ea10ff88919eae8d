/**
 * The journal's log (group commit for batch runs): entries begun at the same moment share
 * one write and one fsync of the run's log; each per-payout name is an exclusive claim (a
 * hard link of the log's claim file); other processes (other Journal instances) read the
 * entries through their claims, also while the log grows; a run killed before compaction
 * leaves a log a rerun reads; a line cut short is never read; compaction keeps the latest
 * line of each claimed entry.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Journal, type JournalEntry } from '../../src/payouts/journal.js';
import { scanned } from '../helpers/scanned.js';

const BASE = 'https://api.example.com/v2';
const T0 = new Date('2026-11-21T10:15:30.123Z');
const body = (id: string) => `{"amount":12.5,"currency":"SLE","payoutId":"${id}"}`;

let root: string;
/** Every journal a test opens: their logs are closed after it, as a run closes its own (no file handle left to the garbage collector). */
const opened: Journal[] = [];
function journalAt(dir: string): Journal {
  const j = new Journal(dir);
  opened.push(j);
  return j;
}
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'payctl-journal-log-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(opened.splice(0).map((j) => j.closeLog().catch(() => {})));
  rmSync(root, { recursive: true, force: true });
});

function begin(j: Journal, id: string, key?: string): Promise<JournalEntry> {
  return j.begin({ baseUrl: BASE, payoutId: id, body: body(id), now: T0, log: true, origin: { fingerprint: `f-${id}` }, ...(key ? { idempotencyKey: key } : {}) });
}

function logFiles(): string[] {
  return readdirSync(join(root, 'journal', 'log')).filter((n) => n.endsWith('.log'));
}

/** Counts fdatasync calls of every FileHandle (the log's fsync). */
async function countDatasyncs(): Promise<{ count: () => number }> {
  const fh = await open(join(root, 'probe'), 'w');
  const proto = Object.getPrototypeOf(fh) as { datasync: () => Promise<void> };
  await fh.close();
  const spy = vi.spyOn(proto, 'datasync');
  return { count: () => spy.mock.calls.length };
}

describe('Journal log: group commit', () => {
  it('20 entries begun at once share log fsyncs; each is claimed under its name and read by another process', async () => {
    const syncs = await countDatasyncs();
    const j = journalAt(root);
    const ids = Array.from({ length: 20 }, (_, i) => `p-${i}`);
    const entries = await Promise.all(ids.map((id) => begin(j, id)));
    expect(syncs.count()).toBeGreaterThanOrEqual(1);
    expect(syncs.count()).toBeLessThan(ids.length);
    expect(logFiles()).toHaveLength(1);
    const other = journalAt(root);
    for (const [i, id] of ids.entries()) {
      const e = (await other.get(BASE, id))!;
      expect(e.idempotencyKey).toBe(entries[i]!.idempotencyKey);
      expect(e.body).toBe(body(id));
      expect((await other.find(BASE, 'fingerprint', `f-${id}`)).map((x) => x.payoutId)).toEqual([id]);
    }
    // The per-payout names are claims on the log; scan reads the entries through them.
    const names = readdirSync(j.dir).filter((n) => n.endsWith('.json'));
    expect(names).toHaveLength(20);
    for (const n of names) expect(JSON.parse(readFileSync(join(j.dir, n), 'utf8'))).toEqual({ payctl_journal_claim: 1, log: logFiles()[0] });
    expect((await scanned(other)).map((x) => ('entry' in x ? x.entry.payoutId : 'error')).sort()).toEqual([...ids].sort());
  });

  it('two processes beginning the same payouts at once: one key per payout id, the same for both', async () => {
    const a = journalAt(root);
    const b = journalAt(root);
    const ids = Array.from({ length: 30 }, (_, i) => `race-${i}`);
    const [fromA, fromB] = await Promise.all([Promise.all(ids.map((id) => begin(a, id))), Promise.all(ids.map((id) => begin(b, id)))]);
    for (const [i, id] of ids.entries()) {
      expect(fromA[i]!.idempotencyKey, id).toBe(fromB[i]!.idempotencyKey);
      expect((await journalAt(root).get(BASE, id))!.idempotencyKey).toBe(fromA[i]!.idempotencyKey);
    }
    expect(logFiles()).toHaveLength(2);
  });

  it('outcomes are appended; a run killed before compaction is read by the rerun; compaction keeps the latest line of each claimed entry', async () => {
    const j = journalAt(root);
    const e1 = await begin(j, 'k-1');
    const e2 = await begin(j, 'k-2');
    await j.record(e1, { kind: 'accepted', status: 201, transactionId: 'TRX1', fee: '0.13', replayed: false, at: T0.toISOString() });
    await j.record(e2, { kind: 'unknown', reason: 'no answer', at: T0.toISOString() });
    // Killed here: no compaction. A rerun (a new process) reads both, outcomes included.
    const rerun = journalAt(root);
    expect((await rerun.get(BASE, 'k-1'))!.outcome).toMatchObject({ kind: 'accepted', transactionId: 'TRX1' });
    expect((await rerun.get(BASE, 'k-2'))!.outcome).toMatchObject({ kind: 'unknown' });
    const log = join(root, 'journal', 'log', logFiles()[0]!);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(4);
    await j.closeLog();
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
    const after = journalAt(root);
    expect((await after.get(BASE, 'k-1'))!.outcome).toMatchObject({ kind: 'accepted' });
    expect((await after.get(BASE, 'k-2'))!.idempotencyKey).toBe(e2.idempotencyKey);
    // The rerun's outcome for an entry of the earlier log goes to the entry's own name, whole.
    await rerun.record((await rerun.get(BASE, 'k-2'))!, { kind: 'accepted', status: 200, transactionId: 'TRX2', fee: undefined, replayed: true, at: T0.toISOString() });
    expect((await journalAt(root).get(BASE, 'k-2'))!.outcome).toMatchObject({ kind: 'accepted', transactionId: 'TRX2' });
  });

  it('a line cut short by a crash is never read; a claim whose line is missing is reported as damaged', async () => {
    const j = journalAt(root);
    await begin(j, 'whole');
    const log = join(root, 'journal', 'log', logFiles()[0]!);
    appendFileSync(log, '{"name":"torn","entry":{"payoutId":"torn","idempot');
    const reader = journalAt(root);
    expect((await reader.get(BASE, 'whole'))!.payoutId).toBe('whole');
    expect(await reader.get(BASE, 'torn')).toBeUndefined();
    // A claim naming this log for an entry the log does not hold.
    const claim = readFileSync(
      join(
        j.dir,
        readdirSync(j.dir).find((n) => n.endsWith('.json'))!,
      ),
      'utf8',
    );
    const name = readdirSync(j.dir).find((n) => n.endsWith('.json'))!;
    const stray = name.replace(/^./, name[0] === 'a' ? 'b' : 'a');
    writeFileSync(join(j.dir, stray), claim);
    await expect(journalAt(root).byName(stray)).rejects.toThrow(/holds no entry for it/);
  });

  it('a reader that read a log before it was compacted reads the compacted log whole: every entry found, with its latest state', async () => {
    // Another terminal's journal reads this run's log (6 lines) while the run goes on; the run
    // then writes outcomes and more entries and compacts the log at its end, to a file no
    // shorter than what the reader had read. Read on from its old offset, the compacted file
    // hid the outcomes and the new entries from it (a spurious "damaged" error, or a payout
    // seen unsent when it was accepted).
    const j = journalAt(root);
    const first = await Promise.all(['c-1', 'c-2', 'c-3'].map((id) => begin(j, id)));
    for (const [i, e] of first.entries()) await j.record(e, { kind: 'unknown', reason: `lost ${i}`, at: T0.toISOString() });
    const reader = journalAt(root);
    expect((await reader.get(BASE, 'c-1'))!.outcome).toMatchObject({ kind: 'unknown' });
    for (const [i, e] of first.entries()) {
      await j.record(e, { kind: 'accepted', status: 201, transactionId: `TRX${i}`, fee: '0.13', replayed: false, at: T0.toISOString() });
    }
    const later = ['c-4', 'c-5', 'c-6', 'c-7', 'c-8'];
    await Promise.all(later.map((id) => begin(j, id)));
    const log = join(root, 'journal', 'log', logFiles()[0]!);
    const before = readFileSync(log).length;
    await j.closeLog();
    expect(readFileSync(log).length).toBeLessThan(before);
    for (const [i, e] of first.entries()) expect((await reader.get(BASE, e.payoutId))!.outcome, e.payoutId).toMatchObject({ kind: 'accepted', transactionId: `TRX${i}` });
    for (const id of later) expect((await reader.get(BASE, id))?.payoutId).toBe(id);
  });

  it('a log of several megabytes is read by another process a megabyte at a time, lines across the chunks whole', async () => {
    const j = journalAt(root);
    const note = 'x'.repeat(700);
    const ids = Array.from({ length: 4000 }, (_, i) => `big-${i}`);
    for (let i = 0; i < ids.length; i += 500) {
      await Promise.all(ids.slice(i, i + 500).map((id) => j.begin({ baseUrl: BASE, payoutId: id, body: `{"note":"${note}","payoutId":"${id}"}`, now: T0, log: true })));
    }
    expect(readFileSync(join(root, 'journal', 'log', logFiles()[0]!)).length).toBeGreaterThan(3 * (1 << 20));
    const reader = journalAt(root);
    const found = await Promise.all(ids.map(async (id) => (await reader.get(BASE, id))?.payoutId));
    expect(found).toEqual(ids);
  });

  it('a log line edited outside payctl does not verify', async () => {
    const j = journalAt(root);
    await begin(j, 'edited');
    const log = join(root, 'journal', 'log', logFiles()[0]!);
    writeFileSync(log, readFileSync(log, 'utf8').replace('12.5', '99.5'));
    await expect(journalAt(root).get(BASE, 'edited')).rejects.toThrow(/checksum does not match/);
  });

  it('a log not as payctl writes it (NUL bytes, a line over 4 MiB) is read up to there; an entry claimed past it names why', async () => {
    const j = journalAt(root);
    await Promise.all([begin(j, 'p-1'), begin(j, 'p-2')]);
    const file = join(root, 'journal', 'log', logFiles()[0]!);
    const [l1, l2] = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .sort((a, b) => (a.includes('"p-1"') ? -1 : b.includes('"p-1"') ? 1 : 0));
    const head = `${l1}\n`;
    for (const [junk, why] of [
      [Buffer.alloc(1000), `holds a NUL byte at byte ${Buffer.byteLength(head)}, which payctl never writes`],
      [Buffer.alloc(4 * 1024 * 1024 + 10, 'x'), `holds a line longer than 4 MiB from byte ${Buffer.byteLength(head)}, far more than payctl writes`],
    ] as const) {
      writeFileSync(file, Buffer.concat([Buffer.from(head), junk, Buffer.from(`\n${l2}\n`)]));
      const other = journalAt(root);
      expect((await other.get(BASE, 'p-1'))?.payoutId).toBe('p-1');
      const err = await other.get(BASE, 'p-2').then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toContain(
        `claim on the log ${join(root, 'journal', 'log', logFiles()[0]!)}, which holds no entry for it: the log ${why}: it was not read past it`,
      );
    }
  });
});
