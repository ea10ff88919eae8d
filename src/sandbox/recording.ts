/**
 * The log of requests received on /v2 (oldest first, bounded), so tests can assert what
 * a client really sent: headers, raw body, and how each request ended.
 */

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The raw request body. */
  body: string;
  receivedAt: string;
  /** The status answered, or how the request ended without an answer. */
  outcome: number | 'reset' | 'hang';
}

export class RequestLog {
  private items: RecordedRequest[] = [];

  constructor(private readonly max = 20_000) {}

  add(r: RecordedRequest): RecordedRequest {
    this.items.push(r);
    if (this.items.length > this.max * 1.25) this.items = this.items.slice(this.items.length - this.max);
    return r;
  }

  all(): RecordedRequest[] {
    const start = Math.max(0, this.items.length - this.max);
    return this.items.slice(start).map((r) => ({ ...r, query: { ...r.query }, headers: { ...r.headers } }));
  }

  clear(): void {
    this.items = [];
  }
}
