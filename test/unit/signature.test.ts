/**
 * Webhook signatures (webhooks/signature.ts) against an HMAC computed here with
 * node:crypto: the header's shape, the 300 s window at its edges, several v1 values
 * (key rotation), and every refusal named by the check that failed (reason, message, hint).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature, SIGNATURE_HEADER, TOLERANCE_SECONDS } from '../../src/webhooks/signature.js';

const SECRET = 'whsec_unit_7c1d';
const BODY = Buffer.from('{"id":"evt_1","type":"payout.successful","data":{"amount":1500.50}}\r\n', 'utf8');
const T = 1_790_000_000;
const hmac = (secret: string, t: number, body: Buffer) => createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');

describe('signatureHeader', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">, for a Buffer or a string body', () => {
    expect(signatureHeader(SECRET, T, BODY)).toBe(`t=${T},v1=${hmac(SECRET, T, BODY)}`);
    expect(signatureHeader(SECRET, T, BODY.toString('utf8'))).toBe(`t=${T},v1=${hmac(SECRET, T, BODY)}`);
    expect(SIGNATURE_HEADER).toBe('x-webhook-signature');
    expect(TOLERANCE_SECONDS).toBe(300);
  });
});

describe('verifySignature', () => {
  const good = `t=${T},v1=${hmac(SECRET, T, BODY)}`;

  it('accepts a good signature, and says when it was made', () => {
    expect(verifySignature(SECRET, good, BODY, T)).toEqual({ ok: true, t: T });
    // Spaces around parts, and unknown parts, are tolerated.
    expect(verifySignature(SECRET, ` t=${T} , v0=abc, v1=${hmac(SECRET, T, BODY)} `, BODY, T)).toEqual({ ok: true, t: T });
  });

  const stale = (age: number, limit = 300) => ({
    ok: false,
    reason: 'stale timestamp',
    message: `timestamp ${age} s old, more than ${limit} s`,
    hint: "A replayed or long-delayed delivery is refused on purpose; if this machine's clock is wrong, correct it.",
  });
  const ahead = (by: number, limit = 300) => ({
    ok: false,
    reason: 'timestamp in the future',
    message: `timestamp ${by} s ahead, more than ${limit} s`,
    hint: "Check this machine's clock (and the sender's).",
  });
  const no = {
    ok: false,
    reason: 'signature does not match',
    message: 'signature does not match',
    hint: "Check that this listener's webhook secret is the sender's, and that nothing changed the body on the way.",
  };
  const shape = 'Sign each event with X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>.';
  const missing = { ok: false, reason: 'missing signature header', message: 'missing signature header', hint: shape };
  const noTimestamp = { ok: false, reason: 'malformed signature header', message: 'malformed signature header: no timestamp (t=)', hint: shape };
  const noV1 = { ok: false, reason: 'malformed signature header', message: 'malformed signature header: no v1 signature', hint: shape };

  it('accepts exactly 300 s either way; refuses 301 s, naming the distance and the direction', () => {
    expect(verifySignature(SECRET, good, BODY, T + 300)).toEqual({ ok: true, t: T });
    expect(verifySignature(SECRET, good, BODY, T - 300)).toEqual({ ok: true, t: T });
    expect(verifySignature(SECRET, good, BODY, T + 301)).toEqual(stale(301));
    expect(verifySignature(SECRET, good, BODY, T + 412)).toEqual(stale(412));
    expect(verifySignature(SECRET, good, BODY, T - 301)).toEqual(ahead(301));
    expect(verifySignature(SECRET, good, BODY, T + 10, 5)).toEqual(stale(10, 5));
  });

  it('a forged signature is named as such even when its timestamp is also out of the window', () => {
    const forged = `t=${T},v1=${hmac('whsec_forger', T, BODY)}`;
    expect(verifySignature(SECRET, forged, BODY, T + 412)).toEqual(no);
    expect(verifySignature(SECRET, forged, BODY, T - 412)).toEqual(no);
  });

  it('any one of several v1 values may match (a secret being rotated)', () => {
    const header = `t=${T},v1=${hmac('whsec_old', T, BODY)},v1=${hmac(SECRET, T, BODY)}`;
    expect(verifySignature(SECRET, header, BODY, T)).toEqual({ ok: true, t: T });
    expect(verifySignature('whsec_old', header, BODY, T)).toEqual({ ok: true, t: T });
    expect(verifySignature('whsec_third', header, BODY, T)).toEqual(no);
  });

  it('refuses another secret, a changed body, a changed timestamp, and a v1 of the wrong length', () => {
    expect(verifySignature('whsec_other', good, BODY, T)).toEqual(no);
    expect(verifySignature(SECRET, good, Buffer.from(BODY.toString('utf8').replace('1500.50', '1500.5')), T)).toEqual(no);
    expect(verifySignature(SECRET, `t=${T + 1},v1=${hmac(SECRET, T, BODY)}`, BODY, T)).toEqual(no);
    expect(verifySignature(SECRET, `t=${T},v1=${hmac(SECRET, T, BODY).slice(0, -2)}`, BODY, T)).toEqual(no);
    expect(verifySignature(SECRET, `t=${T},v1=${hmac(SECRET, T, BODY).toUpperCase()}`, BODY, T)).toEqual(no);
  });

  it('names what is wrong with a missing or malformed header', () => {
    expect(verifySignature(SECRET, undefined, BODY, T)).toEqual(missing);
    expect(verifySignature(SECRET, '', BODY, T)).toEqual(missing);
    expect(verifySignature(SECRET, `v1=${hmac(SECRET, T, BODY)}`, BODY, T)).toEqual(noTimestamp);
    expect(verifySignature(SECRET, `t=-5,v1=${hmac(SECRET, T, BODY)}`, BODY, T)).toEqual(noTimestamp);
    expect(verifySignature(SECRET, `t=1e9,v1=abc`, BODY, T)).toEqual(noTimestamp);
    expect(verifySignature(SECRET, 'garbage', BODY, T)).toEqual(noTimestamp);
    expect(verifySignature(SECRET, `t=${T}`, BODY, T)).toEqual(noV1);
    expect(verifySignature(SECRET, `t=${T},v2=${hmac(SECRET, T, BODY)}`, BODY, T)).toEqual(noV1);
  });
});
