/**
 * Webhook events and requests for the `webhooks listen` tests (in process and spawned):
 * event bodies as exact bytes, signed headers (signed here with node:crypto, not with
 * src/, see listener.ts `sign`), and one raw HTTP request with exactly the Host and
 * other headers given.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { nowSeconds, sign } from './listener.js';

export const evtId = (): string => `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

/**
 * An event body as bytes, with spacing, key order, a trailing-zero amount, a \u escape
 * and non-ASCII text that any parse-and-reserialize step would change.
 */
export function oddBody(id: string, payoutId: string, opts: { type?: string; amount?: string; status?: string } = {}): Buffer {
  const { type = 'payout.successful', amount = '1500.50', status = 'Successful' } = opts;
  return Buffer.from(
    `{ "id" : "${id}",\t"type":"${type}" ,\n` +
      `  "created_at":"2026-01-02T03:04:05.123456Z",\n` +
      `     "data" : {"payout_id":"${payoutId}","amount": ${amount} , "currency":"SLE","status":"${status}",\n` +
      `"recipient":{"type":"wallet","accountDetails":{"name":"Fatmata Sesay – Zoë 🇸🇱","note":"caf\\u00e9 / café"}},` +
      `"metadata":{"ünïcode":"日本語","n":1.0e2}}   }\r\n`,
    'utf8',
  );
}

/** The headers the service sends with an event signed with `secret` at unix time `t`. */
export function headersFor(body: Buffer, secret: string, t = nowSeconds()): Record<string, string> {
  return {
    'content-type': 'application/json; charset=UTF-8',
    'x-webhook-signature': sign(secret, t, body),
    'x-webhook-event': 'payout.successful',
    'x-webhook-attempt': '1',
    'user-agent': 'payctl-sandbox-webhooks',
  };
}

/** A compact JSON event with the given fields (any value, including hostile strings). */
export function event(fields: { id?: string; type?: string; payout_id?: string; amount?: unknown; currency?: string; status?: string } = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      id: fields.id ?? `evt_${randomBytes(12).toString('hex')}`,
      type: fields.type ?? 'payout.successful',
      created_at: new Date().toISOString(),
      data: {
        payout_id: fields.payout_id ?? randomUUID(),
        amount: fields.amount ?? 1500.5,
        currency: fields.currency ?? 'SLE',
        status: fields.status ?? 'Successful',
      },
    }),
    'utf8',
  );
}

/** Content-Type and a signature made now. */
export const signed = (body: Buffer, s: string, contentType = 'application/json'): Record<string, string> => ({
  'content-type': contentType,
  'x-webhook-signature': sign(s, nowSeconds(), body),
});

/** One request with exactly this Host (and other) headers. */
export function rawRequest(port: number, method: string, path: string, headers: Record<string, string>, body?: Buffer | string) {
  return new Promise<{ status: number; body: string; json: any; contentType: string | undefined }>((resolve, reject) => {
    const h = { ...headers };
    if (body !== undefined) h['content-length'] = String(Buffer.byteLength(body));
    const req = request({ host: '127.0.0.1', port, method, path, headers: h, setHost: !('host' in headers), timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: text, json, contentType: res.headers['content-type'] });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}
