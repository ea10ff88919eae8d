/**
 * A journal entry's life, the same in every store of the ledger (docs/architecture.md, "The
 * ledger"): made once, before its request leaves, with its key (given, random, or derived from
 * what it pays); reused only for the same body and key; given an outcome when one arrives, an
 * accepted one never replaced by a weaker one.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { keepLastSent } from '../entry-age.js';
import { derivedIdempotencyKey } from '../identity.js';
import { journalBase } from './base-url.js';
import type { BeginOptions, JournalEntry, Ledger, Outcome } from './ledger.js';

/**
 * The entry `begin` claims when the payout id has none: version 2, its key chosen now, dated
 * `opts.now` (a store that dates its entries by its own clock dates it again: `dated`).
 */
export function newEntry(opts: BeginOptions): JournalEntry {
  // Fields not given are undefined, which JSON leaves out: the stored text is as if they
  // were never set, and every entry has one object shape (see withOutcome).
  return {
    version: 2,
    payoutId: opts.payoutId,
    baseUrl: opts.baseUrl,
    idempotencyKey: opts.idempotencyKey ?? (opts.randomKey ? randomUUID() : derivedIdempotencyKey(journalBase(opts.baseUrl), opts.payoutId, opts.body)),
    body: opts.body,
    createdAt: opts.now.toISOString(),
    profile: opts.profile,
    keyFrom: opts.keyFrom,
    keyId: opts.keyId,
    batch: opts.origin?.batch || undefined,
    fingerprint: opts.origin?.fingerprint || undefined,
    repeatKey: opts.origin?.repeatKey || undefined,
    zeroKey: opts.origin?.zeroKey || undefined,
    outcome: undefined,
  };
}

/** Entries a `begin` of this process made (its claim wrote them: no entry had their payout id), as it returned them. */
const claimedHere = new WeakSet<JournalEntry>();

/** `e`, the entry a store's `begin` just made and returns (not one it found): see claimedNow. */
export function madeByClaim(e: JournalEntry): JournalEntry {
  claimedHere.add(e);
  return e;
}

/**
 * Whether `e` is the very entry a `begin` of this process made (no entry had its payout id), not
 * one it found there (an earlier run's, another machine's): what "journaled by this run, never
 * sent before" is told by, whatever clock dated it. An entry returned by a later call (get,
 * record) is another object: false.
 */
export function claimedNow(e: JournalEntry): boolean {
  return claimedHere.has(e);
}

/** The existing entry, to send again under its key: throws its conflict when `opts` cannot be sent under it. */
export function reused(existing: JournalEntry, opts: Pick<BeginOptions, 'body' | 'idempotencyKey'>): JournalEntry {
  const conflict = conflictOf(existing, opts.body, opts.idempotencyKey);
  if (conflict) throw conflict;
  return existing;
}

/**
 * The entry that stands when `outcome` is recorded for `entry`: the one the ledger holds
 * (`current()`, asked only for an outcome other than accepted) when it is accepted under the
 * same key; undefined when `outcome` is to be recorded.
 */
export function acceptedStands(entry: JournalEntry, outcome: Outcome, current: () => JournalEntry | undefined): JournalEntry | undefined {
  if (outcome.kind === 'accepted') return undefined;
  const c = current();
  return c?.outcome?.kind === 'accepted' && c.idempotencyKey === entry.idempotencyKey ? c : undefined;
}

const ENTRY_FIELDS = new Set([
  'version',
  'payoutId',
  'baseUrl',
  'idempotencyKey',
  'body',
  'createdAt',
  'profile',
  'keyFrom',
  'keyId',
  'batch',
  'fingerprint',
  'repeatKey',
  'zeroKey',
  'outcome',
]);

/**
 * The entry with its outcome set. One object literal, not `{ ...entry, outcome }`: in Node
 * 20's V8 every object a spread followed by more properties makes has a hidden class of its
 * own (a batch made one per row, and slowed every read of them). An entry with fields this
 * payctl does not know (written by a newer one) keeps them, through the spread. A look-up keeps
 * the time of the last send (entry-age.ts keepLastSent), in every store.
 */
export function withOutcome(e: JournalEntry, outcome: Outcome): JournalEntry {
  return entryWith(e, e.createdAt, keepLastSent(e, outcome));
}

/**
 * The entry dated `at` (ISO) instead: a shared store dates a claim by its database's clock, in
 * the claim's transaction, before it is signed (postgres/claims.ts). As withOutcome.
 */
export function dated(e: JournalEntry, at: string): JournalEntry {
  return entryWith(e, at, e.outcome);
}

/** The entry with this time and outcome, as one object literal (withOutcome says why); unknown fields kept. */
function entryWith(e: JournalEntry, createdAt: string, outcome: Outcome | undefined): JournalEntry {
  for (const k in e) if (!ENTRY_FIELDS.has(k)) return { ...e, createdAt, outcome };
  return {
    version: e.version,
    payoutId: e.payoutId,
    baseUrl: e.baseUrl,
    idempotencyKey: e.idempotencyKey,
    body: e.body,
    createdAt,
    profile: e.profile,
    keyFrom: e.keyFrom,
    keyId: e.keyId,
    batch: e.batch,
    fingerprint: e.fingerprint,
    repeatKey: e.repeatKey,
    zeroKey: e.zeroKey,
    outcome,
  };
}

export class JournalConflict extends Error {
  constructor(
    readonly what: 'details' | 'key',
    readonly existing: JournalEntry,
  ) {
    super(what === 'details' ? 'payout id journaled with other details' : 'payout id journaled with another key');
  }
}

/** Why `body` (and `idempotencyKey`, if given) cannot be sent under an existing entry; undefined when it can. */
export function conflictOf(existing: JournalEntry, body: string, idempotencyKey?: string): JournalConflict | undefined {
  if (!sameBody(existing.body, body)) return new JournalConflict('details', existing);
  if (idempotencyKey && idempotencyKey.toLowerCase() !== existing.idempotencyKey.toLowerCase()) {
    return new JournalConflict('key', existing);
  }
  return undefined;
}

/** Same payout: equal as parsed JSON, and every number literal equal as written (JSON.parse rounds long ones). */
function sameBody(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return isDeepStrictEqual(JSON.parse(a), JSON.parse(b)) && numberLiterals(a) === numberLiterals(b);
  } catch {
    return false;
  }
}

/** The number literals of a JSON text, outside strings, in order. */
function numberLiterals(json: string): string {
  return (json.match(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []).filter((t) => !t.startsWith('"')).join(',');
}

/**
 * The present by the ledger's clock, without asking it: the run's clock moved by the ledger's
 * last measured skew (Ledger.clockSkew). What an entry's createdAt, which the ledger's clock
 * dated, is compared with (the 24-hour rule), so that a machine whose clock is wrong neither
 * takes a payout journaled a moment ago for one a day old nor the reverse.
 */
export function ledgerNow(journal: Pick<Ledger, 'clockSkew'>, clock: { now(): Date }): Date {
  const skew = journal.clockSkew();
  const now = clock.now();
  return skew ? new Date(now.getTime() + skew) : now;
}
