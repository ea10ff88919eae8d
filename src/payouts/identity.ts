/**
 * What makes two payouts the same payout (docs/architecture.md, "Identity"). A batch row without a
 * payout_id gets its id from the batch id, what the row pays (normalized: the same
 * payout written as `100` or `100.00`, in another row order, in a renamed or re-saved
 * file, gives the same id) and its occurrence among identical rows of the file, never
 * from the file's name or the row's position. The id is a name-based UUID (RFC 4122
 * version 5), the form of the documentation's payout ids; earlier versions derived
 * `b-<32 hex>` from the same inputs, still looked up to resume their batches. A single
 * payout typed twice is caught by its repeat key: the same wallet, recipient account (in
 * whatever case and with whatever spaces and dashes), amount and currency (the repeat guard
 * itself, which consults it: repeats.ts).
 */
import { hash } from 'node:crypto';
import { ACCOUNT_MAX } from '../service/payout-rules.js';
import type { PayoutRequest } from './request.js';
import { fieldProblem, type Problem } from '../errors.js';

/** The batch id of a run without --batch-id. */
export const DEFAULT_BATCH_ID = 'default';

/** What a --batch-id may hold: it is shown in plans, reports and commands to paste. */
export const BATCH_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** Why `id` cannot be a --batch-id (the flag in `field`), or undefined when it can. */
export function checkBatchId(id: string): Problem | undefined {
  return BATCH_ID.test(id) ? undefined : fieldProblem('--batch-id', `"${id}" may only hold letters, digits and _ . : - (at most 64, starting with a letter or digit)`);
}

/**
 * A batch id as a slip would leave it: without letter case and without its separators
 * (`Dec-2026`, `dec_2026` and `DEC2026` are one). Two different ids with one slip key are most
 * likely one batch typed twice (commands/payout/batch.ts refuseOtherBatch), never two runs meant.
 */
export function batchIdSlipKey(id: string): string {
  return id.toLowerCase().replace(/[_.:-]/g, '');
}

/**
 * A payout id as a spreadsheet (or a hand) leaves it: without letter case and without the
 * leading zeros of its numbers (`000451` saved as the number 451; `EMP-000452` as `emp-452`).
 * changed-rows.ts: a row whose payout_id is another's of the last day in all but these is that
 * payout, its id mangled, never a new one.
 */
export function payoutIdSlipKey(id: string): string {
  return id.toLowerCase().replace(/\d+/g, (n) => n.replace(/^0+(?=\d)/, ''));
}

/**
 * The SHA-256 of a text (as UTF-8), in hex. One call, no Hash object: a batch hashes a few
 * times a row (its fingerprint, its journal entry's and markers' names), and crypto.hash()
 * took about a third of createHash()'s time for texts of this size.
 */
export function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * The first `bytes` bytes of the SHA-256 of a text, in hex (`bytes` * 2 digits): the same
 * digits as `sha256(text).slice(0, bytes * 2)`, made as a string of their own. V8 makes a
 * slice of a string that long as a view that keeps the whole 64-digit digest alive, and a
 * batch keeps a few such names a row (fingerprint, repeat key, entry and marker names).
 */
export function sha256Hex(text: string, bytes: number): string {
  return hash('sha256', text, 'buffer').toString('hex', 0, bytes);
}

/** Everything a payout pays, normalized, without its id: equal for the same intended payout. */
export function payoutFingerprint(r: PayoutRequest): string {
  const metadata = r.metadata
    ? Object.keys(r.metadata)
        .sort()
        .map((k) => [k, r.metadata![k]])
    : [];
  const canon = JSON.stringify([r.walletId, r.currency, r.amountMinor.toString(), r.type, r.name, r.provider, r.account, r.phone ?? null, r.note ?? null, metadata]);
  return sha256Hex(`payctl-payout-v1\n${canon}`, 16);
}

/**
 * The namespace of payctl's derived payout ids (a random UUID, chosen once). It must never
 * change: every id derived under it, journaled and known to the service, would stop being
 * found, and a resumed batch would pay its rows again.
 */
export const PAYCTL_NAMESPACE = '3f0c2a7e-5b1d-4c8e-9a64-2d7b91e0c5f3';

/** A UUID's 16 bytes (any case, with its hyphens). */
function uuidBytes(uuid: string): Buffer {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) throw new TypeError(`not a UUID: ${uuid}`);
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

const PAYCTL_NAMESPACE_BYTES = uuidBytes(PAYCTL_NAMESPACE);

/**
 * The name-based UUID, version 5 (RFC 4122 4.3): the SHA-1 of the namespace's 16 bytes and
 * the name's UTF-8 bytes, its first 16 bytes with the version (5) and the variant (10xx)
 * set, in lower-case hex.
 */
export function uuidV5(namespace: string | Buffer, name: string): string {
  const ns = typeof namespace === 'string' ? uuidBytes(namespace) : namespace;
  const data = Buffer.allocUnsafe(16 + Buffer.byteLength(name, 'utf8'));
  ns.copy(data, 0, 0, 16);
  data.write(name, 16, 'utf8');
  const h = hash('sha1', data, 'hex');
  // Byte 6's high nibble is the version; byte 8's two high bits are the variant.
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A payout id in the form derivedPayoutId makes (or an earlier version's legacyDerivedPayoutId made). */
export const DERIVED_ID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|b-[0-9a-f]{32})$/;

/**
 * The payout id of a batch row without one: a version 5 UUID, under payctl's namespace, of
 * the batch id, the row's fingerprint and its occurrence (0, 1, ...) among identical rows.
 */
export function derivedPayoutId(batchId: string, fingerprint: string, occurrence: number): string {
  return uuidV5(PAYCTL_NAMESPACE_BYTES, `payctl-batch-v3\n${batchId}\n${fingerprint}\n${occurrence}`);
}

/**
 * The id earlier versions derived from the same inputs (`b-` and 32 hex digits): never made
 * for a new payout, only looked up so that a batch they sent resumes under its entries.
 */
export function legacyDerivedPayoutId(batchId: string, fingerprint: string, occurrence: number): string {
  return `b-${sha256Hex(`payctl-batch-v2\n${batchId}\n${fingerprint}\n${occurrence}`, 16)}`;
}

/**
 * An account number as payctl compares two payouts' accounts: without spaces and dashes, in upper
 * case (leading zeros and every other character count: `0011` is not `11`, `5500.1122` is not
 * `55001122`). `4410-0012-34` pasted from an invoice is `4410001234`, and `sl12abcd0001` is
 * `SL12ABCD0001`, as the service takes either. The repeat guard's (repeatKey) and history
 * reconcile's (candidate-fields.ts) one rule; what is sent, and a payout's identity, keep the
 * account as written.
 */
export function comparedAccount(account: string): string {
  return account.replace(/[ -]/g, '').toUpperCase();
}

/**
 * An account as a spreadsheet may have re-saved it, for telling a batch's paid row that an edit
 * changed (changed-rows.ts): as compared (comparedAccount), its leading zeros dropped (a cell
 * saved as a number: `0099887766` is 99887766), and an all-digit one of more than 15 digits cut
 * to the 15 significant digits a spreadsheet keeps (`12345678901234567890` saved as
 * `12345678901234500000`). Never an identity: only which payout of the same batch a row most
 * likely was.
 */
export function looseAccount(account: string): string {
  const a = comparedAccount(account).replace(/^0+/, '');
  return /^[0-9]{16,}$/.test(a) ? a.slice(0, 15) : a;
}

/**
 * The other forms of an all-digit account that differ from it only in leading zeros, as
 * looseAccount takes them for one: the same digits with none, or any number, of zeros before
 * them, up to ACCOUNT_MAX characters, as compared (comparedAccount; `456719`: `0456719`, `00456719`, ... `0000456719`, ...;
 * `0000456719`: `456719`, `0456719`, `00456719`, ...). None for an account with any other
 * character (a spreadsheet keeps such a cell as text). A spreadsheet that saves the column as
 * numbers drops every zero, however many: the forms a row that lost its zeros may have had
 * (lost-digits.ts). Other runs and single payouts are looked up by one key for all the forms
 * (zeroKey), the key look-ups' form of the rule looseAccount is within a batch. Before, other runs
 * were looked up with up to three zeros back only, and a re-saved copy of `0000456719` paid the
 * payee twice.
 */
export function zeroForms(account: string): string[] {
  const compared = comparedAccount(account);
  if (!/^[0-9]+$/.test(compared)) return [];
  const digits = compared.replace(/^0+(?=[0-9])/, '');
  const forms: string[] = [];
  for (let form = digits; form.length <= ACCOUNT_MAX; form = `0${form}`) if (form !== compared) forms.push(form);
  return forms;
}

/**
 * An account as the search that decides "not made" compares it (candidate-fields.ts, hardFacts):
 * its letters and digits only, in upper case, leading zeros dropped. `11223344`, `001.122.3344`
 * and `+0011223344` are `0011223344` as the service may store or write it: when a payout would be
 * decided not made, an account written another way must never be taken for another account.
 * Looser than comparedAccount on purpose (a wrong "same" only leaves the outcome unknown); never
 * an identity.
 */
export function bareAccount(account: string): string {
  return account
    .replace(/[^0-9A-Za-z]/g, '')
    .toUpperCase()
    .replace(/^0+/, '');
}

/** The characters a service masks an account's hidden part with (`******3344`, `••••3344`). */
const MASK = /[*\u2022\u25cf]+/;

/**
 * Whether an account a service wrote, `written`, can be the account that was sent, `sent`: the
 * one rule of `history reconcile` (its candidates and `--made-by`, candidate-fields.ts). `same`:
 * as compared (comparedAccount); `form`: the same account written another way, which is one of
 * its letters and digits with leading zeros dropped (bareAccount: `11223344`, `001.122.3344`
 * for `0011223344`); with a country code of 1 to 3 digits before it in place of the leading
 * zeros (`+23276123456` or `0023276123456` for `76123456`, and `23276123456` too for `076123456`,
 * sent with a leading zero; the number sent at least 6 digits past its zeros); `masked`: its visible characters (4 at least) where the sent
 * account has them, counted from each end (`******3344`, `00****3344`: only partly checked, maskedWords); `other`: anything else,
 * another account (`999`).
 */
export function accountForm(written: string, sent: string): 'same' | 'form' | 'masked' | 'other' {
  if (comparedAccount(written) === comparedAccount(sent)) return 'same';
  const bareSent = bareAccount(sent);
  if (bareSent !== '' && bareAccount(written) === bareSent) return 'form';
  const digits = bareAccount(written);
  if (/^[0-9]{6,}$/.test(bareSent) && /^[0-9]+$/.test(digits) && (/^\s*(\+|00)/.test(written) || /^\s*0/.test(sent))) {
    const code = digits.slice(0, digits.length - bareSent.length);
    if (digits.endsWith(bareSent) && /^[1-9][0-9]{0,2}$/.test(code)) return 'form';
  }
  const shown = maskedView(written);
  if (!shown) return 'other';
  const { head, tail } = shown;
  const whole = comparedAccount(sent).replace(/[^0-9A-Z]/g, '');
  if (head.length + tail.length < 4 || head.length + tail.length >= whole.length) return 'other';
  return whole.startsWith(head) && whole.endsWith(tail) ? 'masked' : 'other';
}

/** A masked account's visible characters before and after its one mask (`00****3344`: `00`, `3344`); undefined when it is not masked so. */
function maskedView(written: string): { head: string; tail: string } | undefined {
  const mask = MASK.exec(written);
  if (!mask) return undefined;
  const head = bareAccount('1' + written.slice(0, mask.index)).slice(1);
  const tail = bareAccount('1' + written.slice(mask.index + mask[0].length)).slice(1);
  return MASK.test(tail) ? undefined : { head, tail };
}

/**
 * What a masked account (accountForm `masked`) lets be checked, in words: `account shown masked
 * (**3344): only its last 4 characters could be checked`. A mask hides how many characters it
 * stands for too, so it is never a difference "in form only".
 */
export function maskedWords(written: string, shownAs: string): string {
  const v = maskedView(written);
  const part = (n: number, end: string) => `${end} ${n === 1 ? 'character' : `${n} characters`}`;
  const parts = [v?.head.length ? part(v.head.length, 'first') : '', v?.tail.length ? part(v.tail.length, 'last') : ''].filter(Boolean);
  return `account shown masked (${shownAs}): only its ${parts.join(' and ')} could be checked`;
}

/** A payee's name as two rows of one person compare: composed (NFC), without letter case, runs of spaces as one. */
export function comparedName(name: string): string {
  return name.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Same wallet, recipient account (as compared: comparedAccount), amount and currency: a payout
 * typed a second time (repeats.ts, recentRepeats). Journaled with every entry. The text hashed is
 * the one earlier versions hashed with the account as written, so for an account already in its
 * compared form (digits, capital letters) the key is the one they journaled, and payctl of
 * either version finds the other's entries; for another form, see repeatKeys.
 */
export function repeatKey(r: PayoutRequest): string {
  return repeatKeyOf(r, comparedAccount(r.account));
}

/** What a repeat key is made of: the wallet, the account, the currency and the amount. */
type RepeatFields = Pick<PayoutRequest, 'walletId' | 'account' | 'currency' | 'amountMinor'>;

function repeatKeyOf(r: RepeatFields, account: string): string {
  const text = `payctl-repeat-v1\n${JSON.stringify([r.walletId, account, r.currency, r.amountMinor.toString()])}`;
  let key = madeKeys.get(text);
  if (key === undefined) {
    if (madeKeys.size >= MADE_KEYS_KEPT) madeKeys.clear();
    key = sha256Hex(text, 16);
    madeKeys.set(text, key);
  }
  return key;
}

/**
 * Repeat keys made lately, by the text they hash: a batch's plan makes each row's keys twice (its
 * look-ahead, batch-lookahead.ts, then the row). Emptied when full: at least a look-ahead group's
 * keys fit.
 */
const madeKeys = new Map<string, string>();
const MADE_KEYS_KEPT = 50_000;

/**
 * What a payout pays with the account as compared: payoutFingerprint of it with comparedAccount.
 * What repeats.ts samePayoutsSent compares rows with earlier payouts by, whichever form each side
 * wrote the account in; a single payout (`payout create`) is journaled with it. A single payout's
 * id and key never come from it; a batch row's fingerprint stays payoutFingerprint (its payout
 * id is made from it), and its body says what it pays as compared (sent-body.ts).
 */
export function comparedFingerprint(r: PayoutRequest): string {
  const account = comparedAccount(r.account);
  return payoutFingerprint(account === r.account ? r : { ...r, account });
}

/**
 * The keys a payout's repeats are looked up by: its repeat key and, for an account written with
 * spaces, dashes or small letters, the key earlier versions journaled for it as written (the
 * account typed the same way in both). A payout is journaled with its repeat key only.
 */
export function repeatKeys(r: PayoutRequest): string[] {
  const compared = comparedAccount(r.account);
  const key = repeatKeyOf(r, compared);
  return compared === r.account ? [key] : [key, repeatKeyOf(r, r.account)];
}

/**
 * A payout's zero key: its repeat key (repeatKey) with an all-digit account's leading zeros
 * dropped (`0000456719`, `0456719` and `456719` have one), the repeat key itself for any other
 * account. Journaled with every entry and looked up by (Ledger.find 'zero'): the one key that
 * finds every payout to the same wallet, account in any form of leading zeros (zeroForms),
 * amount and currency. Before, each look-up asked for the repeat key of every such form, up to
 * ~50 a row, and that was most of a batch's CPU (docs/performance.md, 29 November).
 */
export function zeroKey(r: RepeatFields): string {
  const compared = comparedAccount(r.account);
  return repeatKeyOf(r, /^[0-9]+$/.test(compared) ? compared.replace(/^0+(?=[0-9])/, '') : compared);
}

/**
 * The Idempotency-Key of a payout whose id is deterministic (a batch or plan row, `payout create
 * --payout-id`): a version 5 UUID of the journal's normalized base URL (journal.ts journalBase),
 * the payout id and the exact body. Another config folder, another machine or a restored backup
 * sends the same key for the same payout, so the service replays its first answer instead of
 * paying again. `base` must already be normalized: one service, one key.
 */
export function derivedIdempotencyKey(base: string, payoutId: string, body: string): string {
  return uuidV5(PAYCTL_NAMESPACE_BYTES, `payctl-key-v1\n${base}\n${payoutId}\n${body}`);
}
