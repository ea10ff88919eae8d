/**
 * Entries of payctl 0.1 (version 1, no checksum, filed under the base URL as written) in the
 * local journal, read and written by the real Journal in temp config folders: the first read
 * after upgrading adopts and verifies them (the journal key made before the entry is read), and
 * an outcome recorded for one leaves one entry for its payout (the 0.1 file retired once the new
 * one is durable; a crash between the two still reads as one payout, the new one).
 */
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sentToday } from '../../src/plans/sent-today.js';
import { Journal, journalBase, type JournalEntry, type Outcome } from '../../src/payouts/journal.js';
import { JournalMac } from '../../src/payouts/ledger/mac.js';
import { payoutBody, validatePayout, type PayoutFields } from '../../src/payouts/request.js';
import { payctl } from '../helpers/in-process.js';
import { scanned } from '../helpers/scanned.js';

/** A base URL as a person may have typed it: payctl 0.1 filed its entries under it as written. */
const AS_WRITTEN = 'https://API.example.com:443/v2/';
const BASE = journalBase(AS_WRITTEN);
const T0 = new Date();
const T1 = new Date(T0.getTime() + 1000);

let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'payctl-legacy-'));
  dir = join(root, 'journal');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** The documented file name: the first 32 hex digits of sha256("<base URL>\n<payout id>"). */
const fileOf = (baseUrl: string, payoutId: string) => join(dir, `${sha(`${baseUrl}\n${payoutId}`).slice(0, 32)}.json`);

/** A payout body for `payoutId`, as payctl sends it. */
function body(payoutId: string): string {
  const f: PayoutFields = {
    payoutId,
    walletId: 'wal_1',
    amount: '25.00',
    currency: 'SLE',
    type: 'bank',
    name: 'Fatmata Sesay',
    provider: 'ecobank',
    account: '0011223344',
  };
  const r = validatePayout(f);
  if (!r.ok) throw new Error(r.problems.join('; '));
  return payoutBody(r.request);
}

/** An entry as payctl 0.1 left it: version 1, no checksum, no outcome recorded (unknown), under `baseUrl` as written. */
function plantLegacy(payoutId: string, baseUrl = AS_WRITTEN, over: Partial<JournalEntry> = {}): { entry: JournalEntry; file: string } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const entry: JournalEntry = { version: 1, payoutId, baseUrl, idempotencyKey: `k-${payoutId}`, body: body(payoutId), createdAt: T0.toISOString(), ...over };
  const file = fileOf(baseUrl, payoutId);
  writeFileSync(file, JSON.stringify(entry, null, 2), { mode: 0o600 });
  return { entry, file };
}

/** The journal key made as an earlier run of this payctl made it, adopting the 0.1 entries then on disk. */
function upgraded(): void {
  new JournalMac(root, dir).of('make the key');
}

/** A look-up marker as journals of old kept them: a folder at index/<hash>, a hard link per entry named after its file. */
function markedOfOld(file: string, fingerprint: string): void {
  const folder = join(dir, 'index', sha(`${BASE}\nfingerprint\n${fingerprint}`).slice(0, 32));
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  linkSync(file, join(folder, file.slice(dir.length + 1)));
}

const accepted = (transactionId: string): Outcome => ({ kind: 'accepted', status: 201, transactionId, fee: undefined, replayed: false, at: T1.toISOString() });

/** The entries of `payoutId` a fresh journal lists, and the errors of the listing. */
async function listed(payoutId: string): Promise<{ entries: JournalEntry[]; errors: Error[] }> {
  const items = await scanned(new Journal(root));
  return {
    entries: items.flatMap((it) => ('entry' in it && it.entry.payoutId === payoutId ? [it.entry] : [])),
    errors: items.flatMap((it) => ('error' in it ? [it.error] : [])),
  };
}

describe('a payctl 0.1 entry resolved: one payout, one entry', () => {
  it('the outcome is filed under the normalized name and the 0.1 file removed: listed once, accepted, counted once in the daily total', async () => {
    const { entry: legacy, file: legacyFile } = plantLegacy('old-1');
    upgraded();
    const journal = new Journal(root);
    const e = await journal.begin({ baseUrl: AS_WRITTEN, payoutId: 'old-1', body: body('old-1'), now: T1 });
    expect(e.idempotencyKey).toBe(legacy.idempotencyKey);
    await journal.record(e, accepted('TXN-OLD-1'));

    expect(existsSync(legacyFile)).toBe(false);
    expect(existsSync(fileOf(BASE, 'old-1'))).toBe(true);
    const { entries, errors } = await listed('old-1');
    expect(errors).toEqual([]);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ idempotencyKey: legacy.idempotencyKey, outcome: { kind: 'accepted', transactionId: 'TXN-OLD-1' } });
    expect((await new Journal(root).get(AS_WRITTEN, 'old-1'))?.outcome?.kind).toBe('accepted');
    // 25.00 SLE once, not 50.00.
    expect(await sentToday(new Journal(root), BASE, T1, new Set())).toEqual(new Map([['wal_1\nSLE', 2500n]]));
  });

  it('history lists it once, accepted; history --status unknown lists nothing', async () => {
    plantLegacy('old-1');
    upgraded();
    const journal = new Journal(root);
    await journal.record(await journal.begin({ baseUrl: AS_WRITTEN, payoutId: 'old-1', body: body('old-1'), now: T1 }), accepted('TXN-OLD-1'));

    const all = await payctl(['history', '--json'], { dir: root });
    expect(all.code, all.stderr).toBe(0);
    const doc = JSON.parse(all.stdout) as { data: Array<{ payout_id: string; outcome: string }>; count: number };
    expect(doc.data.map((r) => [r.payout_id, r.outcome])).toEqual([['old-1', 'accepted']]);
    const unknown = await payctl(['history', '--status', 'unknown', '--json'], { dir: root });
    expect(unknown.code, unknown.stderr).toBe(0);
    expect((JSON.parse(unknown.stdout) as { count: number }).count).toBe(0);
  });

  it('a crash between writing the new file and removing the 0.1 one: read as one payout, the new one; the next write removes the old file', async () => {
    const { file: legacyFile } = plantLegacy('old-1', AS_WRITTEN, { fingerprint: 'fp-old-1' });
    markedOfOld(legacyFile, 'fp-old-1');
    upgraded();
    const adopted = readFileSync(legacyFile);
    const journal = new Journal(root);
    const e = await journal.begin({ baseUrl: AS_WRITTEN, payoutId: 'old-1', body: body('old-1'), now: T1 });
    await journal.record(e, accepted('TXN-OLD-1'));
    // The 0.1 file as it was before the removal: what a crash right after the new file's write leaves.
    writeFileSync(legacyFile, adopted, { mode: 0o600 });

    const after = new Journal(root);
    expect((await after.get(AS_WRITTEN, 'old-1'))?.outcome?.kind).toBe('accepted');
    const { entries, errors } = await listed('old-1');
    expect(errors).toEqual([]);
    expect(entries.map((x) => x.outcome?.kind)).toEqual(['accepted']);
    expect(await sentToday(after, BASE, T1, new Set())).toEqual(new Map([['wal_1\nSLE', 2500n]]));
    expect((await after.find(AS_WRITTEN, 'fingerprint', 'fp-old-1')).map((x) => x.outcome?.kind)).toEqual(['accepted']);

    // The next write for that payout retires the old file.
    await after.record((await after.get(AS_WRITTEN, 'old-1'))!, accepted('TXN-OLD-1'));
    expect(existsSync(legacyFile)).toBe(false);
    expect((await listed('old-1')).entries).toHaveLength(1);
  });

  it('a look-up by fingerprint (a marker of old, named after the 0.1 file) finds the resolved entry, once', async () => {
    const { file: legacyFile } = plantLegacy('old-1', AS_WRITTEN, { fingerprint: 'fp-old-1' });
    markedOfOld(legacyFile, 'fp-old-1');
    upgraded();
    const journal = new Journal(root);
    expect((await journal.find(AS_WRITTEN, 'fingerprint', 'fp-old-1')).map((x) => x.outcome?.kind)).toEqual([undefined]);
    await journal.record((await journal.get(AS_WRITTEN, 'old-1'))!, accepted('TXN-OLD-1'));

    const found = await new Journal(root).find(AS_WRITTEN, 'fingerprint', 'fp-old-1');
    expect(found.map((x) => [x.payoutId, x.outcome?.kind])).toEqual([['old-1', 'accepted']]);
  });
});

describe('the first read after upgrading from payctl 0.1 (no journal key yet)', () => {
  it('adopts the 0.1 entry it reads and verifies it: a look-up under the base URL as written', async () => {
    const { entry: legacy, file } = plantLegacy('old-2');
    expect(existsSync(join(root, 'journal.key'))).toBe(false);
    expect(await new Journal(root).get(AS_WRITTEN, 'old-2')).toEqual(legacy);
    expect(existsSync(join(root, 'journal.key'))).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveProperty('mac');
    // Adopted when the key was made, not after: one planted since, without a checksum, is refused.
    plantLegacy('old-4');
    await expect(new Journal(root).get(AS_WRITTEN, 'old-4')).rejects.toThrow(/it has no checksum/);
  });

  it('begin for the 0.1 payout id, as a first command, sends it under its key (a base URL whose 0.1 name is the current one)', async () => {
    const { entry: legacy } = plantLegacy('old-2', BASE);
    const e = await new Journal(root).begin({ baseUrl: BASE, payoutId: 'old-2', body: body('old-2'), now: T1 });
    expect(e).toEqual(legacy);
  });

  it('a listing as the first read lists the 0.1 entries, none of them as damaged', async () => {
    plantLegacy('old-2');
    plantLegacy('old-3', BASE);
    const items = await scanned(new Journal(root));
    expect(items.filter((it) => 'error' in it)).toEqual([]);
    expect(items.map((it) => ('entry' in it ? it.entry.payoutId : '')).sort()).toEqual(['old-2', 'old-3']);
  });
});
