/**
 * Webhook signatures and replay checks as the service documents them (docs/service.md,
 * "Webhooks"): the signature is 64 lower-case hex characters of HMAC-SHA256(secret, raw
 * request body), sent in a header (`Signature` unless configured); the payload's own
 * ISO 8601 `timestamp` must be within 300 s of the receiver's clock. The sandbox's
 * sender signs with `sign` and the listener verifies with `verifySignature` and
 * `checkTimestamp`, so both sides share one rule.
 *
 * A refusal names the check that failed, in two forms: `reason`, one of a few fixed
 * words for scripts (`stale timestamp`), and `message`, the same with its numbers for
 * people (`timestamp 412 s old, more than 300 s`), with a `hint` of what to do next.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { visibleWord } from '../words.js';

/** The header that carries the signature unless a profile or a flag names another. */
export const SIGNATURE_HEADER = 'Signature';
/** How far (seconds) an event's `timestamp` may be from the receiver's clock, either way. */
export const TOLERANCE_SECONDS = 300;

/** The signature of a raw body: hex HMAC-SHA256 with the webhook secret, lower case. */
export function sign(secret: string, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** Which check refused a delivery: fixed words, for scripts. */
export type RejectReason =
  | 'missing signature header'
  | 'malformed signature header'
  | 'signature does not match'
  | 'not a JSON object'
  | 'missing timestamp'
  | 'unreadable timestamp'
  | 'stale timestamp'
  | 'timestamp in the future';

export type Rejection = { ok: false; reason: RejectReason; message: string; hint: string };

function reject(reason: RejectReason, message: string, hint: string): Rejection {
  return { ok: false, reason, message, hint };
}

/** A header name as HTTP allows it (RFC 9110 token), e.g. `Signature`, `X-Bokumonie-Signature`. */
export function isHeaderName(name: string): boolean {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);
}

const HEX64 = /^[0-9a-f]{64}$/i;

/**
 * Checks, in order: the header is there, it holds 64 hex characters (a `sha256=` prefix
 * and upper case are tolerated), and they equal the HMAC of the raw body, compared in
 * constant time. `headerName` is only used to word the refusal.
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  rawBody: Buffer,
  headerName = SIGNATURE_HEADER,
  nameHeader = 'payctl config set webhook-signature-header NAME',
): { ok: true } | Rejection {
  const shape = `The service sends 64 hex characters of HMAC-SHA256(webhook secret, raw body) in the ${headerName} header.`;
  const value = header?.trim();
  if (!value) {
    return reject(
      'missing signature header',
      `missing signature header (${headerName})`,
      `${shape} If your sender uses another header, name it with --signature-header NAME or ${nameHeader}.`,
    );
  }
  const hex = value.replace(/^sha256=/i, '');
  if (!HEX64.test(hex)) return reject('malformed signature header', `malformed signature header (${headerName}): not 64 hex characters`, shape);
  const given = Buffer.from(hex.toLowerCase(), 'utf8');
  const expected = Buffer.from(sign(secret, rawBody), 'utf8');
  if (!timingSafeEqual(given, expected)) {
    return reject(
      'signature does not match',
      'signature does not match',
      "Check that this listener's webhook secret is the sender's, and that nothing changed the body on the way.",
    );
  }
  return { ok: true };
}

/** ISO 8601 with a zone (`2026-04-05T18:38:54.734510Z`, `…+01:00`); any number of fraction digits. */
const ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/;

/** Milliseconds since the epoch of an ISO 8601 timestamp with a zone; undefined for anything else. */
export function timestampMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = ISO.exec(value);
  if (!m) return undefined;
  // Date.parse takes at most milliseconds: the rest of the fraction is dropped, not rounded.
  const ms = Date.parse(`${m[1]}.${(m[2] ?? '').padEnd(3, '0').slice(0, 3)}${m[3]}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A signed body that is no JSON object (bad JSON, `null`, a list): no event, said so rather than "missing timestamp". */
export function notAnEvent(): Rejection {
  return reject('not a JSON object', 'the body is not a JSON object', 'An event is one JSON object: {"event": ..., "timestamp": ..., "webhook_id": ..., "data": {...}}.');
}

/** Seconds as people read them: whole when whole, else up to milliseconds (300.5). */
const seconds = (ms: number) => String(Math.round(ms) / 1000);

/** The documented form of a timestamp (docs/service.md: ISO 8601 UTC with microseconds and Z). */
const DOCUMENTED_FORM = '2026-04-05T18:38:54.734510Z';

/** A value as JSON in printable ASCII, cut to 40 characters: how an unreadable timestamp is named. */
function named(value: unknown): string {
  const t = visibleWord(JSON.stringify(value) ?? String(value));
  return t.length > 40 ? `${t.slice(0, 39)}…` : t;
}

/**
 * The replay check: the payload's `timestamp` is there, ISO 8601 with a zone as docs/service.md
 * documents it (a `T` between date and time, `Z` or an offset), and within `toleranceSeconds` of
 * `nowMs`, either way (exactly the tolerance is still accepted). One that is there but in
 * another form (a Unix time, no zone, a space for the `T`) is `unreadable timestamp`, naming
 * it; before, it was refused as `missing timestamp`, as if the event had none.
 */
export function checkTimestamp(timestamp: unknown, nowMs: number, toleranceSeconds = TOLERANCE_SECONDS): { ok: true; ms: number } | Rejection {
  const ms = timestampMs(timestamp);
  if (ms === undefined && (timestamp === undefined || timestamp === null)) {
    return reject(
      'missing timestamp',
      'the event has no ISO 8601 timestamp',
      `Each event carries its "timestamp" (e.g. ${DOCUMENTED_FORM}): without it a replay cannot be told from a new event.`,
    );
  }
  if (ms === undefined) {
    return reject(
      'unreadable timestamp',
      `timestamp ${named(timestamp)} is not ISO 8601 with a zone (${DOCUMENTED_FORM})`,
      `The service writes each event's "timestamp" as ${DOCUMENTED_FORM} (a T between date and time, Z or an offset such as +01:00); a Unix time, a time without a zone or a space for the T cannot be checked against this clock, so a replay could not be told from a new event.`,
    );
  }
  const age = nowMs - ms;
  const limit = toleranceSeconds * 1000;
  if (age > limit) {
    return reject(
      'stale timestamp',
      `timestamp ${seconds(age)} s old, more than ${toleranceSeconds} s`,
      "A replayed or long-delayed delivery is refused on purpose; if this machine's clock is wrong, correct it (or widen --tolerance).",
    );
  }
  if (-age > limit) {
    return reject('timestamp in the future', `timestamp ${seconds(-age)} s ahead, more than ${toleranceSeconds} s`, "Check this machine's clock (and the sender's).");
  }
  return { ok: true, ms };
}
