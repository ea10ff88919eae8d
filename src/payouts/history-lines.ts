/**
 * History's lines (`payctl history`; docs/architecture.md, "The ledger"): one line per
 * journaled payout, in the words a person reads (what was paid, to whom, with what outcome),
 * made from an entry and its exact request body. Renderers for the table, CSV and JSON are
 * beside it.
 */
import { plainAmount, formatAmount } from '../money/amount.js';
import { csvRow } from '../output/csv.js';
import { text, utcTime } from '../output/text.js';
import type { Column } from '../output/table.js';
import type { Style } from '../output/style.js';
import type { JournalEntry } from './ledger/ledger.js';

/**
 * The outcomes a ledger line shows. An entry with no answer recorded is unknown: it is
 * journaled before its request leaves, so a run killed after that may have sent it.
 */
export const LEDGER_OUTCOMES = ['accepted', 'rejected', 'unknown', 'not made'] as const;
export type LedgerOutcome = (typeof LEDGER_OUTCOMES)[number];
/** The outcomes as `history --status` takes them (and completion offers them): one word each. */
export const OUTCOME_WORDS: readonly string[] = LEDGER_OUTCOMES.map((o) => o.replace(' ', '-'));

export interface LedgerLine {
  /** When it was journaled, just before its first attempt. */
  time: string;
  profile: string | undefined;
  baseUrl: string;
  host: string;
  payoutId: string;
  batchId: string | undefined;
  batchRow: number | undefined;
  /** Exact decimal ("1500.50"), undefined when the body does not say. */
  amount: string | undefined;
  currency: string | undefined;
  name: string | undefined;
  provider: string | undefined;
  account: string | undefined;
  outcome: LedgerOutcome;
  transactionId: string | undefined;
  /** The service's status of the payout when it was looked up. */
  payoutStatus: string | undefined;
  /** When the outcome was recorded. */
  outcomeAt: string | undefined;
  /** Why: the refusal's code and message, or what left it unknown. */
  detail: string | undefined;
  idempotencyKey: string;
}

/** Why an entry without a recorded answer is unknown. */
export const NO_ANSWER = 'no answer was recorded: the run ended before or while its request was in flight';

export function ledgerOutcome(e: JournalEntry): LedgerOutcome {
  switch (e.outcome?.kind) {
    case 'accepted':
      return 'accepted';
    case 'rejected':
      return 'rejected';
    case 'not-made':
      return 'not made';
    default:
      // 'unknown', or no answer recorded at all (the run ended with the request maybe in flight).
      return 'unknown';
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function ledgerLine(e: JournalEntry): LedgerLine {
  let body: { currency?: unknown; recipient?: { accountDetails?: { name?: unknown; provider?: unknown; accountNumber?: unknown } } } = {};
  try {
    const parsed = JSON.parse(e.body) as unknown;
    if (parsed && typeof parsed === 'object') body = parsed;
  } catch {
    // Shown without its details.
  }
  const currency = str(body.currency);
  // The amount as written in the body (a JSON number literal, never through a float).
  const literal = /^\{"amount":(-?\d+(?:\.\d+)?)[,}]/.exec(e.body)?.[1];
  let amount: string | undefined;
  try {
    amount = literal !== undefined && currency !== undefined ? plainAmount(literal, currency) : literal;
  } catch {
    amount = literal;
  }
  let host: string;
  try {
    host = new URL(e.baseUrl).host;
  } catch {
    host = e.baseUrl;
  }
  const d = body.recipient?.accountDetails;
  const o = e.outcome;
  return {
    time: e.createdAt,
    profile: e.profile,
    baseUrl: e.baseUrl,
    host,
    payoutId: e.payoutId,
    batchId: e.batch?.id,
    batchRow: e.batch?.row,
    amount,
    currency,
    name: str(d?.name),
    provider: str(d?.provider),
    account: str(d?.accountNumber),
    outcome: ledgerOutcome(e),
    transactionId: o?.kind === 'accepted' ? o.transactionId : undefined,
    payoutStatus: o?.kind === 'accepted' ? o.payoutStatus : undefined,
    outcomeAt: o?.at,
    detail:
      o?.kind === 'rejected'
        ? [o.code, o.message].filter(Boolean).join(': ')
        : o?.kind === 'unknown'
          ? o.reason
          : o?.kind === 'accepted' && o.alreadyMade
            ? `already made: the service has this payout id from an earlier request (${o.alreadyMade.message})`
            : o === undefined
              ? NO_ANSWER
              : undefined,
    idempotencyKey: e.idempotencyKey,
  };
}

export const LEDGER_COLUMNS: Column[] = [
  { header: 'TIME (UTC)' },
  { header: 'PROFILE' },
  { header: 'HOST' },
  { header: 'PAYOUT ID' },
  { header: 'BATCH' },
  { header: 'AMOUNT', align: 'right' },
  { header: 'RECIPIENT' },
  { header: 'OUTCOME' },
  { header: 'TRANSACTION' },
];

/** A table row: every cell of journal or service text sanitized (text()). */
export function ledgerRow(l: LedgerLine, style: Style): string[] {
  const recipient = [
    text(l.name),
    [l.provider, l.account]
      .filter((v) => v !== undefined && v !== '')
      .map(text)
      .join(' '),
  ].filter(Boolean);
  const paint = l.outcome === 'accepted' ? style.green : l.outcome === 'rejected' ? style.red : l.outcome === 'unknown' ? style.yellow : (s: string) => s;
  return [
    utcTime(l.time).replace(/ UTC$/, ''),
    text(l.profile),
    text(l.host),
    text(l.payoutId),
    text(l.batchId),
    l.amount !== undefined && l.currency !== undefined ? `${formatAmount(l.amount, l.currency)} ${text(l.currency)}` : text(l.amount),
    recipient.length === 2 ? `${recipient[0]} (${recipient[1]})` : (recipient[0] ?? ''),
    paint(l.outcome),
    text(l.transactionId),
  ];
}

export const LEDGER_CSV_HEADER = [
  'time',
  'profile',
  'base_url',
  'payout_id',
  'batch_id',
  'batch_row',
  'amount',
  'currency',
  'recipient_name',
  'provider',
  'account_number',
  'outcome',
  'transaction_id',
  'payout_status',
  'outcome_at',
  'detail',
];

/** One CSV record (cells neutralized against formulas by csvRow). */
export function ledgerCsv(l: LedgerLine): string {
  return csvRow([
    l.time,
    l.profile,
    l.baseUrl,
    l.payoutId,
    l.batchId,
    l.batchRow,
    l.amount,
    l.currency,
    l.name,
    l.provider,
    l.account,
    l.outcome,
    l.transactionId,
    l.payoutStatus,
    l.outcomeAt,
    l.detail,
  ]);
}

/** One JSON object; the amount as an exact JSON number literal (never through a float). */
export function ledgerJson(l: LedgerLine): string {
  const head = JSON.stringify({
    time: l.time,
    profile: l.profile ?? null,
    base_url: l.baseUrl,
    payout_id: l.payoutId,
    batch_id: l.batchId ?? null,
    batch_row: l.batchRow ?? null,
  });
  const tail = JSON.stringify({
    currency: l.currency ?? null,
    recipient: { name: l.name ?? null, provider: l.provider ?? null, account_number: l.account ?? null },
    outcome: l.outcome,
    transaction_id: l.transactionId ?? null,
    payout_status: l.payoutStatus ?? null,
    outcome_at: l.outcomeAt ?? null,
    detail: l.detail ?? null,
    idempotency_key: l.idempotencyKey,
  });
  // The amount was checked to be a plain decimal (ledgerLine): spliced in as a number literal.
  const amount = l.amount !== undefined && /^-?\d+(\.\d+)?$/.test(l.amount) ? l.amount : 'null';
  return `${head.slice(0, -1)},"amount":${amount},${tail.slice(1)}`;
}

/** A journaled payout's outcome in a few words (`accepted, transaction TXN`, `refused (CODE: message)`, `unknown`), as reconcile says it. */
export function describeOutcome(e: JournalEntry): string {
  const o = e.outcome;
  if (o?.kind === 'accepted') return `accepted${o.transactionId ? `, transaction ${text(o.transactionId)}` : ''}`;
  if (o?.kind === 'rejected') return `refused (${text([o.code, o.message].filter(Boolean).join(': '))})`;
  return ledgerOutcome(e);
}
