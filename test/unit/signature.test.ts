/**
 * Webhook signatures (webhooks/signature.ts) against an HMAC computed here with
 * node:crypto: the header's shape, the 300 s window at its edges, several v1 values
 * (key rotation), and every malformed header named.
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

  it('accepts exactly 300 s either way; refuses 301 s, naming the distance', () => {
    expect(verifySignature(SECRET, good, BODY, T + 300)).toEqual({ ok: true, t: T });
    expect(verifySignature(SECRET, good, BODY, T - 300)).toEqual({ ok: true, t: T });
    expect(verifySignature(SECRET, good, BODY, T + 301)).toEqual({ ok: false, reason: 'timestamp is 301 s from this clock (limit 300 s)' });
    expect(verifySignature(SECRET, good, BODY, T - 301)).toEqual({ ok: false, reason: 'timestamp is 301 s from this clock (limit 300 s)' });
    expect(verifySignature(SECRET, good, BODY, T + 10, 5)).toEqual({ ok: false, reason: 'timestamp is 10 s from this clock (limit 5 s)' });
  });

  it('any one of several v1 values may match (a secret being rotated)', () => {
    const header = `t=${T},v1=${hmac('whsec_old', T, BODY)},v1=${hmac(SECRET, T, BODY)}`;
    expect(verifySignature(SECRET, header, BODY, T)).toEqual({ ok: true, t: T });
    expect(verifySignature('whsec_old', header, BODY, T)).toEqual({ ok: true, t: T });
    expect(verifySignature('whsec_third', header, BODY, T)).toEqual({ ok: false, reason: 'signature does not match' });
  });

  it('refuses another secret, a changed body, a changed timestamp, and a v1 of the wrong length', () => {
    const no = { ok: false, reason: 'signature does not match' };
    expect(verifySignature('whsec_other', good, BODY, T)).toEqual(no);
    expect(verifySignature(SECRET, good, Buffer.from(BODY.toString('utf8').replace('1500.50', '1500.5')), T)).toEqual(no);
    expect(verifySignature(SECRET, `t=${T + 1},v1=${hmac(SECRET, T, BODY)}`, BODY, T)).toEqual(no);
    expect(verifySignature(SECRET, `t=${T},v1=${hmac(SECRET, T, BODY).slice(0, -2)}`, BODY, T)).toEqual(no);
    expect(verifySignature(SECRET, `t=${T},v1=${hmac(SECRET, T, BODY).toUpperCase()}`, BODY, T)).toEqual(no);
  });

  it('names what is wrong with a malformed header', () => {
    expect(verifySignature(SECRET, undefined, BODY, T)).toEqual({ ok: false, reason: 'no X-Webhook-Signature header' });
    expect(verifySignature(SECRET, '', BODY, T)).toEqual({ ok: false, reason: 'no X-Webhook-Signature header' });
    expect(verifySignature(SECRET, `v1=${hmac(SECRET, T, BODY)}`, BODY, T)).toEqual({ ok: false, reason: 'signature header has no timestamp' });
    expect(verifySignature(SECRET, `t=-5,v1=${hmac(SECRET, T, BODY)}`, BODY, T)).toEqual({ ok: false, reason: 'signature header has no timestamp' });
    expect(verifySignature(SECRET, `t=1e9,v1=abc`, BODY, T)).toEqual({ ok: false, reason: 'signature header has no timestamp' });
    expect(verifySignature(SECRET, 'garbage', BODY, T)).toEqual({ ok: false, reason: 'signature header has no timestamp' });
    expect(verifySignature(SECRET, `t=${T}`, BODY, T)).toEqual({ ok: false, reason: 'signature header has no v1 signature' });
    expect(verifySignature(SECRET, `t=${T},v2=${hmac(SECRET, T, BODY)}`, BODY, T)).toEqual({ ok: false, reason: 'signature header has no v1 signature' });
  });
});
