import { describe, expect, it } from 'vitest';
import { MASK, maskSecrets, redactBody, redactHeader } from '../../src/api/redact.js';

describe('redactHeader', () => {
  it.each([
    ['Authorization', 'Bearer eyJhbGciOi.secret.sig', 'Bearer ***'],
    ['authorization', 'Bearer abc', 'Bearer ***'],
    ['AUTHORIZATION', 'Basic dXNlcjpwYXNz', 'Basic ***'],
    ['Authorization', 'justatoken', '***'],
    ['Api-Key', 'sk_live_123456', '***'],
    ['api-key', 'sk_live_123456', '***'],
    ['X-Api-Key', 'sk_live_123456', '***'],
    ['Proxy-Authorization', 'Basic abc', '***'],
    ['Cookie', 'session=abc', '***'],
    ['Set-Cookie', 'session=abc; HttpOnly', '***'],
    ['Content-Type', 'application/json', 'application/json'],
    ['Idempotency-Key', '0b5c9d1e-aaaa', '0b5c9d1e-aaaa'],
    ['X-Request-Id', 'req-1', 'req-1'],
    ['Accept', 'application/json', 'application/json'],
  ])('%s: %s -> %s', (name, value, out) => {
    expect(redactHeader(name, value)).toBe(out);
  });

  it('never keeps any part of the credential', () => {
    expect(redactHeader('Authorization', 'Bearer secret-token-value')).not.toContain('secret');
  });
});

describe('maskSecrets', () => {
  it('masks every occurrence of each known secret', () => {
    expect(maskSecrets('key=sk_live_1234 again sk_live_1234', ['sk_live_1234'])).toBe('key=*** again ***');
    expect(maskSecrets('a tok-abcdef b key-9876', ['tok-abcdef', undefined, 'key-9876'])).toBe('a *** b ***');
  });

  it('ignores undefined, empty and very short secrets', () => {
    expect(maskSecrets('abc the abc', ['abc', '', undefined])).toBe('abc the abc');
  });

  // Regression (src/api/redact.ts, fixed): secrets are replaced in the order given, so when a shorter
  // secret is part of a longer one, the longer one is cut first and its rest stays visible.
  it('masks a secret whole even when another secret is part of it', () => {
    expect(maskSecrets('token=abcd1234efgh5678', ['abcd1234', 'abcd1234efgh5678'])).toBe('token=***');
  });

  it('leaves text without secrets alone', () => {
    expect(maskSecrets('nothing here', ['sk_live_1234'])).toBe('nothing here');
  });
});

describe('redactBody', () => {
  it('masks secret JSON fields', () => {
    const body = JSON.stringify({
      status: 'Successful',
      data: { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 },
    });
    expect(JSON.parse(redactBody(body, []))).toEqual({
      status: 'Successful',
      data: { access_token: MASK, token_type: MASK, expires_in: 3600 },
    });
  });

  it.each(['access_token', 'accessToken', 'token', 'apiKey', 'api_key', 'api-key', 'secret', 'webhookSecret', 'password', 'Authorization'])(
    'masks the field %s',
    (field) => {
      const out = redactBody(JSON.stringify({ [field]: 'S3cr3tValue', other: 'visible' }), []);
      expect(JSON.parse(out)).toEqual({ [field]: MASK, other: 'visible' });
      expect(out).not.toContain('S3cr3tValue');
    },
  );

  it('masks nested fields and fields inside arrays', () => {
    const body = JSON.stringify({
      data: [
        { id: 1, credentials: { apiKey: 'k-1', secret: 's-1' } },
        { id: 2, items: [{ token: 't-2' }, { name: 'ok' }] },
      ],
    });
    expect(JSON.parse(redactBody(body, []))).toEqual({
      data: [
        { id: 1, credentials: { apiKey: MASK, secret: MASK } },
        { id: 2, items: [{ token: MASK }, { name: 'ok' }] },
      ],
    });
  });

  it('masks numeric secrets', () => {
    expect(JSON.parse(redactBody('{"api_key": 123456789}', []))).toEqual({ api_key: MASK });
  });

  it('keeps the bytes of a JSON body when nothing is masked', () => {
    const body = '{ "amount": 1500.50,  "currency": "SLE" }';
    expect(redactBody(body, [])).toBe(body);
  });

  it('masks known secret values anywhere in a JSON body', () => {
    const body = '{"message": "key sk_live_abcdef is not valid"}';
    expect(redactBody(body, ['sk_live_abcdef'])).toBe('{"message": "key *** is not valid"}');
  });

  it('masks known secret values in text that is not JSON', () => {
    const body = '<html>token=tok-secret-1 and key=sk_live_abcdef</html>';
    const out = redactBody(body, ['tok-secret-1', 'sk_live_abcdef']);
    expect(out).toBe('<html>token=*** and key=***</html>');
  });

  it('cuts long bodies, saying how much was left out', () => {
    const body = 'x'.repeat(100);
    expect(redactBody(body, [], 10)).toBe('xxxxxxxxxx… (90 more characters)');
    expect(redactBody(body, [], 100)).toBe(body);
  });

  it('masks before cutting, so a cut never leaves a partial secret', () => {
    const secret = 'sk_live_abcdefgh';
    const body = 'a'.repeat(8) + secret;
    const out = redactBody(body, [secret], 12);
    expect(out).toBe('aaaaaaaa***');
    expect(out).not.toContain('sk_live');
  });

  it('cuts at 64 KiB by default', () => {
    const body = 'y'.repeat(64 * 1024 + 5);
    expect(redactBody(body, [])).toBe('y'.repeat(64 * 1024) + '… (5 more characters)');
  });
});
