/**
 * The shared ledger's rows signed and checked (src/payouts/ledger/postgres/signing.ts, issue #30:
 * every row attributable), against a real PostgreSQL: each row the store writes (claims, outcomes,
 * imported entries) carries its signer's public key and a signature over rowMessage; a row edited
 * with plain SQL (its entry, its amount, its outcome, a look-up column, its signer, its signature)
 * is refused by every read (get, find, byTransactionId, transactionOwner, byName; scan gives it as
 * an error), and a begin for its payout id throws: nothing is sent. Its created_at is its signed
 * entry's time: the database's for a claim, the entry's own for an import. Also the key that signs:
 * the person's (`keys create`) when there is one, else the config folder's ledger key (0600).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, ExitCode } from '../../src/errors.js';
import type { JournalEntry, Outcome } from '../../src/payouts/ledger/ledger.js';
import { newEntry } from '../../src/payouts/ledger/entries.js';
import { LocalLedger } from '../../src/payouts/ledger/local.js';
import { LEDGER_KEY_FILE, ledgerKey, loadLedgerKey, rowKey, rowSignerOf } from '../../src/payouts/ledger/ledger-key.js';
import { checkRow, importEntries, openPostgresLedger, rowMessage, type PostgresLedger, type StoredRow } from '../../src/payouts/ledger/postgres/index.js';
import { keySigner } from '../../src/payouts/ledger/postgres/signing.js';
import { createSigningKey, verifyText } from '../../src/plans/keys.js';
import { sharedPostgres, sql, type SharedPostgres } from '../helpers/postgres.js';
import { scanned } from '../helpers/scanned.js';

const BASE = 'https://api.example.com/v2';
const T0 = new Date('2026-11-21T10:15:30.123Z');
const body = (id: string, amount = '12.50') => `{"amount":${amount},"currency":"SLE","payoutId":"${id}","walletId":"w-1"}`;
const accepted = (transactionId: string): Outcome => ({ kind: 'accepted', status: 200, transactionId, fee: undefined, replayed: false, at: T0.toISOString() });
const CHANGED = 'the shared ledger row was changed outside payctl';

let db: SharedPostgres;
const dirs: string[] = [];
const opened: PostgresLedger[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'payctl-signed-'));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  db = await sharedPostgres();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((l) => l.close()));
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A machine on the ledger at `url`: its config folder's key signs its rows. */
async function machine(url: string, dir = tempDir(), host = 'machine-a'): Promise<PostgresLedger> {
  const l = await openPostgresLedger(url, { env: {}, host, signer: rowSignerOf(dir, { PAYCTL_CONFIG_DIR: dir }, () => T0) });
  opened.push(l);
  return l;
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

const row = async (url: string, payoutId: string) => (await sql<StoredRow>(url, 'SELECT * FROM payctl_ledger_entries WHERE payout_id = $1', [payoutId]))[0]!;

/** A ledger with one payout claimed and accepted (tx-<id>), with a fingerprint and a repeat key. */
async function sent(l: PostgresLedger, id: string): Promise<JournalEntry> {
  const e = await l.begin({
    baseUrl: BASE,
    payoutId: id,
    body: body(id),
    now: T0,
    profile: 'team',
    keyId: '0123456789abcdef',
    origin: { fingerprint: `fp-${id}`, repeatKey: `rk-${id}` },
  });
  return l.record(e, accepted(`tx-${id}`));
}

describe('rows signed on write', () => {
  it('a claim and its outcome: the signer is the config folder key, the signature holds over the row as stored', async () => {
    const url = await db.freshDatabase('signed');
    const dir = tempDir();
    const l = await machine(url, dir);
    const e = await l.begin({ baseUrl: BASE, payoutId: 'p-1', body: body('p-1'), now: T0, profile: 'team' });
    const key = loadLedgerKey(dir)!;
    let r = await row(url, 'p-1');
    expect(r).toMatchObject({ signer: key.publicKey, host: 'machine-a', profile: 'team' });
    expect(verifyText(key.publicKey, rowMessage({ ...r, signer: r.signer! }), r.signature!)).toBe(true);
    await l.record(e, accepted('tx-1'));
    r = await row(url, 'p-1');
    expect(r.outcome).toBe('accepted');
    expect(verifyText(key.publicKey, rowMessage({ ...r, signer: r.signer! }), r.signature!)).toBe(true);
    expect(checkRow(r, 'db')).toHaveProperty('entry');
    expect(rowMessage({ base: 'b', payout_id: 'p', entry: '{"a":1}', profile: null, host: 'h', signer: 'ed25519:k' })).toBe(
      '{"base":"b","entry":"{\\"a\\":1}","host":"h","payout_id":"p","profile":null,"purpose":"payctl-ledger-row-v1","signer":"ed25519:k"}',
    );
  });

  it("an outcome recorded by another machine: the row is then signed by that machine's key", async () => {
    const url = await db.freshDatabase('signed-two');
    const [a, b] = [await machine(url), await machine(url, tempDir(), 'machine-b')];
    const e = await a.begin({ baseUrl: BASE, payoutId: 'p-2', body: body('p-2'), now: T0 });
    const reusedByB = await b.begin({ baseUrl: BASE, payoutId: 'p-2', body: body('p-2'), now: T0 });
    expect(reusedByB).toEqual(e);
    await b.record(reusedByB, accepted('tx-2'));
    const r = await row(url, 'p-2');
    expect(r.host).toBe('machine-b');
    expect((await a.get(BASE, 'p-2'))?.outcome?.kind).toBe('accepted');
  });

  it('the person\'s key from "keys create" signs when there is one; else the ledger key, 0600, made once', () => {
    const dir = tempDir();
    const env = { PAYCTL_CONFIG_DIR: dir };
    const first = rowKey(dir, env, T0);
    expect(first.kind).toBe('ledger');
    expect(statSync(join(dir, LEDGER_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(ledgerKey(dir, env, T0).publicKey).toBe(first.key.publicKey);
    expect(readFileSync(join(dir, LEDGER_KEY_FILE), 'utf8')).not.toContain('BEGIN');
    const person = createSigningKey(dir, 'Aminata Kamara', env, T0);
    const now = rowKey(dir, env, T0);
    expect(now).toMatchObject({ kind: 'person', key: { publicKey: person.publicKey, name: 'Aminata Kamara' } });
    chmodSync(join(dir, LEDGER_KEY_FILE), 0o644);
    expect(() => loadLedgerKey(dir)).toThrow(/ledger key .* permissions 0644/);
  });

  it('an import signs the rows it writes', async () => {
    const url = await db.freshDatabase('signed-import');
    const dir = tempDir();
    const local = new LocalLedger(dir);
    const e = await local.begin({ baseUrl: BASE, payoutId: 'imp-1', body: body('imp-1'), now: T0 });
    await local.record(e, accepted('tx-imp'));
    const l = await machine(url, dir);
    expect((await importEntries(local, l, await l.now())).imported).toBe(1);
    const r = await row(url, 'imp-1');
    expect(r.signer).toBe(loadLedgerKey(dir)!.publicKey);
    expect((await l.get(BASE, 'imp-1'))?.outcome?.kind).toBe('accepted');
    // An imported entry keeps the time it was journaled at (the 24-hour rule and history go by it), in its column too.
    expect((r.created_at as Date).toISOString()).toBe(T0.toISOString());
    expect((await l.get(BASE, 'imp-1'))?.createdAt).toBe(T0.toISOString());
  });

  it("a claim is dated by the database, whatever the machine's clock says: the column and the signed entry alike", async () => {
    const url = await db.freshDatabase('signed-dated');
    const l = await machine(url);
    const [before] = await sql<{ now: Date }>(url, 'SELECT now() AS now');
    // `now` is the machine's clock, here a day and more behind: not what the row says.
    const e = await l.begin({ baseUrl: BASE, payoutId: 'p-dated', body: body('p-dated'), now: new Date(before!.now.getTime() - 86_400_000 - 5000) });
    const [after] = await sql<{ now: Date }>(url, 'SELECT now() AS now');
    const r = await row(url, 'p-dated');
    expect((r.created_at as Date).toISOString()).toBe(e.createdAt);
    expect((JSON.parse(r.entry) as JournalEntry).createdAt).toBe(e.createdAt);
    expect(Date.parse(e.createdAt)).toBeGreaterThanOrEqual(before!.now.getTime() - 1);
    expect(Date.parse(e.createdAt)).toBeLessThanOrEqual(after!.now.getTime());
    // Its outcome keeps it.
    const done = await l.record(e, accepted('tx-dated'));
    expect(done.createdAt).toBe(e.createdAt);
    expect(((await row(url, 'p-dated')).created_at as Date).toISOString()).toBe(e.createdAt);
    expect('entry' in checkRow(await row(url, 'p-dated'), url)).toBe(true);
  });

  it("a row written before schema 4 (created_at its machine's time, as its entry says) verifies", async () => {
    const url = await db.freshDatabase('signed-older');
    const l = await machine(url);
    // As a payctl of schema 3 wrote a claim: its entry and its column both the machine's time, T0.
    const [written] = await l.insertEntries([newEntry({ baseUrl: BASE, payoutId: 'p-older', body: body('p-older'), now: T0 })]);
    expect(written?.inserted).toBe(true);
    const r = await row(url, 'p-older');
    expect((r.created_at as Date).toISOString()).toBe(T0.toISOString());
    expect(checkRow(r, url)).toMatchObject({ entry: { payoutId: 'p-older', createdAt: T0.toISOString() } });
    expect((await l.get(BASE, 'p-older'))?.createdAt).toBe(T0.toISOString());
  });
});

/** Edits made with plain SQL, each leaving the row of `id` changed outside payctl. */
const EDITS: Array<[string, (id: string) => [string, unknown[]], RegExp]> = [
  [
    'the amount in its entry',
    (id) => [`UPDATE payctl_ledger_entries SET entry = replace(entry, '12.50', '99.50') WHERE payout_id = $1`, [id]],
    /does not match its contents/,
  ],
  [
    'the outcome in its entry and its column',
    (id) => [`UPDATE payctl_ledger_entries SET entry = replace(entry, '"kind":"accepted"', '"kind":"rejected"'), outcome = 'rejected' WHERE payout_id = $1`, [id]],
    /does not match its contents/,
  ],
  ['its outcome column alone', (id) => [`UPDATE payctl_ledger_entries SET outcome = NULL WHERE payout_id = $1`, [id]], /its outcome column does not match its entry/],
  // The time the daily total and the 24-hour windows find it by: a copy of its signed entry's too.
  [
    'its created_at moved a day back',
    (id) => [`UPDATE payctl_ledger_entries SET created_at = created_at - interval '1 day' WHERE payout_id = $1`, [id]],
    /its created_at column does not match its entry/,
  ],
  [
    'its created_at moved a millisecond on',
    (id) => [`UPDATE payctl_ledger_entries SET created_at = created_at + interval '1 millisecond' WHERE payout_id = $1`, [id]],
    /its created_at column does not match its entry/,
  ],
  // Who may resend it (sender-profile.ts): another key's id would hand it to that key's run.
  [
    'the id of the key that sent it',
    (id) => [`UPDATE payctl_ledger_entries SET entry = replace(entry, '"keyId":"0123456789abcdef"', '"keyId":"fedcba9876543210"') WHERE payout_id = $1`, [id]],
    /does not match its contents/,
  ],
  ['its host', (id) => [`UPDATE payctl_ledger_entries SET host = 'elsewhere' WHERE payout_id = $1`, [id]], /does not match its contents/],
  ['its signature removed', (id) => [`UPDATE payctl_ledger_entries SET signature = NULL WHERE payout_id = $1`, [id]], /it is not signed/],
  [
    'its signer set to another key',
    (id) => [`UPDATE payctl_ledger_entries SET signer = $2 WHERE payout_id = $1`, [id, keySigner(ledgerKey(tempDir(), {}, T0)).publicKey]],
    /does not match its contents/,
  ],
];

describe('a row changed outside payctl is never acted on', () => {
  for (const [what, edit, why] of EDITS) {
    it(`${what}: get, find, byTransactionId, transactionOwner and byName reject it, scan lists it as an error, begin throws`, async () => {
      const url = await db.freshDatabase('edited');
      const l = await machine(url);
      await sent(l, 'p-ok');
      await sent(l, 'p-bad');
      const [text, params] = edit('p-bad');
      await sql(url, text, params);

      const err = await rejection(l.get(BASE, 'p-bad'));
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).exitCode).toBe(ExitCode.usage);
      expect(err.message).toContain('payout p-bad');
      expect(err.message).toContain(CHANGED);
      expect(err.message).toMatch(why);
      await expect(l.find(BASE, 'fingerprint', 'fp-p-bad')).rejects.toThrow(CHANGED);
      // An edited outcome column hides the row from the look-up by transaction id (accepted only): ledger verify reports it.
      if (!what.includes('outcome')) {
        await expect(l.byTransactionId(BASE, 'tx-p-bad')).rejects.toThrow(CHANGED);
        await expect(l.transactionOwner(BASE, 'tx-p-bad')).rejects.toThrow(CHANGED);
      }
      await expect(l.byName(JSON.stringify([BASE, 'p-bad']))).rejects.toThrow(CHANGED);
      const items = await scanned(l);
      expect(items.filter((i) => 'entry' in i).map((i) => ('entry' in i ? i.entry.payoutId : ''))).toEqual(['p-ok']);
      const bad = items.find((i) => 'error' in i);
      expect(bad && 'error' in bad ? bad.error.message : '').toContain(CHANGED);
      // Another machine claiming the same payout id meets the row: it throws (nothing would be sent).
      const other = await machine(url, tempDir(), 'machine-b');
      await expect(other.begin({ baseUrl: BASE, payoutId: 'p-bad', body: body('p-bad'), now: T0 })).rejects.toThrow(CHANGED);
      await expect(other.begin({ baseUrl: BASE, payoutId: 'p-bad', body: body('p-bad'), now: T0, absent: true })).rejects.toThrow(CHANGED);
      // The good row is read as ever.
      expect((await l.get(BASE, 'p-ok'))?.outcome?.kind).toBe('accepted');
    });
  }

  it('a row whose signer column names another key than the one that signed it: checkRow finds the key that did', async () => {
    const url = await db.freshDatabase('other-key');
    const dir = tempDir();
    const l = await machine(url, dir);
    await sent(l, 'p-moved');
    const mine = loadLedgerKey(dir)!.publicKey;
    const other = ledgerKey(tempDir(), {}, T0).publicKey;
    await sql(url, 'UPDATE payctl_ledger_entries SET signer = $1', [other]);
    const r = await row(url, 'p-moved');
    expect(checkRow(r, 'db', [other, mine])).toEqual({ problem: { kind: 'other-key', fingerprint: loadLedgerKey(dir)!.fingerprint } });
    expect(checkRow(r, 'db')).toEqual({ problem: { kind: 'changed' } });
  });

  it('an outcome recorded over a row that was changed: refused, the row left as it is', async () => {
    const url = await db.freshDatabase('record-over');
    const l = await machine(url);
    const e = await l.begin({ baseUrl: BASE, payoutId: 'p-r', body: body('p-r'), now: T0 });
    await l.record(e, accepted('tx-r'));
    await sql(url, `UPDATE payctl_ledger_entries SET entry = replace(entry, '12.50', '1.50') WHERE payout_id = 'p-r'`);
    // A weaker outcome is not written over an accepted one: record reads the row, which does not verify.
    await expect(l.record(e, { kind: 'unknown', reason: 'timeout', at: T0.toISOString() })).rejects.toThrow(CHANGED);
  });
});
