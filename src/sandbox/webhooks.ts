/**
 * Webhook delivery (contract.md "Webhooks"): each payout state change is POSTed as
 * `{ id: "evt_…", type, created_at, data: <payout record> }` with
 * `X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * A non-2xx answer or a connection error is retried with exponential backoff
 * (base, 2×base, 4×base, …) up to a bounded number of attempts; every attempt carries
 * the same event id and body, signed afresh with the time of that attempt.
 */
import { randomBytes } from 'node:crypto';
import { signatureHeader } from '../webhooks/signature.js';

export { signatureHeader };
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { toJson } from './json.js';
import { isoFromMicros, nowMicros } from './time.js';

export type EventType = 'payout.pending' | 'payout.successful' | 'payout.failed';

export interface WebhookOptions {
  url: string;
  secret: string;
  /** First retry delay; doubles with each attempt. */
  retryBaseMs: number;
  maxAttempts: number;
  /** Per-attempt time limit. */
  timeoutMs?: number;
}

export interface DeliveryLog {
  eventId: string;
  type: EventType;
  attempt: number;
  outcome: number | 'error';
}

export class WebhookSender {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inflight = new Set<{ destroy(): void }>();
  private closed = false;
  /** Recent attempts (bounded), for tests and the admin route. */
  readonly deliveries: DeliveryLog[] = [];

  constructor(private readonly opts: WebhookOptions) {}

  /** Queues an event about a payout record (already in wire form). */
  send(type: EventType, record: unknown): string {
    const id = 'evt_' + randomBytes(12).toString('hex');
    const body = toJson({ id, type, created_at: isoFromMicros(nowMicros()), data: record });
    this.attempt(id, type, body, 1);
    return id;
  }

  private attempt(id: string, type: EventType, body: string, n: number): void {
    if (this.closed) return;
    const t = Math.floor(Date.now() / 1000);
    let url: URL;
    try {
      url = new URL(this.opts.url);
    } catch {
      this.deliveries.push({ eventId: id, type, attempt: n, outcome: 'error' });
      return;
    }
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const done = (outcome: number | 'error') => {
      if (settled) return;
      settled = true;
      this.inflight.delete(req);
      this.deliveries.push({ eventId: id, type, attempt: n, outcome });
      if (this.deliveries.length > 1000) this.deliveries.splice(0, this.deliveries.length - 1000);
      const ok = typeof outcome === 'number' && outcome >= 200 && outcome < 300;
      if (ok || this.closed || n >= this.opts.maxAttempts) return;
      const timer = setTimeout(
        () => {
          this.timers.delete(timer);
          this.attempt(id, type, body, n + 1);
        },
        this.opts.retryBaseMs * 2 ** (n - 1),
      );
      this.timers.add(timer);
    };
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': 'payctl-sandbox-webhooks',
          'X-Webhook-Signature': signatureHeader(this.opts.secret, t, body),
          'X-Webhook-Event': type,
          'X-Webhook-Attempt': String(n),
        },
        timeout: this.opts.timeoutMs ?? 5000,
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
        res.on('error', () => done('error'));
      },
    );
    this.inflight.add(req);
    req.on('timeout', () => req.destroy(new Error('webhook timed out')));
    req.on('error', () => done('error'));
    req.end(body);
  }

  /** Stops retries and aborts deliveries in flight. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const r of this.inflight) r.destroy();
    this.inflight.clear();
  }
}
