/**
 * Helpers for end-to-end tests of `payctl webhooks listen`: start the built binary as
 * a long-running child, read its port from the Ready line, post raw bodies to it, sign
 * them as the service would (hex HMAC-SHA256 of the raw body), record what a --forward-to target receives byte for byte,
 * and stop the listener with SIGINT.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect } from 'node:net';
import { BIN, cliEnv } from './cli.js';

const READY = /Ready: listening for webhook events on (http:\/\/127\.0\.0\.1:(\d+)(\/[^\s,"]*))/;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Listener {
  child: ChildProcessWithoutNullStreams;
  /** http://127.0.0.1:<port><path>, read from the Ready line. */
  url: string;
  port: number;
  /** The path from the Ready line (/webhooks unless --path). */
  path: string;
  stdout(): string;
  stderr(): string;
  /** Non-empty stdout lines so far. */
  lines(): string[];
  /** Polls until `check()` is truthy; fails with both streams after `timeoutMs`. */
  waitFor<T>(check: () => T, what: string, timeoutMs?: number): Promise<Exclude<T, false | null | undefined | 0 | ''>>;
  /** Sends SIGINT and waits for the exit (SIGKILL and fail after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<Exit>;
  /** True once the process has exited. */
  exited(): boolean;
}

const running = new Set<ChildProcessWithoutNullStreams>();

/** Kills (SIGKILL) any listener a failed test left running. For afterEach. */
export function killLeftoverListeners(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

async function poll<T>(check: () => T, timeoutMs: number, fail: () => string): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > deadline) throw new Error(fail());
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** Starts `payctl webhooks listen --port 0 ...args` and waits for its Ready line. */
export async function startListener(args: string[], opts: { dir: string; env?: Record<string, string | undefined> }): Promise<Listener> {
  const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', ...args], {
    env: cliEnv(opts.dir, opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const closed = new Promise<void>((resolve) => {
    child.on('close', (code, signal) => {
      exit = { code, signal };
      running.delete(child);
      resolve();
    });
  });
  child.stdin.on('error', () => {});
  // A child that exits without reading its input (a refusal, `sh -c chmod`) closes the pipe: EPIPE here is no failure.
  child.stdin.on('error', () => {});
  child.stdin.end();

  const streams = () => `\n--- stdout ---\n${out}\n--- stderr ---\n${err}`;
  const waitFor: Listener['waitFor'] = (check, what, timeoutMs = 5000) =>
    poll(check, timeoutMs, () => `listener: ${what} not seen within ${timeoutMs} ms${exit ? ` (exited ${exit.code ?? exit.signal})` : ''}${streams()}`);

  const m = await poll(
    () => READY.exec(err) ?? (exit ? 'exited' : null),
    10_000,
    () => `no Ready line within 10 s${streams()}`,
  );
  if (m === 'exited') throw new Error(`listener exited before it was ready (${exit?.code ?? exit?.signal})${streams()}`);
  const ready = m;
  // The start-up lines (Ready, an optional warning) end with this one: wait for it so
  // checks on start-up output do not race the pipe.
  await waitFor(() => err.includes('Press Ctrl-C to stop.'), 'the end of the start-up lines');

  return {
    child,
    url: ready[1]!,
    port: Number(ready[2]),
    path: ready[3]!,
    stdout: () => out,
    stderr: () => err,
    lines: () => out.split('\n').filter((l) => l.trim() !== ''),
    waitFor,
    exited: () => exit !== undefined,
    async stop(timeoutMs = 5000) {
      if (!exit) child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await closed;
      clearTimeout(timer);
      return { code: exit!.code, signal: exit!.signal, stdout: out, stderr: err };
    },
  };
}

/** True when nothing accepts connections on 127.0.0.1:port. */
export function portClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

/** The signature the service sends: hex HMAC-SHA256(secret, raw body), computed here independently of src/. */
export function sign(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(Buffer.from(body)).digest('hex');
}

export interface PostResult {
  status: number;
  body: string;
}

/** POSTs exactly these bytes with exactly these headers (plus host/content-length/connection). */
export function postRaw(url: string, body: Buffer | string, headers: Record<string, string>): Promise<PostResult> {
  const bytes = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(bytes.length) }, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(bytes);
  });
}

export interface Received {
  raw: Buffer;
  headers: IncomingHttpHeaders;
  method: string;
  url: string;
}

/** A --forward-to target on 127.0.0.1 port 0 that keeps every raw body and header set. */
export async function forwardTarget(answer: (n: number) => number = () => 202): Promise<{
  url: string;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ raw: Buffer.concat(chunks), headers: req.headers, method: req.method ?? '', url: req.url ?? '' });
      res.writeHead(answer(received.length), { 'content-type': 'text/plain' }).end('from the app');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks/in?src=payctl`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
