/**
 * Payout ids in the documented form: derived ids are name-based UUIDs (RFC 4122 version 5)
 * under payctl's fixed namespace, checked against published vectors; and a batch sent by an
 * earlier version under its `b-<32 hex>` ids resumes under those entries (their keys and
 * bodies), in the plan, the send pass and `plan create`, never paying a row again.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchRows, checkBatch, identifiedRows, openBatch, planBatch, type IdentifiedRow, type LoadedRow } from '../../src/payouts/batch-load.js';
import type { Wallet } from '../../src/service/schemas.js';
import { DERIVED_ID, derivedPayoutId, legacyDerivedPayoutId, PAYCTL_NAMESPACE, uuidV5 } from '../../src/payouts/identity.js';
import { Journal } from '../../src/payouts/journal.js';
import { payoutBody } from '../../src/payouts/request.js';
import { UsageError } from '../../src/errors.js';

const DNS = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const URL_NS = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';
const V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BASE = 'http://127.0.0.1:4010/v2';
const T0 = new Date('2026-11-21T10:15:30.123Z');
const HEADER = 'wallet_id,amount,currency,type,name,provider,account_number,phone_number,note';
const ROWS = [
  'wal_1,100,SLE,wallet,Aminata Kamara,orange_money,076000001,+23276000001,Nov',
  'wal_1,200.5,SLE,wallet,Ibrahim Sesay,afrimoney,076000002,+23276000002,Nov',
  'wal_1,300,SLE,bank,Fatmata Conteh,ecobank,0123456789,,Nov',
];
const WALLETS: Wallet[] = [{ wallet_id: 'wal_1', wallet_name: 'W', currency: 'SLE', balance: '1000000.00' }];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-identity-v5-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

async function identified(path: string, batchId: string): Promise<IdentifiedRow[]> {
  const src = openBatch(path, batchId);
  const checked = await checkBatch(src);
  const rows: IdentifiedRow[] = [];
  for await (const r of identifiedRows(src, [], checked)) rows.push(r);
  return rows;
}

async function sendPass(path: string, batchId: string, journal: Journal): Promise<LoadedRow[]> {
  const src = openBatch(path, batchId);
  const rows: LoadedRow[] = [];
  for await (const r of batchRows(src, await checkBatch(src), journal, BASE)) rows.push(r);
  return rows;
}

async function plan(path: string, batchId: string, journal: Journal) {
  const src = openBatch(path, batchId);
  return planBatch(src, await checkBatch(src), journal, BASE, WALLETS);
}

/**
 * Journals a row as the previous version did: under its `b-` id, with the body carrying
 * that id, its batch origin and fingerprint; `accepted` records the service's answer.
 */
async function journalAsBefore(journal: Journal, path: string, batchId: string, r: IdentifiedRow, accepted: boolean) {
  const payoutId = legacyDerivedPayoutId(batchId, r.fingerprint, r.occurrence);
  const e = await journal.begin({
    baseUrl: BASE,
    payoutId,
    body: payoutBody({ ...r.request, payoutId }),
    now: T0,
    origin: { batch: { id: batchId, file: path, row: r.row }, fingerprint: r.fingerprint },
  });
  if (accepted) await journal.record(e, { kind: 'accepted', status: 201, transactionId: `TRX-${r.row}`, fee: '1.00', replayed: false, at: T0.toISOString() });
  return e;
}

describe('uuidV5', () => {
  it('gives the published name-based UUIDs (RFC 4122 version 5, SHA-1)', () => {
    expect(uuidV5(DNS, 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(uuidV5(DNS, 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    expect(uuidV5(URL_NS, 'http://python.org/')).toBe('4c565f0d-3f5a-5890-b41b-20cf47701c5e');
    // The namespace in upper case is the same namespace.
    expect(uuidV5(DNS.toUpperCase(), 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('hashes the name as UTF-8 after the namespace bytes, then sets version 5 and the RFC 4122 variant', () => {
    for (const name of ['', 'é', '\u{1F600} payouts', 'a'.repeat(1000)]) {
      const ns = Buffer.from(DNS.replace(/-/g, ''), 'hex');
      const h = createHash('sha1').update(ns).update(name, 'utf8').digest();
      h[6] = (h[6]! & 0x0f) | 0x50;
      h[8] = (h[8]! & 0x3f) | 0x80;
      const hex = h.subarray(0, 16).toString('hex');
      const want = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      expect(uuidV5(DNS, name), name).toBe(want);
      expect(uuidV5(DNS, name)).toMatch(V5);
    }
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidV5('not-a-uuid', 'x')).toThrow(/not a UUID/);
  });
});

describe('derived payout ids', () => {
  const FP = '0123456789abcdef0123456789abcdef';

  it('are version 5 UUIDs under the fixed payctl namespace, pinned: a change would pay resumed batches again', () => {
    expect(PAYCTL_NAMESPACE).toBe('3f0c2a7e-5b1d-4c8e-9a64-2d7b91e0c5f3');
    expect(derivedPayoutId('default', FP, 0)).toBe(uuidV5(PAYCTL_NAMESPACE, `payctl-batch-v3\ndefault\n${FP}\n0`));
    expect(derivedPayoutId('default', FP, 0)).toMatch(V5);
    expect(DERIVED_ID.test(derivedPayoutId('march', FP, 7))).toBe(true);
  });

  it('the earlier form is kept exactly as the previous version derived it', () => {
    expect(legacyDerivedPayoutId('default', FP, 0)).toBe(`b-${createHash('sha256').update(`payctl-batch-v2\ndefault\n${FP}\n0`).digest('hex').slice(0, 32)}`);
    expect(DERIVED_ID.test(legacyDerivedPayoutId('default', FP, 1))).toBe(true);
    expect(DERIVED_ID.test('mine-1')).toBe(false);
    expect(DERIVED_ID.test('ef868a9f-546c-4f55-b34c-6ef144432db5')).toBe(false); // version 4
  });

  it('batch rows without a payout_id get v5 ids; identical rows differ by occurrence; a payout_id given is kept', async () => {
    const rows = await identified(file('pay.csv', `payout_id,${HEADER}\n,${ROWS[0]}\n,${ROWS[1]}\n,${ROWS[0]}\nmine-1,${ROWS[2]}\n`), 'default');
    expect(rows.map((r) => r.occurrence)).toEqual([0, 0, 1, 0]);
    for (const r of rows.slice(0, 3)) expect(r.request.payoutId).toMatch(V5);
    expect(rows[0]!.request.payoutId).toBe(derivedPayoutId('default', rows[0]!.fingerprint, 0));
    expect(rows[2]!.request.payoutId).toBe(derivedPayoutId('default', rows[0]!.fingerprint, 1));
    expect(rows[0]!.request.payoutId).not.toBe(rows[2]!.request.payoutId);
    expect(rows[3]!.request.payoutId).toBe('mine-1');
    expect(JSON.parse(rows[0]!.body).payoutId).toBe(rows[0]!.request.payoutId);
  });

  it("an identical row's other occurrence journaled under its v5 id is this batch's own duplicate, not the same payout sent before", async () => {
    const journal = new Journal(join(dir, 'cfg'));
    const path = file('dup.csv', [HEADER, ROWS[0], ROWS[0]].join('\n') + '\n');
    const [first] = await identified(path, 'default');
    const e = await journal.begin({
      baseUrl: BASE,
      payoutId: first!.request.payoutId,
      body: first!.body,
      now: T0,
      origin: { batch: { id: 'default', file: openBatch(path, 'default').file, row: 2 }, fingerprint: first!.fingerprint },
    });
    await journal.record(e, { kind: 'accepted', status: 201, transactionId: 'TRX-2', fee: '1.00', replayed: false, at: T0.toISOString() });
    expect(await plan(path, 'default', journal)).toMatchObject({ rows: 2, toSend: 1, alreadyAccepted: 1, matchRows: 0 });
  });
});

describe('a batch sent by the previous version (b- ids in the journal) resumes under its entries', () => {
  it('rows it accepted are skipped as accepted earlier, under their old ids; nothing is to send, nothing matched as another payout', async () => {
    const journal = new Journal(join(dir, 'cfg'));
    const path = file('pay.csv', [HEADER, ...ROWS].join('\n') + '\n');
    const rows = await identified(path, 'default');
    for (const r of rows) await journalAsBefore(journal, openBatch(path, 'default').file, 'default', r, true);

    const sent = await sendPass(path, 'default', journal);
    expect(sent.map((r) => r.request.payoutId)).toEqual(rows.map((r) => legacyDerivedPayoutId('default', r.fingerprint, 0)));
    for (const r of sent) {
      expect(r.earlier?.outcome?.kind).toBe('accepted');
      expect(r.earlier?.payoutId).toBe(r.request.payoutId);
      expect(r.body).toBe(r.earlier?.body);
    }
    // Reversed and renamed, as before: still the old entries.
    const copy = file('copy.csv', [HEADER, ...[...ROWS].reverse()].join('\n') + '\n');
    const planned = await plan(copy, 'default', journal);
    expect(planned).toMatchObject({ rows: 3, toSend: 0, alreadyAccepted: 3, matchRows: 0, otherBatchRows: 0 });
    expect(planned.earlier.map((e) => [e.kind, e.batchId, e.rows])).toEqual([['batch', 'default', 3]]);
  });

  it('a row journaled but not answered resumes with the same id, key and body: journal.begin gives back that entry', async () => {
    const journal = new Journal(join(dir, 'cfg'));
    const path = file('pay.csv', [HEADER, ...ROWS].join('\n') + '\n');
    const rows = await identified(path, 'default');
    const before = await journalAsBefore(journal, openBatch(path, 'default').file, 'default', rows[1]!, false);

    const planned = await plan(path, 'default', journal);
    expect(planned).toMatchObject({ rows: 3, toSend: 3, alreadyAccepted: 0, matchRows: 0 });
    const sent = await sendPass(path, 'default', journal);
    expect(sent[1]!.request.payoutId).toBe(before.payoutId);
    expect(sent[1]!.request.payoutId).toMatch(/^b-[0-9a-f]{32}$/);
    expect(sent[1]!.earlier?.idempotencyKey).toBe(before.idempotencyKey);
    expect(sent[1]!.body).toBe(before.body);
    // What the batch runner does with it: the same entry, not a new one.
    const again = await journal.begin({
      baseUrl: BASE,
      payoutId: sent[1]!.request.payoutId,
      body: sent[1]!.body,
      now: new Date(),
      origin: { fingerprint: sent[1]!.fingerprint },
    });
    expect(again.idempotencyKey).toBe(before.idempotencyKey);
    expect(again.createdAt).toBe(T0.toISOString());
    // The other rows, never journaled, get new-form ids and no entry.
    for (const i of [0, 2]) {
      expect(sent[i]!.request.payoutId).toBe(derivedPayoutId('default', rows[i]!.fingerprint, 0));
      expect(sent[i]!.earlier).toBeUndefined();
    }
    expect(await journal.get(BASE, derivedPayoutId('default', rows[1]!.fingerprint, 0))).toBeUndefined();
  });

  it('identical rows: the occurrence the old version sent resumes under its old id, the next one gets a new-form id (a duplicate, not another payout)', async () => {
    const journal = new Journal(join(dir, 'cfg'));
    const path = file('dup.csv', [HEADER, ROWS[0], ROWS[1], ROWS[0]].join('\n') + '\n');
    const rows = await identified(path, 'default');
    await journalAsBefore(journal, openBatch(path, 'default').file, 'default', rows[0]!, true);
    const planned = await plan(path, 'default', journal);
    expect(planned).toMatchObject({ rows: 3, toSend: 2, alreadyAccepted: 1, matchRows: 0 });
    expect(planned.duplicates.map((g) => [g.rows, g.pending])).toEqual([[[2, 4], true]]);
    const sent = await sendPass(path, 'default', journal);
    expect(sent[0]!.request.payoutId).toBe(legacyDerivedPayoutId('default', rows[0]!.fingerprint, 0));
    expect(sent[2]!.request.payoutId).toBe(derivedPayoutId('default', rows[0]!.fingerprint, 1));
    expect(sent[2]!.earlier).toBeUndefined();
  });

  it('another --batch-id does not pick up the old entries: new ids, named as the same payouts sent before', async () => {
    const journal = new Journal(join(dir, 'cfg'));
    const path = file('pay.csv', [HEADER, ...ROWS].join('\n') + '\n');
    for (const r of await identified(path, 'default')) await journalAsBefore(journal, openBatch(path, 'default').file, 'default', r, true);
    const planned = await plan(path, 'march', journal);
    expect(planned).toMatchObject({ rows: 3, toSend: 3, alreadyAccepted: 0, matchRows: 3, otherBatchRows: 3 });
    for (const r of await sendPass(path, 'march', journal)) {
      expect(r.request.payoutId).toMatch(V5);
      expect(r.earlier).toBeUndefined();
    }
  });

  it('an old entry with other details under the row\u2019s old id is a conflict: nothing is sent, never a new payout', async () => {
    const journal = new Journal(join(dir, 'cfg'));
    const path = file('pay.csv', [HEADER, ROWS[0]].join('\n') + '\n');
    const [r] = await identified(path, 'default');
    const payoutId = legacyDerivedPayoutId('default', r!.fingerprint, 0);
    await journal.begin({ baseUrl: BASE, payoutId, body: payoutBody({ ...r!.request, payoutId }).replace('"amount":100', '"amount":101'), now: T0 });
    const err = await plan(path, 'default', journal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(/1 row conflict with earlier payouts\. Nothing was sent\./);
    expect((err as UsageError).problems).toEqual([expect.stringContaining(`"${payoutId}" was already sent with other details`)]);
  });
});
