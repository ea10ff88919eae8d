/**
 * What the listener prints of a delivery (docs/architecture.md, "Layers": output is a function
 * of data and io). stdout carries accepted events only: a line per event (or, at a terminal too
 * narrow for it, a card), or one JSON line with --json. A delivery that fails a check is
 * reported on stderr: a warning naming the check, or a `{"rejected":…}` JSON line. What came of
 * forwarding (the app's status and time, or why it could not be reached, and the start of an
 * answer that was no 2xx) goes to stderr.
 * An event's status word is shown by the one rule of docs/service.md, "Status words"
 * (normalizeStatus): a word payctl does not know, escaped, never cleaned into a known one, and
 * named on stderr; --json's status_raw is the word as it came, as printable ASCII JSON.
 */
import type { IO, Log } from '../output/io.js';
import { flushed, write } from '../output/io.js';
import { asciiJsonString } from '../output/json.js';
import { isUnknownStatus, normalizeStatus, unknownStatusWords } from '../service/schemas.js';
import type { Rejection } from '../service/signature.js';
import { formatAmount } from '../money/amount.js';
import { sanitizeInline } from '../output/sanitize.js';
import { statusColor, type Style } from '../output/style.js';
import { displayWidth, renderCards, renderLine, type Column } from '../output/table.js';
import { shortened, text, utcTime } from '../output/text.js';
import type { Difference } from './content.js';
import type { EventSummary, ParsedEvent } from './event.js';
import type { Forwarded } from './forward.js';

const NOT_CHECKED = 'signature not checked: no webhook secret (--secret-stdin, PAYCTL_WEBHOOK_SECRET or the profile).';
const ANSWER_TOO_LARGE = "the app's answer was over 1 MiB: its status was passed back to the sender without its body.";

/**
 * An event's line: its cells in this order, the empty ones left out, two spaces apart. At a
 * terminal the line fits it: the failure reason and the duplicate mark are cut with …; then
 * the webhook id, the time, the event name and the amount are left out, in that order. The
 * transaction id and the status word are never cut (at 80 columns the id fits with the event,
 * the amount and the status); when even they cannot fit, the event is a card.
 */
const EVENT_COLUMNS: Column[] = [
  { header: 'RECEIVED (UTC)', giveWay: { step: 2 } },
  { header: 'EVENT', giveWay: { step: 3 } },
  { header: 'TRANSACTION' },
  { header: 'AMOUNT', giveWay: { step: 4 } },
  { header: 'STATUS' },
  { header: 'WEBHOOK ID', giveWay: { step: 1 } },
  { header: 'ATTEMPT', minWidth: 11 },
];
const STATUS = EVENT_COLUMNS.findIndex((c) => c.header === 'STATUS');

/** An event's status word (as shown, never cut) and its failure reason (cut first at a terminal). */
interface Outcome {
  word: string;
  reason: string;
}

/**
 * An event for people: one line (EVENT_COLUMNS), or at a terminal too narrow for it a card and
 * a blank line. The status cell is the word, then `: ` and the reason; only the reason may be
 * cut, down to `Failed:…`, so a word payctl does not know (`Successful\u0000`) is never cut
 * into one of the three (`Successful…`); before, the cell was cut down to 10 columns. In a card
 * the reason is a row of its own, the word whole however long.
 */
function eventLine(cells: string[], outcome: Outcome, style: Style, width: number | undefined): string {
  const status = outcome.word + (outcome.reason ? `: ${outcome.reason}` : '');
  const least = displayWidth(outcome.word) + (outcome.reason ? 2 : 0);
  const columns = EVENT_COLUMNS.map((c, i) => (i === STATUS ? { ...c, minWidth: least } : c));
  const line = renderLine(columns, cells.with(STATUS, status), style, width);
  if (line !== undefined) return line + '\n';
  const cardColumns = [...EVENT_COLUMNS.slice(0, STATUS), { header: 'STATUS', whole: true }, { header: 'REASON', minWidth: 1 }, ...EVENT_COLUMNS.slice(STATUS + 1)];
  const cardCells = [...cells.slice(0, STATUS), outcome.word, outcome.reason, ...cells.slice(STATUS + 1)];
  const kept = cardColumns.map((_, i) => i).filter((i) => cardCells[i] !== '');
  return (
    renderCards(
      kept.map((i) => cardColumns[i]!),
      [kept.map((i) => cardCells[i]!)],
      style,
      width,
    ) + '\n'
  );
}

/** One delivery's arrival: when, and what could be read of it. */
export interface Arrival {
  receivedAt: Date;
  /** The event, or undefined when the body is not a JSON object. */
  ev: ParsedEvent | undefined;
}

/** An accepted delivery and how it was answered. */
export interface Accepted extends Arrival {
  /** Its signature and timestamp were checked (there is a secret). */
  verified: boolean;
  duplicate: boolean;
  /** Set when its webhook_id came before with another event: what differs from that first delivery. */
  differs?: Difference[];
  /** The status the sender was answered. */
  answered: number;
  /** What the app answered, when the event was forwarded. */
  forward?: Forwarded;
  /** The 2xx the app gave this event before, when it was not forwarded again for it. */
  takenStatus?: number;
}

/** Where and how the listener prints; `forwarder` is set when it forwards (--forward-to). */
export interface PrintTo {
  io: IO;
  log: Log;
  json: boolean;
  style: Style;
  forwarder?: { shown: string; mask(t: string): string };
  /** Every secret the listener knows written as `***` (mask.ts): for text cut before it is printed. */
  mask: (t: string) => string;
}

/**
 * What people should know of an accepted event's content, for stderr: it was not checked (no
 * secret); it has no usable webhook_id (the listener tells a retry from a new event by its id
 * and content, so every delivery of it is printed, and forwarded, as new); its amount cannot be read
 * (it is not shown as one); its status is a word payctl does not know (whether the payout was
 * paid cannot be told from it), or it has none (nor can it then); it is not in the documented
 * shape (an `event` that is no name, `data` that is no object); its webhook_id came before with another event (not a retry).
 */
function eventWarnings(a: Accepted, forwarding: boolean): string[] {
  const warnings = a.verified ? [] : [NOT_CHECKED];
  const ev = a.ev;
  if (!ev) return warnings;
  const which = ev.shown.transactionId ? `the event for ${text(ev.shown.transactionId)}` : 'an event';
  const status = ev.shown.status !== undefined ? normalizeStatus(ev.shown.status) : undefined;
  if (status !== undefined && isUnknownStatus(status)) {
    warnings.push(`${which} has ${unknownStatusWords(status)}: whether the payout was paid cannot be told from this event.`);
  }
  if (ev.statusProblem) warnings.push(`${which} ${ev.statusProblem}: whether the payout was paid cannot be told from this event.`);
  if (ev.shapeProblems) {
    warnings.push(`${which} is not in the documented shape {event, timestamp, webhook_id, attempt, data}: ${ev.shapeProblems.join('; ')}.`);
  }
  if (a.differs) warnings.push(differsWarning(which, ev, a.differs, forwarding));
  if (ev.idProblem) {
    warnings.push(
      `${which} ${ev.idProblem}: a retry of it cannot be recognised, so each delivery is printed as new${forwarding ? ' and forwarded to the app again' : ''}.`,
    );
  }
  // A field payctl cannot read (masked whole before it is cut: mask.ts maskedEvent), left out of what is shown.
  const unread = (field: 'amount' | 'currency', value: string | undefined, problem: string | undefined) => {
    if (value === undefined || !problem) return;
    const a = field === 'amount' ? 'an amount' : 'a currency';
    warnings.push(
      `${which} has ${a} payctl cannot read, ${shortened(value)} (${problem}), so no ${field} is shown for it${forwarding ? '; the app gets the event as it came' : ''}.`,
    );
  };
  unread('amount', ev.shown.amountUnread, ev.amountProblem);
  unread('currency', ev.shown.currencyUnread, ev.currencyProblem);
  return warnings;
}

/** A delivery whose webhook_id came before with another event: what differs, and that it is taken as an event of its own. */
function differsWarning(which: string, ev: ParsedEvent, differs: Difference[], forwarding: boolean): string {
  const shown = (v: string | undefined) => (v === undefined ? '(none)' : text(v));
  const what = differs.map((d) => (d.field === 'other fields' ? 'other fields' : `${d.field.replace('_', ' ')} ${shown(d.was)} → ${shown(d.now)}`)).join('; ');
  return (
    `${which} came with webhook_id ${text(ev.shown.webhookId ?? '')}, which an earlier event had, but differs from it (${what}): ` +
    `it is not a retry, so it is printed${forwarding ? ' and forwarded to the app' : ''} as an event of its own.`
  );
}

/** The time a delivery arrived, as the line shows it ("2025-10-01 12:00:00", UTC). */
function timeOf(receivedAt: Date): string {
  return utcTime(receivedAt.toISOString()).replace(/ UTC$/, '');
}

/** An accepted event on stdout (a line, or a JSON line with --json), then what people should know on stderr. */
export async function printAccepted(to: PrintTo, a: Accepted): Promise<void> {
  const out = a.ev?.shown;
  const shownStatus = out?.status !== undefined ? normalizeStatus(out.status) : undefined;
  if (to.json) {
    await write(to.io.stdout, acceptedJson(a, out, shownStatus) + '\n');
    for (const w of eventWarnings(a, !!to.forwarder)) to.log.warn(w);
    if (a.forward?.body === undefined && a.forward?.status != null) to.log.warn(ANSWER_TOO_LARGE);
    return;
  }
  const { cells, outcome } = acceptedCells(a, out, shownStatus, to.style);
  await write(to.io.stdout, eventLine(cells, outcome, to.style, to.io.stdoutColumns));
  for (const w of eventWarnings(a, !!to.forwarder)) to.log.warn(w);
  if (a.takenStatus !== undefined && to.forwarder) to.log.info(`  → not forwarded again: the app answered ${a.takenStatus} to this event before`);
  const forward = a.forward;
  if (forward && to.forwarder) {
    to.log.info(
      forward.status === null
        ? `  → ${to.forwarder.shown} failed: ${to.forwarder.mask(sanitizeInline(forward.error ?? ''))} (answered 502)`
        : `  → ${to.forwarder.shown} ${forward.status} (${forward.ms} ms)`,
    );
    if (forward.status !== null && forward.body === undefined) to.log.warn(ANSWER_TOO_LARGE);
    else if (forward.status !== null && (forward.status < 200 || forward.status >= 300)) to.log.info(appAnswer(forward, to.mask));
  }
}

/**
 * The line under an app's answer that was no 2xx, so the operator sees why without the app's
 * logs: its Content-Type, Retry-After and the start of its body, sanitized onto one line and
 * cut to 200 characters (the sender gets all of it).
 */
function appAnswer(f: Forwarded, mask: (t: string) => string): string {
  // Masked whole before anything is cut (the body too: it is at most MAX_BODY), so no cut
  // leaves part of a secret; only then is it cut to `max` characters.
  const shown = (t: string, max: number) => {
    const chars = Array.from(
      mask(sanitizeInline(t))
        .trim()
        .slice(0, 4 * max),
    );
    return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
  };
  const type = f.contentType ? `Content-Type ${shown(f.contentType, 80)}` : 'no Content-Type';
  const retry = f.retryAfter ? `, Retry-After ${shown(f.retryAfter, 40)}` : '';
  const excerpt = shown(f.body?.toString('utf8') ?? '', 200);
  return `    the app's answer (${type}${retry}): ${excerpt || '(no body)'}`;
}

/**
 * The --json line of an accepted event; its status_raw, the word exactly as it came, written as
 * printable ASCII JSON (asciiJsonString), so a script reads the very word and a terminal shows
 * nothing hidden in it; so are an id and the event name that the line shows escaped.
 */
function acceptedJson(a: Accepted, out: EventSummary | undefined, shownStatus: string | undefined): string {
  const fields = {
    received_at: a.receivedAt.toISOString(),
    webhook_id: out?.webhookId ?? null,
    event: out?.event ?? null,
    attempt: out?.attempt ?? null,
    timestamp: out?.timestamp ?? null,
    transaction_id: out?.transactionId ?? null,
    amount: out?.amount ?? null,
    currency: out?.currency ?? null,
    status: shownStatus ?? null,
    status_raw: out?.status ?? null,
    failure_reason: out?.failureReason ?? null,
    verified: a.verified ? true : null,
    duplicate: a.duplicate,
    differs_from_earlier: a.differs ? a.differs.map((d) => d.field) : null,
    forward_status: a.forward?.status ?? null,
    answered: a.answered,
  };
  // An id or event name not in the documented shape as it came (event.ts asSent), as printable ASCII JSON like status_raw.
  const sent = out?.asSent;
  const raw = { status_raw: out?.status, webhook_id: sent?.webhookId, event: sent?.event, transaction_id: sent?.transactionId } as Record<string, string | undefined>;
  const values = Object.entries(fields).map(([k, v]) => `"${k}":${raw[k] !== undefined ? asciiJsonString(raw[k]) : JSON.stringify(v)}`);
  return `{${values.join(',')}}`;
}

/** The cells of an accepted event's line, in EVENT_COLUMNS order (the status cell empty: eventLine draws it from `outcome`). */
function acceptedCells(a: Accepted, out: EventSummary | undefined, shownStatus: string | undefined, style: Style): { cells: string[]; outcome: Outcome } {
  const amount =
    out?.amount !== undefined
      ? out.currency
        ? `${text(formatAmount(out.amount, out.currency))} ${text(out.currency)}`
        : text(out.amount) + (out.currencyUnread !== undefined ? ` ${style.yellow('(currency unreadable)')}` : '')
      : out?.amountUnread !== undefined
        ? style.yellow('(amount unreadable)')
        : '';
  const status = shownStatus ? statusColor(style, text(shownStatus)) : a.ev?.statusProblem ? style.yellow('(status unknown)') : '';
  const outcome = { word: status, reason: status && out?.failureReason ? text(out.failureReason) : '' };
  const attempt = a.duplicate
    ? style.yellow(`(duplicate, attempt ${out?.attempt ?? '?'})`)
    : out?.attempt !== undefined && out.attempt > 1
      ? `(attempt ${out.attempt})`
      : '';
  const cells = [
    style.dim(timeOf(a.receivedAt)),
    style.bold(text(a.ev ? (out?.event ?? '(no event)') : '(not JSON)')),
    text(out?.transactionId ?? ''),
    amount,
    '',
    style.dim(text(out?.webhookId ?? '')),
    attempt,
  ];
  return { cells, outcome };
}

/** A refused delivery on stderr: a warning naming the failed check, or one `{"rejected":…}` line with --json. */
export async function reportRejected(to: PrintTo, r: Rejection, arrival: Arrival): Promise<void> {
  const out = arrival.ev?.shown;
  if (to.json) {
    const rejected = {
      reason: r.reason,
      message: r.message,
      // As they came (event.ts asSent), as on an accepted event's line; the stream escapes what a terminal would hide.
      webhook_id: out?.asSent?.webhookId ?? out?.webhookId ?? null,
      event: out?.asSent?.event ?? out?.event ?? null,
      attempt: out?.attempt ?? null,
      transaction_id: out?.asSent?.transactionId ?? out?.transactionId ?? null,
      received_at: arrival.receivedAt.toISOString(),
      answered: 400,
    };
    await write(to.io.stderr, JSON.stringify({ rejected }) + '\n');
    return;
  }
  const which = out?.webhookId ? `event ${text(out.webhookId)}` : 'an event';
  to.log.warn(`${timeOf(arrival.receivedAt)}  rejected ${which}: ${r.message}; answered 400, not forwarded. ${r.hint}`);
}

/** stdout as the listener watches it: the first error it reported, and whether it took what was written. */
export class StdoutWatch {
  #fault: Error | undefined;
  readonly #out: NodeJS.WritableStream;

  constructor(out: NodeJS.WritableStream) {
    this.#out = out;
    out.on('error', (err: Error) => (this.#fault ??= err));
  }

  /** The error stdout met taking what was written so far (EPIPE included), once it has taken it; else undefined. */
  async taken(): Promise<Error | undefined> {
    return this.#fault ?? (await flushed(this.#out)) ?? this.#fault;
  }
}
