/**
 * A webhook event as the listener reads it (docs/service.md, "Webhooks"):
 * `{event, timestamp, webhook_id, attempt, data}` with `data` a payout record. What is shown
 * of it has every string sanitized (escape sequences, controls, bidi) before it reaches a
 * terminal or a JSON line (docs/architecture.md, "Where each rule lives": service text
 * sanitized before a terminal).
 */
import { money } from '../service/schemas.js';
import { parseServiceJson } from '../service/exact-json.js';
import { toDecimal } from '../money/amount.js';
import { sanitizeInline } from '../output/sanitize.js';
import { attemptSchema, readWebhookId } from '../service/webhook-event.js';

/** The most of a body the listener reads, and of an app's answer it passes back: 1 MiB. */
export const MAX_BODY = 1024 * 1024;

/** What is shown of an event: every string sanitized (escape sequences, controls, bidi). */
export interface EventSummary {
  webhookId?: string;
  event?: string;
  attempt?: number;
  timestamp?: string;
  transactionId?: string;
  /** An exact plain decimal ("1000.00") when the amount reads as one; else as it came. */
  amount?: string;
  currency?: string;
  /** The status word as the service wrote it ("Pending"); shown normalized. */
  status?: string;
  failureReason?: string;
}

/** A readable event: its parsed body and what is shown of it. */
export interface ParsedEvent {
  body: Record<string, unknown>;
  shown: EventSummary;
  /** Its webhook_id as text (service/webhook-event.ts), unsanitized: ids are compared, not shown. */
  id?: string;
  /** Why it has no usable webhook_id ("has no webhook_id"): its retries cannot be recognised. */
  idProblem?: string;
}

/**
 * An amount as an exact plain decimal ("1,000.00" -> "1000.00", 10 -> "10"), read by the
 * schema layer's `money` (numbers, plain or grouped strings); undefined for anything else.
 */
function exactAmount(value: string | number): string | undefined {
  const r = money.safeParse(typeof value === 'string' ? value.trim() : value);
  return r.success ? toDecimal(r.data) : undefined;
}

/** The event a raw body holds, or undefined when it is not a JSON object. */
export function parseEvent(raw: Buffer): ParsedEvent | undefined {
  let body: unknown;
  try {
    body = parseServiceJson(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const e = body as Record<string, unknown>;
  const d = typeof e.data === 'object' && e.data !== null ? (e.data as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === 'string' ? sanitizeInline(v) : undefined);
  const amount = typeof d.amount === 'number' || typeof d.amount === 'string' ? d.amount : undefined;
  const shownAmount = typeof amount === 'string' ? sanitizeInline(amount) : amount;
  const id = readWebhookId(e.webhook_id);
  const attempt = attemptSchema.safeParse(e.attempt);
  return {
    body: e,
    ...('id' in id ? { id: id.id } : { idProblem: id.problem }),
    shown: {
      webhookId: 'id' in id ? sanitizeInline(id.id) : undefined,
      event: str(e.event),
      attempt: attempt.success ? attempt.data : undefined,
      timestamp: str(e.timestamp),
      transactionId: str(d.transaction_id),
      amount: shownAmount === undefined ? undefined : (exactAmount(shownAmount) ?? String(shownAmount)),
      currency: str(d.currency),
      status: str(d.status),
      failureReason: str(d.failure_reason) || str(d.reason) || undefined,
    },
  };
}

/** The event's webhook_id as text (unsanitized: ids are compared, not shown), if it has a usable one. */
export function webhookIdOf(ev: ParsedEvent | undefined): string | undefined {
  return ev?.id;
}
