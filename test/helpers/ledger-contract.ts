/**
 * What every store of the ledger must do (docs/architecture.md, "The ledger"), as one suite run
 * against each: the local store (test/unit/ledger-contract.test.ts), and the next store on the
 * same interface. `open()` gives a ledger on one fresh place per test; called twice in a test, the
 * second is another process's view of the same place.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedError, LocalError } from '../../src/errors.js';
import { JournalConflict } from '../../src/payouts/ledger/entries.js';
import { journalBase } from '../../src/payouts/ledger/base-url.js';
import type { WalletLockOptions } from '../../src/payouts/wallet-lock.js';
import { claimedNow } from '../../src/payouts/ledger/entries.js';
import type { BeginOptions, JournalEntry, Ledger, Outcome } from '../../src/payouts/ledger/ledger.js';
import { scanned } from './scanned.js';

const BASE = 'https://api.example.com/v2';
/** The same service, spelled otherwise: one ledger entry per payout either way. */
const BASE_SPELLED = 'https://API.example.com:443/v2/';
const OTHER = 'http://127.0.0.1:4010/v2';
const T0 = new Date('2026-11-21T10:15:30.123Z');
const T1 = new Date('2026-11-21T11:00:00.000Z');
const body = (id: string, amount = '12.50') => `{"amount":${amount},"currency":"SLE","payoutId":"${id}"}`;
const accepted = (transactionId: string): Outcome => ({ kind: 'accepted', status: 200, transactionId, fee: undefined, replayed: false, at: T1.toISOString() });
const unknown: Outcome = { kind: 'unknown', reason: 'timed out', at: T1.toISOString() };

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/** This process, as the wallets' locks are told of it. */
const lockOptions = (o: Partial<WalletLockOptions> = {}): WalletLockOptions => ({ host: { pid: process.pid, kill: (pid, sig) => process.kill(pid, sig) }, ...o });

/** How a store dates its entries, when not by `begin`'s `now`. */
export interface ContractOptions {
  /**
   * A store that dates a claim by its own clock (a shared one: its database's, whatever `now`
   * says): how a test puts an entry of a given time (`opts.now`) there, as `ledger import` puts
   * an old one. The look-ups by time are checked on such entries; `begin` is checked to date by
   * `now()`. Without it, `begin` dates by `now`, and is what the tests write with.
   */
  writeAt?: (ledger: Ledger, opts: BeginOptions) => Promise<JournalEntry>;
}

/**
 * The contract, run against one store. `open()` (synchronous or not) gives a ledger on one fresh
 * place per test; called twice in a test, the second is another process's view of the same
 * place. Every ledger opened is closed after its test, its batch log first (closeLog: a test that
 * journaled rows with `log` and did not close it left the log's file handle to the collector,
 * whose warning then failed whichever test of the worker was checking for warnings).
 */
export function ledgerContract(name: string, openStore: () => Ledger | Promise<Ledger>, o: ContractOptions = {}): void {
  const opened: Ledger[] = [];
  const open = async (): Promise<Ledger> => {
    const l = await openStore();
    opened.push(l);
    return l;
  };
  /** An entry journaled at `opts.now`: by `begin`, or as the store is given one of another time (writeAt). */
  const at = (l: Ledger, opts: BeginOptions): Promise<JournalEntry> => (o.writeAt ? o.writeAt(l, opts) : l.begin(opts));
  afterEach(async () => {
    await Promise.all(
      opened.splice(0).map(async (l) => {
        await l.closeLog();
        await l.close?.();
      }),
    );
  });

  describe(`${name}: the Ledger contract`, () => {
    it('begin claims a payout id once: its key, body and origin come back from get, under any spelling of the base URL', async () => {
      const ledger = await open();
      expect(await ledger.get(BASE, 'p-1')).toBeUndefined();
      const before = await ledger.now();
      const e = await ledger.begin({ baseUrl: BASE, payoutId: 'p-1', body: body('p-1'), now: T0, profile: 'live', origin: { fingerprint: 'f-1', repeatKey: 'r-1' } });
      const after = await ledger.now();
      expect(e).toMatchObject({
        version: 2,
        payoutId: 'p-1',
        baseUrl: BASE,
        body: body('p-1'),
        profile: 'live',
        fingerprint: 'f-1',
        repeatKey: 'r-1',
      });
      // Dated by the ledger's clock: `now` where that is the run's, else its own (a shared store's database), never `now`.
      if (o.writeAt) {
        expect(Date.parse(e.createdAt)).toBeGreaterThanOrEqual(before.getTime());
        expect(Date.parse(e.createdAt)).toBeLessThanOrEqual(after.getTime());
      } else expect(e.createdAt).toBe(T0.toISOString());
      expect(e.outcome).toBeUndefined();
      // The entry this claim made, told from one found (a second begin's).
      expect(claimedNow(e)).toBe(true);
      expect(claimedNow((await ledger.get(BASE, 'p-1'))!)).toBe(false);
      expect(claimedNow(await (await open()).begin({ baseUrl: BASE, payoutId: 'p-1', body: body('p-1'), now: T1 }))).toBe(false);
      expect(await (await open()).get(BASE_SPELLED, 'p-1')).toEqual(JSON.parse(JSON.stringify(e)));
      expect(await (await open()).get(OTHER, 'p-1')).toBeUndefined();
    });

    it("keeps the id of the key that sent each payout (keyId), alone and as a batch's row, its outcome recorded", async () => {
      const ledger = await open();
      const lone = await ledger.begin({ baseUrl: BASE, payoutId: 'k-1', body: body('k-1'), now: T0, profile: 'live', keyFrom: 'env', keyId: '0123456789abcdef' });
      const row = await ledger.begin({ baseUrl: BASE, payoutId: 'k-2', body: body('k-2'), now: T0, profile: 'live', keyId: 'fedcba9876543210', log: true });
      await ledger.record(lone, unknown);
      await ledger.record(row, accepted('tx-k-2'));
      await ledger.closeLog();
      // Another process's view: read back from where the store keeps it, not from this one's memory.
      const other = await open();
      expect(await other.get(BASE, 'k-1')).toMatchObject({ profile: 'live', keyFrom: 'env', keyId: '0123456789abcdef', outcome: { kind: 'unknown' } });
      expect(await other.get(BASE, 'k-2')).toMatchObject({ profile: 'live', keyId: 'fedcba9876543210', outcome: { kind: 'accepted' } });
      // One journaled before payctl kept it reads as before, without one.
      await ledger.begin({ baseUrl: BASE, payoutId: 'k-3', body: body('k-3'), now: T0, profile: 'live' });
      expect((await other.get(BASE, 'k-3'))!.keyId).toBeUndefined();
    });

    it('begin again reuses the first key; another body or another key is a JournalConflict', async () => {
      const ledger = await open();
      const first = await ledger.begin({ baseUrl: BASE, payoutId: 'p-1', body: body('p-1'), now: T0, randomKey: true });
      const again = await (await open()).begin({ baseUrl: BASE_SPELLED, payoutId: 'p-1', body: body('p-1'), now: T1, randomKey: true });
      expect(again.idempotencyKey).toBe(first.idempotencyKey);
      expect(again.createdAt).toBe(first.createdAt);
      const details = await rejection(ledger.begin({ baseUrl: BASE, payoutId: 'p-1', body: body('p-1', '13.00'), now: T1 }));
      expect(details).toBeInstanceOf(JournalConflict);
      expect((details as JournalConflict).what).toBe('details');
      const key = await rejection(ledger.begin({ baseUrl: BASE, payoutId: 'p-1', body: body('p-1'), idempotencyKey: 'another', now: T1 }));
      expect((key as JournalConflict).what).toBe('key');
      expect(ledger.conflict(first, body('p-1'), first.idempotencyKey.toUpperCase())).toBeUndefined();
    });

    it('two ledgers claiming the same payout ids at once, as a batch: one key per id, the same for both', async () => {
      const a = await open();
      const b = await open();
      const ids = Array.from({ length: 12 }, (_, i) => `race-${i}`);
      const claim = (l: Ledger) => Promise.all(ids.map((id) => l.begin({ baseUrl: BASE, payoutId: id, body: body(id), now: T0, log: true, randomKey: true })));
      const [fromA, fromB] = await Promise.all([claim(a), claim(b)]);
      const reader = await open();
      for (const [i, id] of ids.entries()) {
        expect(fromA[i]!.idempotencyKey, id).toBe(fromB[i]!.idempotencyKey);
        expect((await reader.get(BASE, id))!.idempotencyKey).toBe(fromA[i]!.idempotencyKey);
      }
      await Promise.all([a.closeLog(), b.closeLog()]);
    });

    it('record sets the outcome; an accepted one is never replaced by a weaker one under the same key', async () => {
      const ledger = await open();
      const e = await ledger.begin({ baseUrl: BASE, payoutId: 'p-1', body: body('p-1'), now: T0 });
      const done = await ledger.record(e, accepted('TXN-1'));
      expect(done.outcome).toEqual(accepted('TXN-1'));
      const kept = await (await open()).record(e, unknown);
      expect(kept.outcome).toEqual(accepted('TXN-1'));
      expect((await (await open()).get(BASE, 'p-1'))!.outcome).toEqual(accepted('TXN-1'));
    });

    it('record on a fresh claim: a rejected or unknown outcome is kept as well as an accepted one, in a batch group too', async () => {
      const rejected: Outcome = { kind: 'rejected', status: 422, code: 'INSUFFICIENT_FUNDS', message: 'short', at: T1.toISOString() };
      const ledger = await open();
      const r = await ledger.begin({ baseUrl: BASE, payoutId: 'p-rejected', body: body('p-rejected'), now: T0 });
      expect((await ledger.record(r, rejected)).outcome).toEqual(rejected);
      const u = await ledger.begin({ baseUrl: BASE, payoutId: 'p-unknown', body: body('p-unknown'), now: T0, log: true });
      const l = await ledger.begin({ baseUrl: BASE, payoutId: 'p-logged', body: body('p-logged'), now: T0, log: true });
      await Promise.all([ledger.record(u, unknown), ledger.record(l, rejected)]);
      await ledger.closeLog();
      const reader = await open();
      expect((await reader.get(BASE, 'p-rejected'))!.outcome).toEqual(rejected);
      expect((await reader.get(BASE, 'p-unknown'))!.outcome).toEqual(unknown);
      expect((await reader.get(BASE, 'p-logged'))!.outcome).toEqual(rejected);
      // An unknown outcome then resolved: the accepted one replaces it.
      expect((await reader.record(u, accepted('TXN-9'))).outcome).toEqual(accepted('TXN-9'));
      expect((await (await open()).get(BASE, 'p-unknown'))!.outcome).toEqual(accepted('TXN-9'));
    });

    it('find by fingerprint and by repeat key: entries of that base URL with the key, oldest first', async () => {
      const ledger = await open();
      await at(ledger, { baseUrl: BASE, payoutId: 'late', body: body('late'), now: T1, origin: { fingerprint: 'same', repeatKey: 'r' } });
      await at(ledger, { baseUrl: BASE_SPELLED, payoutId: 'early', body: body('early'), now: T0, origin: { fingerprint: 'same' } });
      await at(ledger, { baseUrl: OTHER, payoutId: 'elsewhere', body: body('elsewhere'), now: T0, origin: { fingerprint: 'same', repeatKey: 'r' } });
      await at(ledger, { baseUrl: BASE, payoutId: 'other', body: body('other'), now: T0, log: true, origin: { fingerprint: 'not-same', repeatKey: 'r' } });
      await ledger.closeLog();
      const reader = await open();
      expect((await reader.find(BASE, 'fingerprint', 'same')).map((e) => e.payoutId)).toEqual(['early', 'late']);
      expect((await reader.find(BASE, 'repeat', 'r')).map((e) => e.payoutId)).toEqual(['other', 'late']);
      expect((await reader.find(OTHER, 'repeat', 'r')).map((e) => e.payoutId)).toEqual(['elsewhere']);
      expect(await reader.find(BASE, 'fingerprint', 'none')).toEqual([]);
    });

    it('findInBatch: entries of that base URL with the repeat key journaled as rows of that batch run (id and file; id alone: any file), oldest first', async () => {
      const ledger = await open();
      const run = { id: 'nov "30"', file: '/home/finance/pay,roll.csv' };
      const row = (id: string, batch: { id: string; file: string }, time: Date, n: number, text = body(id)) =>
        at(ledger, {
          baseUrl: BASE,
          payoutId: id,
          body: text,
          now: time,
          log: true,
          origin: { batch: { ...batch, row: n }, fingerprint: `f-${id}`, repeatKey: 'r' },
        });
      // The run's first line longer than a read block (a body with a large metadata object).
      await row('second', run, T1, 3, body('second').replace('{', `{"metadata":{"x":"${'y'.repeat(100_000)}"},`));
      await row('first', run, T0, 2);
      await row('other-file', { id: run.id, file: '/home/finance/other.csv' }, new Date(T0.getTime() - 1000), 2);
      await row('other-batch', { id: 'dec', file: run.file }, T0, 2);
      await at(ledger, { baseUrl: BASE, payoutId: 'single', body: body('single'), now: T0, origin: { repeatKey: 'r' } });
      await ledger.closeLog();
      const reader = await open();
      expect((await reader.findInBatch(BASE, 'r', run)).map((e) => e.payoutId)).toEqual(['first', 'second']);
      expect(await reader.findInBatch(BASE, 'none', run)).toEqual([]);
      expect((await reader.findInBatch(BASE, 'r', { id: run.id })).map((e) => e.payoutId)).toEqual(['other-file', 'first', 'second']);
      expect(await reader.findInBatch(BASE, 'r', { id: 'never', file: run.file })).toEqual([]);
      expect(await reader.findInBatch(BASE, 'r', { id: 'never' })).toEqual([]);
      expect(await reader.findInBatch(BASE, 'r', { id: 'nov' })).toEqual([]);
      // A batch sent at all (what a printed new batch id must not be).
      expect(await reader.batchSent(BASE, run.id)).toBe(true);
      expect(await reader.batchSent(BASE, 'nov')).toBe(false);
      expect(await reader.batchSent(BASE, 'never')).toBe(false);
      expect(await reader.findInBatch(OTHER, 'r', run)).toEqual([]);
    });

    it('findRecentBatchRows: entries of that base URL with the repeat key journaled as rows of any batch run at or after a time, oldest first; looked ahead alike', async () => {
      const ledger = await open();
      const row = (id: string, batch: { id: string; file: string }, time: Date, n: number, key = 'r') =>
        at(ledger, {
          baseUrl: BASE,
          payoutId: id,
          body: body(id),
          now: time,
          log: true,
          origin: { batch: { ...batch, row: n }, fingerprint: `f-${id}`, repeatKey: key },
        });
      const dayBefore = new Date(T0.getTime() - 86_400_000);
      await row('old', { id: 'oct', file: '/home/finance/oct.csv' }, dayBefore, 2);
      await row('named', { id: 'nov', file: '/home/finance/pay.csv' }, T1, 2);
      await row('copy', { id: 'default', file: '/home/finance/pay (1).csv' }, T0, 3);
      await row('other-key', { id: 'nov', file: '/home/finance/pay.csv' }, T1, 3, 'q');
      await at(ledger, { baseUrl: BASE, payoutId: 'single', body: body('single'), now: T1, origin: { repeatKey: 'r' } });
      await ledger.closeLog();
      const reader = await open();
      const since = new Date(T0.getTime() - 60_000);
      const asked = async () => ({
        recent: (await reader.findRecentBatchRows(BASE_SPELLED, 'r', since)).map((e) => e.payoutId),
        all: (await reader.findRecentBatchRows(BASE, 'r', dayBefore)).map((e) => e.payoutId),
        none: await reader.findRecentBatchRows(BASE, 'none', since),
        later: await reader.findRecentBatchRows(BASE, 'r', new Date(T1.getTime() + 1)),
        other: await reader.findRecentBatchRows(OTHER, 'r', since),
      });
      const expected = { recent: ['copy', 'named'], all: ['old', 'copy', 'named'], none: [], later: [], other: [] };
      expect(await asked()).toEqual(expected);
      // A store that looks ahead answers the same from what it fetched (and asks again for what it did not).
      if (reader.prefetch) {
        await reader.prefetch(BASE, [], [], { batch: { id: 'nov' }, repeatKeys: ['r', 'none'], recentSince: since });
        expect(await asked()).toEqual(expected);
      }
    });

    it('otherBatchRowsSince: rows of batch runs but one with any of the keys since a time, read fresh (a run begun after the reader first looked included)', async () => {
      const reader = await open();
      const since = new Date(T0.getTime() - 60_000);
      const own = { id: 'default', file: '/home/finance/pay.csv' };
      const mine = async () => (await reader.otherBatchRowsSince(BASE_SPELLED, ['r', 'q'], since, own)).map((e) => e.payoutId).sort();
      // The reader's own row, journaled before it looks: never one of the others'.
      await at(reader, { baseUrl: BASE, payoutId: 'own', body: body('own'), now: T0, log: true, origin: { batch: { ...own, row: 2 }, repeatKey: 'r' } });
      expect(await mine()).toEqual([]);
      // Another process's run, begun after the reader first looked (its log is new to the reader).
      const other = await open();
      const row = (id: string, batch: { id: string; file: string }, time: Date, key: string) =>
        at(other, { baseUrl: BASE, payoutId: id, body: body(id), now: time, log: true, origin: { batch: { ...batch, row: 2 }, repeatKey: key } });
      await row('copy', { id: 'default', file: '/home/finance/pay (1).csv' }, T1, 'r');
      await row('named', { id: 'nov', file: '/home/finance/pay.csv' }, T1, 'q');
      await row('old', { id: 'oct', file: '/home/finance/oct.csv' }, new Date(since.getTime() - 1), 'r');
      await row('unasked', { id: 'nov', file: '/home/finance/pay.csv' }, T1, 'z');
      await at(other, { baseUrl: BASE, payoutId: 'single', body: body('single'), now: T1, origin: { repeatKey: 'r' } });
      await at(other, {
        baseUrl: OTHER,
        payoutId: 'elsewhere',
        body: body('elsewhere'),
        now: T1,
        log: true,
        origin: { batch: { id: 'x', file: '/x.csv', row: 2 }, repeatKey: 'r' },
      });
      expect(await mine()).toEqual(['copy', 'named']);
      expect(await reader.otherBatchRowsSince(BASE, [], since, own)).toEqual([]);
    });

    it("batchRows: every entry of a batch run (from its file; any file when the run names none), oldest first, another process's too", async () => {
      const ledger = await open();
      const run = { id: 'nov', file: '/home/finance/pay.csv' };
      const row = (l: Ledger, id: string, batch: { id: string; file: string }, time: Date, key: string, baseUrl = BASE) =>
        at(l, { baseUrl, payoutId: id, body: body(id), now: time, log: true, origin: { batch: { ...batch, row: 2 }, repeatKey: key } });
      expect(await ledger.batchRows(BASE, run)).toEqual([]);
      await row(ledger, 'a', run, T0, 'r');
      // Other processes' runs (a process sends one batch run), begun after the first look.
      const [copy, again, dec] = [await open(), await open(), await open()];
      await row(copy, 'b', { id: 'nov', file: '/home/finance/pay (1).csv' }, T1, 'q');
      await row(again, 'c', run, T1, 'z');
      await row(again, 'e', run, T1, 'r', OTHER);
      await row(dec, 'd', { id: 'dec', file: '/home/finance/pay.csv' }, T1, 'r');
      await at(dec, { baseUrl: BASE, payoutId: 'single', body: body('single'), now: T1, origin: { repeatKey: 'r' } });
      const ids = async (batch: { id: string; file?: string }) => (await ledger.batchRows(BASE_SPELLED, batch)).map((e) => e.payoutId);
      expect(await ids(run)).toEqual(['a', 'c']);
      expect(await ids({ id: 'nov' })).toEqual(['a', 'b', 'c']);
      expect(await ids({ id: 'oct' })).toEqual([]);
      await Promise.all([ledger, copy, again, dec].map((l) => l.closeLog()));
      // Compacted logs still say the same.
      expect(await ids(run)).toEqual(['a', 'c']);
    });

    it('scanSince: the entries of that base URL journaled at or after a time (a day before, not), files and batch rows alike', async () => {
      const ledger = await open();
      const dayBefore = new Date(T0.getTime() - 86_400_000);
      await at(ledger, { baseUrl: BASE, payoutId: 'yesterday', body: body('yesterday'), now: dayBefore });
      await at(ledger, { baseUrl: BASE, payoutId: 'single', body: body('single'), now: T0 });
      for (const id of ['row-1', 'row-2']) await at(ledger, { baseUrl: BASE, payoutId: id, body: body(id), now: T1, log: true });
      await ledger.closeLog();
      await at(ledger, { baseUrl: OTHER, payoutId: 'elsewhere', body: body('elsewhere'), now: T0 });
      const reader = await open();
      const since = async (at: Date) => {
        const ids: string[] = [];
        for await (const it of reader.scanSince(BASE_SPELLED, at)) {
          if ('error' in it) throw it.error;
          // It may list others too: the caller checks each.
          if (journalBase(it.entry.baseUrl) === journalBase(BASE) && Date.parse(it.entry.createdAt) >= at.getTime()) ids.push(it.entry.payoutId);
        }
        return ids.sort();
      };
      const dayOfT0 = new Date(Date.UTC(T0.getUTCFullYear(), T0.getUTCMonth(), T0.getUTCDate()));
      expect(await since(dayOfT0)).toEqual(['row-1', 'row-2', 'single']);
      expect(await since(dayBefore)).toEqual(['row-1', 'row-2', 'single', 'yesterday']);
      expect(await since(new Date(T1.getTime() + 86_400_000))).toEqual([]);
    });

    it('by transaction id, and its owner: the payout it was first recorded for, kept up to date by record', async () => {
      const ledger = await open();
      const a = await ledger.begin({ baseUrl: BASE, payoutId: 'a', body: body('a'), now: T0 });
      const b = await ledger.begin({ baseUrl: BASE, payoutId: 'b', body: body('b'), now: T0 });
      await ledger.record(a, accepted('TXN-A'));
      const reader = await open();
      expect((await reader.byTransactionId(BASE_SPELLED, 'TXN-A'))?.payoutId).toBe('a');
      expect(await reader.byTransactionId(OTHER, 'TXN-A')).toBeUndefined();
      expect(await reader.transactionOwner(BASE, 'TXN-A')).toBe('a');
      expect(await reader.transactionOwner(BASE, 'TXN-B')).toBeUndefined();
      await reader.record(b, accepted('TXN-B'));
      expect(await reader.transactionOwner(BASE, 'TXN-B')).toBe('b');
    });

    it('scan with a transaction id: the entries of any base URL accepted with it, files and batch rows alike (others may be left out)', async () => {
      const ledger = await open();
      const made = async (baseUrl: string, id: string, txn: string, log = false) =>
        ledger.record(await ledger.begin({ baseUrl, payoutId: id, body: body(id), now: T0, log }), accepted(txn));
      await made(BASE, 'here', 'TXN-SHARED');
      await made(OTHER, 'there', 'TXN-SHARED');
      await made(OTHER, 'row', 'TXN-SHARED', true);
      await made(BASE, 'another', 'TXN-OTHER');
      await ledger.closeLog();
      const reader = await open();
      const ids: string[] = [];
      for await (const it of reader.scan({ transactionId: 'TXN-SHARED' })) {
        if ('error' in it) throw it.error;
        const o = it.entry.outcome;
        if (o?.kind === 'accepted' && o.transactionId === 'TXN-SHARED') ids.push(it.entry.payoutId);
      }
      expect(ids.sort()).toEqual(['here', 'row', 'there']);
    });

    it('scan lists every entry once, batch and single alike; byName reads one again', async () => {
      const ledger = await open();
      const ids = ['s-1', 's-2', 'b-1', 'b-2', 'b-3'];
      for (const id of ids) await ledger.begin({ baseUrl: BASE, payoutId: id, body: body(id), now: T0, log: id.startsWith('b') });
      await ledger.closeLog();
      const reader = await open();
      const listed = await scanned(reader);
      expect(listed.map((it) => ('entry' in it ? it.entry.payoutId : it.error.message)).sort()).toEqual([...ids].sort());
      for (const it of listed) expect(await reader.byName(it.name)).toEqual((it as { entry: JournalEntry }).entry);
    });

    it("a wallet's lock excludes another view of the same ledger until its step ends; a lock held past waitMs is a LocalError", async () => {
      const a = await open();
      const b = await open();
      const steps: string[] = [];
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inA = new Promise<void>((r) => (entered = r));
      const first = a.withWalletLocks(
        ['w-1', 'w-2', 'w-1'],
        async () => {
          entered();
          steps.push('a in');
          await gate;
          steps.push('a out');
          return 'a';
        },
        lockOptions(),
      );
      await inA;
      const refused = await rejection(b.withWalletLocks(['w-2'], async () => steps.push('never'), lockOptions({ waitMs: 50 })));
      expect(refused).toBeInstanceOf(LocalError);
      expect((refused as Error).message).toMatch(/Wallet w-2 is locked by another payctl.*Nothing was sent/);
      const second = b.withWalletLocks(
        ['w-2'],
        async () => {
          steps.push('b in');
          return 'b';
        },
        lockOptions({ waitMs: 10_000 }),
      );
      await new Promise((r) => setTimeout(r, 100));
      expect(steps).toEqual(['a in']);
      release();
      expect(await Promise.all([first, second])).toEqual(['a', 'b']);
      expect(steps).toEqual(['a in', 'a out', 'b in']);
      // Other wallets are not held: no wait.
      expect(await b.withWalletLocks(['w-3'], async () => 'free', lockOptions({ waitMs: 0 }))).toBe('free');
    });

    it("a wallet's lock: released when its step throws; Ctrl-C while waiting is an InterruptedError", async () => {
      const a = await open();
      const b = await open();
      await expect(a.withWalletLocks(['w-1'], () => Promise.reject(new Error('boom')), lockOptions())).rejects.toThrow('boom');
      expect(await b.withWalletLocks(['w-1'], async () => 'next', lockOptions({ waitMs: 0 }))).toBe('next');
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inA = new Promise<void>((r) => (entered = r));
      const held = a.withWalletLocks(['w-1'], async () => (entered(), await gate), lockOptions());
      await inA;
      const ctrlC = new AbortController();
      const waiting = b.withWalletLocks(['w-1'], async () => 'never', lockOptions({ signal: ctrlC.signal, waitMs: 10_000 }));
      setTimeout(() => ctrlC.abort(), 50);
      expect(await rejection(waiting)).toBeInstanceOf(InterruptedError);
      release();
      await held;
    });

    it("a batch's lock excludes another run of it (its id as a slip leaves it; `default` per file) until the run ends; a wallet's lock is taken inside it", async () => {
      const a = await open();
      const b = await open();
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inA = new Promise<void>((r) => (entered = r));
      const run = { id: 'Nov-30', file: '/home/finance/payroll.csv' };
      // The run's wallet locks are taken while its batch's is held (payout batch under a policy).
      const held = a.withBatchLock(
        run,
        async () => (entered(), await gate, await a.withWalletLocks(['w-1'], async () => 'a', lockOptions({ waitMs: 1_000 }))),
        lockOptions(),
      );
      await inA;
      for (const other of [run, { id: 'nov_30', file: '/home/finance/payroll (1).csv' }]) {
        const refused = await rejection(b.withBatchLock(other, async () => 'never', lockOptions({ waitMs: 50 })));
        expect(refused).toBeInstanceOf(LocalError);
        expect((refused as Error).message).toMatch(new RegExp(`^Batch "${other.id}" is locked by another payctl .*: it is sending its rows\\. Nothing was sent\\.$`));
      }
      // Another batch, and runs not named from two files, are not held.
      expect(await b.withBatchLock({ id: 'dec', file: run.file }, async () => 'free', lockOptions({ waitMs: 0 }))).toBe('free');
      const [c, d] = [await open(), await open()];
      const unnamed = c.withBatchLock(
        { id: 'default', file: '/a.csv' },
        async () => await d.withBatchLock({ id: 'default', file: '/b.csv' }, async () => 'both', lockOptions({ waitMs: 0 })),
        lockOptions(),
      );
      expect(await unnamed).toBe('both');
      const waiting = b.withBatchLock(run, async () => 'b', lockOptions({ waitMs: 10_000 }));
      release();
      expect(await Promise.all([held, waiting])).toEqual(['a', 'b']);
    });

    it("now is the ledger's clock: a time of today; clockSkew how far it is from the run's", async () => {
      const ledger = await open();
      const t = await ledger.now();
      expect(t).toBeInstanceOf(Date);
      expect(Math.abs(t.getTime() - Date.now())).toBeLessThan(60_000);
      expect(Math.abs(ledger.clockSkew())).toBeLessThan(60_000);
    });

    it('a fresh ledger has no gaps and nothing to list', async () => {
      const ledger = await open();
      expect(await ledger.journalGaps()).toBeUndefined();
      expect(await scanned(ledger)).toEqual([]);
    });
  });
}
