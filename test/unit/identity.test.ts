/**
 * Payout identity (docs/architecture.md, "Identity"): a batch row's id comes from what it pays and the
 * batch id, never from the file's name or the row's position; the journal finds the same
 * payout under other ids; two writers of one payout id end up with one key.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchRows, checkBatch, describeRun, identifiedRows, openBatch, planBatch, RunTally, type IdentifiedRow } from '../../src/payouts/batch-load.js';
import type { Wallet } from '../../src/service/schemas.js';
import { checkBatchId, derivedPayoutId, looseAccount, payoutFingerprint, repeatKey, repeatKeys } from '../../src/payouts/identity.js';
import { Journal } from '../../src/payouts/journal.js';
import { validatePayout, type PayoutFields, type PayoutRequest } from '../../src/payouts/request.js';
import { UsageError } from '../../src/errors.js';

const BASE = 'http://127.0.0.1:4010/v2';
const T0 = new Date('2026-11-21T10:15:30.123Z');
const HEADER = 'wallet_id,amount,currency,type,name,provider,account_number,phone_number,note';
const ROWS = [
  'wal_1,100,SLE,wallet,Aminata Kamara,orange_money,076000001,+23276000001,Nov',
  'wal_1,200.5,SLE,wallet,Ibrahim Sesay,afrimoney,076000002,+23276000002,Nov',
  'wal_1,300,SLE,bank,Fatmata Conteh,ecobank,0123456789,,Nov',
];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-identity-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

function req(over: PayoutFields = {}): PayoutRequest {
  const r = validatePayout({ walletId: 'wal_1', amount: '100', currency: 'SLE', type: 'bank', name: 'A', provider: 'uba', account: '1', ...over });
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.request;
}

const WALLETS: Wallet[] = [{ wallet_id: 'wal_1', wallet_name: 'W', currency: 'SLE', balance: '1000000.00' }];

/** Every row of a file, checked and identified, as the batch command reads it. */
async function readBatch(path: string, batchId: string): Promise<{ file: string; rows: IdentifiedRow[] }> {
  const src = openBatch(path, batchId);
  const checked = await checkBatch(src);
  const rows: IdentifiedRow[] = [];
  for await (const r of identifiedRows(src, [], checked)) rows.push(r);
  return { file: src.file, rows };
}

async function plan(path: string, batchId: string, journal: Journal, baseUrl = BASE, wallets = WALLETS) {
  const src = openBatch(path, batchId);
  return planBatch(src, await checkBatch(src), journal, baseUrl, wallets);
}

/** Payout id per (name, occurrence) so files with other row orders can be compared. */
async function idsByRecipient(path: string, batchId = 'default'): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const r of (await readBatch(path, batchId)).rows) out.set(r.request.name, [...(out.get(r.request.name) ?? []), r.request.payoutId]);
  return out;
}

describe('payoutFingerprint and derivedPayoutId', () => {
  it('are equal for the same payout written differently (100 vs 100.00, provider spelling, phone spacing)', () => {
    const a = req({ amount: '100', provider: 'Orange Money', type: 'wallet', phone: '+232 76 000001' });
    const b = req({ amount: '100.00', provider: 'orange_money', type: 'wallet', phone: '+23276000001' });
    expect(payoutFingerprint(a)).toBe(payoutFingerprint(b));
    expect(derivedPayoutId('default', payoutFingerprint(a), 0)).toBe(derivedPayoutId('default', payoutFingerprint(b), 0));
  });

  it.each<[string, PayoutFields]>([
    ['amount', { amount: '100.01' }],
    ['wallet', { walletId: 'wal_2' }],
    ['currency', { currency: 'NGN' }],
    ['name', { name: 'B' }],
    ['account', { account: '2' }],
    ['note', { note: 'x' }],
    ['metadata', { metadata: ['k=v'] }],
    ['type', { type: 'wallet', phone: '+23276000001' }],
  ])('differ when the %s differs', (_what, over) => {
    expect(payoutFingerprint(req(over))).not.toBe(payoutFingerprint(req()));
  });

  it('do not depend on the order of metadata keys', () => {
    expect(payoutFingerprint(req({ metadata: ['a=1', 'b=2'] }))).toBe(payoutFingerprint(req({ metadata: ['b=2', 'a=1'] })));
  });

  it('depend on the batch id and the occurrence', () => {
    const fp = payoutFingerprint(req());
    const ids = new Set([derivedPayoutId('default', fp, 0), derivedPayoutId('default', fp, 1), derivedPayoutId('march', fp, 0)]);
    expect(ids.size).toBe(3);
    expect(derivedPayoutId('default', fp, 0)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('repeat key: same wallet, account, amount and currency, whatever the name or note', () => {
    expect(repeatKey(req({ name: 'X', note: 'n' }))).toBe(repeatKey(req({ amount: '100.00' })));
    expect(repeatKey(req({ account: '9' }))).not.toBe(repeatKey(req()));
  });

  it('repeat key: the account compared without letter case, spaces and dashes; as earlier versions journaled it for an account in that form', () => {
    const key = repeatKey(req({ account: 'SL12ABCD0001' }));
    for (const account of ['sl12abcd0001', 'SL12-ABCD-0001', 'sl12 abcd 0001']) expect(repeatKey(req({ account }))).toBe(key);
    // Other characters and leading zeros count: another account.
    expect(repeatKey(req({ account: '4410.001234' }))).not.toBe(repeatKey(req({ account: '4410001234' })));
    expect(repeatKey(req({ account: '04410001234' }))).not.toBe(repeatKey(req({ account: '4410001234' })));
    // The previous version's key, of the account as typed (written out here as it computed it).
    const previous = (account: string) =>
      createHash('sha256')
        .update(`payctl-repeat-v1\n${JSON.stringify(['wal_1', account, 'SLE', '10000'])}`)
        .digest('hex')
        .slice(0, 32);
    expect(repeatKey(req({ account: '4410001234' }))).toBe(previous('4410001234'));
    expect(key).toBe(previous('SL12ABCD0001'));
    // Looked up by: its key, and for another form the previous version's key of it as typed.
    expect(repeatKeys(req({ account: '4410001234' }))).toEqual([previous('4410001234')]);
    expect(repeatKeys(req({ account: '4410-0012-34' }))).toEqual([previous('4410001234'), previous('4410-0012-34')]);
    // What identifies a payout keeps the account as written.
    expect(payoutFingerprint(req({ account: '4410-0012-34' }))).not.toBe(payoutFingerprint(req({ account: '4410001234' })));
  });

  it('checkBatchId accepts names and refuses what cannot be pasted safely', () => {
    expect(checkBatchId('2026-11-stipends')).toBeUndefined();
    for (const bad of ['', ' x', 'a b', '-x', 'x;rm', 'a'.repeat(65), 'é']) expect(checkBatchId(bad)?.text).toMatch(/^--batch-id: /);
  });
});

describe('readBatch: the same rows give the same ids', () => {
  it('reversed, renamed, re-saved with CRLF, a BOM, quotes and 100.00 for 100', async () => {
    const original = await idsByRecipient(file('pay.csv', [HEADER, ...ROWS].join('\n') + '\n'));
    const reversed = await idsByRecipient(file('reversed.csv', [HEADER, ...[...ROWS].reverse()].join('\n') + '\n'));
    const resaved = await idsByRecipient(
      file('pay.orig.csv', '\uFEFF' + [HEADER, ...ROWS.map((r) => r.replace(',100,', ',100.00,').replace('Aminata Kamara', '"Aminata Kamara"'))].join('\r\n') + '\r\n'),
    );
    expect(original.size).toBe(3);
    expect(reversed).toEqual(original);
    expect(resaved).toEqual(original);
  });

  it('a JSON-lines file with the same payouts gives the same ids as the CSV', async () => {
    const csv = await idsByRecipient(file('pay.csv', [HEADER, ROWS[2]].join('\n') + '\n'));
    const jsonl = await idsByRecipient(
      file(
        'pay.jsonl',
        JSON.stringify({
          wallet_id: 'wal_1',
          amount: 300,
          currency: 'SLE',
          type: 'bank',
          name: 'Fatmata Conteh',
          provider: 'ecobank',
          account_number: '0123456789',
          note: 'Nov',
        }) + '\n',
      ),
    );
    expect(jsonl).toEqual(csv);
  });

  it('identical rows get distinct ids by occurrence; another batch id gives other ids', async () => {
    const p = file('dup.csv', [HEADER, ROWS[0], ROWS[1], ROWS[0]].join('\n') + '\n');
    const a = await idsByRecipient(p);
    expect(a.get('Aminata Kamara')).toHaveLength(2);
    expect(new Set(a.get('Aminata Kamara')).size).toBe(2);
    const b = await idsByRecipient(p, 'march');
    for (const [name, ids] of a) for (const id of ids) expect(b.get(name)).not.toContain(id);
  });

  it('an explicit payout_id is kept as given', async () => {
    const r = await readBatch(file('ids.csv', `payout_id,${HEADER}\nmine-1,${ROWS[0]}\n`), 'default');
    expect(r.rows[0]!.request.payoutId).toBe('mine-1');
    expect(r.rows[0]!.derivedId).toBe(false);
  });

  it('refuses an amount beyond 15 significant digits, naming the row', async () => {
    const p = file('big.csv', `${HEADER}\nwal_1,1234567890123456.78,SLE,bank,A,uba,1,,\n`);
    const err = await checkBatch(openBatch(p, 'default')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).problems).toEqual([expect.stringMatching(/^row 2: amount: "1234567890123456.78" has 18 significant digits/)]);
  });

  it('an unreadable path is a usage error', () => {
    expect(() => openBatch(join(dir, 'missing.csv'), 'default')).toThrow(/no such file/);
    expect(() => openBatch(dir, 'default')).toThrow(/it is a folder/);
  });
});

describe('planBatch: what the journal knows', () => {
  async function sendAll(path: string, journal: Journal, batchId = 'default') {
    const src = openBatch(path, batchId);
    for await (const r of batchRows(src, await checkBatch(src), journal, BASE)) {
      const e = await journal.begin({
        baseUrl: BASE,
        payoutId: r.request.payoutId,
        body: r.body,
        now: T0,
        origin: { batch: { id: batchId, file: src.file, row: r.row }, fingerprint: r.fingerprint },
      });
      await journal.record(e, { kind: 'accepted', status: 201, transactionId: 'TRX1', fee: '1.00', replayed: false, at: T0.toISOString() });
    }
    return src.file;
  }

  it('finds rows accepted in an earlier run under any file name, and the same payouts under another batch id', async () => {
    const journal = new Journal(join(dir, 'cfg'));
    const firstFile = await sendAll(file('pay.csv', [HEADER, ...ROWS].join('\n') + '\n'), journal);
    const copy = await plan(file('copy.csv', [HEADER, ...[...ROWS].reverse()].join('\n') + '\n'), 'default', journal);
    expect(copy).toMatchObject({ rows: 3, toSend: 0, alreadyAccepted: 3, matchRows: 0, otherBatchRows: 0, groups: [] });
    expect(copy.earlier).toEqual([{ kind: 'batch', batchId: 'default', file: firstFile, rows: 3, first: T0.toISOString(), last: T0.toISOString() }]);
    expect(describeRun(copy.earlier[0]!)).toBe(`in batch "default" from ${firstFile} on 2026-11-21 10:15 UTC`);

    const march = await plan(join(dir, 'copy.csv'), 'march', journal);
    expect(march).toMatchObject({ rows: 3, toSend: 3, alreadyAccepted: 0, matchRows: 3, otherBatchRows: 3 });
    expect(march.matched.map((r) => [r.batchId, r.rows])).toEqual([['default', 3]]);
    expect(march.groups.map((g) => [g.walletId, g.count, g.totalMinor])).toEqual([['wal_1', 3, 60050n]]);
    // Another service's journal is another world.
    expect((await plan(join(dir, 'copy.csv'), 'march', journal, 'https://api.example.com/v2')).matchRows).toBe(0);
  });

  it('a row whose id was journaled with other details is a conflict: nothing is sent', async () => {
    const journal = new Journal(join(dir, 'cfg'));
    const p = file('ids.csv', `payout_id,${HEADER}\nmine-1,${ROWS[0]}\n`);
    const read = await readBatch(p, 'default');
    await journal.begin({ baseUrl: BASE, payoutId: 'mine-1', body: read.rows[0]!.body.replace('"amount":100', '"amount":101'), now: T0 });
    await expect(plan(p, 'default', journal)).rejects.toThrow(/1 row conflict with earlier payouts\. Nothing was sent\./);
  });

  it('resumes a batch sent by payctl 0.1 under its file-and-row id', async () => {
    const journal = new Journal(join(dir, 'cfg'));
    const p = file('old.csv', [HEADER, ROWS[0]].join('\n') + '\n');
    const read = await readBatch(p, 'default');
    const legacy = read.rows[0]!.legacyId!;
    expect(legacy).toMatch(/^batch-[0-9a-f]{24}$/);
    const legacyBody = read.rows[0]!.body.replace(read.rows[0]!.request.payoutId, legacy);
    const e = await journal.begin({ baseUrl: BASE, payoutId: legacy, body: legacyBody, now: T0 });
    await journal.record(e, { kind: 'accepted', status: 201, transactionId: 'TRX1', fee: '1.00', replayed: false, at: T0.toISOString() });
    const rows = [];
    const src = openBatch(p, 'default');
    for await (const r of batchRows(src, await checkBatch(src), journal, BASE)) rows.push(r);
    expect(rows[0]!.request.payoutId).toBe(legacy);
    expect(rows[0]!.body).toBe(legacyBody);
    expect(rows[0]!.earlier?.outcome?.kind).toBe('accepted');
    const planned = await plan(p, 'default', journal);
    expect(planned.toSend).toBe(0);
    expect(describeRun(planned.earlier[0]!)).toBe('in a batch sent by an earlier payctl on 2026-11-21 10:15 UTC');
    const tally = new RunTally();
    tally.add(rows[0]!.earlier!);
    expect(describeRun(tally.runs()[0]!)).toBe('in a batch sent by an earlier payctl on 2026-11-21 10:15 UTC');
  });

  it('names unknown wallets and currency mismatches by row: nothing is sent', async () => {
    const p = file('w.csv', `${HEADER}\nwal_nope,1,SLE,bank,A,uba,1,,\nwal_1,1,NGN,bank,A,uba,1,,\nwal_1,1,SLE,bank,A,uba,1,,\n`);
    const src = openBatch(p, 'default');
    const err = await planBatch(
      src,
      await checkBatch(src),
      new Journal(join(dir, 'cfg')),
      BASE,
      [{ wallet_id: 'wal_1', wallet_name: 'W', currency: 'sle', balance: 10 }],
      'payctl balances --profile p',
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).problems).toEqual([
      'row 2: wallet_id "wal_nope" is not one of your wallets (see payctl balances --profile p)',
      'row 3: wallet wal_1 holds SLE, not NGN',
    ]);
  });

  it('groups identical rows, marking groups with rows still to send', async () => {
    const p = file('dup.csv', [HEADER, ROWS[0], ROWS[1], ROWS[0], ROWS[0]].join('\n') + '\n');
    const planned = await plan(p, 'default', new Journal(join(dir, 'cfg')));
    expect(planned.duplicates.map((g) => [g.rows, g.request.name, g.pending])).toEqual([[[2, 4, 5], 'Aminata Kamara', true]]);
  });
});

describe('Journal: one writer per payout id', () => {
  it('two journals (two processes) beginning the same payout at once end with one key', async () => {
    const body = '{"amount":1,"payoutId":"p-1"}';
    for (let i = 0; i < 20; i++) {
      const cfg = join(dir, `cfg-${i}`);
      const [a, b] = await Promise.all([
        new Journal(cfg).begin({ baseUrl: BASE, payoutId: 'p-1', body, now: T0 }),
        new Journal(cfg).begin({ baseUrl: BASE, payoutId: 'p-1', body, now: T0 }),
      ]);
      expect(a.idempotencyKey).toBe(b.idempotencyKey);
      expect((await new Journal(cfg).get(BASE, 'p-1'))?.idempotencyKey).toBe(a.idempotencyKey);
    }
  });

  it('an accepted outcome is not overwritten by a later unknown one for the same key', async () => {
    const journal = new Journal(join(dir, 'cfg'));
    const e = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: '{}', now: T0 });
    await journal.record(e, { kind: 'accepted', status: 201, transactionId: 'TRX1', fee: undefined, replayed: false, at: T0.toISOString() });
    const after = await journal.record(e, { kind: 'unknown', reason: 'timed out', at: T0.toISOString() });
    expect(after.outcome?.kind).toBe('accepted');
    expect((await journal.get(BASE, 'p-1'))?.outcome?.kind).toBe('accepted');
  });

  it('find() returns entries by fingerprint and repeat key, for this base URL only', async () => {
    const journal = new Journal(join(dir, 'cfg'));
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: '{}', now: T0, origin: { fingerprint: 'f1', repeatKey: 'r1' } });
    await journal.begin({ baseUrl: BASE, payoutId: 'p-2', body: '{}', now: new Date(T0.getTime() + 1000), origin: { fingerprint: 'f1', repeatKey: 'r2' } });
    await journal.begin({ baseUrl: 'https://other.example/v2', payoutId: 'p-3', body: '{}', now: T0, origin: { fingerprint: 'f1' } });
    expect((await journal.find(BASE, 'fingerprint', 'f1')).map((e) => e.payoutId)).toEqual(['p-1', 'p-2']);
    expect((await journal.find(BASE, 'repeat', 'r2')).map((e) => e.payoutId)).toEqual(['p-2']);
    expect(await journal.find(BASE, 'repeat', 'nothing')).toEqual([]);
  });
});

describe('rows kept between the passes', () => {
  it('the passes after the first read the rows it kept, and give exactly what parsing the file again gives (duplicates and derived ids included)', async () => {
    const lines = [...ROWS, ROWS[0]!, 'wal_1,100.00,SLE,wallet,Aminata Kamara,Orange Money,076000001,+23276000001,Nov', ROWS[2]!];
    const path = file('kept.csv', `${HEADER}\n${lines.join('\n')}\n`);
    const src = openBatch(path, 'kept');
    const checked = await checkBatch(src);
    expect(src.kept).toHaveLength(lines.length);
    const fromKept: IdentifiedRow[] = [];
    for await (const r of identifiedRows(src, [], checked)) fromKept.push(r);
    const parsed: IdentifiedRow[] = [];
    for await (const r of identifiedRows({ ...src, kept: undefined }, [], checked)) parsed.push(r);
    expect(fromKept).toEqual(parsed);
    expect(new Set(fromKept.map((r) => r.request.payoutId)).size).toBe(lines.length);
  });

  it('a file with problems keeps nothing (it is refused before any other pass)', async () => {
    const src = openBatch(file('bad.csv', `${HEADER}\n${ROWS[0]}\nwal_1,-5,SLE,wallet,X,orange_money,1,+23276000009,\n`), 'default');
    await expect(checkBatch(src)).rejects.toBeInstanceOf(UsageError);
    expect(src.kept).toBeUndefined();
  });
});

describe('looseAccount: an account as a spreadsheet may have re-saved it', () => {
  it('without its form, its leading zeros, or the digits past the 15 a spreadsheet keeps', () => {
    expect(looseAccount('0099887766')).toBe(looseAccount('99887766'));
    expect(looseAccount('0099-887-766')).toBe('99887766');
    expect(looseAccount('12345678901234567890')).toBe(looseAccount('12345678901234500000'));
    expect(looseAccount('sl12abcd0001')).toBe('SL12ABCD0001');
    // Other digits are other accounts; 15 digits or fewer are kept whole.
    expect(looseAccount('99887767')).not.toBe(looseAccount('99887766'));
    expect(looseAccount('123456789012345')).not.toBe(looseAccount('123456789012340'));
  });
});
