/**
 * Idempotency keys of POST /payout (docs/service.md "Initiate a payout").
 *
 * - A key is locked as in-progress before the payout is committed; a second request
 *   with that key meanwhile gets 409 IDEMPOTENCY_IN_PROGRESS.
 * - When the request ends, its answer is stored with a fingerprint of the body; a
 *   retry with the same body (compared as parsed JSON, deeply, numbers by their exact
 *   value: body.ts; a body that is not JSON, or nested too deep, byte for byte) within 24 hours gets the
 *   stored status and raw body byte for byte; a different body gets 422
 *   IDEMPOTENCY_KEY_REUSED.
 * - What is stored: every final answer below 500 — 201 created, and the 4xx refusals
 *   (422 validation failures, a payout id already taken, unknown wallet, currency
 *   mismatch, insufficient funds), so a refused request stays refused for its key: a client
 *   that fixes the body must use a new key (the CLI's journal does, with a new payoutId).
 *   5xx answers are never stored: the key is released and a retry runs again. Answers
 *   that come before the key is looked at (401, 429, a missing key, injected faults) are
 *   not stored either.
 */
import { readBody } from './body.js';
import { jsonEqual } from './json.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The request body as compared between retries. */
export interface Fingerprint {
  raw: string;
  /** The parsed body (body.ts), or undefined when it is not JSON or too deep (then the raw text is compared). */
  parsed?: unknown;
  parsedOk: boolean;
  /** Set when the body nests too deep to be read: the top-level member where it does ('' for none). */
  tooDeep?: string;
}

export interface StoredAnswer {
  status: number;
  body: string;
  /** When not JSON (an RFC 9457 problem). */
  contentType?: string;
}

export interface IdempotencyEntry {
  key: string;
  fingerprint: Fingerprint;
  createdMs: number;
  /** undefined while in progress. */
  answer?: StoredAnswer;
}

export type Begin = { kind: 'new' } | { kind: 'replay'; answer: StoredAnswer } | { kind: 'reused' } | { kind: 'in-progress' };

/** The body as read once (body.ts) for validation and every later comparison. */
export function fingerprintOf(raw: string): Fingerprint {
  const read = readBody(raw);
  if (read.kind === 'json') return { raw, parsed: read.value, parsedOk: true };
  return read.kind === 'too-deep' ? { raw, parsedOk: false, tooDeep: read.member } : { raw, parsedOk: false };
}

function sameBody(a: Fingerprint, b: Fingerprint): boolean {
  if (a.parsedOk && b.parsedOk) return jsonEqual(a.parsed, b.parsed);
  if (!a.parsedOk && !b.parsedOk) return a.raw === b.raw;
  return false;
}

export class IdempotencyStore {
  private readonly entries = new Map<string, IdempotencyEntry>();
  onChange: () => void = () => {};

  constructor(private readonly now: () => number = Date.now) {}

  /** Looks the key up and, when it is new (or expired), locks it as in progress. */
  begin(key: string, fingerprint: Fingerprint): Begin {
    const now = this.now();
    const e = this.entries.get(key);
    if (e && now - e.createdMs < IDEMPOTENCY_TTL_MS) {
      if (!e.answer) return { kind: 'in-progress' };
      if (!sameBody(e.fingerprint, fingerprint)) return { kind: 'reused' };
      return { kind: 'replay', answer: e.answer };
    }
    this.entries.set(key, { key, fingerprint, createdMs: now });
    if (this.entries.size % 1000 === 0) this.prune(now);
    return { kind: 'new' };
  }

  /** Ends an in-progress key: stores answers below 500, releases the key otherwise. */
  finish(key: string, answer: StoredAnswer): void {
    const e = this.entries.get(key);
    if (!e || e.answer) return;
    if (answer.status >= 500) this.entries.delete(key);
    else {
      e.answer = answer;
      this.onChange();
    }
  }

  /** Releases an in-progress key without storing (the request died before an answer). */
  release(key: string): void {
    const e = this.entries.get(key);
    if (e && !e.answer) this.entries.delete(key);
  }

  /** Stored (finished) entries, for persistence. */
  stored(): IdempotencyEntry[] {
    const now = this.now();
    return [...this.entries.values()].filter((e) => e.answer && now - e.createdMs < IDEMPOTENCY_TTL_MS);
  }

  load(entries: Array<{ key: string; body: string; createdMs: number; answer: StoredAnswer }>): void {
    for (const e of entries) {
      this.entries.set(e.key, { key: e.key, fingerprint: fingerprintOf(e.body), createdMs: e.createdMs, answer: e.answer });
    }
  }

  private prune(now: number): void {
    for (const [k, e] of this.entries) if (e.answer && now - e.createdMs >= IDEMPOTENCY_TTL_MS) this.entries.delete(k);
  }
}
