import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Every step the journal takes on disk, in order: links made, folder fsyncs started and ended.
const events: string[] = [];
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...fs,
    link: async (from: string, to: string) => {
      await fs.link(from, to);
      events.push(`link ${to}`);
    },
    open: async (path: string, flags?: string, mode?: number) => {
      const fh = await fs.open(path, flags, mode);
      if (flags !== 'r') return fh;
      // The journal folder, opened to be fsynced.
      const sync = fh.sync.bind(fh);
      fh.sync = async () => {
        events.push('fsync start');
        await sync();
        events.push('fsync end');
      };
      return fh;
    },
  };
});

// Test files share a module cache (isolate: false): load the journal afresh, over the spied fs.
vi.resetModules();
const { Journal } = await import('../../src/payouts/journal.js');
const BASE = 'https://api.example.com/v2';
const T0 = new Date('2026-11-21T10:15:30.123Z');

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'payctl-journal-gc-'));
  events.length = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('Journal: group commit of the folder fsyncs', () => {
  it('entries begun in the same moment share folder fsyncs, and each is durable before its begin() resolves', async () => {
    const journal = new Journal(root);
    const ids = Array.from({ length: 20 }, (_, i) => `p-${i}`);
    const resolvedAt = new Map<string, number>();
    await Promise.all(
      ids.map(async (id) => {
        await journal.begin({ baseUrl: BASE, payoutId: id, body: `{"payoutId":"${id}"}`, now: T0, origin: { fingerprint: `f-${id}` } });
        resolvedAt.set(id, events.length);
      }),
    );
    const syncs = events.filter((e) => e === 'fsync start').length;
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(syncs).toBeLessThan(ids.length);
    for (const id of ids) {
      // The entry's own link, then a folder fsync that started after it and ended before begin() resolved.
      let name = '';
      for (const n of readdirSync(journal.dir)) {
        if (n.endsWith('.json') && (await journal.byName(n))?.payoutId === id) {
          name = n;
          break;
        }
      }
      const linked = events.indexOf(`link ${join(journal.dir, name)}`);
      expect(linked).toBeGreaterThanOrEqual(0);
      const started = events.indexOf('fsync start', linked);
      expect(started).toBeGreaterThan(linked);
      const ended = events.indexOf('fsync end', started);
      expect(ended).toBeGreaterThan(started);
      expect(ended).toBeLessThan(resolvedAt.get(id)!);
    }
  });

  it('outcomes recorded in the same moment share folder fsyncs too, each durable before record() resolves', async () => {
    const journal = new Journal(root);
    const entries = await Promise.all(Array.from({ length: 10 }, (_, i) => journal.begin({ baseUrl: BASE, payoutId: `p-${i}`, body: '{}', now: T0 })));
    events.length = 0;
    const done: number[] = [];
    await Promise.all(
      entries.map(async (e) => {
        await journal.record(e, { kind: 'unknown', reason: 'r', at: T0.toISOString() });
        done.push(events.length);
      }),
    );
    expect(events.filter((e) => e === 'fsync start').length).toBeLessThan(entries.length);
    // The last fsync ends before the last record() resolves, and none resolves before an fsync ended.
    for (const at of done) expect(events.slice(0, at)).toContain('fsync end');
    for (const e of entries) expect((await journal.get(BASE, e.payoutId))?.outcome?.kind).toBe('unknown');
  });

  it('a look-up marker is a hard link named by the key, of the entry as first written (no new file); find() still finds the entry', async () => {
    const journal = new Journal(root);
    const e = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: '{}', now: T0, origin: { fingerprint: 'same', repeatKey: 'again' } });
    const name = readdirSync(journal.dir).find((n) => n.endsWith('.json'))!;
    const index = join(journal.dir, 'index');
    const markers = readdirSync(index, { withFileTypes: true });
    expect(markers).toHaveLength(2);
    const entryInode = statSync(join(journal.dir, name)).ino;
    for (const m of markers) {
      expect(m.isFile()).toBe(true);
      expect(statSync(join(index, m.name)).ino).toBe(entryInode);
    }
    expect(await journal.find(BASE, 'fingerprint', 'same')).toEqual([e]);
    expect(await journal.find(BASE, 'repeat', 'again')).toEqual([e]);
    // A second payout with the same fingerprint: marked in the key's .more folder; both found, oldest first.
    const f = await journal.begin({ baseUrl: BASE, payoutId: 'p-2', body: '{}', now: new Date(T0.getTime() + 1000), origin: { fingerprint: 'same' } });
    expect(readdirSync(index).filter((n) => n.endsWith('.more'))).toHaveLength(1);
    expect(await journal.find(BASE, 'fingerprint', 'same')).toEqual([e, f]);
    // No temp file is left behind.
    expect(readdirSync(journal.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it("entries kept in a batch's log are marked by links of the log's claim file and found through the log, also by another process", async () => {
    const journal = new Journal(root);
    const begin = (id: string, fingerprint: string) => journal.begin({ baseUrl: BASE, payoutId: id, body: '{}', now: T0, log: true, origin: { fingerprint } });
    const [a, b, c] = await Promise.all([begin('p-1', 'one'), begin('p-2', 'two'), begin('p-3', 'one')]);
    const index = join(journal.dir, 'index');
    const claims = readdirSync(join(journal.dir, 'log')).filter((n) => n.endsWith('.claim'));
    expect(claims).toHaveLength(1);
    const claimInode = statSync(join(journal.dir, 'log', claims[0]!)).ino;
    // One marker per key, and one in the .more folder for the second entry with the key "one": all links of the claim.
    const files = readdirSync(index, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    expect(files).toHaveLength(3);
    for (const d of files) expect(statSync(join(d.parentPath, d.name)).ino).toBe(claimInode);
    const other = new Journal(root);
    expect((await other.find(BASE, 'fingerprint', 'one')).map((x) => x.payoutId)).toEqual([a.payoutId, c.payoutId].sort());
    expect(await other.find(BASE, 'fingerprint', 'two')).toEqual([b]);
    expect(await other.find(BASE, 'fingerprint', 'three')).toEqual([]);
    await journal.closeLog();
    // After compaction, still found.
    expect(await new Journal(root).find(BASE, 'fingerprint', 'two')).toEqual([b]);
  });

  it('an index folder of an earlier payctl (one marker per entry, named after it) is still read and added to', async () => {
    const journal = new Journal(root);
    const e = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: '{}', now: T0, origin: { fingerprint: 'old' } });
    const index = join(journal.dir, 'index');
    const [marker] = readdirSync(index);
    const name = readdirSync(journal.dir).find((n) => n.endsWith('.json'))!;
    // The layout journals had before: a folder per key holding a file named after each entry.
    rmSync(join(index, marker!));
    mkdirSync(join(index, marker!));
    writeFileSync(join(index, marker!, name), '');
    expect(await journal.find(BASE, 'fingerprint', 'old')).toEqual([e]);
    const f = await journal.begin({ baseUrl: BASE, payoutId: 'p-2', body: '{}', now: new Date(T0.getTime() + 1000), origin: { fingerprint: 'old' } });
    expect(readdirSync(join(index, marker!))).toHaveLength(2);
    expect(await journal.find(BASE, 'fingerprint', 'old')).toEqual([e, f]);
    // No temp file is left behind.
    expect(readdirSync(journal.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
