/**
 * Every row of a shared ledger checked at once, for `payctl ledger verify` (README "Working as a
 * team"; the check itself is signing.ts): how many rows verify, which do not and why (changed,
 * unsigned, signed by another key than the one named, a look-up column unlike its entry), and
 * who signed the others: each signer's key with the hosts and profiles its rows name and how
 * many rows it signed, and its name when the caller knows the key (the person's own, this
 * config folder's ledger key, a member of the team's policy). Rows are read a page at a time.
 */
import { fingerprintOf } from '../../../plans/keys.js';
import type { StoredRow } from './rows.js';
import { checkRow, problemText, type RowProblem } from './signing.js';

/** Whose a known public key is: a name, and where that name comes from. */
export interface KnownKey {
  name: string;
  /** `person`: this person's own key (keys create); `ledger`: this config folder's ledger key; `policy`: a member of the policy. */
  source: 'person' | 'ledger' | 'policy';
}

/** A key that signed rows that verify. */
export interface SignerSeen {
  publicKey: string;
  fingerprint: string;
  known: KnownKey | undefined;
  rows: number;
  /** The hosts and profiles its rows name, sorted (a row without one: not listed). */
  hosts: string[];
  profiles: string[];
}

/** A row that does not verify: payctl does not act on it. */
export interface RowFailure {
  base: string;
  payoutId: string;
  problem: RowProblem;
  /** Why, in words. */
  reason: string;
}

export interface AuditReport {
  rows: number;
  verified: number;
  failures: RowFailure[];
  /** Most rows first, then by fingerprint. */
  signers: SignerSeen[];
}

/** Rows that failed their signer's key kept whole to try other keys on (the rest are reported as changed). */
const RECHECKED = 1000;

/**
 * Every row of `rows` checked (masked: the ledger's URL, for messages). A row whose signature
 * does not hold for the key its signer column names is tried against the keys that signed other
 * rows and the `known` ones: one that holds says the signer column was changed.
 */
export async function auditRows(rows: AsyncIterable<StoredRow>, known: ReadonlyMap<string, KnownKey>, masked: string): Promise<AuditReport> {
  const seen = new Map<string, { rows: number; hosts: Set<string>; profiles: Set<string> }>();
  const failures: RowFailure[] = [];
  const recheck: Array<{ row: StoredRow; failure: RowFailure }> = [];
  let count = 0;
  for await (const r of rows) {
    count++;
    const c = checkRow(r, masked);
    if ('entry' in c) {
      let s = seen.get(r.signer!);
      if (!s) seen.set(r.signer!, (s = { rows: 0, hosts: new Set(), profiles: new Set() }));
      s.rows++;
      if (r.host !== null) s.hosts.add(r.host);
      if (r.profile !== null) s.profiles.add(r.profile);
      continue;
    }
    const failure: RowFailure = { base: r.base, payoutId: r.payout_id, problem: c.problem, reason: problemText(c.problem) };
    failures.push(failure);
    if (c.problem.kind === 'changed' && recheck.length < RECHECKED) recheck.push({ row: r, failure });
  }
  const candidates = [...new Set([...seen.keys(), ...known.keys()])];
  for (const { row, failure } of recheck) {
    const again = checkRow(row, masked, candidates);
    if ('problem' in again) {
      failure.problem = again.problem;
      failure.reason = problemText(again.problem);
    }
  }
  const signers = [...seen].map(([publicKey, s]) => ({
    publicKey,
    fingerprint: fingerprintOf(publicKey) ?? publicKey,
    known: known.get(publicKey),
    rows: s.rows,
    hosts: [...s.hosts].sort(),
    profiles: [...s.profiles].sort(),
  }));
  signers.sort((a, b) => b.rows - a.rows || (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
  return { rows: count, verified: count - failures.length, failures, signers };
}
