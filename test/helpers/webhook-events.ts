/**
 * Webhook events and requests for the `webhooks listen` tests (in process and spawned),
 * in the documented form `{event, timestamp, webhook_id, attempt, data}`: event bodies
 * as exact bytes, the documentation's own example event (test/fixtures/documented/),
 * signed headers (hex HMAC-SHA256 of the raw body, signed here with node:crypto, not with
 * src/: listener.ts `sign`), and one raw HTTP request with exactly the Host and other
 * headers given.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { sign } from './listener.js';

/** A webhook id as the service makes them (a UUID). */
export const webhookId = (): string => randomUUID();

/** A transaction id of the documented form: `TXN-BOK-` and 26 upper-case hex digits. */
export const txnId = (): string => `TXN-BOK-${randomBytes(13).toString('hex').toUpperCase()}`;

/** An ISO 8601 UTC timestamp with microseconds, `offsetSeconds` from `at` (default now). */
export function isoAt(offsetSeconds = 0, at: Date = new Date()): string {
  return new Date(at.getTime() + offsetSeconds * 1000).toISOString().replace(/Z$/, '417Z');
}

/** The documentation's example event, byte for byte (`-full`: the later, complete copy of the page). */
export function documentedEvent(which: 'cut' | 'full' = 'cut'): Buffer {
  const file = which === 'full' ? 'webhook-transfer-initiated-full.json' : 'webhook-transfer-initiated.json';
  return readFileSync(new URL(`../fixtures/documented/${file}`, import.meta.url));
}

/** The documented example's timestamp: a clock set near it accepts the verbatim bytes. */
export const DOCUMENTED_TIMESTAMP = '2026-04-05T18:38:54.734510Z';

/** The same bytes with only the `timestamp` value replaced (where the 300 s window matters). */
export function withTimestamp(body: Buffer, timestamp: string): Buffer {
  const text = body.toString('utf8');
  const out = text.replace(/("timestamp"\s*:\s*")[^"]*(")/, `$1${timestamp}$2`);
  if (out === text) throw new Error('no timestamp to replace');
  return Buffer.from(out, 'utf8');
}

/**
 * An event body as bytes, with spacing, key order, a grouped amount string, a \u escape
 * and non-ASCII text that any parse-and-reserialize step would change.
 */
export function oddBody(
  id: string,
  transactionId: string,
  opts: { event?: string; amount?: string; status?: string; attempt?: number; timestamp?: string; currency?: string } = {},
): Buffer {
  const { event = 'transfer.success', amount = '"1,500.50"', status = 'successful', attempt = 1, timestamp = isoAt(), currency = 'SLE' } = opts;
  return Buffer.from(
    `{ "event" : "${event}",\t"timestamp":"${timestamp}" ,\n` +
      `  "webhook_id":"${id}",  "attempt" :${attempt},\n` +
      `     "data" : {"status":"${status}","transaction_id":"${transactionId}","amount": ${amount} , "currency":"${currency}","fee":"5.00",\n` +
      `"recipient":{"transfer_type":"wallet","name":"Fatmata Sesay – Zoë 🇸🇱","bank":"ORANGE"},"description":"caf\\u00e9 / café",` +
      `"metadata":{"ünïcode":"日本語","n":1.0e2}}   }\r\n`,
    'utf8',
  );
}

/** The headers the service sends with an event signed with `secret` (`header` carries the signature). */
export function headersFor(body: Buffer, secret: string, header = 'Signature'): Record<string, string> {
  return {
    'content-type': 'application/json; charset=UTF-8',
    [header]: sign(secret, body),
    'user-agent': 'Bokumonie-Webhooks/1.0',
  };
}

/** A compact JSON event with the given fields (any value, including hostile strings). */
export function event(
  fields: {
    webhook_id?: string;
    event?: string;
    attempt?: unknown;
    timestamp?: string;
    transaction_id?: string;
    amount?: unknown;
    currency?: string;
    status?: string;
    failure_reason?: unknown;
  } = {},
): Buffer {
  return Buffer.from(
    JSON.stringify({
      event: fields.event ?? 'transfer.success',
      timestamp: fields.timestamp ?? isoAt(),
      webhook_id: fields.webhook_id ?? webhookId(),
      attempt: fields.attempt ?? 1,
      data: {
        transaction_id: fields.transaction_id ?? txnId(),
        status: fields.status ?? 'successful',
        amount: fields.amount ?? 1500.5,
        currency: fields.currency ?? 'SLE',
        ...(fields.failure_reason !== undefined && { failure_reason: fields.failure_reason }),
      },
    }),
    'utf8',
  );
}

/** Content-Type and the signature, in the default `Signature` header. */
export const signed = (body: Buffer, s: string, contentType = 'application/json'): Record<string, string> => ({
  'content-type': contentType,
  signature: sign(s, body),
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
