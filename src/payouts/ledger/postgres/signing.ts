/**
 * The shared ledger's rows signed and checked (docs/architecture.md, "The ledger"; issue #30:
 * every row attributable). Each row the PostgreSQL store writes carries `signer` (the public key
 * that signed it, `ed25519:<base64>` as src/plans/keys.ts writes keys) and `signature` (Ed25519,
 * base64) over rowMessage: the row's key, its entry text byte for byte, and who wrote it
 * (profile, host, signer). Every read checks the row before its entry is used: one that does
 * not verify is never acted on (a ConfigError naming the payout id), as the local journal
 * refuses an entry whose HMAC fails (../mac.ts). The columns look-ups use (key, fingerprint,
 * repeat key, outcome, transaction id, and created_at, the time a daily total and a 24-hour
 * window find rows by) are copies of the entry's fields: a row whose copy differs from its
 * entry is refused too. The store holds no key: it is handed a RowSigner.
 */
import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { ConfigError } from '../../../errors.js';
import { canonicalJson } from '../../../plans/canonical.js';
import { fingerprintOf, publicKeyBytes, publicKeyText, signText, type SigningKey } from '../../../plans/keys.js';
import type { JournalEntry } from '../ledger.js';
import { copiedColumns, entryOfRow, rowOf, sameCreatedAt, type RowValues, type StoredRow } from './rows.js';
import { entryZeroKey } from '../../sent-body.js';

/** What signs the rows a store writes: a public key (`ed25519:<base64>`) and a way to sign with its private half. */
export interface RowSigner {
  publicKey: string;
  /** An Ed25519 signature (base64) of `message`. */
  sign(message: string): string;
}

/** What a row's signature covers. */
export interface SignedFields {
  base: string;
  payout_id: string;
  /** The entry's JSON text, exactly as the row holds it. */
  entry: string;
  profile: string | null;
  host: string | null;
  /** The signer's public key, `ed25519:<base64>`. */
  signer: string;
}

/**
 * The text a row's signature is over: canonical JSON (src/plans/canonical.ts, RFC 8785) of
 * `{"base", "entry", "host", "payout_id", "profile", "purpose": "payctl-ledger-row-v1", "signer"}`,
 * keys sorted, NULL columns as `null`. The purpose keeps a row's signature from being anything
 * else (a plan's, an approval's) and theirs from being a row's; the signer is inside, so a
 * signature cannot be moved to another key's name.
 */
export function rowMessage(f: SignedFields): string {
  return canonicalJson({
    purpose: 'payctl-ledger-row-v1',
    base: f.base,
    payout_id: f.payout_id,
    entry: f.entry,
    profile: f.profile,
    host: f.host,
    signer: f.signer,
  });
}

/** A RowSigner of a signing key (the person's from `payctl keys create`, or a config folder's ledger key). */
export function keySigner(key: Pick<SigningKey, 'publicKey' | 'privateKey'>): RowSigner {
  return { publicKey: key.publicKey, sign: (message) => signText(key as SigningKey, message) };
}

/** A key made for this process alone: rows written without a signer handed in (tests, the bench) are signed all the same. */
export function processSigner(): RowSigner {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return keySigner({ publicKey: publicKeyText(publicKey), privateKey });
}

/** A row's values for the statements (rows.ts), signed as written by `host` with `signer`. */
export function signedRow(e: JournalEntry, host: string | null, signer: RowSigner): RowValues {
  const v = rowOf(e);
  v[10] = signer.sign(rowMessage({ base: v[0], payout_id: v[1], entry: v[3], profile: v[9], host, signer: signer.publicKey }));
  return v;
}

/** Public keys already made into key objects (a ledger has a few signers and many rows): at most KEYS kept. */
const keyObjects = new Map<string, KeyObject | null>();
const KEYS = 1000;
const SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;

/**
 * Whether `signature` (base64) is the Ed25519 signature of `message` by the key written
 * `ed25519:<base64>`: keys.ts verifyText, with the key object kept for the next row it signed.
 */
function holds(publicKey: string, message: string, signature: string): boolean {
  let key = keyObjects.get(publicKey);
  if (key === undefined) {
    const bytes = publicKeyBytes(publicKey);
    try {
      key = bytes ? createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: bytes.toString('base64url') }, format: 'jwk' }) : null;
    } catch {
      key = null;
    }
    if (keyObjects.size >= KEYS) keyObjects.clear();
    keyObjects.set(publicKey, key);
  }
  if (!key || !SIGNATURE.test(signature)) return false;
  try {
    return verify(null, Buffer.from(message, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** Why a row does not verify. */
export type RowProblem =
  /** No signature or no signer: not written by a payctl that signs rows. */
  | { kind: 'unsigned' }
  /** The signature does not hold for its contents and the key its signer column names. */
  | { kind: 'changed' }
  /** It holds for another key than the one the signer column names (found among `others`: rowProblem). */
  | { kind: 'other-key'; fingerprint: string }
  /** A column look-ups use differs from the entry it is copied from. */
  | { kind: 'column'; column: string }
  /** Signed, but its text is not an entry of its payout id. */
  | { kind: 'not-an-entry'; message: string };

/** The problem in words, after "does not verify: ". */
export function problemText(p: RowProblem): string {
  switch (p.kind) {
    case 'unsigned':
      return 'it is not signed (no signer or no signature): it was not written by a payctl that signs rows';
    case 'changed':
      return 'its signature does not match its contents: the row was changed after it was signed';
    case 'other-key':
      return `it is signed by another key (${p.fingerprint}) than the one its signer column names`;
    case 'column':
      return `its ${p.column} column does not match its entry`;
    case 'not-an-entry':
      return p.message;
  }
}

/** The columns copied from an entry, in the order they are checked. */
const COPIES = ['base', 'idempotency_key', 'fingerprint', 'repeat_key', 'outcome', 'transaction_id'] as const;

/**
 * A row checked: its entry when it verifies, else why not. A row that fails its signer's key
 * is tried against `others` (public keys), with the signer column set to each: one that holds
 * says the signer column was changed to name another key than the one that signed it.
 */
export function checkRow(r: StoredRow, masked: string, others: Iterable<string> = []): { entry: JournalEntry } | { problem: RowProblem } {
  if (!r.signer || !r.signature) return { problem: { kind: 'unsigned' } };
  const fields = { base: r.base, payout_id: r.payout_id, entry: r.entry, profile: r.profile, host: r.host };
  if (!holds(r.signer, rowMessage({ ...fields, signer: r.signer }), r.signature)) {
    for (const k of others) {
      if (k !== r.signer && holds(k, rowMessage({ ...fields, signer: k }), r.signature)) return { problem: { kind: 'other-key', fingerprint: fingerprintOf(k)! } };
    }
    return { problem: { kind: 'changed' } };
  }
  let entry: JournalEntry;
  try {
    entry = entryOfRow(r.entry, r.payout_id, masked);
  } catch (err) {
    return { problem: { kind: 'not-an-entry', message: (err as Error).message } };
  }
  const copied = copiedColumns(entry);
  for (const column of COPIES) if (copied[column] !== r[column]) return { problem: { kind: 'column', column } };
  // The time the daily total and the 24-hour windows find it by: its signed entry's.
  if (!sameCreatedAt(entry, r.created_at)) return { problem: { kind: 'column', column: 'created_at' } };
  // The zero key its entry was journaled with, or (migration 5's) the one its body pays: emptied or changed by hand, it hid the row from the repeat guard (probe R62 finding 2).
  if (r.zero_key !== undefined && (r.zero_key ?? undefined) !== entryZeroKey(entry)) return { problem: { kind: 'column', column: 'zero_key' } };
  return { entry };
}

/** The `payctl ledger verify` a hint prints (with the run's options), and the variable that named the ledger when one did. */
export interface VerifyCommand {
  command: string;
  env?: string;
}

/**
 * The entry of a row that verifies; else a ConfigError (exit 2) naming the payout id: payctl
 * does not act on a row changed outside it (a read rejects, a listing gives it as an error, a
 * claim that meets it sends nothing). `verify`: the `payctl ledger verify` its hint ends in, with
 * the run's profile and settings (OpenOptions.verifyCommand), so that it checks this ledger; a
 * ledger named by a variable (never printed: a password may be in it) is said to be needed too.
 */
export function verifiedEntry(r: StoredRow, masked: string, verify: VerifyCommand = { command: 'payctl ledger verify' }): JournalEntry {
  const c = checkRow(r, masked);
  if ('entry' in c) return c.entry;
  throw new ConfigError(
    `The entry of payout ${r.payout_id} in the payout ledger ${masked} does not verify: the shared ledger row was changed outside payctl (${problemText(c.problem)}). payctl will not act on it.`,
    // The command last on its line, as it is pasted.
    `If nobody on your team changed it, someone else can write to the database: check it before going on. ${verify.env ? `With ${verify.env} set as for this run, list` : 'List'} every such row and who signed the others with: ${verify.command}`,
  );
}
