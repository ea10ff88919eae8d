/**
 * A batch's rows looked up a group at a time where the ledger can (Ledger.prefetch: a store on a
 * server answers a group in one round trip): everything the plan of a row asks the ledger next,
 * its payout ids (this version's, the earlier versions' derived and legacy ids), what it pays
 * and what it pays as a spreadsheet may have re-saved it (lost-digits.ts), and its repeat keys
 * in the runs it is compared with (changed-rows.ts) and in any entry (repeats.ts
 * samePayoutsSent: what it pays with the account as compared), and its zero key (its account in
 * any form of leading zeros: identity.ts zeroKey) in the last day's batches and in any entry
 * (repeats.ts recentRepeats). The local store, whose look-ups are files, lists its look-up markers
 * instead (Ledger.expectLookups): a file look-up a key was a sixth of a 10,000-row batch's CPU.
 */
import { comparedRun } from './changed-rows.js';
import { legacyDerivedPayoutId, repeatKeys, zeroKey } from './identity.js';
import type { BatchSource, IdentifiedRow } from './batch-source.js';
import type { Ledger } from './journal.js';
import { restoredRequest, type RestoredForm } from './lost-digits.js';

/** Rows a batch's plan looks up together. */
export const LOOKAHEAD = 256;

/**
 * Asks the ledger ahead for a group of rows of `src` (`forms`: each row's restored forms, when
 * the file lost digits; `recentSince`: a run compared with the last day's batches too).
 */
export async function lookAhead(
  journal: Ledger,
  baseUrl: string,
  src: BatchSource,
  rows: IdentifiedRow[],
  forms: RestoredForm[][] | undefined,
  recentSince: Date | undefined,
): Promise<void> {
  if ((!journal.prefetch && !journal.expectLookups) || !rows.length) return;
  const ids = idsOf(src, rows);
  const restored = forms ? forms.flatMap((f) => f.map((x) => x.fingerprint)) : [];
  const keys = [...new Set(rows.flatMap((r) => repeatKeys(r.request)))];
  // Its account in any form of leading zeros: in the last day's batches (a run compared with
  // them), and in payouts of unknown outcome (unsettled-repeats.ts openAlike).
  const zeroKeys = [...new Set(rows.map((r) => zeroKey(r.request)))];
  const inBatch = { batch: comparedRun(src.batchId, src.file), repeatKeys: keys, recentSince, ...(recentSince ? { zeroKeys } : {}) };
  // What each row and restored form pays as compared is found among the entries of its repeat keys (repeats.ts samePayoutsSent).
  const restoredKeys = forms ? rows.flatMap((r, i) => forms[i]!.flatMap((f) => repeatKeys(restoredRequest(r.request, f)))) : [];
  const fingerprints = [...new Set([...rows.map((r) => r.fingerprint), ...restored])];
  const anyKeys = [...new Set([...keys, ...restoredKeys])];
  if (journal.prefetch) await journal.prefetch(baseUrl, ids, fingerprints, inBatch, anyKeys, zeroKeys);
  else journal.expectLookups!(baseUrl, fingerprints, anyKeys, zeroKeys);
}

/** The ids a row's entry may be under: this version's, and earlier versions' derived and legacy ids. */
function idsOf(src: BatchSource, rows: IdentifiedRow[]): string[] {
  return rows.flatMap((r) => [
    r.request.payoutId,
    ...(r.derivedId ? [legacyDerivedPayoutId(src.batchId, r.fingerprint, r.occurrence)] : []),
    ...(r.legacyId ? [r.legacyId] : []),
  ]);
}

/**
 * Asks the ledger ahead for the entries of a group of rows of `src` that are being sent (a
 * resume, a rerun: rows journaled before are looked up by payout id only). Any claim or outcome
 * written meanwhile makes the store forget the answers, and a look-up then asks again.
 */
export async function lookAheadEntries(journal: Ledger, baseUrl: string, src: BatchSource, rows: IdentifiedRow[]): Promise<void> {
  if (journal.prefetch && rows.length) await journal.prefetch(baseUrl, idsOf(src, rows), []);
}

/** The rows in groups of `size` (the last one shorter). */
export async function* groupsOf<T>(rows: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let group: T[] = [];
  for await (const r of rows) {
    group.push(r);
    if (group.length === size) {
      yield group;
      group = [];
    }
  }
  if (group.length) yield group;
}
