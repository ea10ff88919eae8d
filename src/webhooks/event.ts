/**
 * A webhook event as the listener reads it (docs/service.md, "Webhooks"):
 * `{event, timestamp, webhook_id, attempt, data}` with `data` a payout record. What is shown
 * of it has every string sanitized (escape sequences, controls, bidi) before it reaches a
 * terminal or a JSON line (docs/architecture.md, "Where each rule lives": service text
 * sanitized before a terminal), but the status word: it is kept as it came, and shown only as
 * docs/service.md, "Status words" says (print.ts), so that an odd word is never cleaned into a
 * known one. Nor are the ids and the event name cleaned: one not in the documented shape (white
 * space, a line break, a control, bidi) is shown escaped and warned about, never flattened into
 * text that looks like more columns.
 */
import { payoutAmount, walletSchema } from '../service/schemas.js';
import { parseServiceJson } from '../service/exact-json.js';
import { plainAmount, toDecimal } from '../money/amount.js';
import { spanAt } from '../service/raw-json.js';
import { sanitizeInline } from '../output/sanitize.js';
import { shortened } from '../output/text.js';
import { visibleToken, visibleWord } from '../words.js';
import { attemptSchema, readWebhookId } from '../service/webhook-event.js';
import { eventContent, type EventContent } from './content.js';

/** The most of a body the listener reads, and of an app's answer it passes back: 1 MiB. */
export const MAX_BODY = 1024 * 1024;

/**
 * What is shown of an event: every string sanitized (escape sequences, controls, bidi), but
 * `status`, and the ids and the event name, which are shown as they came when in the
 * documented shape (printable ASCII, no white space), else escaped (words.ts visibleToken).
 */
export interface EventSummary {
  webhookId?: string;
  event?: string;
  attempt?: number;
  timestamp?: string;
  transactionId?: string;
  /**
   * An exact plain decimal in CSV's form: no grouping, at least the currency's digits, and every
   * digit the event wrote ("1,000.5" and 1000.50 of SLE are "1000.50", 10.100 is "10.100"; as
   * written, ungrouped, when the currency cannot be read); undefined when there is none or it
   * cannot be read.
   */
  amount?: string;
  /** An amount that cannot be read, as it was written (as JSON: "1e400", -16): never shown as an amount. */
  amountUnread?: string;
  /** A currency code as the rest of payctl reads one ("sle " -> SLE); undefined when there is none or it cannot be read. */
  currency?: string;
  /** A currency that is no code (`"SLE\u200b"`, 5), as JSON with every character but printable ASCII escaped: never shown as a code. */
  currencyUnread?: string;
  /**
   * The status word exactly as the service wrote it ("Pending", "Succ\u200bessful"), not
   * sanitized: removing characters first would turn "Successful\u0000" into Successful. It is
   * shown only normalized (normalizeStatus: a word payctl does not know with every character but
   * printable ASCII escaped) and, in --json's status_raw, as printable ASCII JSON.
   */
  status?: string;
  failureReason?: string;
  /** The ids and event name shown escaped (not in the documented shape), exactly as they came: for --json. */
  asSent?: AsSent;
}

/** Fields shown escaped, as they came. */
export type AsSent = Partial<Record<'webhookId' | 'event' | 'transactionId', string>>;

/** An id or a name in the documented shape (`transfer.success`, `TXN-BOK-…`, a UUID): printable ASCII, no white space. */
const TOKEN = /^[\x21-\x7e]*$/;

/**
 * The ids and event name of an event as shown: as they came when in the documented shape,
 * else escaped (visibleToken), kept as they came in `asSent` and named in `problems`. Before,
 * they were sanitized: a line break in a transaction id became a space and U+202E vanished,
 * so a signed event could draw a second record on the listener's line, with no warning.
 */
function tokens(fields: Record<keyof AsSent, unknown>): { shown: AsSent; asSent?: AsSent; problems: string[] } {
  const shown: AsSent = {};
  const asSent: AsSent = {};
  const problems: string[] = [];
  const names = { webhookId: 'webhook_id', event: 'event name', transactionId: 'transaction_id' };
  for (const k of Object.keys(names) as Array<keyof AsSent>) {
    const v = fields[k];
    if (typeof v !== 'string') continue;
    if (TOKEN.test(v)) {
      shown[k] = v;
      continue;
    }
    shown[k] = visibleToken(v);
    asSent[k] = v;
    problems.push(`its ${names[k]} has white space, a line break or a character that is not printable ASCII, so it is shown escaped`);
  }
  return { shown, ...(problems.length && { asSent }), problems };
}

/** A readable event: its parsed body and what is shown of it. */
export interface ParsedEvent {
  body: Record<string, unknown>;
  shown: EventSummary;
  /** Its webhook_id as text (service/webhook-event.ts), unsanitized: ids are compared, not shown. */
  id?: string;
  /** Why it has no usable webhook_id ("has no webhook_id"): its retries cannot be recognised. */
  idProblem?: string;
  /** Why its amount cannot be read (`shown.amountUnread`), when it has one. */
  amountProblem?: string;
  /** Why its currency cannot be read (`shown.currencyUnread`), when it has one. */
  currencyProblem?: string;
  /** Why it has no status word (none, or a value that is not a string): whether the payout was paid cannot be told. */
  statusProblem?: string;
  /** How it is not in the documented shape: its `event` is not a string, its `data` not an object, an id or its event name has white space or a character that is not printable ASCII. */
  shapeProblems?: string[];
  /** What it says apart from how it was delivered (content.ts): a retry's is the first delivery's. */
  content: EventContent;
}

const DECIMAL_EXPECTED = 'expected a decimal amount ("1000.00" or "1,000.00")';

/** A JSON number as a plain decimal is written: no exponent. */
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

/**
 * The event's amount read as a payout record's is (schemas.ts `payoutAmount`: a JSON number or
 * a plain or grouped decimal string, more than zero, never through a float), as an exact plain
 * decimal of at least the currency's digits, as CSV writes amounts ("1,000.00" -> "1000.00", 10
 * -> "10.00"). A number is read from its text in the body (`written`), so that a digit written
 * is never dropped: JSON.parse makes 10.10 the double 10.1, and 10.100 would come out "10.10".
 * Anything else (1e400, "1.000,00", -16, text with an escape sequence in it) is not shown as an
 * amount: why it cannot be read is said.
 */
function readAmount(value: unknown, written: string | undefined, currency: string | undefined): { amount?: string; amountUnread?: string; amountProblem?: string } {
  if (value === undefined) return {};
  const r = payoutAmount.safeParse(value);
  if (r.success) {
    const decimal = typeof value === 'number' && written !== undefined && PLAIN_NUMBER.test(written) ? written : toDecimal(r.data);
    return { amount: currency === undefined ? decimal : plainAmount(decimal, currency) };
  }
  const issue = r.error.issues[0];
  // As JSON, so a control shows as \u001b rather than vanishing; made safe for a line.
  return { amountUnread: sanitizeInline(JSON.stringify(value) ?? 'undefined'), amountProblem: issue?.code === 'custom' ? issue.message : DECIMAL_EXPECTED };
}

/**
 * The event's currency read as a REST answer's is (the `currency` of schemas.ts's records:
 * ASCII white space around it dropped, upper case, three ASCII letters). Anything else is
 * not a code: shown escaped, never cleaned into one. Before, "SLE\u200b" was sanitized into a
 * plain SLE without a word while list, get and balances refuse it (probe M, finding 4).
 */
function readCurrency(value: unknown): { currency?: string; currencyUnread?: string; currencyProblem?: string } {
  if (value === undefined) return {};
  const r = walletSchema.shape.currency.safeParse(value);
  if (r.success) return { currency: r.data };
  const issue = r.error.issues[0];
  const written = typeof value === 'string' ? `"${visibleWord(value)}"` : sanitizeInline(JSON.stringify(value) ?? 'undefined');
  return { currencyUnread: written, currencyProblem: issue?.code === 'custom' ? issue.message : 'expected a currency code of three letters ("SLE")' };
}

/** The text of the event's `data.amount` as the body writes it. */
function amountText(text: string): string | undefined {
  const span = spanAt(text, ['data', 'amount']);
  return span && text.slice(span.start, span.end);
}

/** What hides the secrets a listener knows in a text (mask.ts), applied before any cut: a cut never leaves part of a secret. */
export type Masking = (t: string) => string;

/** A value as JSON, made safe for a line, masked, then cut to 40 characters: how an odd field is named in a warning. */
function written(value: unknown, mask: Masking): string {
  return shortened(mask(sanitizeInline(JSON.stringify(value) ?? 'undefined')));
}

/** How a body is not `{event: a name, …, data: an object}`, and why it has no status word. */
function shapeOf(e: Record<string, unknown>, mask: Masking): { statusProblem?: string; shapeProblems?: string[] } {
  const problems: string[] = [];
  if (e.event === undefined) problems.push('it has no event name');
  else if (typeof e.event !== 'string') problems.push(`its event is ${written(e.event, mask)}, not a name`);
  const isObject = typeof e.data === 'object' && e.data !== null && !Array.isArray(e.data);
  if (e.data === undefined) problems.push('it has no data');
  else if (!isObject) problems.push(`its data is ${written(e.data, mask)}, not an object`);
  const status = isObject ? (e.data as Record<string, unknown>).status : undefined;
  const statusProblem = typeof status === 'string' ? undefined : status === undefined ? 'has no status' : `has a status that is not a word, ${written(status, mask)}`;
  return { ...(statusProblem && { statusProblem }), ...(problems.length && { shapeProblems: problems }) };
}

/** The event a raw body holds, or undefined when it is not a JSON object. */
export function parseEvent(raw: Buffer, mask: Masking = (t) => t): ParsedEvent | undefined {
  let body: unknown;
  const text = raw.toString('utf8');
  try {
    body = parseServiceJson(text, { exponents: 'text' });
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const e = body as Record<string, unknown>;
  const d = typeof e.data === 'object' && e.data !== null && !Array.isArray(e.data) ? (e.data as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === 'string' ? sanitizeInline(v) : undefined);
  const { currency, currencyUnread, currencyProblem } = readCurrency(d.currency);
  const { amount, amountUnread, amountProblem } = readAmount(d.amount, typeof d.amount === 'number' ? amountText(text) : undefined, currency);
  const id = readWebhookId(e.webhook_id);
  const attempt = attemptSchema.safeParse(e.attempt);
  const shape = shapeOf(e, mask);
  const named = tokens({ webhookId: 'id' in id ? id.id : undefined, event: e.event, transactionId: d.transaction_id });
  const shapeProblems = [...(shape.shapeProblems ?? []), ...named.problems];
  return {
    body: e,
    content: eventContent(e, raw),
    ...(shape.statusProblem && { statusProblem: shape.statusProblem }),
    ...(shapeProblems.length && { shapeProblems }),
    ...('id' in id ? { id: id.id } : { idProblem: id.problem }),
    ...(amountProblem !== undefined && { amountProblem }),
    ...(currencyProblem !== undefined && { currencyProblem }),
    shown: {
      webhookId: named.shown.webhookId,
      event: named.shown.event,
      attempt: attempt.success ? attempt.data : undefined,
      timestamp: str(e.timestamp),
      transactionId: named.shown.transactionId,
      amount,
      amountUnread,
      currency,
      currencyUnread,
      status: typeof d.status === 'string' ? d.status : undefined,
      failureReason: str(d.failure_reason) || str(d.reason) || undefined,
      ...(named.asSent && { asSent: named.asSent }),
    },
  };
}

/** The event's webhook_id as text (unsanitized: ids are compared, not shown), if it has a usable one. */
export function webhookIdOf(ev: ParsedEvent | undefined): string | undefined {
  return ev?.id;
}
