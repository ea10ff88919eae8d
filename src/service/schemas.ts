/**
 * zod schemas for every answer, with the variants docs/service.md says payctl tolerates handled
 * once: amounts as numbers, plain or grouped strings; status words in any case; the look-up
 * record's field names and the create answer's; four list shapes (payout-page.ts) and error
 * bodies in every listed form (error-body.ts), both re-exported here. Unknown extra fields pass
 * through; a missing required field becomes a clear ApiError naming it.
 *
 * Only the envelope and the wallets are built when the module loads; every other schema is
 * built when first used (z.lazy, which parses exactly as the schema it builds): a run parses
 * one or two kinds of answer, and building them all was about 1 ms of `balances --json`.
 */
import * as z from 'zod/mini';
import '../zod.js';
import { ApiError } from '../errors.js';
import { normalizeStatus } from './status-words.js';
import { visibleWord } from '../words.js';

const opt = z.optional;

const PLAIN_AMOUNT = /^-?\d+(\.\d+)?$/;
/** Thousands grouped by commas, `.` the decimal point: "1,000.00", "12,500". */
const GROUPED_AMOUNT = /^-?\d{1,3}(,\d{3})+(\.\d+)?$/;

/**
 * A money amount as the service sends it: a JSON number, a plain decimal string ("5.00") or one
 * with thousands separators ("1,000.00", as the look-up answers), read exactly: a grouped string
 * comes out plain ("1000.00"), never through a float. "1.000,00" and other forms are refused.
 */
export const money = z.pipe(
  z.union([z.number(), z.string().check(z.refine((v) => PLAIN_AMOUNT.test(v) || GROUPED_AMOUNT.test(v), 'expected a decimal amount ("1000.00" or "1,000.00")'))]),
  z.transform((v): number | string => (typeof v === 'string' && v.includes(',') ? v.replace(/,/g, '') : v)),
);
export type Money = number | string;

/** ASCII white space around a word (not a no-break space, a BOM or U+2028: those are characters of the word). */
const ASCII_SPACE_AROUND = /^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g;

/** A field's text for a refusal: its first 40 characters, every one but printable ASCII written as an escape. */
const shownText = (v: string): string => visibleWord(v.length > 40 ? `${v.slice(0, 40)}…` : v);

/**
 * A currency code as an answer writes it, read as one: without surrounding ASCII white space, in
 * upper case (`"SLE "`, `"sle"` are SLE). Before, `"SLE "` was a currency of its own: summary
 * showed two SLE groups and `--currency SLE` left its payouts out without a word. Anything that
 * is not then three ASCII letters is no currency code (an unreadable field, the answer refused
 * as for any bad field): `"SLE\u200b"` was shown as SLE (printing drops invisible characters)
 * but filtered and grouped as a currency of its own (probe 70-S, finding 2).
 */
const currencyCode = z.pipe(
  z.string(),
  z.transform((v, ctx) => {
    const code = v.replace(ASCII_SPACE_AROUND, '');
    if (/^[A-Za-z]{3}$/.test(code)) return code.toUpperCase();
    ctx.issues.push({ code: 'custom', message: `expected a currency code of three letters ("SLE"), not "${shownText(v)}"`, input: v });
    return z.NEVER;
  }),
);

/** The sign of an amount read by `money`: -1, 0 or 1. */
function signOf(v: Money): number {
  if (typeof v === 'number') return Math.sign(v);
  if (/^-?0*(\.0*)?$/.test(v)) return 0;
  return v.startsWith('-') ? -1 : 1;
}
/** A payout's amount: more than zero, like every amount payctl sends (a record of -16.00 is not a payout). */
export const payoutAmount = money.check(z.refine((v) => signOf(v) > 0, 'expected an amount greater than zero'));
/** A fee or a total: zero or more. */
export const feeAmount = money.check(z.refine((v) => signOf(v) >= 0, 'expected an amount of zero or more'));

export const envelopeSchema = z.looseObject({
  status: opt(z.string()),
  message: opt(z.string()),
  data: z.unknown(),
  timestamp: opt(z.string()),
});
export type Envelope = z.infer<typeof envelopeSchema>;

/**
 * Does a 2xx envelope say the call succeeded? The documented word is "Successful"; it is compared
 * as every status word is (any case, the synonyms of the status table: "success", "SUCCESSFUL"),
 * and an envelope without a status is taken as its 2xx says [assumed]. Any other word ("Failed",
 * "Error", "Unauthenticated") is no success whatever the HTTP code: the answer is unreadable
 * (docs/service.md, "Every request"), never a success nor a refusal.
 */
export function envelopeSucceeded(envelope: Pick<Envelope, 'status'>): boolean {
  return envelope.status === undefined || normalizeStatus(envelope.status) === 'Successful';
}

/** The fields of an account that say whose it is (login and status show them). */
const WHOSE = ['walletId', 'email', 'businessName', 'firstName', 'lastName', 'phone'] as const;

/**
 * The `data` of GET /auth/user: whose the key is. Every field may be absent but not all of those
 * that say whose it is: `{}` (or a KYC status alone) was saved as a login ("✓ Logged in", an empty
 * account card), though README says such an answer saves nothing.
 */
export const authUserSchema = z.lazy(() =>
  z
    .looseObject({
      walletId: opt(z.nullable(z.union([z.string(), z.number()]))),
      email: opt(z.nullable(z.string())),
      firstName: opt(z.nullable(z.string())),
      lastName: opt(z.nullable(z.string())),
      phone: opt(z.nullable(z.string())),
      status: opt(z.nullable(z.string())),
      kycStatus: opt(z.nullable(z.string())),
      businessName: opt(z.nullable(z.string())),
      address: opt(z.nullable(z.string())),
      country: opt(z.nullable(z.string())),
    })
    .check(
      z.refine(
        (u) => WHOSE.some((k) => u[k] !== undefined && u[k] !== null && String(u[k]).trim() !== ''),
        'an account that says whose it is (a wallet id, email, business or person name, or phone)',
      ),
    ),
);
export type AuthUser = z.infer<typeof authUserSchema>;

/** KYC words that mean the account may pay out; any other is shown as a warning. */
export function kycVerified(word: string | null | undefined): boolean {
  return !!word && /^(verified|approved)$/i.test(word.trim());
}

export const walletSchema = z.looseObject({
  wallet_id: z.pipe(
    z.union([z.string(), z.number()]),
    z.transform((v) => String(v)),
  ),
  wallet_name: z._default(z.string(), ''),
  currency: currencyCode,
  balance: money,
  updated_at: opt(z.string()),
});
export type Wallet = z.infer<typeof walletSchema>;
/**
 * The wallets of a balances answer, each id once: a wallet listed twice (an SLE and an NGN entry
 * for wallet "1") has no one balance or currency to go by (`balances --wallet`, `payout create`'s
 * "From wallet" and short-balance check would each pick one), so the answer is unreadable.
 */
export const walletsSchema = z.array(walletSchema).check(
  z.superRefine((wallets, ctx) => {
    const seen = new Map<string, number>();
    wallets.forEach((w, i) => {
      const first = seen.get(w.wallet_id);
      if (first === undefined) seen.set(w.wallet_id, i);
      else ctx.addIssue({ code: 'custom', path: [i, 'wallet_id'], input: w.wallet_id, message: `wallet "${w.wallet_id}" is listed twice (entries ${first} and ${i})` });
    });
  }),
);

export const providerResponseSchema = z.lazy(() =>
  z.looseObject({
    status: opt(z.string()),
    beneficiary: opt(z.string()),
    provider: opt(z.string()),
    orderId: opt(z.string()),
    idempotency_key: opt(z.string()),
  }),
);

/** The documented form of a transaction id: `TXN-BOK-` and 26 uppercase hex digits (docs/service.md). */
export const TRANSACTION_ID = /^TXN-BOK-[0-9A-F]{26}$/;

/** A transaction id as isTransactionId takes it, in words (for the refusals that name the rule). */
export const TRANSACTION_ID_FORM = 'TXN-BOK- and hex digits';

/**
 * Whether `id` is a transaction id payctl names in a command, the one rule for it: `payout get`
 * asks the service for it, `history reconcile --made-by` takes it, and reconcile offers a
 * record as made by it (a record whose id is not one is listed as unchecked: candidate-fields.ts).
 * The documented form (TRANSACTION_ID) and its variants of another length, 1 to 64 upper-case
 * hex digits (`TXN-BOK-9F3A77C2E1`: before, offered by reconcile and refused by `--made-by`, probe
 * X F9, which left only `--resend`); the prefix kept, so a payout id is never taken for one. The
 * prefix and hex digits only: a record's id may be any printable ASCII text (recordTransactionId),
 * and a placeholder (`""`, `PENDING`), a space or a shell character names nothing payctl can ask for.
 */
export function isTransactionId(id: string): boolean {
  return /^TXN-BOK-[0-9A-F]{1,64}$/.test(id);
}

/**
 * A transaction id as a create answer may give it: the documented ones are `TXN-BOK-` and 26 hex
 * digits; any printable ASCII word is tolerated (it is only ever sent back, escaped, in a path),
 * but not an empty one: an answer that names none gives nothing to look the payout up by.
 */
const transactionIdText = z.string().check(
  z.superRefine((v, ctx) => {
    if (/^[\x21-\x7e]{1,128}$/.test(v)) return;
    ctx.addIssue({ code: 'custom', input: v, message: `expected a transaction id (1 to 128 printable ASCII characters, no spaces), not "${shownText(v)}"` });
  }),
);

/**
 * A payout record's transaction id: any printable ASCII text (`""` and `"PENDING"` too: such
 * records are judged all the same, README "history reconcile"), but no other character. Printing
 * drops control and invisible characters, so `TXN-BOK-\u001b[2J00…03` was shown as an id that
 * looks real but is not the service's (probe 70-S, finding 2); a letter of another script can
 * pass for a Latin one.
 */
const recordTransactionId = z.string().check(
  z.superRefine((v, ctx) => {
    if (/^[\x20-\x7e]*$/.test(v)) return;
    ctx.addIssue({ code: 'custom', input: v, message: `expected a transaction id of printable ASCII characters, not "${shownText(v)}"` });
  }),
);

/** The `data` of POST /payout. */
export const payoutTransactionSchema = z.lazy(() =>
  z.looseObject({
    transaction_id: transactionIdText,
    amount: payoutAmount,
    fee: opt(feeAmount),
    currency: currencyCode,
    payout_id: opt(z.string()),
    /** Not in the documented answer, but checked against the wallet sent when a service adds it. */
    wallet_id: opt(z.string()),
    created_at: opt(z.string()),
    provider_response: opt(providerResponseSchema),
  }),
);
export type PayoutTransaction = z.infer<typeof payoutTransactionSchema>;

export interface RecordRecipient {
  /** bank | wallet (`type` in a create body, `transfer_type` in a look-up). */
  type?: string | undefined;
  name?: string | undefined;
  accountNumber?: string | undefined;
  phoneNumber?: string | null | undefined;
  /** The provider as a create body names it (`accountDetails.provider`: "ecobank"). */
  provider?: string | undefined;
  /** The look-up's `recipient.bank` ("ECOBANK"). */
  bank?: string | undefined;
}

/**
 * A payout record (look-up, list, webhook), in one shape whatever the service's: the documented
 * look-up (`recipient.{transfer_type, account_number, name, bank}`, `description`,
 * `provider_reference`, `total_amount`) or the create body's names (`recipient.type`,
 * `accountDetails`, `note`, `provider_response.orderId`). `status` is the word as it came
 * (recordStatus normalizes it); amounts are exact plain decimals or JSON numbers.
 */
export interface PayoutRecord {
  transaction_id?: string | undefined;
  payout_id?: string | undefined;
  wallet_id?: string | undefined;
  amount: Money;
  fee?: Money | null | undefined;
  total_amount?: Money | null | undefined;
  currency: string;
  status?: string | undefined;
  failure_reason?: string | null | undefined;
  recipient?: RecordRecipient | undefined;
  /** The payout's note: `description` in a look-up, `accountDetails.note` in a create body. */
  note?: string | null | undefined;
  provider_reference?: string | undefined;
  provider_response?: z.infer<typeof providerResponseSchema> | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  created_at?: string | undefined;
  updated_at?: string | undefined;
}

export const payoutRecordSchema = z.lazy(() => {
  const text = opt(z.nullable(z.string()));
  const accountDetailsSchema = z.looseObject({
    name: text,
    provider: text,
    accountNumber: text,
    phoneNumber: text,
    note: text,
  });
  const recipientSchema = z.looseObject({
    type: text,
    transfer_type: text,
    account_number: text,
    name: text,
    bank: text,
    provider: text,
    accountDetails: opt(accountDetailsSchema),
  });
  return z.pipe(
    z.looseObject({
      transaction_id: opt(recordTransactionId),
      payout_id: opt(z.nullable(z.string())),
      wallet_id: opt(z.nullable(z.union([z.string(), z.number()]))),
      // [assumed] as the create body spells them: a record naming its payout or wallet so is read so.
      payoutId: opt(z.nullable(z.string())),
      walletId: opt(z.nullable(z.union([z.string(), z.number()]))),
      amount: payoutAmount,
      fee: opt(z.nullable(feeAmount)),
      total_amount: opt(z.nullable(feeAmount)),
      currency: currencyCode,
      status: opt(z.nullable(z.string())),
      failure_reason: text,
      reason: text,
      description: text,
      provider_reference: text,
      recipient: opt(z.nullable(recipientSchema)),
      provider_response: opt(z.nullable(providerResponseSchema)),
      metadata: opt(z.nullable(z.record(z.string(), z.unknown()))),
      created_at: opt(z.nullable(z.string())),
      updated_at: opt(z.nullable(z.string())),
    }),
    // A fresh object of one fixed shape (no spread of the answer): the list reads 100,000 of
    // these, and copying every field of each first took three times as long as validating it.
    z.transform((d): PayoutRecord => {
      const r = d.recipient ?? undefined;
      const ad = r?.accountDetails;
      return {
        transaction_id: d.transaction_id,
        payout_id: d.payout_id ?? d.payoutId ?? undefined,
        wallet_id: (d.wallet_id ?? d.walletId ?? undefined) === undefined ? undefined : String(d.wallet_id ?? d.walletId),
        amount: d.amount,
        fee: d.fee,
        total_amount: d.total_amount,
        currency: d.currency,
        status: d.status ?? d.provider_response?.status ?? undefined,
        failure_reason: d.failure_reason ?? d.reason ?? undefined,
        recipient: r
          ? {
              type: r.transfer_type ?? r.type ?? undefined,
              name: r.name ?? ad?.name ?? undefined,
              accountNumber: r.account_number ?? ad?.accountNumber ?? undefined,
              phoneNumber: ad?.phoneNumber,
              provider: ad?.provider ?? r.provider ?? undefined,
              bank: r.bank ?? undefined,
            }
          : undefined,
        note: d.description ?? ad?.note,
        provider_reference: d.provider_reference ?? d.provider_response?.orderId ?? undefined,
        provider_response: d.provider_response ?? undefined,
        metadata: d.metadata,
        created_at: d.created_at ?? undefined,
        updated_at: d.updated_at ?? undefined,
      };
    }),
  );
});

/** The provider's word in a create answer when it says the payout failed at once ("DECLINED", "failed"); else undefined. */
export function failedAtOnceWord(t: Pick<PayoutTransaction, 'provider_response'>): string | undefined {
  const word = t.provider_response?.status;
  return word && normalizeStatus(word) === 'Failed' ? word : undefined;
}

/** The status of a record, normalized (Successful, Failed, Pending, or the word as it came); '' when none. */
export function recordStatus(r: Pick<PayoutRecord, 'status'>): string {
  return r.status ? normalizeStatus(r.status) : '';
}

/** The `data` of POST /payout/summary: the service's counts (any may be absent; extras pass through). */
export const summarySchema = z.lazy(() => {
  const count = opt(z.nullable(z.union([z.number(), z.string().check(z.regex(/^\d+$/))])));
  return z.looseObject({
    total_transfers: count,
    successful: count,
    pending: count,
    failed: count,
    total_sent: opt(z.nullable(money)),
    wallet_transfers: count,
    bank_transfers: count,
  });
});
export type Summary = z.infer<typeof summarySchema>;

/**
 * Validates `value` or throws an ApiError naming the first bad field; a field that is not there
 * is said so in words (`the field "data" is missing`), not in the validator's ("Invalid input:
 * expected nonoptional, received undefined").
 */
export function parseOrThrow<S extends z.ZodMiniType>(schema: S, value: unknown, what: string, requestId?: string): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.length ? issue.path.join('.') : '(top level)';
  const missing = issue.code === 'invalid_type' && (issue.expected === 'nonoptional' || issue.message.endsWith('received undefined'));
  const said = !missing ? `${path}: ${issue.message}` : issue.path.length ? `the field "${path}" is missing` : 'there is nothing in it';
  throw new ApiError(`The service sent ${what} that payctl does not understand: ${said}.`, {
    requestId,
    hint: 'If the service changed, a route override or a newer payctl may be needed. Run with --verbose to see the response.',
  });
}

// The error bodies live in error-body.ts; their names are imported from here by the client and the sandbox.
export { DUPLICATE_PAYOUT_ID, MAX_JSON_DEPTH, errorBodySchema, parseErrorBody, tooDeep, type ParsedError } from './error-body.js';
// The list's pages live in payout-page.ts; their names are imported from here too.
export { payoutPageSchema, type PayoutPage } from './payout-page.js';
// Status words live in status-words.ts; their names are imported from here too.
export { isUnknownStatus, normalizeStatus, unknownStatusWords } from './status-words.js';
