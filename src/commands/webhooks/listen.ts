/**
 * `payctl webhooks listen`: a local receiver for the service's webhook events. Each
 * event's signature and timestamp are verified, the event is printed (a line per
 * event, or one JSON line with --json) and, with --forward-to, forwarded with its raw
 * body and headers to your app, whose status and body are shown and passed back to the
 * sender. stdout carries accepted events only (verified, or unchecked when there is no
 * secret): a delivery that fails a check is answered 400 naming the check, never
 * forwarded, and reported on stderr (a `{"rejected":…}` JSON line with --json).
 * Duplicate event ids are judged among accepted events only, so a forgery reusing a
 * real id neither is marked duplicate nor marks the real one. Ctrl-C stops it (exit 130).
 *
 * The secret comes from --secret-stdin, else --secret (which warns: it shows in `ps`),
 * else PAYCTL_WEBHOOK_SECRET, else the profile's webhook-secret. Requests a web page
 * could send (a foreign Host or Origin, a body that is not JSON) are refused before
 * they are read (sandbox/host-check.ts). Every string from an event is sanitized
 * before it is printed, in text and in --json.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { untilAborted, write, type Deps } from '../../deps.js';
import { ExitCode, UsageError } from '../../errors.js';
import { resolveSettings } from '../../config/resolve.js';
import { SIGNATURE_HEADER, verifySignature, type Rejection } from '../../webhooks/signature.js';
import { formatAmount } from '../../money/amount.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { boundHostNames, checkLocalRequest } from '../../sandbox/host-check.js';
import { makeStyle, statusColor } from '../../output/style.js';
import { text, utcTime } from '../../output/text.js';

export interface ListenOptions {
  port?: number;
  host?: string;
  path?: string;
  secret?: string;
  secretStdin?: boolean;
  forwardTo?: string;
}

const MAX_BODY = 1024 * 1024;
const NOT_CHECKED = 'signature not checked: no webhook secret (--secret-stdin, PAYCTL_WEBHOOK_SECRET or the profile).';
const ANSWER_TOO_LARGE = "the app's answer was over 1 MiB: its status was passed back to the sender without its body.";
const MAX_REMEMBERED_IDS = 10_000;
/** Headers not passed on when forwarding (hop-by-hop, or set by the forwarder). */
const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

interface EventSummary {
  id?: string;
  type?: string;
  payoutId?: string;
  amount?: number | string;
  currency?: string;
  status?: string;
  failureReason?: string;
}

/** The summary as it may be printed: every string from the event sanitized (escape sequences, controls, bidi). */
function shown(ev: EventSummary | undefined): EventSummary | undefined {
  if (!ev) return undefined;
  const safe = <T>(v: T): T => (typeof v === 'string' ? (sanitizeInline(v) as T) : v);
  return {
    id: safe(ev.id),
    type: safe(ev.type),
    payoutId: safe(ev.payoutId),
    amount: safe(ev.amount),
    currency: safe(ev.currency),
    status: safe(ev.status),
    failureReason: safe(ev.failureReason),
  };
}

function summarize(body: Buffer): EventSummary | undefined {
  try {
    const e = JSON.parse(body.toString('utf8')) as { id?: unknown; type?: unknown; data?: Record<string, unknown> };
    const d = e.data ?? {};
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return {
      id: str(e.id),
      type: str(e.type),
      payoutId: str(d.payout_id),
      amount: typeof d.amount === 'number' || typeof d.amount === 'string' ? d.amount : undefined,
      currency: str(d.currency),
      status: str(d.status),
      failureReason: str(d.failure_reason),
    };
  } catch {
    return undefined;
  }
}

class BodyTooLarge extends Error {}

/**
 * The body, up to MAX_BODY. A larger one is refused as soon as it is known (by its
 * Content-Length, or once it grows past the limit); the rest is read and dropped, so the
 * sender gets the 413 instead of a reset connection.
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const tooLarge = () => {
      req.removeListener('data', onData);
      chunks.length = 0;
      req.resume();
      reject(new BodyTooLarge());
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooLarge();
      else chunks.push(c);
    };
    if (Number(req.headers['content-length']) > MAX_BODY) return tooLarge();
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

type Http = typeof import('../../api/http.js');
type Dispatcher = import('../../api/http.js').Dispatcher;

/** What the app answered a forwarded event (status null: it could not be reached). */
interface Forwarded {
  status: number | null;
  ms: number;
  /** The app's answer, up to MAX_BODY; undefined when it was larger (or there was none). */
  body?: Buffer;
  contentType?: string;
  retryAfter?: string;
  error?: string;
}

/** POSTs the raw body with the sender's headers (less hop-by-hop ones) to the app; never throws. */
async function forwardEvent(http: Http, dispatcher: Dispatcher, to: URL, req: IncomingMessage, body: Buffer): Promise<Forwarded> {
  const started = performance.now();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined && !HOP.has(k.toLowerCase())) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  try {
    // The app's answer, up to MAX_BODY; past it, the rest is dropped (body undefined).
    const r = await http.exchange(dispatcher, to, { method: 'POST', headers, body, maxBytes: MAX_BODY }).answer;
    const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
    return {
      status: r.statusCode,
      ms: Math.round(performance.now() - started),
      body: r.tooLarge ? undefined : r.body,
      contentType: one(r.headers['content-type']),
      retryAfter: one(r.headers['retry-after']),
    };
  } catch (err) {
    return { status: null, ms: Math.round(performance.now() - started), error: (err as Error).message };
  }
}

function checkForwardUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`--forward-to: "${raw}" is not a URL.`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError('--forward-to must be an http:// or https:// URL.');
  return u;
}

/**
 * The webhook secret: --secret-stdin (first line of stdin), else --secret (with a
 * warning: the command line of a process is visible to every user of the machine),
 * else PAYCTL_WEBHOOK_SECRET, else the profile's webhook-secret; undefined when none.
 */
async function webhookSecret(opts: ListenOptions, deps: Deps): Promise<string | undefined> {
  if (opts.secretStdin && opts.secret !== undefined) {
    throw new UsageError('Give the webhook secret one way: --secret-stdin or --secret, not both.');
  }
  if (opts.secretStdin) {
    // Loaded only here: the same first-line reader as `login --api-key-stdin`.
    const { readFirstLine } = await import('../login.js');
    const secret = (await readFirstLine(deps.io.stdin)).trim();
    if (!secret) {
      throw new UsageError('The webhook secret from standard input is empty.', [], 'Pipe it in: printf %s "$SECRET" | payctl webhooks listen --secret-stdin');
    }
    return secret;
  }
  if (opts.secret) {
    deps.log.warn(
      '--secret puts the webhook secret on the command line, where other users of this machine can see it (ps). ' +
        'Use --secret-stdin or PAYCTL_WEBHOOK_SECRET instead.',
    );
    return opts.secret;
  }
  const profile = deps.config().getProfile(deps.globals.profile);
  return resolveSettings(deps.globals, deps.env, profile).webhookSecret.value;
}

export async function run(opts: ListenOptions, deps: Deps): Promise<number> {
  const host = opts.host ?? '127.0.0.1';
  const path = opts.path ?? '/webhooks';
  if (!path.startsWith('/')) throw new UsageError('--path must start with "/".');
  const forwardTo = opts.forwardTo ? checkForwardUrl(opts.forwardTo) : undefined;
  const secret = await webhookSecret(opts, deps);
  const localNames = boundHostNames(host);
  const style = makeStyle(deps.io.color);
  const seen = new Set<string>();
  const http = forwardTo ? await import('../../api/http.js') : undefined;
  const dispatcher = await http?.createDispatcher({ env: deps.env, timeoutMs: deps.globals.timeoutMs });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // A web page must not drive the listener (DNS rebinding, cross-site simple POSTs).
    const refusal = checkLocalRequest(req, { hosts: localNames });
    if (refusal) {
      res.writeHead(refusal.status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ error: refusal.message, code: refusal.code }));
      deps.log.warn(`${refusal.message} Answered ${refusal.status}.`);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://listener');
    if (req.method !== 'POST' || url.pathname !== path) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) return void req.destroy();
      // Answered at once; the connection closes once the sender has finished sending.
      res.writeHead(413, { connection: 'close' }).end();
      return;
    }
    const receivedAt = deps.clock.now();
    const time = utcTime(receivedAt.toISOString()).replace(/ UTC$/, '');
    const ev = summarize(body);
    const out = shown(ev);
    const sigHeader = req.headers[SIGNATURE_HEADER];
    const verification = secret ? verifySignature(secret, Array.isArray(sigHeader) ? sigHeader[0] : sigHeader, body, Math.floor(receivedAt.getTime() / 1000)) : undefined;

    if (verification && !verification.ok) {
      // Refused: never forwarded, never on stdout, never remembered as seen.
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: verification.message, reason: verification.reason }));
      await reportRejected(verification, out, receivedAt, time);
      return;
    }

    // Accepted (verified, or unchecked without a secret): only these are judged duplicates.
    const duplicate = ev?.id !== undefined && seen.has(ev.id);
    if (ev?.id) {
      seen.add(ev.id);
      // Remember a bounded number of ids: a long-running listener must not grow without end.
      if (seen.size > MAX_REMEMBERED_IDS) seen.delete(seen.values().next().value!);
    }

    let status = 200;
    let forward: Forwarded | undefined;
    if (forwardTo && http && dispatcher) {
      forward = await forwardEvent(http, dispatcher, forwardTo, req, body);
      if (forward.status === null) {
        status = 502;
        res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'could not forward the event to the app' }));
      } else {
        // The app's own answer goes back to the sender: its status, body and content type.
        status = forward.status;
        const headers: Record<string, string> = {};
        if (forward.contentType) headers['content-type'] = forward.contentType;
        if (forward.retryAfter) headers['retry-after'] = forward.retryAfter;
        res.writeHead(status, headers).end(forward.body ?? '');
      }
    } else {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true }));
    }

    if (deps.globals.json) {
      await write(
        deps.io.stdout,
        JSON.stringify({
          received_at: receivedAt.toISOString(),
          id: out?.id ?? null,
          type: out?.type ?? null,
          payout_id: out?.payoutId ?? null,
          amount: out?.amount ?? null,
          currency: out?.currency ?? null,
          status: out?.status ?? null,
          failure_reason: out?.failureReason ?? null,
          verified: verification ? true : null,
          duplicate,
          forward_status: forward?.status ?? null,
          answered: status,
        }) + '\n',
      );
      if (!verification) deps.log.warn(NOT_CHECKED);
      if (forward?.body === undefined && forward?.status != null) deps.log.warn(ANSWER_TOO_LARGE);
      return;
    }
    const amount = out?.amount !== undefined && out.currency ? `${text(formatAmount(out.amount, out.currency))} ${text(out.currency)}` : '';
    const outcome = out?.status ? statusColor(style, text(out.status)) + (out.failureReason ? `: ${text(out.failureReason)}` : '') : '';
    const line = [
      style.dim(time),
      style.bold(text(out?.type ?? '(not JSON)')),
      text(out?.payoutId ?? ''),
      amount,
      outcome,
      style.dim(text(out?.id ?? '')),
      duplicate ? style.yellow('(duplicate)') : '',
    ]
      .filter(Boolean)
      .join('  ');
    await write(deps.io.stdout, line + '\n');
    if (!verification) deps.log.warn(NOT_CHECKED);
    if (forward) {
      deps.log.info(
        forward.status === null
          ? `  → ${forwardTo?.href} failed: ${sanitizeInline(forward.error ?? '')} (answered 502)`
          : `  → ${forwardTo?.href} ${forward.status} (${forward.ms} ms)`,
      );
      if (forward.status !== null && forward.body === undefined) deps.log.warn(ANSWER_TOO_LARGE);
    }
  };

  /** A refused delivery on stderr: a warning naming the failed check, or one `{"rejected":…}` line with --json. */
  const reportRejected = async (r: Rejection, out: EventSummary | undefined, receivedAt: Date, time: string) => {
    if (deps.globals.json) {
      const rejected = {
        reason: r.reason,
        message: r.message,
        id: out?.id ?? null,
        type: out?.type ?? null,
        payout_id: out?.payoutId ?? null,
        received_at: receivedAt.toISOString(),
        answered: 400,
      };
      await write(deps.io.stderr, JSON.stringify({ rejected }) + '\n');
      return;
    }
    const which = out?.id ? `event ${text(out.id)}` : 'an event';
    deps.log.warn(`${time}  rejected ${which}: ${r.message}; answered 400, not forwarded. ${r.hint}`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500).end();
      deps.log.warn(`failed to handle an event: ${sanitizeInline((err as Error).message)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new UsageError(`Port ${opts.port} on ${host} is already in use.`, [], 'Choose another with --port.') : err),
    );
    server.listen(opts.port ?? 4242, host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  deps.log.info(`Ready: listening for webhook events on http://${shownHost}:${port}${path}` + (forwardTo ? `, forwarding to ${forwardTo.href}` : ''));
  if (!secret) {
    deps.log.warn('no webhook secret (--secret-stdin, PAYCTL_WEBHOOK_SECRET, or `payctl config set webhook-secret …`): signatures will not be checked.');
  }
  deps.log.info('Press Ctrl-C to stop.');

  await untilAborted(deps.signal);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await dispatcher?.close();
  deps.log.info('Stopped listening.');
  // Ctrl-C is how a listener ends: 130 (interrupted), as for every other command.
  return ExitCode.interrupted;
}
