/**
 * payctl behind an HTTP(S) proxy (README "Configuration and environment": HTTPS_PROXY,
 * HTTP_PROXY, NO_PROXY), with the built binary: a request to the service goes through the
 * proxy's CONNECT tunnel, with TLS inside it to the service's host (a throw-away certificate,
 * trusted through NODE_EXTRA_CA_CERTS); a loopback base URL, any of 127.0.0.0/8, never goes
 * through the proxy. Before, every request behind a proxy failed ("this[...].connect is not a
 * function", exit 4): the proxy agent was loaded without the dispatcher method it tunnels with.
 * The same certificate, not trusted, with NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment: the
 * connection is refused and the key never reaches the server (Node would have skipped the check).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';

const KEY = 'sk_live_proxy_test_0123456789';
const BALANCES = readFileSync(new URL('../fixtures/documented/balances.json', import.meta.url), 'utf8');

let cfg: ReturnType<typeof tempConfigDir>;
let cert: string;
const servers: Server[] = [];
/** What the proxy was asked: CONNECT targets, and plain requests' URLs. */
const proxied: string[] = [];
/** Authorization headers the services got. */
const seen: string[] = [];
let proxyUrl = '';
let directUrl = '';
let tlsPort = 0;

const listen = (s: Server, host: string) =>
  new Promise<number>((resolve) => {
    servers.push(s);
    s.listen(0, host, () => resolve((s.address() as AddressInfo).port));
  });

const answer = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
  seen.push(req.headers.authorization ?? '');
  if (req.url === '/v2/wallets/balances') res.writeHead(200, { 'content-type': 'application/json' }).end(BALANCES);
  else res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
};

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
      'subjectAltName=DNS:api.example.test,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  tlsPort = await listen(createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, answer), '127.0.0.1');
  // A CONNECT proxy that tunnels every target to the TLS server above.
  const proxy = createHttpServer((req, res) => {
    proxied.push(req.url ?? '');
    res.writeHead(502).end();
  });
  proxy.on('connect', (req, socket, head) => {
    proxied.push(`CONNECT ${req.url ?? ''}`);
    const upstream = connect(tlsPort, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  proxyUrl = `http://127.0.0.1:${await listen(proxy, '127.0.0.1')}`;
  // The service on a loopback address other than 127.0.0.1.
  directUrl = `http://127.0.0.2:${await listen(createHttpServer(answer), '127.0.0.2')}/v2`;
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections?.();
    await new Promise<void>((r) => s.close(() => r()));
  }
  cfg?.cleanup();
});

describe('payctl behind a proxy', () => {
  it('HTTPS_PROXY: balances through a CONNECT tunnel to the service host, TLS inside it, the key sent there only', async () => {
    proxied.length = 0;
    seen.length = 0;
    const r = await runCli(['balances', '--json', '--base-url', 'https://api.example.test/v2'], {
      configDir: cfg.dir,
      env: { HTTPS_PROXY: proxyUrl, PAYCTL_API_KEY: KEY, NODE_EXTRA_CA_CERTS: cert },
    });
    expect(r.stderr).not.toMatch(/is not a function/);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(BALANCES));
    expect(proxied).toEqual(['CONNECT api.example.test:443']);
    expect(seen).toEqual([`Bearer ${KEY}`]);
  });

  it('HTTP_PROXY and HTTPS_PROXY set: a base URL on 127.0.0.2 (loopback) is reached directly, never through the proxy', async () => {
    proxied.length = 0;
    seen.length = 0;
    const r = await runCli(['balances', '--json', '--base-url', directUrl], {
      configDir: cfg.dir,
      env: { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, PAYCTL_API_KEY: KEY },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(BALANCES));
    expect(proxied).toEqual([]);
    expect(seen).toEqual([`Bearer ${KEY}`]);
  });

  it.each([
    ['HTTPS_PROXY', 'http://u:ProxyPw77@[bad'],
    ['https_proxy', 'ftp://u:ProxyPw77@proxy.example:21'],
    ['HTTP_PROXY', 'socks5://proxy.example:1080'],
  ])('%s=%s is bad input: exit 2 naming the variable, its password masked, never "a bug", nothing sent', async (name, value) => {
    seen.length = 0;
    for (const verbose of [[], ['--verbose']]) {
      const r = await runCli(['balances', '--base-url', 'https://api.example.test/v2', ...verbose], { configDir: cfg.dir, env: { [name]: value, PAYCTL_API_KEY: KEY } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${name} "`);
      expect(r.stderr).toContain('is not a proxy payctl can use: it must be an http:// or https:// URL. Nothing was sent.');
      expect(r.stderr).not.toMatch(/bug|ProxyPw77|^\s+at /m);
    }
    expect(seen).toEqual([]);
  });
});

describe('NODE_TLS_REJECT_UNAUTHORIZED=0 does not turn the certificate check off', () => {
  const insecure = { PAYCTL_API_KEY: KEY, NODE_TLS_REJECT_UNAUTHORIZED: '0' };

  it('a certificate no CA vouches for: refused directly and through a proxy, the key never sent; NODE_EXTRA_CA_CERTS still trusts it', async () => {
    const direct = `https://localhost:${tlsPort}/v2`;
    seen.length = 0;
    for (const [args, env] of [
      [['balances', '--base-url', direct], insecure],
      [['balances', '--json', '--base-url', direct], insecure],
      [['balances', '--base-url', 'https://api.example.test/v2'], { ...insecure, HTTPS_PROXY: proxyUrl }],
    ] as const) {
      const r = await runCli([...args], { configDir: cfg.dir, env });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toMatch(/The certificate of (localhost:\d+|api\.example\.test) was not accepted \(.*certificate.*\); nothing was sent to it\./);
      expect(r.stderr).toContain('payctl checks certificates whatever NODE_TLS_REJECT_UNAUTHORIZED says.');
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stdout).toBe('');
    }
    expect(seen).toEqual([]);

    // The same server, its certificate trusted through NODE_EXTRA_CA_CERTS: the key is sent there.
    const ok = await runCli(['balances', '--json', '--base-url', direct], { configDir: cfg.dir, env: { ...insecure, NODE_EXTRA_CA_CERTS: cert } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(seen).toEqual([`Bearer ${KEY}`]);
  });
});
