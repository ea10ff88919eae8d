/**
 * The webhook listener behind `payctl webhooks listen` (docs/service.md, "Webhooks";
 * docs/architecture.md, "Where each rule lives": webhook signatures and replays): an HTTP
 * server that takes each delivery through the same steps. Requests a web page could send (a
 * foreign Host or Origin, a body that is not JSON) are refused before they are read
 * (sandbox/host-check.ts); a body over 1 MiB is answered 413. With a secret, the signature over
 * the raw bytes (a forgery is named as such) and then the payload's timestamp are verified; a
 * delivery that fails is answered 400 naming the check, never forwarded, never remembered, and
 * reported on stderr (print.ts). An accepted one is judged a duplicate, new, or an event of its
 * own under a known webhook_id (dedupe.ts),
 * then forwarded to the app and printed (forward.ts; the sender's answer, within --timeout, and
 * the app's that comes later: relay.ts); without an app it is printed, and answered
 * 200 once stdout has taken its line. stdout refusing a line (a full disk) stops the listener,
 * the event answered 503 when stdout was its only destination, so the sender sends it again.
 *
 * It binds 127.0.0.1 unless told otherwise; any other host is warned about, since other
 * machines can then reach it; a blank one is refused (it would mean every interface), and so
 * is a --forward-to that is the listener's own port (it would forward to itself). An
 * address it cannot listen on is a usage error naming the cause. A request it refuses (a
 * wrong path or method, 404; a body too large, 413) is one sanitized warning on stderr, so a
 * mistyped webhook URL is seen, not taken for "no events". Idle connections are closed, so are
 * requests that do not arrive whole in time, and
 * connections it cannot take are said on stderr (connections.ts). The webhook secret (and a
 * --forward-to password) is masked as `***` in everything it writes, whatever the secret's
 * source (docs/architecture.md, "Where each rule lives": secrets masked in everything printed).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { UsageError } from '../errors.js';
import type { Clock } from '../clock.js';
import type { IO, Log } from '../output/io.js';
import { SIGNATURE_HEADER, TOLERANCE_SECONDS, checkTimestamp, notAnEvent, verifySignature, type Rejection } from '../service/signature.js';
import { sanitizeInline } from '../output/sanitize.js';
import type { SecretMask } from '../output/secrets.js';
import { makeStyle } from '../output/style.js';
import { boundHostNames, checkLocalRequest } from '../sandbox/host-check.js';
import { checkListenHost, checkListenPath, checkNotItself, isEveryInterface, isLoopback, urlPath } from './addresses.js';
import { IDLE_MS, limitConnections, MAX_CONNECTIONS, requestOptions, type ConnectionLimits } from './connections.js';
import { Deliveries } from './dedupe.js';
import { MAX_BODY, parseEvent, webhookIdOf, type ParsedEvent } from './event.js';
import { listenerMask, maskedDeps, maskedEvent } from './mask.js';
import { FORWARD_LIMIT_MS, Forwarder, shownUrl } from './forward.js';
import { Relay, type HeldLimit } from './relay.js';
import { printAccepted, reportRejected, StdoutWatch, type PrintTo } from './print.js';

/** What the listener is told by its command: where to listen, how to check, where to forward. */
export interface ListenerSettings {
  host: string;
  port: number;
  /** The path events are posted to ("/webhooks"): one `urlPath` leaves unchanged (checkListenPath). */
  path: string;
  /** The webhook secret; undefined: nothing is checked (and that is said). */
  secret: string | undefined;
  /** The header that carries the signature. */
  headerName: string;
  /** Seconds an event's timestamp may be from this machine's clock. */
  tolerance: number;
  forwardTo: URL | undefined;
  /** The command that saves a webhook secret in the profile (`payctl config set webhook-secret --stdin`), said when there is none. */
  saveSecret?: string;
  /** The command that names the signature header in the profile (`payctl config set webhook-signature-header NAME`), said when an event has none. */
  nameHeader?: string;
  /** How long a connection may be idle and how many may be open (connections.ts); IDLE_MS and MAX_CONNECTIONS unless a test says. */
  connections?: ConnectionLimits;
  /** How long a forward may wait for the app's answer (forward.ts); FORWARD_LIMIT_MS unless a test says, and never less than --timeout. */
  forwardLimitMs?: number;
  /** How much may be held past --timeout for a late answer (relay.ts); HELD_LIMIT unless a test says. */
  heldLimit?: HeldLimit;
}

/** What the listener needs of the command's Deps. */
export interface ListenerDeps {
  io: IO;
  log: Log;
  clock: Pick<Clock, 'now'>;
  env: NodeJS.ProcessEnv;
  /** --json: one JSON line per event. */
  json: boolean;
  /** --timeout: how long a sender waits for the app's answer (the forward itself may go on, relay.ts). */
  timeoutMs: number;
}

/** A listener that is listening: its port (the one picked, for --port 0), and how to stop it. */
export interface RunningListener {
  port: number;
  /** Resolves with stdout's error when it refused an event's line (the event was answered 503 when not forwarded). */
  failed: Promise<Error>;
  /** Stops listening, ends forwards still waiting, says what they leave; idempotent: every call resolves when the first has. */
  close(): Promise<void>;
}

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

const JSON_TYPE = { 'content-type': 'application/json' };

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

/** A refused request's target for a log line: its path (no query), sanitized and cut to 120 characters. */
function shownTarget(req: IncomingMessage): string {
  const path = sanitizeInline((req.url ?? '/').split(/[?#]/)[0] ?? '');
  return path.length > 120 ? `${path.slice(0, 119)}…` : path;
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

/** The steps every delivery goes through, with what the listener remembers between them. */
class Listener {
  private readonly localNames: string[];
  private readonly deliveries = new Deliveries();
  private readonly stdout: StdoutWatch;
  private readonly relay: Relay | undefined;

  constructor(
    private readonly s: ListenerSettings,
    private readonly d: ListenerDeps,
    private readonly print: PrintTo,
    private readonly forwarder: Forwarder | undefined,
    private readonly mask: SecretMask,
    /** Told once stdout refused an event's line: the listener is to stop. */
    private readonly failed: (err: Error) => void,
  ) {
    this.localNames = boundHostNames(s.host);
    this.stdout = new StdoutWatch(d.io.stdout);
    this.relay = forwarder ? new Relay(this.deliveries, forwarder, d.log, d.timeoutMs, (t) => mask.apply(t), s.heldLimit) : undefined;
  }

  /** When stopping: how many forwards were ended at --timeout past the bound of what is held (relay.ts). */
  endedNote(): string | undefined {
    return this.relay?.endedNote();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.admitted(req, res)) return;
    const body = await this.readOrRefuse(req, res);
    if (body === undefined) return;
    const receivedAt = this.d.clock.now();
    const ev = maskedEvent(
      parseEvent(body, (t) => this.mask.apply(t)),
      this.mask,
    );
    const verification = this.s.secret ? this.verify(req, body, ev, receivedAt.getTime()) : undefined;
    if (verification && !verification.ok) {
      // Refused: never forwarded, never on stdout, never remembered as seen.
      res.writeHead(400, JSON_TYPE).end(JSON.stringify({ error: verification.message, reason: verification.reason }));
      await reportRejected(this.print, verification, { receivedAt, ev });
      return;
    }
    // Accepted (verified, or unchecked without a secret): only these are judged duplicates.
    const id = webhookIdOf(ev);
    const accepted = { receivedAt, ev, verified: verification !== undefined };
    if (!this.forwarder) {
      // stdout is where the event goes: the sender is told it arrived only once stdout took it.
      // When stdout refuses it (a full disk), the sender is answered 503, so it sends the event
      // again later, and the listener stops: it cannot pass on what it is sent.
      const { duplicate, differs } = this.deliveries.accept(id, ev);
      await printAccepted(this.print, { ...accepted, duplicate, differs, answered: 200 });
      const fault = await this.stdout.taken();
      if (fault) {
        res.writeHead(503, { ...JSON_TYPE, connection: 'close' }).end(JSON.stringify({ error: 'the listener could not write the event to its output' }));
        this.failed(fault);
        return;
      }
      res.writeHead(200, JSON_TYPE).end(JSON.stringify({ received: true }));
      return;
    }
    const { duplicate, differs, key } = this.deliveries.accept(id, ev);
    const { notes, late, ...answer } = await this.relay!.answer(req, res, { id, key, body });
    await printAccepted(this.print, { ...accepted, duplicate, differs, ...answer });
    for (const n of notes) this.d.log.warn(n);
    // The app's answer after the sender's (past --timeout), said once it comes.
    void late?.then((n) => n && this.d.log.warn(n));
    const fault = await this.stdout.taken();
    if (fault) this.failed(fault);
  }

  /** A request for this listener: from this machine's pages only (no DNS rebinding, no cross-site POST), a POST to its path. */
  private admitted(req: IncomingMessage, res: ServerResponse): boolean {
    const refusal = checkLocalRequest(req, { hosts: this.localNames });
    if (refusal) {
      res.writeHead(refusal.status, { ...JSON_TYPE, connection: 'close' }).end(JSON.stringify({ error: refusal.message, code: refusal.code }));
      this.d.log.warn(`${refusal.message} Answered ${refusal.status}.`);
      return false;
    }
    // Like with like: the request's path as URL parsing leaves it, and a --path it leaves unchanged.
    const path = urlPath(req.url ?? '/');
    if (req.method !== 'POST' || path !== this.s.path) {
      res.writeHead(404, JSON_TYPE).end('{"error":"not found"}');
      this.refused(req, path !== this.s.path ? `not the listening path (404); events are taken at POST ${this.s.path}` : 'events are taken with POST only (404)');
      return false;
    }
    return true;
  }

  /** One sanitized warning on stderr per refused request: a mistyped webhook URL must not look like "no events". */
  private refused(req: IncomingMessage, why: string): void {
    this.d.log.warn(`refused ${sanitizeInline(req.method ?? '?').slice(0, 16)} ${shownTarget(req)}: ${why}.`);
  }

  /** The body; undefined when it was answered 413 (too large) or the connection failed. */
  private async readOrRefuse(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
    try {
      return await readBody(req);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) return void req.destroy();
      // Answered at once; the connection closes once the sender has finished sending.
      res.writeHead(413, { connection: 'close' }).end();
      this.refused(req, 'the body is over 1 MiB (413)');
      return undefined;
    }
  }

  /** Signature over the raw bytes first (a forgery is named as such), then the payload's timestamp. */
  private verify(req: IncomingMessage, raw: Buffer, ev: ParsedEvent | undefined, nowMs: number): { ok: true } | Rejection {
    const given = req.headers[this.s.headerName.toLowerCase()];
    const signature = verifySignature(this.s.secret!, Array.isArray(given) ? given[0] : given, raw, this.s.headerName, this.s.nameHeader);
    if (!signature.ok) return signature;
    if (!ev) return notAnEvent();
    return checkTimestamp(ev.body.timestamp, nowMs, this.s.tolerance);
  }
}

/** The start-up lines: where it listens and forwards, and warnings for what others could reach or send. */
function announce(s: ListenerSettings, log: Log, port: number, forwarder: Forwarder | undefined): void {
  // A blank host never gets here (startListener refuses it); were it to, it is named as every interface, never as "http://:port".
  const host = s.host.trim() === '' ? '0.0.0.0' : s.host;
  const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  log.info(`Ready: listening for webhook events on http://${sanitizeInline(shownHost)}:${port}${s.path}` + (forwarder ? `, forwarding to ${forwarder.shown}` : ''));
  if (!isLoopback(host)) {
    log.warn(
      (isEveryInterface(host)
        ? `--host ${sanitizeInline(host)} listens on every interface: every interface can reach the listener, so other machines on your networks can send it events`
        : `--host ${sanitizeInline(host)} is not a loopback address: other machines that can reach it can send the listener events`) +
        (s.secret ? '.' : ', and without a webhook secret nothing is checked.') +
        ' Use --host 127.0.0.1 (the default) to keep it to this machine.',
    );
  }
  if (!s.secret) {
    // Each way keeps the secret off the command line (config set would warn when given it there).
    const save = s.saveSecret ?? 'payctl config set webhook-secret --stdin';
    log.warn(
      `no webhook secret (--secret-stdin, PAYCTL_WEBHOOK_SECRET, or save it with \`printf '%s\\n' "$SECRET" | ${save}\`): signatures will not be checked, ` +
        `so every event, a forged one too, is printed and ${forwarder ? 'forwarded to the app' : 'answered 200'} ("verified": null with --json).`,
    );
  } else if (s.headerName !== SIGNATURE_HEADER || s.tolerance !== TOLERANCE_SECONDS) {
    log.info(`Signatures from the ${s.headerName} header; timestamps within ${s.tolerance} s.`);
  }
}

/**
 * Starts listening and says so; an address it cannot listen on, a blank host (Node would take
 * it for every interface) or one with a port (a bracketed IPv6 address is taken bare), a path no URL reaches or a --forward-to that is the listener itself
 * (addresses.ts) is a usage error, before anything listens.
 * Everything it writes goes through one mask of the secrets it knows.
 */
export async function startListener(given: ListenerSettings, raw: ListenerDeps): Promise<RunningListener> {
  const s = { ...given, host: checkListenHost(given.host) };
  checkListenPath(s.path);
  // With --port 0 the port is picked when listening: a --forward-to typed before names it only by chance.
  if (s.forwardTo && s.port !== 0) checkNotItself(s.forwardTo, shownUrl(s.forwardTo), s.host, s.port);
  const mask = listenerMask(s);
  const d = maskedDeps(raw, mask);
  const limitMs = Math.max(d.timeoutMs, s.forwardLimitMs ?? FORWARD_LIMIT_MS);
  const forwarder = s.forwardTo ? await Forwarder.open(s.forwardTo, { env: d.env, timeoutMs: d.timeoutMs, limitMs }) : undefined;
  let fail: (err: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => (fail = resolve));
  const listener = new Listener(
    s,
    d,
    { io: d.io, log: d.log, json: d.json, style: makeStyle(d.io.color), forwarder, mask: (t) => mask.apply(t) },
    forwarder,
    mask,
    (err) => fail(err),
  );
  const limits = s.connections ?? { idleMs: IDLE_MS, maxConnections: MAX_CONNECTIONS };
  const server = createServer(requestOptions(limits), (req, res) => {
    listener.handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500).end();
      d.log.warn(`failed to handle an event: ${sanitizeInline((err as Error).message)}`);
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const failed = (err: NodeJS.ErrnoException) => reject(listenFailure(err, s.host, s.port));
      server.once('error', failed);
      server.listen(s.port, s.host, () => resolve(void server.off('error', failed)));
    });
  } catch (err) {
    await forwarder?.close();
    throw err;
  }
  // Once listening: an 'error' now is a connection it could not accept, said by connections.ts.
  limitConnections(server, limits, d.log, () => d.clock.now().getTime());
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : s.port;
  announce(s, d.log, port, forwarder);
  // Once: a second call (Ctrl-C during a stop, a test's cleanup) gets the first call's promise.
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const ended = listener.endedNote();
    if (ended) d.log.warn(ended);
    const left = forwarder?.outstanding ?? 0;
    if (left > 0) {
      d.log.warn(
        `stopped waiting for the app's answer to ${left === 1 ? 'a forwarded event' : `${left} forwarded events`}: ` +
          'the app may still act on them, and their senders, answered 502 or cut off, will send them again.',
      );
    }
    await forwarder?.close();
  };
  return { port, failed, close: () => (closing ??= close()) };
}
