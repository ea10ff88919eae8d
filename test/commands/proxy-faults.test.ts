/**
 * A proxy that fails (README "Configuration and environment": HTTPS_PROXY, HTTP_PROXY,
 * NO_PROXY), in process. A proxy that accepts CONNECT and closes the connection had undici
 * 7.30's proxy agent send CONNECT again at once, without end (nodejs/undici#3897): thousands a
 * second, --timeout never firing, the run never ending. A proxy that never answers CONNECT held
 * the request before it started, where payctl's deadline and Ctrl-C could not reach it. A proxy
 * that refuses the connection was said to be the service ("Could not connect to
 * api.example.com … Is the service running?"). Now each ends the run (exit 4, or 130 at
 * Ctrl-C), naming the proxy (never its password) and the variables to check.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../helpers/e2e.js';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { tempConfigDir } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';

const KEY = 'sk_live_proxy_faults_0123456789';
const BASE = 'https://api.example.test/v2';

let cfg: ReturnType<typeof tempConfigDir>;
const servers: Server[] = [];
const sockets = new Set<Socket>();

/**
 * A proxy on 127.0.0.1 port 0: `drop` closes each connection at its first bytes (CONNECT), `hold`
 * never answers, `open` answers CONNECT 200 at once and then nothing comes back through the tunnel
 * (a service that never answers the TLS handshake).
 */
async function fakeProxy(mode: 'drop' | 'hold' | 'open'): Promise<{ port: number; connects: () => number }> {
  let connects = 0;
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
    s.once('data', (d) => {
      if (d.toString('latin1').startsWith('CONNECT ')) connects += 1;
      if (mode === 'drop') s.end();
      if (mode === 'open') s.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as { port: number }).port, connects: () => connects };
}

beforeAll(() => {
  cfg = tempConfigDir();
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  cfg?.cleanup();
});

/** payctl `args` with `env`; given a clock (a TestClock: the retries' back-off without real waits), on it. */
const run = (args: string[], env: Record<string, string>, clock?: TestClock) =>
  payctl(args, { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY, ...env }, ...(clock ? { clock } : {}) });

describe('a proxy that fails is named, and ends the run', () => {
  it('HTTPS_PROXY on a closed port: exit 4 naming the proxy (never its password) and the variables, not "is the service running"', async () => {
    const port = await closedPort();
    const r = await run(['balances', '--base-url', BASE], { HTTPS_PROXY: `http://puser:ProxyPw77@127.0.0.1:${port}` }, new TestClock());
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`Could not connect to the proxy 127.0.0.1:${port}: connection refused; nothing was sent to api.example.test.`);
    expect(r.stderr).toMatch(/HTTPS_PROXY.*HTTP_PROXY.*NO_PROXY/);
    expect(r.stderr).not.toMatch(/Is the service|Could not connect to api\.example\.test/);
    expect(r.stderr + r.stdout).not.toMatch(/ProxyPw77|puser/);
  });

  it('a proxy that closes every CONNECT: exit 4 naming it, a few CONNECTs (the retries), not thousands', async () => {
    const proxy = await fakeProxy('drop');
    const r = await run(['balances', '--base-url', BASE, '--timeout', '2'], { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` }, new TestClock());
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`The proxy 127.0.0.1:${proxy.port} closed the connection before opening a tunnel to api.example.test; nothing was sent.`);
    expect(r.stderr).toMatch(/HTTPS_PROXY.*NO_PROXY/);
    // One CONNECT an attempt: READ_RETRY's four.
    expect(proxy.connects()).toBeGreaterThanOrEqual(1);
    expect(proxy.connects()).toBeLessThanOrEqual(10);
  }, 20_000);

  it('a proxy that never answers CONNECT: --timeout ends each attempt, exit 4 naming the proxy', async () => {
    const proxy = await fakeProxy('hold');
    const r = await run(['balances', '--base-url', BASE, '--timeout', '1'], { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` }, new TestClock());
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`The proxy 127.0.0.1:${proxy.port} did not open a tunnel to api.example.test within 1 s; nothing was sent.`);
    expect(proxy.connects()).toBeLessThanOrEqual(10);
  }, 30_000);

  it('a tunnel opened at once to a service that never answers the TLS handshake: the service timed out, not the proxy', async () => {
    const proxy = await fakeProxy('open');
    const r = await run(['balances', '--base-url', BASE, '--timeout', '1'], { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` }, new TestClock());
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(
      `Connecting to api.example.test through the proxy 127.0.0.1:${proxy.port} timed out after 1 s: the proxy opened the tunnel, api.example.test did not complete the connection; nothing was sent.`,
    );
    expect(r.stderr).not.toMatch(/did not open a tunnel|HTTPS_PROXY|NO_PROXY/);
    expect(proxy.connects()).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it.each([
    ['HTTPS_PROXY', ['balances']],
    ['https_proxy', ['status', '--json']],
    // prettier-ignore
    ['HTTPS_PROXY', ['payout', 'create', '--yes', '--wallet', '5553881136', '--amount', '10', '--currency', 'SLE', '--type', 'wallet', '--name', 'Aminata Kamara', '--provider', 'Orange Money', '--account', '076123456', '--phone', '+232 76 123456', '--payout-id', 'pct-0001']],
  ])('a raw percent sign in the proxy password (%s, %s): exit 2 naming the variable, host:port only, never "a bug"', async (name, args) => {
    const r = await run([...args, '--base-url', BASE, '--verbose'], { [name]: 'http://alice:50%off@proxy.corp:3128' });
    expect(r.code, r.stderr + r.stdout).toBe(2);
    const said = r.stderr + r.stdout;
    expect(said).toContain(`${name} (the proxy proxy.corp:3128) has a user or password that is not valid percent-encoding`);
    expect(said).toContain('Nothing was sent.');
    expect(said).toContain('as %25');
    expect(said).not.toMatch(/bug in payctl|URI malformed|URIError|alice|50%off|^\s+at /m);
    const history = await run(['history', '--json'], {});
    expect(JSON.parse(history.stdout).data).toEqual([]);
  });

  it('Ctrl-C while the tunnel is not open yet ends the run at once (exit 130)', async () => {
    const proxy = await fakeProxy('hold');
    const started = startPayctl(['balances', '--base-url', BASE, '--timeout', '60'], {
      dir: cfg.dir,
      env: { PAYCTL_API_KEY: KEY, HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` },
    });
    for (let i = 0; i < 500 && proxy.connects() === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(proxy.connects()).toBe(1);
    started.interrupt();
    const ended = await Promise.race([started.done, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 10_000))]);
    expect(ended).not.toBe('still running');
    expect(ended === 'still running' ? undefined : ended.code).toBe(130);
  }, 30_000);
});
