/**
 * Webhook delivery as the service documents it (docs/service.md, "Webhooks"): each payout
 * state change is POSTed as `{event, timestamp, webhook_id, attempt, data}` with
 * `event` one of `transfer.initiated`, `transfer.success`, `transfer.failed` and `data`
 * the payout record, signed with `Signature: <hex HMAC-SHA256(secret, raw body)>`.
 * A non-2xx answer or a connection error is retried with exponential backoff
 * (base, 2×base, 4×base, …) up to a bounded number of attempts. Every attempt carries the
 * same `webhook_id` and `data`, with its own `attempt` number and a fresh `timestamp`,
 * so the body is written and signed afresh each time.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { SIGNATURE_HEADER, sign } from '../service/signature.js';
import { toJson } from './json.js';
import { isoFromMicros, nowMicros } from './time.js';

export type EventType = 'transfer.initiated' | 'transfer.success' | 'transfer.failed';

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
  webhookId: string;
  event: EventType;
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

  /** Queues an event about a payout record (already in wire form); returns its webhook_id. */
  send(event: EventType, data: unknown): string {
    const webhookId = randomUUID();
    this.attempt(webhookId, event, data, 1);
    return webhookId;
  }

  /** The body of attempt `n`, as sent and signed. */
  private body(webhookId: string, event: EventType, data: unknown, n: number): string {
    return toJson({ event, timestamp: isoFromMicros(nowMicros()), webhook_id: webhookId, attempt: n, data });
  }

  private attempt(webhookId: string, event: EventType, data: unknown, n: number): void {
    if (this.closed) return;
    const log = (outcome: number | 'error') => {
      this.deliveries.push({ webhookId, event, attempt: n, outcome });
      if (this.deliveries.length > 1000) this.deliveries.splice(0, this.deliveries.length - 1000);
    };
    let url: URL;
    try {
      url = new URL(this.opts.url);
    } catch {
      log('error');
      return;
    }
    const body = this.body(webhookId, event, data, n);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const done = (outcome: number | 'error') => {
      if (settled) return;
      settled = true;
      this.inflight.delete(req);
      log(outcome);
      const ok = typeof outcome === 'number' && outcome >= 200 && outcome < 300;
      if (ok || this.closed || n >= this.opts.maxAttempts) return;
      const timer = setTimeout(
        () => {
          this.timers.delete(timer);
          this.attempt(webhookId, event, data, n + 1);
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
          [SIGNATURE_HEADER]: sign(this.opts.secret, body),
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
