/**
 * What a webhook event says, apart from how it was delivered (docs/service.md, "Webhooks": a
 * retry is the same event sent again, with the same webhook_id, the next `attempt` and a fresh
 * `timestamp`). The listener (dedupe.ts) takes a delivery for a retry only when its content is
 * the first's: a known webhook_id carrying another event (transfer.failed after
 * transfer.initiated, another status or amount) is an event of its own, and what differs is
 * named. Before, any delivery of a known id was answered as a duplicate and never forwarded, so
 * an app never learnt that a payout failed.
 */
import { createHash } from 'node:crypto';
import { normalizeStatus } from '../service/schemas.js';
import type { EventSummary } from './event.js';
import { shortened } from '../output/text.js';

/** The fields a difference is named by, in the order said; anything else is "other fields". */
const FACETS = ['event', 'status', 'amount', 'currency', 'transaction_id', 'failure_reason'] as const;
export type Facet = (typeof FACETS)[number];

/** An event's content: a digest of its body less `attempt`, `timestamp` and `webhook_id`, and one of each facet. */
export interface EventContent {
  digest: string;
  facets: Record<Facet, string>;
}

/** A field that differs from the first delivery of the id, with both values as shown (cut to 40 characters). */
export interface Difference {
  field: Facet | 'other fields';
  was?: string;
  now?: string;
}

const sha = (t: string) => createHash('sha256').update(t).digest('hex');

/** JSON with every object's keys sorted, so key order is no difference; undefined when it cannot be written (too deep). */
function canonical(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, (_k, v: unknown) =>
      typeof v === 'object' && v !== null && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
    );
  } catch {
    return undefined;
  }
}

/** The content of an event's body (`raw` its bytes: the digest when the body cannot be written back). */
export function eventContent(body: Record<string, unknown>, raw: Buffer): EventContent {
  const { attempt: _a, timestamp: _t, webhook_id: _w, ...rest } = body;
  const data = typeof body.data === 'object' && body.data !== null && !Array.isArray(body.data) ? (body.data as Record<string, unknown>) : {};
  const value: Record<Facet, unknown> = {
    event: body.event,
    status: data.status,
    amount: data.amount,
    currency: data.currency,
    transaction_id: data.transaction_id,
    failure_reason: data.failure_reason ?? data.reason,
  };
  const facets = Object.fromEntries(FACETS.map((f) => [f, sha(canonical(value[f]) ?? 'unwritable')])) as Record<Facet, string>;
  return { digest: sha(canonical(rest) ?? raw.toString('base64')), facets };
}

const cut = (t: string | undefined) => (t === undefined ? undefined : shortened(t));

/** Each facet as it is shown (sanitized; the status normalized, so escaped), cut to 40 characters. */
export function shownFacets(s: EventSummary): Partial<Record<Facet, string>> {
  return {
    event: cut(s.event),
    status: cut(s.status !== undefined ? normalizeStatus(s.status) : undefined),
    amount: cut(s.amount ?? s.amountUnread),
    currency: cut(s.currency ?? s.currencyUnread),
    transaction_id: cut(s.transactionId),
    failure_reason: cut(s.failureReason),
  };
}

/** What differs between the first delivery of an id and this one: the facets, else "other fields". */
export function differences(
  first: { content: EventContent; shown: Partial<Record<Facet, string>> },
  now: { content: EventContent; shown: Partial<Record<Facet, string>> },
): Difference[] {
  const changed = FACETS.filter((f) => first.content.facets[f] !== now.content.facets[f]);
  if (!changed.length) return [{ field: 'other fields' }];
  return changed.map((field) => ({ field, was: first.shown[field], now: now.shown[field] }));
}
