/**
 * The local ledger's answer ahead to a batch's plan (Ledger.expectLookups, markers.ts expect): it
 * lists its look-up markers once instead of one file look-up per key, and answers the keys it
 * found no marker of without asking the file system again. What it must never do: hide an entry
 * that was marked when it listed, or one this process marks afterwards; and an entry another
 * process marks after the listing is found at the next group's hint (the listing is made again
 * once the markers' folder changed). Real journals in real temp folders.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/payouts/journal.js';

const BASE = 'http://127.0.0.1:4010/v2';
const T0 = new Date('2026-11-29T01:00:00Z');

let dir: string;
let cfg: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-markers-'));
  cfg = join(dir, 'cfg');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ids = async (j: Journal, kind: 'fingerprint' | 'repeat', key: string): Promise<string[]> => (await j.find(BASE, kind, key)).map((e) => e.payoutId);
const at = (s: number): Date => new Date(T0.getTime() + s * 1000);

describe('a batch plan hint on the local ledger (expectLookups)', () => {
  it('finds what was marked when it listed, and nothing for the keys it did not find', async () => {
    const j = new Journal(cfg);
    await j.begin({ baseUrl: BASE, payoutId: 'p-1', body: '{}', now: at(0), origin: { fingerprint: 'f1', repeatKey: 'r1' } });
    j.expectLookups(BASE, ['f1', 'f9'], ['r1', 'r9']);
    expect(await ids(j, 'repeat', 'r1')).toEqual(['p-1']);
    expect(await ids(j, 'fingerprint', 'f1')).toEqual(['p-1']);
    expect(await ids(j, 'repeat', 'r9')).toEqual([]);
    expect(await ids(j, 'fingerprint', 'f9')).toEqual([]);
  });

  it('a journal with no marker yet: nothing found, then what this process journals is found at once', async () => {
    const j = new Journal(cfg);
    j.expectLookups(BASE, ['f2'], ['r2']);
    expect(await ids(j, 'repeat', 'r2')).toEqual([]);
    await j.begin({ baseUrl: BASE, payoutId: 'p-2', body: '{}', now: at(1), origin: { fingerprint: 'f2', repeatKey: 'r2' } });
    expect(await ids(j, 'repeat', 'r2')).toEqual(['p-2']);
    expect(await ids(j, 'fingerprint', 'f2')).toEqual(['p-2']);
  });

  it('a key this process marks after the hint is found: its own write forgets what the hint kept', async () => {
    const j = new Journal(cfg);
    await j.begin({ baseUrl: BASE, payoutId: 'p-1', body: '{}', now: at(0), origin: { fingerprint: 'f1', repeatKey: 'r1' } });
    j.expectLookups(BASE, [], ['r3']);
    await j.begin({ baseUrl: BASE, payoutId: 'p-3', body: '{}', now: at(3), origin: { fingerprint: 'f3', repeatKey: 'r3' } });
    expect(await ids(j, 'repeat', 'r3')).toEqual(['p-3']);
  });

  it("another process's entry, marked after the listing, is found at the next group's hint", async () => {
    const j = new Journal(cfg);
    await j.begin({ baseUrl: BASE, payoutId: 'p-1', body: '{}', now: at(0), origin: { fingerprint: 'f1', repeatKey: 'r1' } });
    j.expectLookups(BASE, [], ['r4']);
    expect(await ids(j, 'repeat', 'r4')).toEqual([]);
    await new Journal(cfg).begin({ baseUrl: BASE, payoutId: 'p-4', body: '{}', now: at(4), origin: { fingerprint: 'f4', repeatKey: 'r4' } });
    j.expectLookups(BASE, [], ['r4']);
    expect(await ids(j, 'repeat', 'r4')).toEqual(['p-4']);
  });
});
