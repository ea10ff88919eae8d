/**
 * `payctl webhooks listen`: a local receiver for the service's webhook events
 * (docs/service.md, "Webhooks"): `{event, timestamp, webhook_id, attempt, data}` with
 * `data` a payout record. Each event's signature (hex HMAC-SHA256 of the raw body, in
 * the `Signature` header unless --signature-header or the profile's
 * webhook-signature-header names another) and its payload `timestamp` (within
 * --tolerance seconds, 300 by default) are verified; the event is printed (a line per
 * event, or one JSON line with --json) and, with --forward-to, forwarded with its raw
 * body and headers to your app, whose status and body are shown and passed back to the
 * sender. stdout carries accepted events only (verified, or unchecked when there is no
 * secret): a delivery that fails a check is answered 400 naming the check, never
 * forwarded, and reported on stderr (a `{"rejected":…}` JSON line with --json).
 * A `webhook_id` seen before is a retry of the same event (or a replay of it within the
 * timestamp window): it is printed as a duplicate with its attempt. One the app has
 * already answered with a 2xx is not forwarded again (the app would act twice): it is
 * answered with that 2xx at once. One the app has not yet taken (an error, or no answer)
 * is forwarded again: the sender retries for a reason. Duplicates are judged among
 * accepted events only, so a forgery reusing a real id neither is marked duplicate nor
 * marks the real one. Ctrl-C stops it (exit 130).
 *
 * The listener binds 127.0.0.1 by default; any other --host (0.0.0.0 above all) is
 * warned about, since other machines can then reach it. An address it cannot listen on
 * (not on this machine, unresolvable, in use) is a plain usage error naming the cause.
 * A password in the --forward-to URL is sent to the app as Basic auth and shown as `***`
 * wherever the URL is printed.
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
import type { Profile } from '../../config/profile.js';
import { money, normalizeStatus } from '../../service/schemas.js';
import { SIGNATURE_HEADER, TOLERANCE_SECONDS, checkTimestamp, isHeaderName, verifySignature, type Rejection } from '../../service/signature.js';
import { formatAmount, toDecimal } from '../../money/amount.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { boundHostNames, checkLocalRequest } from '../../sandbox/host-check.js';
import { makeStyle, statusColor, type Style } from '../../output/style.js';
import { renderCards, renderLine, type Column } from '../../output/table.js';
import { text, utcTime } from '../../output/text.js';
export interface ListenOptions {
  port?: number;
  host?: string;
  path?: string;
  secret?: string;
  secretStdin?: boolean;
  /** The header that carries the signature (default: the profile's webhook-signature-header, else `Signature`). */
  signatureHeader?: string;
  /** Seconds an event's timestamp may be from this machine's clock (default 300). */
  tolerance?: number;
  forwardTo?: string;
}

/**
 * An event's line: its cells in this order, the empty ones left out, two spaces apart. At a
 * terminal the line fits it: the failure reason and the duplicate mark are cut with …; then
 * the webhook id, the time, the event name and the amount are left out, in that order. The
 * transaction id is never cut (at 80 columns it fits with the event, the amount and the
 * status); when even it and the status cannot fit, the event is a card.
 */
const EVENT_COLUMNS: Column[] = [
  { header: 'RECEIVED (UTC)', giveWay: { step: 2 } },
  { header: 'EVENT', giveWay: { step: 3 } },
  { header: 'TRANSACTION' },
  { header: 'AMOUNT', giveWay: { step: 4 } },
  { header: 'STATUS', minWidth: 10 },
  { header: 'WEBHOOK ID', giveWay: { step: 1 } },
  { header: 'ATTEMPT', minWidth: 11 },
];

/** An event for people: one line (EVENT_COLUMNS), or at a terminal too narrow for it a card and a blank line. */
function eventLine(cells: string[], style: Style, width: number | undefined): string {
  const line = renderLine(EVENT_COLUMNS, cells, style, width);
  if (line !== undefined) return line + '\n';
  const kept = EVENT_COLUMNS.map((_, i) => i).filter((i) => cells[i] !== '');
  return (
    renderCards(
      kept.map((i) => EVENT_COLUMNS[i]!),
      [kept.map((i) => cells[i]!)],
      style,
      width,
    ) + '\n'
  );
}

const MAX_BODY = 1024 * 1024;
const NOT_CHECKED = 'signature not checked: no webhook secret (--secret-stdin, PAYCTL_WEBHOOK_SECRET or the profile).';
const ANSWER_TOO_LARGE = "the app's answer was over 1 MiB: its status was passed back to the sender without its body.";
const MAX_REMEMBERED_IDS = 10_000;
/** Why an address cannot be listened on, by error code: said plainly (exit 2), never "a bug". */
const LISTEN_FAILURES: Record<string, string> = {
  EADDRNOTAVAIL: "the address is not one of this machine's",
  ENOTFOUND: 'the name does not resolve to an address',
  EAI_AGAIN: 'the name could not be resolved now',
  EAI_FAIL: 'the name could not be resolved',
  EACCES: 'not allowed to listen there (ports below 1024 need privileges)',
  EAFNOSUPPORT: 'this machine does not support that kind of address',
  EINVAL: 'not an address that can be listened on',
};
/** Headers not passed on when forwarding (hop-by-hop, or set by the forwarder). */
const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

/** What is shown of an event: every string sanitized (escape sequences, controls, bidi). */
interface EventSummary {
  webhookId?: string;
  event?: string;
  attempt?: number;
  timestamp?: string;
  transactionId?: string;
  /** An exact plain decimal ("1000.00") when the amount reads as one; else as it came. */
  amount?: string;
  currency?: string;
  /** The status word as the service wrote it ("Pending"); shown normalized. */
  status?: string;
  failureReason?: string;
}

/** A readable event: its parsed body and what is shown of it. */
interface ParsedEvent {
  body: Record<string, unknown>;
  shown: EventSummary;
}

/**
 * An amount as an exact plain decimal ("1,000.00" -> "1000.00", 10 -> "10"), read by the
 * schema layer's `money` (numbers, plain or grouped strings); undefined for anything else.
 */
function exactAmount(value: string | number): string | undefined {
  const r = money.safeParse(typeof value === 'string' ? value.trim() : value);
  return r.success ? toDecimal(r.data) : undefined;
}

function parseEvent(raw: Buffer): ParsedEvent | undefined {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const e = body as Record<string, unknown>;
  const d = typeof e.data === 'object' && e.data !== null ? (e.data as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === 'string' ? sanitizeInline(v) : undefined);
  const amount = typeof d.amount === 'number' || typeof d.amount === 'string' ? d.amount : undefined;
  const shownAmount = typeof amount === 'string' ? sanitizeInline(amount) : amount;
  return {
    body: e,
    shown: {
      webhookId: str(e.webhook_id),
      event: str(e.event),
      attempt: Number.isSafeInteger(e.attempt) ? (e.attempt as number) : undefined,
      timestamp: str(e.timestamp),
      transactionId: str(d.transaction_id),
      amount: shownAmount === undefined ? undefined : (exactAmount(shownAmount) ?? String(shownAmount)),
      currency: str(d.currency),
      status: str(d.status),
      failureReason: str(d.failure_reason) || str(d.reason) || undefined,
    },
  };
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
  // Credentials in the URL are for the app (as curl sends them): Basic auth, not the path.
  if (to.username || to.password) {
    for (const k of Object.keys(headers)) if (k.toLowerCase() === 'authorization') delete headers[k];
    const user = `${decodeURIComponent(to.username)}:${decodeURIComponent(to.password)}`;
    headers.authorization = `Basic ${Buffer.from(user, 'utf8').toString('base64')}`;
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

/** The URL as printed: its password (if any) as `***`. */
export function shownUrl(u: URL): string {
  if (!u.password) return u.href;
  const shown = new URL(u.href);
  shown.password = '***';
  return shown.href;
}

/** Text that may quote the URL as typed, its `user:password@` part masked (for what is not a URL yet). */
function maskUserinfo(raw: string): string {
  return raw.replace(/(\/\/[^/?#@:]*):[^/?#@]*@/g, '$1:***@');
}

function checkForwardUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`--forward-to: "${sanitizeInline(maskUserinfo(raw))}" is not a URL.`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError('--forward-to must be an http:// or https:// URL.');
  return u;
}

/**
 * The webhook secret: --secret-stdin (first line of stdin), else --secret (with a
 * warning: the command line of a process is visible to every user of the machine),
 * else PAYCTL_WEBHOOK_SECRET, else the profile's webhook-secret; undefined when none.
 */
async function webhookSecret(opts: ListenOptions, deps: Deps, profile: () => Profile | undefined): Promise<string | undefined> {
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
  return resolveSettings(deps.globals, deps.env, profile()).webhookSecret.value;
}

/** True for an address only this machine can reach: 127.x.y.z, ::1, localhost. */
function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The listen failure as a usage error naming the cause (code), or the error itself when it is not one of those. */
function listenFailure(err: NodeJS.ErrnoException, host: string, port: number | undefined): Error {
  const shownHost = sanitizeInline(host);
  if (err.code === 'EADDRINUSE') return new UsageError(`Port ${port} on ${shownHost} is already in use.`, [], 'Choose another with --port.');
  const why = err.code ? LISTEN_FAILURES[err.code] : undefined;
  if (!why) return err;
  return new UsageError(
    `Cannot listen on ${shownHost} port ${port}: ${why} (${err.code}).`,
    [],
    'Use --host 127.0.0.1 (the default), or an address of this machine (see `ip addr`).',
  );
}

/** The signature header: --signature-header, else the profile's webhook-signature-header, else `Signature`. */
function signatureHeaderName(opts: ListenOptions, deps: Deps, profile: () => Profile | undefined): string {
  if (opts.signatureHeader !== undefined) {
    if (!isHeaderName(opts.signatureHeader)) throw new UsageError(`--signature-header: "${sanitizeInline(opts.signatureHeader)}" is not an HTTP header name.`);
    return opts.signatureHeader;
  }
  const configured = resolveSettings(deps.globals, deps.env, profile()).webhookSignatureHeader.value;
  if (configured === undefined) return SIGNATURE_HEADER;
  if (!isHeaderName(configured)) {
    throw new UsageError(
      `The profile's webhook-signature-header "${sanitizeInline(configured)}" is not an HTTP header name.`,
      [],
      'Fix it with: payctl config set webhook-signature-header NAME',
    );
  }
  return configured;
}

export async function run(opts: ListenOptions, deps: Deps): Promise<number> {
  const host = opts.host ?? '127.0.0.1';
  const path = opts.path ?? '/webhooks';
  const tolerance = opts.tolerance ?? TOLERANCE_SECONDS;
  if (!path.startsWith('/')) throw new UsageError('--path must start with "/".');
  const forwardTo = opts.forwardTo ? checkForwardUrl(opts.forwardTo) : undefined;
  let profileRead: { p: Profile | undefined } | undefined;
  const profile = () => (profileRead ??= { p: deps.config().getProfile(deps.globals.profile) }).p;
  const headerName = signatureHeaderName(opts, deps, profile);
  const secret = await webhookSecret(opts, deps, profile);
  const localNames = boundHostNames(host);
  const style = makeStyle(deps.io.color);
  const seen = new Set<string>();
  /** Ids the app answered with a 2xx, and that status: never forwarded again. */
  const taken = new Map<string, number>();
  /** Ids being forwarded now: a second delivery of one waits for the first's answer. */
  const inFlight = new Map<string, Promise<void>>();
  const forwardShown = forwardTo ? shownUrl(forwardTo) : undefined;
  /** Any text that might quote the URL's password (an error from the connection): masked. */
  const masked = (t: string) => (forwardTo?.password ? t.split(forwardTo.password).join('***') : t);
  const http = forwardTo ? await import('../../api/http.js') : undefined;
  const dispatcher = await http?.createDispatcher({ env: deps.env, timeoutMs: deps.globals.timeoutMs });

  /** Signature over the raw bytes first (a forgery is named as such), then the payload's timestamp. */
  const verify = (req: IncomingMessage, raw: Buffer, ev: ParsedEvent | undefined, nowMs: number): { ok: true } | Rejection => {
    const given = req.headers[headerName.toLowerCase()];
    const signature = verifySignature(secret!, Array.isArray(given) ? given[0] : given, raw, headerName);
    if (!signature.ok) return signature;
    return checkTimestamp(ev?.body.timestamp, nowMs, tolerance);
  };

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
    const ev = parseEvent(body);
    const out = ev?.shown;
    const verification = secret ? verify(req, body, ev, receivedAt.getTime()) : undefined;

    if (verification && !verification.ok) {
      // Refused: never forwarded, never on stdout, never remembered as seen.
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: verification.message, reason: verification.reason }));
      await reportRejected(verification, out, receivedAt, time);
      return;
    }

    // Accepted (verified, or unchecked without a secret): only these are judged duplicates.
    const id = typeof ev?.body.webhook_id === 'string' ? ev.body.webhook_id : undefined;
    const duplicate = id !== undefined && seen.has(id);
    if (id !== undefined) {
      seen.add(id);
      // Remember a bounded number of ids: a long-running listener must not grow without end.
      if (seen.size > MAX_REMEMBERED_IDS) seen.delete(seen.values().next().value!);
    }

    let status = 200;
    let forward: Forwarded | undefined;
    // One forward of an id at a time: a replay sent alongside the original waits for the
    // app's answer to it, then is judged by that answer.
    let release: (() => void) | undefined;
    if (id !== undefined && forwardTo) {
      while (inFlight.has(id)) await inFlight.get(id);
      inFlight.set(id, new Promise<void>((r) => (release = r)));
    }
    const takenStatus = id !== undefined ? taken.get(id) : undefined;
    try {
      if (takenStatus !== undefined) {
        // The app took this event already: a replay or a retry after a lost answer is not
        // forwarded again; the sender gets the app's 2xx, so it stops retrying.
        status = takenStatus;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true, duplicate: true }));
      } else if (forwardTo && http && dispatcher) {
        deps.log.verbose(`  → POST ${forwardShown} (${body.length} bytes)`);
        forward = await forwardEvent(http, dispatcher, forwardTo, req, body);
        if (forward.status === null) {
          status = 502;
          res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'could not forward the event to the app' }));
        } else {
          // The app's own answer goes back to the sender: its status, body and content type.
          status = forward.status;
          if (id !== undefined && status >= 200 && status < 300) {
            taken.set(id, status);
            if (taken.size > MAX_REMEMBERED_IDS) taken.delete(taken.keys().next().value!);
          }
          const headers: Record<string, string> = {};
          if (forward.contentType) headers['content-type'] = forward.contentType;
          if (forward.retryAfter) headers['retry-after'] = forward.retryAfter;
          res.writeHead(status, headers).end(forward.body ?? '');
        }
      } else {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true }));
      }
    } finally {
      if (release) {
        inFlight.delete(id!);
        release();
      }
    }

    const shownStatus = out?.status !== undefined ? normalizeStatus(out.status) : undefined;
    if (deps.globals.json) {
      await write(
        deps.io.stdout,
        JSON.stringify({
          received_at: receivedAt.toISOString(),
          webhook_id: out?.webhookId ?? null,
          event: out?.event ?? null,
          attempt: out?.attempt ?? null,
          timestamp: out?.timestamp ?? null,
          transaction_id: out?.transactionId ?? null,
          amount: out?.amount ?? null,
          currency: out?.currency ?? null,
          status: shownStatus ?? null,
          status_raw: out?.status ?? null,
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
    const amount = out?.amount === undefined ? '' : out.currency ? `${text(formatAmount(out.amount, out.currency))} ${text(out.currency)}` : text(out.amount);
    const outcome = shownStatus ? statusColor(style, text(shownStatus)) + (out?.failureReason ? `: ${text(out.failureReason)}` : '') : '';
    const attempt = duplicate
      ? style.yellow(`(duplicate, attempt ${out?.attempt ?? '?'})`)
      : out?.attempt !== undefined && out.attempt > 1
        ? `(attempt ${out.attempt})`
        : '';
    await write(
      deps.io.stdout,
      eventLine(
        [
          style.dim(time),
          style.bold(text(ev ? (out?.event ?? '(no event)') : '(not JSON)')),
          text(out?.transactionId ?? ''),
          amount,
          outcome,
          style.dim(text(out?.webhookId ?? '')),
          attempt,
        ],
        style,
        deps.io.stdoutColumns,
      ),
    );
    if (!verification) deps.log.warn(NOT_CHECKED);
    if (takenStatus !== undefined && forwardTo) deps.log.info(`  → not forwarded again: the app answered ${takenStatus} to this event before`);
    if (forward) {
      deps.log.info(
        forward.status === null
          ? `  → ${forwardShown} failed: ${masked(sanitizeInline(forward.error ?? ''))} (answered 502)`
          : `  → ${forwardShown} ${forward.status} (${forward.ms} ms)`,
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
        webhook_id: out?.webhookId ?? null,
        event: out?.event ?? null,
        attempt: out?.attempt ?? null,
        transaction_id: out?.transactionId ?? null,
        received_at: receivedAt.toISOString(),
        answered: 400,
      };
      await write(deps.io.stderr, JSON.stringify({ rejected }) + '\n');
      return;
    }
    const which = out?.webhookId ? `event ${text(out.webhookId)}` : 'an event';
    deps.log.warn(`${time}  rejected ${which}: ${r.message}; answered 400, not forwarded. ${r.hint}`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500).end();
      deps.log.warn(`failed to handle an event: ${sanitizeInline((err as Error).message)}`);
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(listenFailure(err, host, opts.port ?? 4242)));
      server.listen(opts.port ?? 4242, host, () => resolve());
    });
  } catch (err) {
    await dispatcher?.close();
    throw err;
  }
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  deps.log.info(`Ready: listening for webhook events on http://${sanitizeInline(shownHost)}:${port}${path}` + (forwardShown ? `, forwarding to ${forwardShown}` : ''));
  if (!isLoopback(host)) {
    const every = host === '0.0.0.0' || host === '::' || host === '[::]';
    deps.log.warn(
      (every
        ? `--host ${sanitizeInline(host)} listens on every interface: every interface can reach the listener, so other machines on your networks can send it events`
        : `--host ${sanitizeInline(host)} is not a loopback address: other machines that can reach it can send the listener events`) +
        (secret ? '.' : ', and without a webhook secret nothing is checked.') +
        ' Use --host 127.0.0.1 (the default) to keep it to this machine.',
    );
  }
  if (!secret) {
    deps.log.warn('no webhook secret (--secret-stdin, PAYCTL_WEBHOOK_SECRET, or `payctl config set webhook-secret …`): signatures will not be checked.');
  } else if (headerName !== SIGNATURE_HEADER || tolerance !== TOLERANCE_SECONDS) {
    deps.log.info(`Signatures from the ${headerName} header; timestamps within ${tolerance} s.`);
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
