/**
 * What a spreadsheet drops from digits (docs/architecture.md, "Identity"). Saved as numbers,
 * account_number "0012345678" becomes 12345678 and phone_number "+23276000002" becomes
 * 23276000002: a batch file re-saved that way paid the same people again, as new payouts, to
 * accounts that are not theirs (what a row pays is its identity, and these changed it).
 *
 * A column no row of which starts with a zero (account_number), or with a "+" or a zero
 * (phone_number), may have lost them. Each row still to send is then looked up as it would read
 * with them back (any number of zeros, identity.ts zeroForms; a "+" or a zero for a phone), by what it pays
 * (identity.ts payoutFingerprint, the account as compared: repeats.ts samePayoutsSent): a payout
 * sent before that pays all the same to the account or phone with them is the same payout, and the file is refused, nothing sent (batch-load.ts).
 * A column where some digits-only row keeps its zero was saved as text, and is not looked at; a
 * row with a dash or a letter (`0011-223-344`) is text whatever the column, and tells nothing:
 * before, one such row beside accounts that had lost their zeros turned the check off, and they
 * were paid again.
 */
import { fieldProblem, rowProblem, UsageError, type Problem } from '../errors.js';
import { plural, text } from '../output/text.js';
import { COLUMN_LABELS } from './batch-columns.js';
import { listed, MAX_LISTED, ProblemList } from './batch-problems.js';
import { DEFAULT_BATCH_ID, payoutFingerprint, zeroForms } from './identity.js';
import type { Ledger } from './journal.js';
import { describeSentIn, paidWording, samePayoutsSent } from './repeats.js';
import type { PayoutRequest } from './request.js';

/** Digits without a leading zero: what a number saved by a spreadsheet reads as. */
const BARE = /^[1-9][0-9]*$/;
/** Digits only, with a leading zero (account) or "+" or zero (phone): a cell the spreadsheet kept as text. */
const KEPT_ZERO = /^0[0-9]*$/;
const KEPT_PHONE = /^[+0][0-9]*$/;

/** Which of a file's two digit columns may have lost their leading characters. */
export interface LostDigits {
  account: boolean;
  phone: boolean;
}

/** The check's view of the digit columns, row by row (batch-load.ts checkBatch). */
export class DigitColumns {
  #accountKept = false;
  #accountBare = false;
  #phoneKept = false;
  #phoneBare = false;

  see(r: PayoutRequest): void {
    // Only a cell a spreadsheet would have read as a number tells how it saved the column: one
    // with a dash or a letter is text, and keeps its zero whatever became of the digits-only ones.
    if (KEPT_ZERO.test(r.account)) this.#accountKept = true;
    else if (!this.#accountBare && BARE.test(r.account)) this.#accountBare = true;
    const phone = r.phone;
    if (phone === undefined) return;
    if (KEPT_PHONE.test(phone)) this.#phoneKept = true;
    else if (!this.#phoneBare && BARE.test(phone)) this.#phoneBare = true;
  }

  /** Undefined when neither column can have lost anything. */
  lost(): LostDigits | undefined {
    const account = this.#accountBare && !this.#accountKept;
    const phone = this.#phoneBare && !this.#phoneKept;
    return account || phone ? { account, phone } : undefined;
  }
}

/** A row as it may have read before a spreadsheet saved it. */
export interface RestoredForm {
  account: string;
  phone: string | undefined;
  fingerprint: string;
}

/** The row as it reads in one of its restored forms. */
export function restoredRequest(r: PayoutRequest, form: RestoredForm): PayoutRequest {
  return { ...r, account: form.account, phone: form.phone };
}

/** An account saved as a number (digits, no leading zero) as it may have read: with any number of zeros back (identity.ts zeroForms); none for another account. */
export function withZerosBack(account: string): string[] {
  return BARE.test(account) ? zeroForms(account) : [];
}

/** The forms of a row's account and phone with their lost characters back, each with what it pays; none for a row with nothing to restore. */
export function restoredForms(r: PayoutRequest, lost: LostDigits): RestoredForm[] {
  const accounts = [r.account];
  if (lost.account) accounts.push(...withZerosBack(r.account));
  const phones = [r.phone];
  if (lost.phone && r.phone !== undefined && BARE.test(r.phone)) phones.push(`+${r.phone}`, `0${r.phone}`);
  const forms: RestoredForm[] = [];
  for (const account of accounts) {
    for (const phone of phones) {
      if (account === r.account && phone === r.phone) continue;
      forms.push({ account, phone, fingerprint: payoutFingerprint({ ...r, account, phone }) });
    }
  }
  return forms;
}

/**
 * What a form restored, as a problem of the row's first changed column: "account_number 12345678
 * was 0012345678", "... and phone_number 23276000002 was +23276000002", then `after`.
 */
export function restoredProblem(r: PayoutRequest, form: RestoredForm, after: string): Problem {
  const said: string[] = [];
  if (form.account !== r.account) said.push(`${COLUMN_LABELS.account} ${r.account} was ${form.account}`);
  if (form.phone !== r.phone) said.push(`${COLUMN_LABELS.phone} ${r.phone} was ${form.phone}`);
  const field = form.account !== r.account ? COLUMN_LABELS.account : COLUMN_LABELS.phone;
  return fieldProblem(field, `${text(said.join(' and ')).slice(field.length + 1)} ${after}`, ' ');
}

/** Rows that pay, in a restored form, what payouts sent before paid; and the batch runs that sent those (`''`: single payouts). */
export class RestoredRows {
  readonly problems = new ProblemList(MAX_LISTED);
  /** The rows each batch id paid; `''`: single payouts. */
  readonly paidBy = new Map<string, number[]>();
  get total(): number {
    return this.problems.total;
  }
}

/**
 * Row `row` noted in `rows` when, in one of its restored forms, it pays what a payout sent before
 * paid (not refused by the service): which form, and which payout in which run.
 */
export async function restoredSent(journal: Ledger, baseUrl: string, row: number, r: PayoutRequest, forms: RestoredForm[], rows: RestoredRows): Promise<void> {
  for (const form of forms) {
    const sent = (await samePayoutsSent(journal, baseUrl, form.fingerprint, () => false, restoredRequest(r, form))).at(-1);
    if (!sent) continue;
    rows.problems.push(rowProblem(row, restoredProblem(r, form, `when payout ${sent.payoutId} ${paidWording(sent, 'the same')} ${describeSentIn(sent)}`)));
    const by = sent.batch?.id ?? '';
    rows.paidBy.set(by, [...(rows.paidBy.get(by) ?? []), row]);
    return;
  }
}

/**
 * The refusal of a file with such rows (exit 2); `nothing`: "Nothing was sent.", "No plan was
 * written."; `batchId`: the run's. Put back, the rows are the payouts of the batch that paid them
 * only under its batch id: run under another (a new --batch-id, as when the refused run was), they
 * are new payouts, and pay the same people again. Before, the advice was "run the same command
 * again: rows accepted before are not sent again" whatever the batch id, and followed under a new
 * one it paid every row twice (probe R62 finding 0). Rows several batches paid are named by batch:
 * one run spares only its own batch's rows (probe R63 finding 1).
 */
export function restoredRefusal(path: string, rows: RestoredRows, nothing: string, batchId: string): UsageError {
  const n = rows.total;
  const putBack = 'Put them back (format account_number and phone_number as Text, or start again from the file that was sent)';
  const batches = [...rows.paidBy.keys()].filter((id) => id !== '');
  const run = (id: string) => (id === DEFAULT_BATCH_ID ? 'without --batch-id' : `with --batch-id "${text(id)}"`);
  const rowsOf = (id: string) => {
    const of = rows.paidBy.get(id)!;
    return `${of.length === 1 ? 'row' : 'rows'} ${of.join(', ')}`;
  };
  const elsewhere = `Under another batch id${batchId === DEFAULT_BATCH_ID ? '' : `, as ${run(batchId)},`} they are new payouts, and pay the same people again.`;
  const advice =
    batches.length > 1
      ? // One run sends again none of one batch's rows, under that batch's id only: followed for all, "run it as the batches did" paid the other batch's rows again (probe R63 finding 1).
        `They were paid by ${batches.length} batches (${batches.map((id) => `${rowsOf(id)} ${run(id)}`).join('; ')}): a run does not send a batch's rows again only under that batch's id. ${putBack} and send each batch's rows in a file of their own, run as that batch was, or take them out of this file. ${elsewhere}`
      : batches.length === 1 && batches[0] !== batchId
        ? `${putBack} and run it as the batch that paid them did (${run(batches[0]!)}): rows accepted before are not sent again. ${elsewhere}`
        : batches.length === 1
          ? `${putBack} and run the same command again: rows accepted before are not sent again.`
          : '';
  const singles = rows.paidBy.has('')
    ? `${advice ? ' ' : ''}Rows that single payouts (payout create) paid (${rowsOf('')}) are paid again by any batch: take them out of the file.`
    : '';
  return new UsageError(
    `${path}: ${plural(n, 'row pays', 'rows pay')} what payouts sent before paid, but for the leading zeros or "+" of ${n === 1 ? 'its' : 'their'} account or phone number. ${nothing}`,
    listed(rows.problems),
    `A spreadsheet drops them when it saves these columns as numbers. ${advice}${singles}`,
  );
}
