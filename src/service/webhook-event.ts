/**
 * The fields of a webhook event `{event, timestamp, webhook_id, attempt, data}` that the
 * listener reads beyond the payout record (docs/service.md, "Webhooks"), with the variants it
 * tolerates handled here, once, as schemas.ts does for the REST answers. The documentation
 * shows one example event: `webhook_id` a string (a UUID) and `attempt` a number; their types
 * are not documented, so a number id and a digit-string attempt are read too [assumed].
 */
import * as z from 'zod/mini';
import '../zod.js';
import { decimalFromNumber } from '../money/amount.js';

/**
 * A webhook_id as the listener compares and shows it: its text. A string is kept as it came
 * (a blank one is no id); a JSON number as the exact decimal of its value, so 987654 and
 * "987654" are one event, and so are 1e3 and 1000. A number a double cannot hold exactly
 * (12345678901234567890, 1e400) reaches the schema as the text it was written in
 * (exact-json.ts), never rounded: two ids that differ only past a double's precision are
 * never taken for one event, whose retry would then not be passed on.
 */
export const webhookIdSchema = z.pipe(
  z.union([z.string().check(z.refine((v) => v.trim() !== '', 'a blank webhook_id')), z.number()]),
  z.transform((v) => (typeof v === 'number' ? decimalFromNumber(v) : v)),
);

/** An event's attempt: a whole number, or one written as digits ("2") [assumed]. */
export const attemptSchema = z.pipe(
  z.union([z.number().check(z.refine((v) => Number.isSafeInteger(v) && v >= 0)), z.string().check(z.regex(/^\d{1,15}$/))]),
  z.transform((v) => Number(v)),
);

/** The event's webhook_id as its text, or why it has no usable one (its retries cannot be recognised). */
export function readWebhookId(value: unknown): { id: string } | { problem: string } {
  if (value === undefined) return { problem: 'has no webhook_id' };
  const r = webhookIdSchema.safeParse(value);
  if (r.success) return { id: r.data };
  if (typeof value === 'string') return { problem: 'has a blank webhook_id' };
  const kind = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return { problem: `has a webhook_id that is ${kind}, not a string or a number` };
}
