/**
 * Webhook signatures and the replay check (service/signature.ts) against an HMAC
 * computed here with node:crypto: the signature is hex HMAC-SHA256 of the raw body; the
 * tolerated forms (a `sha256=` prefix, upper case); the 300 s window of the payload's
 * timestamp at its edges; every refusal named by the check that failed.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, TOLERANCE_SECONDS, checkTimestamp, isHeaderName, sign, timestampMs, verifySignature } from '../../src/service/signature.js';

const SECRET = 'whsec_unit_7c1d';
const BODY = Buffer.from('{"event":"transfer.success","data":{"amount":"1,500.50"}}\r\n', 'utf8');
const hmac = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');

describe('sign', () => {
  it('is 64 lower-case hex characters of HMAC-SHA256 over the raw body, for a Buffer or a string', () => {
    expect(sign(SECRET, BODY)).toBe(hmac(SECRET, BODY));
    expect(sign(SECRET, BODY.toString('utf8'))).toBe(hmac(SECRET, BODY));
    expect(sign(SECRET, BODY)).toMatch(/^[0-9a-f]{64}$/);
    expect(SIGNATURE_HEADER).toBe('Signature');
    expect(TOLERANCE_SECONDS).toBe(300);
  });

  it('matches a known HMAC-SHA256 test vector (RFC 4231, case 2)', () => {
    expect(sign('Jefe', 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});

describe('verifySignature', () => {
  const good = hmac(SECRET, BODY);
  const no = {
    ok: false,
    reason: 'signature does not match',
    message: 'signature does not match',
    hint: "Check that this listener's webhook secret is the sender's, and that nothing changed the body on the way.",
  };
  const shape = (h = 'Signature') => `The service sends 64 hex characters of HMAC-SHA256(webhook secret, raw body) in the ${h} header.`;

  it('accepts the hex signature; tolerates a sha256= prefix, upper-case hex and surrounding spaces', () => {
    expect(verifySignature(SECRET, good, BODY)).toEqual({ ok: true });
    expect(verifySignature(SECRET, `sha256=${good}`, BODY)).toEqual({ ok: true });
    expect(verifySignature(SECRET, `SHA256=${good}`, BODY)).toEqual({ ok: true });
    expect(verifySignature(SECRET, good.toUpperCase(), BODY)).toEqual({ ok: true });
    expect(verifySignature(SECRET, `  ${good} `, BODY)).toEqual({ ok: true });
  });

  it('refuses another secret, a changed body (one byte, or trailing whitespace) and a signature of a re-serialized body', () => {
    expect(verifySignature('whsec_other', good, BODY)).toEqual(no);
    expect(verifySignature(SECRET, good, Buffer.from(BODY.toString('utf8').replace('1,500.50', '1,500.51')))).toEqual(no);
    expect(verifySignature(SECRET, good, BODY.subarray(0, BODY.length - 2))).toEqual(no);
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(BODY.toString('utf8'))));
    expect(verifySignature(SECRET, hmac(SECRET, reserialized), BODY)).toEqual(no);
  });

  it('names a missing header (and which one it looked for) and a malformed one', () => {
    const missing = (h = 'Signature') => ({
      ok: false,
      reason: 'missing signature header',
      message: `missing signature header (${h})`,
      hint: `${shape(h)} If your sender uses another header, name it with --signature-header NAME or payctl config set webhook-signature-header NAME.`,
    });
    expect(verifySignature(SECRET, undefined, BODY)).toEqual(missing());
    expect(verifySignature(SECRET, '  ', BODY)).toEqual(missing());
    expect(verifySignature(SECRET, undefined, BODY, 'X-Hook-Sig')).toEqual(missing('X-Hook-Sig'));
    const malformed = { ok: false, reason: 'malformed signature header', message: 'malformed signature header (Signature): not 64 hex characters', hint: shape() };
    for (const bad of [good.slice(0, -1), good + '0', `t=1790000000,v1=${good}`, `sha1=${good}`, good.replace(/.$/, 'g'), 'garbage']) {
      expect(verifySignature(SECRET, bad, BODY), bad).toEqual(malformed);
    }
  });
});

describe('checkTimestamp', () => {
  const T = Date.parse('2026-04-05T18:38:54.734Z');
  const stale = (age: string, limit = 300) => ({
    ok: false,
    reason: 'stale timestamp',
    message: `timestamp ${age} s old, more than ${limit} s`,
    hint: "A replayed or long-delayed delivery is refused on purpose; if this machine's clock is wrong, correct it (or widen --tolerance).",
  });
  const ahead = (by: string, limit = 300) => ({
    ok: false,
    reason: 'timestamp in the future',
    message: `timestamp ${by} s ahead, more than ${limit} s`,
    hint: "Check this machine's clock (and the sender's).",
  });

  it('reads the documented form (microseconds, Z) and offsets; nothing else', () => {
    expect(timestampMs('2026-04-05T18:38:54.734510Z')).toBe(T);
    expect(timestampMs('2026-04-05T19:38:54.734Z')).toBe(T + 3_600_000);
    expect(timestampMs('2026-04-05T19:38:54.734510+01:00')).toBe(T);
    expect(timestampMs('2026-04-05T18:38:54Z')).toBe(T - 734);
    for (const bad of [undefined, null, 1775414334, '', '2026-04-05', '2026-04-05T18:38:54', '2026-04-05 18:38:54Z', '2026-13-05T18:38:54Z', 'yesterday']) {
      expect(timestampMs(bad), String(bad)).toBeUndefined();
    }
  });

  it('accepts exactly 300 s either way; refuses 301 s, naming the distance and the direction', () => {
    const at = '2026-04-05T18:38:54.734510Z';
    expect(checkTimestamp(at, T)).toEqual({ ok: true, ms: T });
    expect(checkTimestamp(at, T + 300_000)).toEqual({ ok: true, ms: T });
    expect(checkTimestamp(at, T - 300_000)).toEqual({ ok: true, ms: T });
    expect(checkTimestamp(at, T + 301_000)).toEqual(stale('301'));
    expect(checkTimestamp(at, T + 300_001)).toEqual(stale('300.001'));
    expect(checkTimestamp(at, T + 412_000)).toEqual(stale('412'));
    expect(checkTimestamp(at, T - 301_000)).toEqual(ahead('301'));
    expect(checkTimestamp(at, T + 10_000, 5)).toEqual(stale('10', 5));
    expect(checkTimestamp(at, T + 3_600_000, 3600)).toEqual({ ok: true, ms: T });
  });

  it('refuses an event without a readable timestamp', () => {
    const missing = {
      ok: false,
      reason: 'missing timestamp',
      message: 'the event has no ISO 8601 timestamp',
      hint: 'Each event carries its "timestamp" (e.g. 2026-04-05T18:38:54.734510Z): without it a replay cannot be told from a new event.',
    };
    expect(checkTimestamp(undefined, T)).toEqual(missing);
    expect(checkTimestamp(null, T)).toEqual(missing);
  });

  it('refuses a timestamp that is there but not ISO 8601 with a zone as unreadable, naming it (before: "missing timestamp")', () => {
    const unreadable = (shown: string) => ({
      ok: false,
      reason: 'unreadable timestamp',
      message: `timestamp ${shown} is not ISO 8601 with a zone (2026-04-05T18:38:54.734510Z)`,
      hint: expect.stringContaining('a Unix time, a time without a zone or a space for the T cannot be checked against this clock'),
    });
    const secs = Math.floor(T / 1000);
    const iso = new Date(T).toISOString();
    expect(checkTimestamp(secs, T)).toEqual(unreadable(String(secs)));
    expect(checkTimestamp(String(secs), T)).toEqual(unreadable(`"${secs}"`));
    expect(checkTimestamp(iso.replace('Z', ''), T)).toEqual(unreadable(`"${iso.replace('Z', '')}"`));
    // RFC 3339 lets a space stand for the T; the service documents the T (docs/service.md): refused, named.
    expect(checkTimestamp(iso.replace('T', ' '), T)).toEqual(unreadable(`"${iso.replace('T', ' ')}"`));
    expect(checkTimestamp('2026-13-45T10:00:00Z', T)).toEqual(unreadable('"2026-13-45T10:00:00Z"'));
    // Named in printable ASCII, cut to 40 characters.
    expect(checkTimestamp('\u202e' + 'x'.repeat(100), T)).toEqual(unreadable(`"\\u202e${'x'.repeat(32)}…`));
    expect(checkTimestamp({ at: 1 }, T)).toEqual(unreadable('{"at":1}'));
    expect(checkTimestamp(iso, T)).toEqual({ ok: true, ms: T });
  });
});

describe('isHeaderName', () => {
  it('takes HTTP tokens only', () => {
    for (const ok of ['Signature', 'X-Bokumonie-Signature', 'x_sig.v2']) expect(isHeaderName(ok), ok).toBe(true);
    for (const bad of ['', 'Sig nature', 'Sig:', 'Sig\r\nX-Evil: 1', 'Sïg']) expect(isHeaderName(bad), bad).toBe(false);
  });
});
