/**
 * Reading one entry of the local ledger (docs/architecture.md, "The ledger"): its per-payout
 * file, or (for an entry kept in a batch's log) the claim there and the entry's latest line in
 * that log; checked to be an entry, of the payout asked for, with an HMAC that verifies.
 * Anything else is a ConfigError naming the file: payctl never acts on it.
 */
import { lstatSync } from 'node:fs';
import { basename } from 'node:path';
import { ConfigError } from '../../errors.js';
import { jsonFault } from '../../config/json-fault.js';
import type { JournalEntry, Outcome, ScanItem } from './ledger.js';
import { CLAIM_KEY, claimOf, transactionTexts, type LogReader } from './log-reader.js';
import type { JournalMac, StoredEntry } from './mac.js';
import { entryText } from './entry-file.js';
import { NOT_ACTED_ON } from './names.js';
import { isKeyId } from '../../config/key-id.js';

/** A per-payout name that says it is a claim but is not one as payctl writes them. */
class ChangedClaim extends Error {}

/** A claim whose log holds no entry for it: the log is named, and where it breaks. */
class UnmetClaim extends Error {}

/**
 * The entry of `file` (of payout `payoutId`, when given), verified; undefined when there is none.
 * With `transactionId`, undefined too when the entry's outcome is not accepted with that
 * transaction id: only a candidate is parsed and verified (a file whose text cannot hold it is
 * not parsed, a log's line whose entry does not have it is not verified).
 */
export function readEntry(file: string, payoutId: string | undefined, mac: JournalMac, logs: LogReader, transactionId?: string): JournalEntry | undefined {
  // Most look-ups of a new batch find nothing: no exception for each of them.
  if (!lstatSync(file, { throwIfNoEntry: false })) return undefined;
  // Made before the read: making it adopts payctl 0.1's entries, this one among them.
  mac.ready();
  const raw = entryText(file);
  if (raw === undefined) return undefined;
  if (transactionId !== undefined && !mayHold(raw, transactionId)) return undefined;
  let entry: StoredEntry;
  try {
    entry = parsed(raw, file, logs);
    if (transactionId !== undefined && !hasTransaction(entry, transactionId)) return undefined;
    if (
      (payoutId !== undefined && entry.payoutId !== payoutId) ||
      typeof entry.payoutId !== 'string' ||
      typeof entry.idempotencyKey !== 'string' ||
      typeof entry.body !== 'string' ||
      // The id of the key that sent it decides who may resend it (sender-profile.ts): never guessed at.
      (entry.keyId !== undefined && !isKeyId(entry.keyId))
    ) {
      throw new Error('unexpected content');
    }
  } catch (err) {
    // A log that cannot be read (log-reader.ts): said as it is, naming the log.
    if (err instanceof ConfigError) throw err;
    if (err instanceof UnmetClaim) {
      throw new ConfigError(
        `The payout journal entry ${file} is damaged: it is a batch row's claim on the log ${err.message}.`,
        "The claim holds no idempotency key: it names the log whose line keeps the row's entry (its key and body). " +
          'Restore the log from a backup if there is one; inspect it before moving the log or the claim aside.',
      );
    }
    if (err instanceof ChangedClaim) {
      throw new ConfigError(
        `The payout journal entry ${file} was not written by payctl in this config folder or was changed since (its claim on a log holds other fields).`,
        NOT_ACTED_ON,
      );
    }
    throw new ConfigError(
      `The payout journal entry ${file} is damaged (${err instanceof SyntaxError ? jsonFault(err, raw) : (err as Error).message}).`,
      'It holds the idempotency key of an earlier payout; inspect it before removing it.',
    );
  }
  return mac.verified(entry, file, payoutId);
}

/**
 * Whether a file's text may be an entry accepted with this transaction id: it holds one of its
 * texts (log-reader.ts transactionTexts), or it is a claim (its line in the log is checked).
 * Anything else cannot be: passed over, not parsed.
 */
function mayHold(raw: string, transactionId: string): boolean {
  return raw.includes(CLAIM_KEY) || transactionTexts(transactionId).some((t) => raw.includes(t));
}

/** Whether the entry's outcome is accepted with this transaction id. */
function hasTransaction(entry: StoredEntry, transactionId: string): boolean {
  const o = entry.outcome as Partial<Outcome> | undefined;
  return o?.kind === 'accepted' && o.transactionId === transactionId;
}

/** The stored entry a file's text holds, itself or (a claim) through the log it names. */
function parsed(raw: string, file: string, logs: LogReader): StoredEntry {
  const stored = JSON.parse(raw) as unknown;
  // A name that claims an entry kept in a log (log.ts): the entry is its latest line there.
  const claim = claimOf(stored);
  if (claim === 'changed') throw new ChangedClaim();
  if (!claim) return stored as StoredEntry;
  const line = logs.line(claim.log, basename(file));
  // The log named (its path in the journal's log folder), and where it breaks when it does:
  // its damage is what hides the entry.
  if (!line) {
    const breaks = logs.breaks(claim.log);
    throw new UnmetClaim(`${logs.file(claim.log)}, which holds no entry for it${breaks ? `: the log ${breaks}` : ''}`);
  }
  return line.entry as unknown as StoredEntry;
}

/** A listed entry, or its error thrown. */
export function entryOrThrow(it: ScanItem): JournalEntry {
  if ('error' in it) throw it.error;
  return it.entry;
}
