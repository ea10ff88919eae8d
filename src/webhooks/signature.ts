/**
 * Webhook signatures (contract.md): `X-Webhook-Signature: t=<unix seconds>,v1=<hex
 * HMAC-SHA256(secret, "<t>.<raw body>")>`. A receiver rejects a bad signature, or a
 * `t` more than 300 s from its clock; comparison is constant-time.
 *
 * A refusal names the check that failed, in two forms: `reason`, one of a few fixed
 * words for scripts (`stale timestamp`), and `message`, the same with its numbers for
 * people (`timestamp 412 s old, more than 300 s`), with a `hint` of what to do next.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-webhook-signature';
export const TOLERANCE_SECONDS = 300;

/** The header value for a raw body signed at unix time `t` (seconds). */
export function signatureHeader(secret: string, t: number, rawBody: string | Buffer): string {
  const v1 = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** Which check refused a delivery: fixed words, for scripts. */
export type RejectReason = 'missing signature header' | 'malformed signature header' | 'signature does not match' | 'stale timestamp' | 'timestamp in the future';

export type Rejection = { ok: false; reason: RejectReason; message: string; hint: string };
export type Verification = { ok: true; t: number } | Rejection;

const HEADER_SHAPE = 'X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>';

function reject(reason: RejectReason, message: string, hint: string): Rejection {
  return { ok: false, reason, message, hint };
}

/**
 * Checks, in order: the header is there, it has a timestamp and a v1 signature, one v1
 * matches the HMAC of "<t>.<raw body>" (constant-time), and `t` is within
 * `toleranceSeconds` of `nowSeconds`. A forged delivery is named as such even when its
 * timestamp is also off: the signature is checked before the clock.
 */
export function verifySignature(secret: string, header: string | undefined, rawBody: Buffer, nowSeconds: number, toleranceSeconds = TOLERANCE_SECONDS): Verification {
  if (!header) return reject('missing signature header', 'missing signature header', `Sign each event with ${HEADER_SHAPE}.`);
  let t: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d+$/.test(v)) t = Number(v);
    else if (k === 'v1') candidates.push(v);
  }
  if (t === undefined) return reject('malformed signature header', 'malformed signature header: no timestamp (t=)', `Sign each event with ${HEADER_SHAPE}.`);
  if (candidates.length === 0) return reject('malformed signature header', 'malformed signature header: no v1 signature', `Sign each event with ${HEADER_SHAPE}.`);
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex'), 'utf8');
  let matched = false;
  for (const c of candidates) {
    const given = Buffer.from(c, 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) {
    return reject(
      'signature does not match',
      'signature does not match',
      "Check that this listener's webhook secret is the sender's, and that nothing changed the body on the way.",
    );
  }
  const age = nowSeconds - t;
  if (age > toleranceSeconds) {
    return reject(
      'stale timestamp',
      `timestamp ${age} s old, more than ${toleranceSeconds} s`,
      "A replayed or long-delayed delivery is refused on purpose; if this machine's clock is wrong, correct it.",
    );
  }
  if (-age > toleranceSeconds) {
    return reject('timestamp in the future', `timestamp ${-age} s ahead, more than ${toleranceSeconds} s`, "Check this machine's clock (and the sender's).");
  }
  return { ok: true, t };
}
