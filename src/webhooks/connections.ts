/**
 * The webhook listener's connections (listener.ts): a connection that carries no request for
 * a while is closed, so is one whose request has not arrived whole (headers and body) within
 * that same time of its first byte (answered 408), at most so many are open at once, and a
 * connection the listener cannot take is said on stderr, not left to look like silence.
 *
 * A request dripped a byte every few seconds (a chunked body, or headers) kept its connection
 * open for Node's defaults, 300 s for the body and 60 s for the headers (each checked only every
 * 30 s); 200 such connections made the listener close every real delivery unanswered for
 * minutes. The request deadline (requestOptions) holds it to IDLE_MS.
 *
 * Before, a connection that never sent a request stayed open for good (Node's server closes an
 * idle one only after an answer, keepAliveTimeout): 50 idle sockets were still open after
 * 150 s, and with about 19,500 of them (a file limit of 20,000) every real delivery got
 * "socket hang up" while the listener printed nothing. On Linux, Node 20 emits nothing when
 * accept() fails for want of file descriptors (EMFILE, ENFILE): libuv accepts the waiting
 * connections on a spare descriptor and closes them unanswered. So the listener keeps below
 * that limit itself (`maxConnections`: Node closes a connection past it and emits 'drop'), and
 * says so; an accept error Node does emit (the server's 'error', syscall accept) is said the
 * same way, rather than crashing the listener or vanishing.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Log } from '../output/io.js';

/**
 * How long a connection may carry no request (and send nothing) before it is closed, and how
 * long a request may take to arrive whole from its first byte: 10 s.
 */
export const IDLE_MS = 10_000;
/** How long a connection is kept open after an answer, for the sender's next event: 5 s (Node's default). */
const KEEP_ALIVE_MS = 5_000;
/**
 * The most connections open at once: far more than a sender needs, and well below the file limit
 * a listener runs with (Node raises its soft limit to the hard one when it starts: thousands or
 * more), so that the listener never runs out of file descriptors, for its forwarding and its
 * output too.
 */
export const MAX_CONNECTIONS = 200;
/** A trouble taking connections is said again at most once a minute, with how many were lost since. */
const REPEAT_MS = 60_000;

export interface ConnectionLimits {
  idleMs: number;
  maxConnections: number;
}

/** Why a connection could not be taken, by the accept error's code. */
const ACCEPT_FAILURES: Record<string, string> = {
  EMFILE: 'this process has as many files open as it may (EMFILE)',
  ENFILE: 'the system has as many files open as it may (ENFILE)',
};

/**
 * The server's options for the request deadline: headers and the whole request within
 * `idleMs` of the request's first byte (Node answers 408 and closes the connection), checked
 * every tenth of that (at most every second), so a request is cut off within about 1.1 times
 * the deadline. A request already received whole is not timed: its answer may take as long as
 * the app takes.
 */
export function requestOptions(limits: ConnectionLimits): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: limits.idleMs,
    requestTimeout: limits.idleMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.round(limits.idleMs / 10))),
  };
}

/**
 * Applies the limits to the server and says on stderr (once, then at most once a minute) when
 * connections are closed unanswered: past `maxConnections`, or refused by the system.
 */
export function limitConnections(server: Server, limits: ConnectionLimits, log: Log, now: () => number): void {
  const seconds = Math.round(limits.idleMs / 100) / 10;
  server.maxConnections = limits.maxConnections;
  server.keepAliveTimeout = Math.min(KEEP_ALIVE_MS, limits.idleMs);
  server.setTimeout(limits.idleMs);
  // A connection whose request is being answered (forwarded to the app, waiting for stdout) is
  // not idle until it is answered (within --timeout, relay.ts): only one between requests is closed.
  const answering = new WeakSet<Socket>();
  server.on('request', (req, res) => {
    answering.add(req.socket);
    res.once('close', () => answering.delete(req.socket));
  });
  server.on('timeout', (socket: Socket) => {
    if (!answering.has(socket)) socket.destroy();
  });

  let saidAt: number | undefined;
  let unsaid = 0;
  const say = (why: string) => {
    const t = now();
    if (saidAt !== undefined && t - saidAt < REPEAT_MS) {
      unsaid++;
      return;
    }
    const since = unsaid > 0 ? ` (${unsaid} more closed since this was last said)` : '';
    saidAt = t;
    unsaid = 0;
    log.warn(
      `connections to the listener are being closed unanswered: ${why}, so a sender sees "socket hang up" and sends the event again later${since}. ` +
        `A connection that carries no request for ${seconds} s, or whose request has not arrived whole ${seconds} s after it began, is closed; look for what opens connections to the listener and leaves them open.`,
    );
  };
  server.on('drop', () => say(`more than ${limits.maxConnections} are open at once`));
  server.on('error', (err: NodeJS.ErrnoException) =>
    say(err.code && ACCEPT_FAILURES[err.code] ? ACCEPT_FAILURES[err.code]! : `accepting one failed (${err.code ?? err.message})`),
  );
}
