/**
 * Issue 11 against the built binary: `webhooks listen` and the sandbox on a machine
 * shared with other users, and in front of a browser that runs other people's pages.
 *
 * - Secrets never on argv: /proc/<pid>/cmdline (what `ps` shows every local user) of a
 *   `webhooks listen --secret-stdin` and of a detached sandbox's child holds no secret;
 *   --secret and `sandbox start --api-key` still work but warn.
 * - Host, Origin and Content-Type: requests a page could make (DNS rebinding, simple
 *   cross-site POSTs) are refused by the listener and the detached sandbox.
 * - Escape sequences in a signed event (amount, type, id, status) never reach stdout.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, tempConfigDir } from '../helpers/cli.js';
import { startCli } from '../helpers/e2e.js';
import { killLeftoverListeners, nowSeconds, portClosed, postRaw, sign, startListener } from '../helpers/listener.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  killLeftoverListeners();
  for (const c of cleanups.splice(0).reverse()) await c();
});

function configDir(): string {
  const { dir, cleanup } = tempConfigDir();
  cleanups.push(cleanup);
  return dir;
}

const secret = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** What `ps` shows every user of the machine. */
function cmdline(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
}

function killIfRunning(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

async function poll<T>(check: () => T, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Proc {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** payctl with `input` written to its stdin (left open, as a terminal or a pipe from a slow writer would). */
function spawnWithInput(args: string[], input: string, dir: string, env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(dir, env), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.on('error', () => {});
  child.stdin.write(input);
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  cleanups.push(() => child.kill('SIGKILL'));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const r = await closed;
      clearTimeout(timer);
      return r;
    },
  };
}

/** `webhooks listen --port 0 --secret-stdin` with the secret piped in; resolves once it is ready. */
async function listenWithStdinSecret(webhookSecret: string, dir: string, extra: string[] = []) {
  const p = spawnWithInput(['webhooks', 'listen', '--port', '0', '--secret-stdin', ...extra], `${webhookSecret}\n`, dir);
  const m = await poll(
    () => /Ready: listening for webhook events on (http:\/\/127\.0\.0\.1:(\d+)\/webhooks)/.exec(p.stderr()),
    `the Ready line (stderr: ${p.stderr()})`,
  );
  await poll(() => p.stderr().includes('Press Ctrl-C to stop.'), 'the end of the start-up lines');
  return { ...p, url: m[1]!, port: Number(m[2]) };
}

function event(fields: { id?: string; type?: string; payout_id?: string; amount?: unknown; currency?: string; status?: string } = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      id: fields.id ?? `evt_${randomBytes(12).toString('hex')}`,
      type: fields.type ?? 'payout.successful',
      created_at: new Date().toISOString(),
      data: {
        payout_id: fields.payout_id ?? randomUUID(),
        amount: fields.amount ?? 1500.5,
        currency: fields.currency ?? 'SLE',
        status: fields.status ?? 'Successful',
      },
    }),
    'utf8',
  );
}

const signed = (body: Buffer, s: string, contentType = 'application/json') => ({
  'content-type': contentType,
  'x-webhook-signature': sign(s, nowSeconds(), body),
});

/** One request with exactly this Host (and other) headers. */
function rawRequest(port: number, method: string, path: string, headers: Record<string, string>, body?: Buffer | string) {
  return new Promise<{ status: number; body: string; json: any; contentType: string | undefined }>((resolve, reject) => {
    const h = { ...headers };
    if (body !== undefined) h['content-length'] = String(Buffer.byteLength(body));
    const req = request({ host: '127.0.0.1', port, method, path, headers: h, setHost: !('host' in headers), timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: text, json, contentType: res.headers['content-type'] });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

describe('secrets never on argv', () => {
  it('webhooks listen --secret-stdin: the secret is used to verify and is not in /proc/<pid>/cmdline; no argv warning', async () => {
    const S = secret('whsec_stdin');
    const l = await listenWithStdinSecret(S, configDir());
    expect(cmdline(l.child.pid!)).toContain('webhooks listen');
    expect(cmdline(l.child.pid!)).not.toContain(S);
    expect(l.stderr()).not.toMatch(/command line|signatures will not be checked/);

    const body = event({ payout_id: 'po_stdin_secret' });
    expect((await postRaw(l.url, body, signed(body, 'whsec_some_other'))).status).toBe(400);
    expect((await postRaw(l.url, body, signed(body, S))).status).toBe(200);
    await poll(() => l.stdout().includes('po_stdin_secret'), 'the verified event line');
    expect(l.stdout().split('\n').filter(Boolean)).toHaveLength(1);
    const exit = await l.stop();
    expect(exit.code, l.stderr()).toBe(0);
    expect(l.stdout() + l.stderr()).not.toContain(S);
    expect(await portClosed(l.port)).toBe(true);
  });

  it('--secret still works but warns that other users can see it; PAYCTL_WEBHOOK_SECRET does not warn', async () => {
    const S = secret('whsec_flag');
    const flag = await startListener(['--secret', S], { dir: configDir() });
    expect(flag.stderr()).toMatch(/Warning: --secret puts the webhook secret on the command line, where other users of this machine can see it \(ps\)\. Use --secret-stdin or PAYCTL_WEBHOOK_SECRET instead\./);
    const body = event({ payout_id: 'po_flag_secret' });
    expect((await postRaw(flag.url, body, signed(body, S))).status).toBe(200);
    expect((await postRaw(flag.url, body, signed(body, 'nope'))).status).toBe(400);
    expect((await flag.stop()).code).toBe(0);

    const fromEnv = await startListener([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    expect(fromEnv.stderr()).not.toContain('Warning');
    expect(cmdline(fromEnv.child.pid!)).not.toContain(S);
    expect((await postRaw(fromEnv.url, body, signed(body, 'nope'))).status).toBe(400);
    expect((await postRaw(fromEnv.url, body, signed(body, S))).status).toBe(200);
    expect((await fromEnv.stop()).code).toBe(0);
  });

  it('--secret-stdin refuses an empty line, and --secret with --secret-stdin (exit 2, nothing listens)', async () => {
    const empty = await runCli(['webhooks', 'listen', '--port', '0', '--secret-stdin'], { configDir: configDir(), input: '\n' });
    expect(empty.code, empty.stderr).toBe(2);
    expect(empty.stderr).toContain('The webhook secret from standard input is empty.');
    expect(empty.stderr).not.toContain('Ready');
    const both = await runCli(['webhooks', 'listen', '--port', '0', '--secret-stdin', '--secret', 'x'], { configDir: configDir(), input: 'y\n' });
    expect(both.code, both.stderr).toBe(2);
    expect(both.stderr).toContain('--secret-stdin or --secret, not both');
  });

  it('a detached sandbox given --api-key and --webhook-secret keeps both off its child’s command line, and warns', async () => {
    const dir = configDir();
    const K = secret('sk_sandbox_argv');
    const W = secret('whsec_argv');
    const start = await runCli(['sandbox', 'start', '--detach', '--json', '--api-key', K, '--webhook-secret', W], { configDir: dir });
    const info = JSON.parse(start.stdout) as { base_url: string; api_key: string; webhook_secret: string; pid: number };
    cleanups.push(() => killIfRunning(info.pid));
    expect(start.code, start.stderr).toBe(0);
    expect(info).toMatchObject({ api_key: K, webhook_secret: W });

    const child = cmdline(info.pid);
    expect(child).toMatch(/sandbox start/);
    expect(child).not.toContain(K);
    expect(child).not.toContain(W);
    expect(child).not.toMatch(/--api-key|--webhook-secret/);
    // The parent had them on its own command line, as typed: it says so.
    expect(start.stderr).toMatch(/Warning: --api-key puts a secret on the command line, where other users of this machine can see it \(ps\)\. Set PAYCTL_SANDBOX_API_KEY instead\./);
    expect(start.stderr).toMatch(/Warning: --webhook-secret puts a secret on the command line.*Set PAYCTL_SANDBOX_WEBHOOK_SECRET instead\./);
    // The child got them all the same.
    const token = await fetch(`${info.base_url}/auth/token`, { headers: { 'Api-Key': K } });
    expect(token.status).toBe(200);
    const stop = await runCli(['sandbox', 'stop'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
  });

  it('end to end with no secret on any command line: a detached sandbox (secrets in its environment) delivers to webhooks listen --secret-stdin', async () => {
    const dir = configDir();
    const K = secret('sk_sandbox_env');
    const W = secret('whsec_env');
    const l = await listenWithStdinSecret(W, dir);
    const start = await runCli(['sandbox', 'start', '--detach', '--json', '--webhook-url', l.url, '--settle-after', '200'], {
      configDir: dir,
      env: { PAYCTL_SANDBOX_API_KEY: K, PAYCTL_SANDBOX_WEBHOOK_SECRET: W },
    });
    const info = JSON.parse(start.stdout) as { base_url: string; api_key: string; webhook_secret: string; pid: number };
    cleanups.push(() => killIfRunning(info.pid));
    expect(start.code, start.stderr).toBe(0);
    expect(start.stderr).not.toContain('Warning');
    expect(info).toMatchObject({ api_key: K, webhook_secret: W });

    for (const pid of [l.child.pid!, info.pid]) {
      const line = cmdline(pid);
      expect(line, `pid ${pid}`).not.toContain(K);
      expect(line, `pid ${pid}`).not.toContain(W);
    }

    // The sandbox's own webhooks (application/json, Host 127.0.0.1:<port>) pass the listener's checks and its signature check.
    const tokenRes = await fetch(`${info.base_url}/auth/token`, { headers: { 'Api-Key': K } });
    const { data } = (await tokenRes.json()) as { data: { access_token: string } };
    const balances = (await (await fetch(`${info.base_url}/wallets/balances`, { headers: { Authorization: `Bearer ${data.access_token}` } })).json()) as {
      data: Array<{ wallet_id: string; currency: string }>;
    };
    const wallet = balances.data.find((w) => w.currency === 'SLE')!;
    const payoutId = randomUUID();
    const created = await fetch(`${info.base_url}/payout`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${data.access_token}`, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({
        amount: 12.5,
        currency: 'SLE',
        payoutId,
        walletId: wallet.wallet_id,
        recipient: { type: 'wallet', accountDetails: { name: 'Aminata Kamara', provider: 'orange_money', accountNumber: '076123456', phoneNumber: '+23276123456' } },
      }),
    });
    expect(created.status).toBe(201);
    await poll(() => /payout\.pending.*12\.50 SLE/.test(l.stdout()) && /payout\.successful.*12\.50 SLE/.test(l.stdout()), `both events (stderr: ${l.stderr()})`);
    expect(l.stderr()).not.toMatch(/rejected|refus/i);

    const stop = await runCli(['sandbox', 'stop'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect((await l.stop()).code).toBe(0);
  });

  it('sandbox start --api-key in the foreground warns that the key is visible; PAYCTL_SANDBOX_API_KEY does not', async () => {
    const K = secret('sk_sandbox_fg');
    const fg = startCli(['sandbox', 'start', '--api-key', K, '--port', '0'], { dir: configDir() });
    let err = '';
    fg.child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    cleanups.push(() => fg.child.kill('SIGKILL'));
    await poll(() => err.includes('Press Ctrl-C to stop.'), 'the foreground sandbox');
    expect(err).toMatch(/Warning: --api-key puts a secret on the command line, where other users of this machine can see it \(ps\)/);
    fg.child.kill('SIGINT');
    expect((await fg.done).code).toBe(0);

    const env = startCli(['sandbox', 'start', '--port', '0', '--json'], { dir: configDir(), env: { PAYCTL_SANDBOX_API_KEY: K } });
    let out = '';
    let err2 = '';
    env.child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    env.child.stderr.on('data', (d: Buffer) => (err2 += d.toString('utf8')));
    cleanups.push(() => env.child.kill('SIGKILL'));
    await poll(() => err2.includes('Press Ctrl-C to stop.'), 'the foreground sandbox');
    expect(JSON.parse(out)).toMatchObject({ api_key: K });
    expect(err2).not.toContain('Warning');
    expect(cmdline(env.child.pid!)).not.toContain(K);
    env.child.kill('SIGINT');
    expect((await env.done).code).toBe(0);
  });
});

describe('Host, Origin and Content-Type checks (a browser page cannot drive them)', () => {
  it('webhooks listen answers 421 to Host: evil.example and 403 to a foreign Origin, before verifying or printing anything', async () => {
    const S = secret('whsec_host');
    const l = await startListener([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const body = event({ payout_id: 'po_rebound' });
    const rebind = await rawRequest(l.port, 'POST', '/webhooks', { host: 'evil.example', ...signed(body, S) }, body);
    expect(rebind.status).toBe(421);
    expect(rebind.contentType).toMatch(/^application\/json/);
    expect(rebind.json).toMatchObject({ code: 'MISDIRECTED_REQUEST' });
    expect(rebind.json.error).toContain('evil.example');
    const withPort = await rawRequest(l.port, 'POST', '/webhooks', { host: `evil.example:${l.port}`, ...signed(body, S) }, body);
    expect(withPort.status).toBe(421);
    const origin = await rawRequest(l.port, 'POST', '/webhooks', { origin: 'https://evil.example', ...signed(body, S) }, body);
    expect(origin.status).toBe(403);
    expect(origin.json).toMatchObject({ code: 'FORBIDDEN_ORIGIN' });
    await l.waitFor(() => (l.stderr().match(/Answered 4\d\d\./g) ?? []).length === 3, 'a warning per refusal');
    expect(l.stdout()).toBe('');

    // Loopback names are fine.
    for (const host of ['localhost', `localhost:${l.port}`, `127.0.0.1:${l.port}`, '127.9.9.9']) {
      const ok = await rawRequest(l.port, 'POST', '/webhooks', { host, ...signed(body, S) }, body);
      expect(ok.status, host).toBe(200);
    }
    await l.waitFor(() => l.lines().length === 4, 'four event lines');
    expect((await l.stop()).code).toBe(0);
  });

  it('webhooks listen answers 415 to a correctly signed event sent as text/plain or a form; never forwarded or printed', async () => {
    const S = secret('whsec_ct');
    const app: Buffer[] = [];
    const { createServer } = await import('node:http');
    const target = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        app.push(Buffer.concat(chunks));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise<void>((r) => target.close(() => r())));
    const port = (target.address() as { port: number }).port;
    const l = await startListener(['--forward-to', `http://127.0.0.1:${port}/in`], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });

    const body = event({ payout_id: 'po_text_plain' });
    for (const contentType of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded']) {
      const res = await postRaw(l.url, body, signed(body, S, contentType));
      expect(res.status, contentType).toBe(415);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
    const none = await rawRequest(l.port, 'POST', '/webhooks', { 'x-webhook-signature': sign(S, nowSeconds(), body) }, body);
    expect(none.status).toBe(415);
    expect(app).toHaveLength(0);
    expect(l.stdout()).toBe('');
    // JSON with a charset is what senders use: accepted and forwarded.
    expect((await postRaw(l.url, body, signed(body, S, 'application/json; charset=utf-8'))).status).toBe(200);
    expect(app).toHaveLength(1);
    await l.waitFor(() => l.lines().length === 1, 'the accepted event');
    expect((await l.stop()).code).toBe(0);
  });

  it('a detached sandbox refuses Host: evil.example (421), a foreign Origin (403) and text/plain (415); payctl itself still works against it', async () => {
    const dir = configDir();
    const start = await runCli(['sandbox', 'start', '--detach', '--json'], { configDir: dir });
    const info = JSON.parse(start.stdout) as { base_url: string; api_key: string; port: number; pid: number };
    cleanups.push(() => killIfRunning(info.pid));
    expect(start.code, start.stderr).toBe(0);

    const rebind = await rawRequest(info.port, 'GET', '/v2/auth/token', { host: 'evil.example', 'api-key': info.api_key });
    expect(rebind.status).toBe(421);
    expect(rebind.json).toMatchObject({ status: 'Failed', code: 'MISDIRECTED_REQUEST' });
    expect(rebind.body).not.toContain('access_token');
    const health = await rawRequest(info.port, 'GET', '/_sandbox/health', { host: 'evil.example' });
    expect(health.status).toBe(421);
    const revoke = await rawRequest(info.port, 'POST', '/_sandbox/revoke-key', { origin: 'https://evil.example' });
    expect(revoke.status).toBe(403);
    const fault = await rawRequest(info.port, 'POST', '/_sandbox/faults', { 'content-type': 'text/plain' }, '{"kind":"hang","times":-1}');
    expect(fault.status).toBe(415);

    // payctl's own requests (GET, and POST /payout with its JSON body) are accepted.
    const balances = await runCli(['balances', '--profile', 'sandbox', '--json'], { configDir: dir });
    expect(balances.code, balances.stderr).toBe(0);
    const wallet = (JSON.parse(balances.stdout) as { data: Array<{ wallet_id: string; currency: string }> }).data.find((w) => w.currency === 'SLE')!;
    const create = await runCli(
      [
        'payout', 'create', '--profile', 'sandbox', '--yes', '--json',
        '--wallet', wallet.wallet_id, '--amount', '10.00', '--currency', 'SLE', '--type', 'wallet',
        '--name', 'Aminata Kamara', '--provider', 'orange_money', '--account', '076123456', '--phone', '+23276123456',
      ],
      { configDir: dir },
    );
    expect(create.code, create.stderr).toBe(0);
    const summary = await runCli(['summary', '--profile', 'sandbox', '--json'], { configDir: dir });
    expect(summary.code, summary.stderr).toBe(0);
    // The key was not revoked by the refused request.
    const token = await fetch(`${info.base_url}/auth/token`, { headers: { 'Api-Key': info.api_key } });
    expect(token.status).toBe(200);

    const stop = await runCli(['sandbox', 'stop'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
  });
});

describe('escape sequences from webhook events never reach the terminal', () => {
  const hostile = {
    amount: '\u001b]0;pwned\u0007100',
    type: 'payout.successful\u001b[2J\u001b[H',
    id: 'evt_\u202eabc\u009b31m',
    status: 'Successful\u001b[8m',
    payout_id: 'po_\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007',
    currency: 'SLE\u0007',
  };
  const forbidden = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

  it('text: the line shows the cleaned values and no ESC, BEL, C1 or bidi control', async () => {
    const S = secret('whsec_esc');
    const l = await startListener([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const body = event(hostile);
    expect((await postRaw(l.url, body, signed(body, S))).status).toBe(200);
    const line = (await l.waitFor(() => l.lines()[0], 'the event line'))!;
    const exit = await l.stop();
    expect(exit.code).toBe(0);
    expect(exit.stdout).not.toMatch(forbidden);
    expect(exit.stderr).not.toMatch(forbidden);
    expect(exit.stdout).not.toContain('pwned');
    expect(line).toContain('payout.successful');
    expect(line).toContain('100.00 SLE');
    expect(line).toContain('Successful');
    expect(line).toContain('evt_abc');
    expect(line).toContain('po_click');
  });

  it('--json: one line, every string sanitized (no raw C1 or bidi; no escaped ESC or BEL either)', async () => {
    const S = secret('whsec_esc_json');
    const l = await startListener(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const body = event(hostile);
    expect((await postRaw(l.url, body, signed(body, S))).status).toBe(200);
    await l.waitFor(() => l.lines().length === 1, 'the JSON line');
    const exit = await l.stop();
    expect(exit.stdout).not.toMatch(forbidden);
    expect(exit.stdout).not.toMatch(/\\u00(1b|07|9b)/i);
    const got = JSON.parse(exit.stdout) as Record<string, unknown>;
    expect(got).toMatchObject({ amount: '100', type: 'payout.successful', id: 'evt_abc', status: 'Successful', currency: 'SLE', payout_id: 'po_click', verified: true });
  });
});
