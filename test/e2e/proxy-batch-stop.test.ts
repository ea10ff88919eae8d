/**
 * `payout batch` through a proxy slow to open tunnels, stopped before any row left (README
 * "Configuration and environment", HTTPS_PROXY). The first SIGTERM lets requests in flight
 * finish, but a request whose tunnel was not open yet had not left: the run waited for the
 * tunnels (20 s in the probe) and then POSTed the rows, payouts made long after the stop. Now
 * such a request ends at the first stop, the row is recorded as not made (as a row never taken),
 * exit 130 at once, and the same command run again sends each row once.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { batchRows, payoutPosts, postedPayoutId, toCsv, writeFile } from '../helpers/batch.js';
import { payctl, startCli, until } from '../helpers/e2e.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

let cert = '';
let tls: { key: Buffer; cert: Buffer };
let proxy: Server;
let proxyUrl = '';
let connects = 0;
/** CONNECTs after the first are held while this is true (a proxy slow to open tunnels). */
let holding = false;
const held: Array<() => void> = [];
const sockets = new Set<Socket>();

/** The tunnel: TLS for api.example.test ended here, the plain HTTP passed to the sandbox (as to its own host), every answer marked `connection: close` (a tunnel a request). */
function tunnel(s: Socket, port: number): void {
  if (s.destroyed) return;
  s.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  const t = new TLSSocket(s, { isServer: true, key: tls.key, cert: tls.cert });
  const up = connect(port, '127.0.0.1');
  let head = true;
  // The sandbox answers only to its loopback name.
  t.on('data', (d: Buffer) => up.write(d.toString('latin1').replace(/\r\nhost: [^\r]*/i, `\r\nhost: 127.0.0.1:${port}`), 'latin1'));
  up.on('data', (d: Buffer) => {
    let text = d.toString('latin1');
    if (head) {
      head = false;
      const end = text.indexOf('\r\n\r\n');
      const lines = text
        .slice(0, end)
        .split('\r\n')
        .filter((l) => !/^connection:/i.test(l));
      text = `${lines.join('\r\n')}\r\nconnection: close${text.slice(end)}`;
    }
    t.write(Buffer.from(text, 'latin1'));
  });
  up.on('end', () => t.end());
  const drop = () => (t.destroy(), up.destroy());
  t.on('error', drop).on('close', drop);
  up.on('error', drop);
}

beforeAll(async () => {
  const dir = setup.dir;
  cert = join(dir, 'service.crt');
  const key = join(dir, 'service.key');
  // prettier-ignore
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=api.example.test', '-addext', 'subjectAltName=DNS:api.example.test', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  tls = { key: readFileSync(key), cert: readFileSync(cert) };
  const port = Number(new URL(ctx.sb.baseUrl).port);
  proxy = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    s.once('data', (d) => {
      if (!d.toString('latin1').startsWith('CONNECT ')) return s.destroy();
      connects += 1;
      if (holding && connects > 1) held.push(() => tunnel(s, port));
      else tunnel(s, port);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => proxy.close(() => r()));
});

describe('payout batch behind a proxy slow to open tunnels', () => {
  it('one SIGTERM before any tunnel for a POST opened: exit 130 at once, no POST, rows not made; the rerun sends each row once', async () => {
    const sb = ctx.sb;
    const rows = batchRows(6, setup.sleWallet, `proxy-stop-${Date.now()}`);
    const file = writeFile(setup.work.file('stop.csv'), toCsv(rows));
    const args = ['payout', 'batch', file, '--concurrency', '3', '--yes', '--base-url', `https://api.example.test:${new URL(sb.baseUrl).port}/v2`, '--timeout', '30'];
    const env = { PAYCTL_API_KEY: sb.apiKey, HTTPS_PROXY: proxyUrl, NODE_EXTRA_CA_CERTS: cert };
    holding = true;
    connects = 0;
    const { child, done } = startCli(args, { dir: setup.dir, env, timeoutMs: 40_000 });
    // The balances read through the first tunnel, then a CONNECT for each of the 3 senders' rows, held.
    await until(() => connects >= 4, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(payoutPosts(sb)).toHaveLength(0);
    const signalled = Date.now();
    child.kill('SIGTERM');
    const r = await done;
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(130);
    expect(Date.now() - signalled).toBeLessThan(5_000);
    // The tunnels open now: nothing is sent through them (the process is gone).
    holding = false;
    for (const go of held.splice(0)) go();
    await new Promise((res) => setTimeout(res, 500));
    expect(payoutPosts(sb)).toHaveLength(0);
    expect(r.stderr).toContain('0 accepted, 0 already submitted, 0 rejected, 0 unknown, 6 not sent.');
    const history = await payctl(['history', '--json'], { dir: setup.dir, env: { PAYCTL_API_KEY: sb.apiKey } });
    const outcomes = (JSON.parse(history.stdout).data as Array<{ payout_id: string; outcome: string }>).filter((x) => x.payout_id.startsWith('proxy-stop-'));
    expect(outcomes.map((x) => x.outcome)).toEqual(Array(6).fill('not made'));

    const again = await payctl(args, { dir: setup.dir, env, timeoutMs: 40_000 });
    expect(again.code, again.stderr).toBe(0);
    const sent = payoutPosts(sb).map(postedPayoutId).sort();
    expect(sent).toEqual(rows.map((x) => x.payout_id!).sort());
  }, 90_000);
});
