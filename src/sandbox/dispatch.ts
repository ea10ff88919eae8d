/**
 * One HTTP request to the sandbox, from its bytes to its answer: the local-request check
 * (host-check.ts), the body (bounded), then the admin routes (admin.ts), the API under /v2, or a
 * 404. A request on /v2 is recorded, rate-limited and subject to the injected faults (faults.ts)
 * before its route (router.ts, api.ts) answers; the answer is written in the error shape the
 * sandbox is set to (respond.ts) and reported to `onExchange`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleAdmin, isAdminPath, type AdminControl } from './admin.js';
import type { Api } from './api.js';
import { Closed, type Closing } from './closing.js';
import type { Fault } from './faults.js';
import { checkLocalRequest } from './host-check.js';
import type { SandboxOptions } from './options.js';
import type { SandboxParts } from './parts.js';
import type { RecordedRequest } from './recording.js';
import { failure, failureForStatus, rateLimited, render, requestId, type Reply } from './respond.js';
import { isApiPath } from './router.js';
import { isoFromMicros, nowMicros } from './time.js';

const MAX_BODY_BYTES = 1024 * 1024;

export interface DispatchDeps {
  parts: SandboxParts;
  api: Api;
  admin: AdminControl;
  closing: Closing;
  /** The names the sandbox answers to (host-check.ts). */
  hosts: string[];
  onExchange: SandboxOptions['onExchange'];
}

/** What was written: the headers and the body text. */
interface Written {
  headers: Record<string, string | number>;
  body: string;
}

async function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), tooLarge };
}

/** The reply a `status` fault makes: a failure for that status, or the fault's own (HTML) body. */
function statusFaultReply(fault: Fault): Reply {
  const reply = failureForStatus(fault.status!, { ...(fault.code ? { code: fault.code } : {}), ...(fault.message ? { message: fault.message } : {}) });
  if (fault.body !== undefined) {
    delete reply.failure;
    reply.body = fault.body;
    reply.contentType = 'text/html; charset=utf-8';
  }
  return reply;
}

function lowerCased(headers: Record<string, string | number>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = String(v);
  return lower;
}

export class Dispatcher {
  constructor(private readonly d: DispatchDeps) {}

  /** Writes a reply (a failure in the error shape of the moment, or the admin routes' own). */
  private send(res: ServerResponse, answer: Reply, rid: string, admin = false): Written | undefined {
    if (res.destroyed || res.headersSent) return undefined;
    const reply = render(answer, admin ? 'admin' : this.d.parts.shapes.error);
    const headers: Record<string, string | number> = {
      'Content-Type': reply.contentType ?? 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(reply.body),
      'X-Request-Id': rid,
      'Cache-Control': 'no-store',
      ...reply.headers,
    };
    if (this.d.closing.closed) headers.Connection = 'close';
    res.writeHead(reply.status, headers);
    res.end(reply.body);
    return { headers, body: reply.body };
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rid = requestId();
    const method = (req.method ?? 'GET').toUpperCase();
    // A web page must not drive the sandbox (DNS rebinding, cross-site simple requests):
    // refused before the body is read, not recorded, and the connection is not reused.
    const refusal = checkLocalRequest(req, { hosts: this.d.hosts });
    if (refusal) {
      this.send(res, failure(refusal.status, refusal.code, refusal.message, { headers: { Connection: 'close' } }), rid);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const receivedAt = isoFromMicros(nowMicros());
    const { text: body, tooLarge } = await readBody(req);
    if (this.d.closing.closed) {
      req.socket.destroy();
      return;
    }
    if (isAdminPath(path)) {
      this.send(res, tooLarge ? failure(413, 'PAYLOAD_TOO_LARGE', 'Body too large.') : handleAdmin(this.d.admin, method, path, body), rid, true);
      return;
    }
    if (!isApiPath(path)) {
      this.send(res, failure(404, 'NOT_FOUND', `No route for ${method} ${path}; the API lives under /v2.`), rid);
      return;
    }
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    }
    const record = this.d.parts.log.add({ method, path, query, headers, body, receivedAt, outcome: 0 });
    await this.serveApi(new Exchange(this, req, res, rid, record, tooLarge));
  }

  /** A request on /v2: too large, rate-limited, faulted, or answered by its route. */
  private async serveApi(x: Exchange): Promise<void> {
    const { method, path, query, headers, body } = x.record;
    if (x.tooLarge) return x.answer(failure(413, 'PAYLOAD_TOO_LARGE', `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`));
    const wait = this.d.parts.limiter.check();
    if (wait !== undefined) return x.answer(rateLimited(wait));

    const fault = this.d.parts.faults.take(method, path);
    x.faultKind = fault?.kind;
    if (fault?.kind === 'reset-before-commit') return x.reset();
    if (fault?.kind === 'hang') return x.hang();
    if (fault?.kind === 'status') return x.answer(statusFaultReply(fault));

    let reply: Reply;
    try {
      reply = await this.d.api.handle({ method, path, query, headers, body, delayMs: fault?.kind === 'delay' ? (fault.delayMs ?? 0) : 0 });
    } catch (err) {
      if (err instanceof Closed) return x.reset();
      reply = failure(500, 'INTERNAL_ERROR', `Internal error: ${(err as Error).message}`);
    }
    if (fault?.kind === 'reset-after-commit') return x.reset();
    x.answer(reply);
  }

  /** Writes the answer of a recorded request and tells `onExchange` of it. */
  answer(x: Exchange, reply: Reply): void {
    x.record.outcome = reply.status;
    const sent = this.send(x.res, reply, x.rid);
    const onExchange = this.d.onExchange;
    if (!sent || !onExchange) return;
    const { record } = x;
    onExchange(
      { ...record, query: { ...record.query }, headers: { ...record.headers } },
      { status: reply.status, headers: lowerCased(sent.headers), body: sent.body, ...(x.faultKind ? { fault: x.faultKind } : {}) },
    );
  }
}

/** One recorded request on /v2 and how it ends: an answer, a reset connection, or no answer at all. */
class Exchange {
  /** The injected fault that made the answer, if one did. */
  faultKind: string | undefined = undefined;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly rid: string,
    readonly record: RecordedRequest,
    readonly tooLarge: boolean,
  ) {}

  answer(reply: Reply): void {
    this.dispatcher.answer(this, reply);
  }

  reset(): void {
    this.record.outcome = 'reset';
    this.req.socket.destroy();
  }

  hang(): void {
    this.record.outcome = 'hang';
  }
}
