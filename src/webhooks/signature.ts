/**
 * Webhook signatures (contract.md): `X-Webhook-Signature: t=<unix seconds>,v1=<hex
 * HMAC-SHA256(secret, "<t>.<raw body>")>`. A receiver rejects a bad signature, or a
 * `t` more than 300 s from its clock; comparison is constant-time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-webhook-signature';
export const TOLERANCE_SECONDS = 300;

/** The header value for a raw body signed at unix time `t` (seconds). */
export function signatureHeader(secret: string, t: number, rawBody: string | Buffer): string {
  const v1 = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return `t=${t},v1=${v1}`;
}

export type Verification = { ok: true; t: number } | { ok: false; reason: string };

export function verifySignature(secret: string, header: string | undefined, rawBody: Buffer, nowSeconds: number, toleranceSeconds = TOLERANCE_SECONDS): Verification {
  if (!header) return { ok: false, reason: 'no X-Webhook-Signature header' };
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
  if (t === undefined) return { ok: false, reason: 'signature header has no timestamp' };
  if (candidates.length === 0) return { ok: false, reason: 'signature header has no v1 signature' };
  if (Math.abs(nowSeconds - t) > toleranceSeconds) {
    return { ok: false, reason: `timestamp is ${Math.abs(nowSeconds - t)} s from this clock (limit ${toleranceSeconds} s)` };
  }
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex'), 'utf8');
  for (const c of candidates) {
    const given = Buffer.from(c, 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, t };
  }
  return { ok: false, reason: 'signature does not match' };
}
