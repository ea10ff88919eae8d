/**
 * A proxy that fails, with the built binary (test/commands/proxy-faults.test.ts has the
 * messages, in process). One SIGTERM or SIGINT ends a run whose request waits for a tunnel the
 * proxy never opens (exit 130): before, the first signal did nothing (payctl waited for a request
 * undici had not started) and only a second one ended it. A payout whose POST could not go out
 * (the proxy closes every CONNECT after the balances read) is journaled as unknown, exit 4, the
 * proxy named, and the service never gets the POST: never "refused", never taken for made.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl, startCli, until } from '../helpers/e2e.js';

const KEY = 'sk_live_proxy_faults_e2e_0123456789';
const BASE = 'https://api.example.test/v2';
const BALANCES = readFileSync(new URL('../fixtures/documented/balances.json', import.meta.url), 'utf8');

let cfg: ReturnType<typeof tempConfigDir>;
let cert = '';
let tlsPort = 0;
let serviceTls: { key: Buffer; cert: Buffer };
const servers: Server[] = [];
const sockets = new Set<Socket>();
/** What the service got: "METHOD /path". */
const served: string[] = [];

const listen = (s: Server) =>
  new Promise<number>((resolve) => {
    servers.push(s);
    s.on('connection', (c: Socket) => {
      sockets.add(c);
      c.on('close', () => sockets.delete(c));
    });
    s.listen(0, '127.0.0.1', () => resolve((s.address() as { port: number }).port));
  });

/**
 * A proxy: `hold` never answers CONNECT; `once` tunnels the first CONNECT to the service and closes
 * every later one; `plain` answers anything else (a TLS handshake) with a plain HTTP 400.
 */
async function fakeProxy(mode: 'hold' | 'once' | 'plain'): Promise<{ url: string; connects: () => number }> {
  let connects = 0;
  const server = createServer((s) => {
    s.on('error', () => {});
    s.once('data', (d) => {
      if (!d.toString('latin1').startsWith('CONNECT ')) return mode === 'plain' ? s.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n') : s.destroy();
      connects += 1;
      if (mode === 'hold') return;
      if (connects > 1) return s.end();
      const upstream = connect(tlsPort, '127.0.0.1', () => {
        s.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(s).pipe(upstream);
      });
      upstream.on('error', () => s.destroy());
    });
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, connects: () => connects };
}

beforeAll(async () => {
  cfg = tempConfigDir();
  cert = join(cfg.dir, 'service.crt');
  const key = join(cfg.dir, 'service.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=api.example.test',
      '-addext',
      // 127.0.0.1 too: the same certificate serves an https:// proxy given by IP address.
      'subjectAltName=DNS:api.example.test,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  // The balances, on a connection closed after the answer: the POST needs a tunnel of its own.
  const service = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    served.push(`${req.method} ${req.url}`);
    if (req.method === 'GET' && req.url === '/v2/wallets/balances') res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(BALANCES);
    else res.writeHead(500, { 'content-type': 'application/json', connection: 'close' }).end('{"message":"not expected in this test"}');
  });
  tlsPort = await listen(service);
  serviceTls = { key: readFileSync(key), cert: readFileSync(cert) };
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  cfg?.cleanup();
});

describe('payctl behind a proxy that fails', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'one %s ends a run waiting for a tunnel the proxy never opens: exit 130',
    async (signal) => {
      const proxy = await fakeProxy('hold');
      const { child, done } = startCli(['balances', '--base-url', BASE, '--timeout', '60'], {
        dir: cfg.dir,
        env: { PAYCTL_API_KEY: KEY, HTTPS_PROXY: proxy.url },
        timeoutMs: 30_000,
      });
      await until(() => proxy.connects() > 0);
      const signalled = Date.now();
      child.kill(signal);
      const r = await done;
      expect(r.signal, r.stderr).toBeNull();
      expect(r.code, r.stderr).toBe(130);
      // Generous: a second signal, or the 25 s kill, is what ended it before.
      expect(Date.now() - signalled).toBeLessThan(10_000);
    },
    40_000,
  );

  it('payout create whose POST cannot get a tunnel: journaled unknown, exit 4, the proxy named, no POST reaches the service', async () => {
    const proxy = await fakeProxy('once');
    served.length = 0;
    const env = { PAYCTL_API_KEY: KEY, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: cert };
    const payoutId = 'proxy-drop-0001';
    // prettier-ignore
    const args = ['payout', 'create', '--base-url', BASE, '--timeout', '2', '--yes', '--wallet', '5553881136', '--amount', '10', '--currency', 'SLE', '--type', 'wallet', '--name', 'Aminata Kamara', '--provider', 'Orange Money', '--account', '076123456', '--phone', '+232 76 123456', '--payout-id', payoutId];
    const r = await payctl(args, { dir: cfg.dir, env, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`The proxy 127.0.0.1:${new URL(proxy.url).port} closed the connection before opening a tunnel to api.example.test`);
    expect(r.stderr).not.toMatch(/refused|was not made/i);
    expect(served).toEqual(['GET /v2/wallets/balances']);
    // The balances' tunnel, then one CONNECT for each of the POST's attempts (PAYOUT_RETRY: 5).
    expect(proxy.connects()).toBeGreaterThan(1);
    expect(proxy.connects()).toBeLessThanOrEqual(10);
    const history = await payctl(['history', '--json'], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(history.code, history.stderr).toBe(0);
    const rows = JSON.parse(history.stdout).data as Array<Record<string, unknown>>;
    const row = rows.find((x) => JSON.stringify(x).includes(payoutId));
    expect(row?.outcome).toBe('unknown');
    expect(row?.detail).toContain('closed the connection before opening a tunnel');
  }, 90_000);

  it('an https:// proxy given by IP address: balances --json through it, no DEP0123 warning on stderr', async () => {
    // An https:// proxy on 127.0.0.1 (its certificate names IP:127.0.0.1) tunnelling to the service.
    const proxy = createHttpsServer(serviceTls);
    proxy.on('connect', (_req, s: Socket) => {
      const upstream = connect(tlsPort, '127.0.0.1', () => {
        s.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(s).pipe(upstream);
      });
      upstream.on('error', () => s.destroy());
      s.on('error', () => upstream.destroy());
    });
    const port = await listen(proxy);
    const env = { PAYCTL_API_KEY: KEY, HTTPS_PROXY: `https://127.0.0.1:${port}`, NODE_EXTRA_CA_CERTS: cert };
    const r = await payctl(['balances', '--json', '--base-url', BASE, '--timeout', '5'], { dir: cfg.dir, env, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(BALANCES));
    expect(r.stderr).toBe('');
  }, 60_000);

  it('an https:// URL for a proxy that speaks plain HTTP: one line, the hint to use http://, in --json too', async () => {
    const proxy = await fakeProxy('plain');
    const env = { PAYCTL_API_KEY: KEY, HTTPS_PROXY: proxy.url.replace('http://', 'https://'), NODE_EXTRA_CA_CERTS: cert };
    const r = await payctl(['balances', '--json', '--base-url', BASE, '--timeout', '2'], { dir: cfg.dir, env, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(4);
    const error = JSON.parse(r.stdout || r.stderr).error as { message: string; hint: string };
    expect(error.message).toBe(
      `The TLS handshake with the proxy 127.0.0.1:${new URL(proxy.url).port} failed (wrong version number); nothing was sent to api.example.test.`,
    );
    expect(error.hint).toContain('The proxy may speak plain HTTP: write its URL with http://, not https://.');
    const plain = await payctl(['balances', '--base-url', BASE, '--timeout', '2'], { dir: cfg.dir, env, timeoutMs: 30_000 });
    expect(plain.code, plain.stderr).toBe(4);
    expect(plain.stderr.split('\n').filter(Boolean)).toHaveLength(2);
    expect(plain.stderr).not.toMatch(/ssl3_|openssl|DeprecationWarning/i);
  }, 60_000);
});
