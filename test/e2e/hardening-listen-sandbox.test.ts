/**
 * Issue 11 against the built binary, for what needs a process: what `ps` shows every
 * user of the machine (/proc/<pid>/cmdline) of a `webhooks listen --secret-stdin` and
 * of a detached sandbox's child (no secret), a real SIGINT or SIGTERM ending a listener, and the
 * Host / Origin / Content-Type checks of a detached sandbox.
 *
 * The rest of issue 11 (--secret and `sandbox start --api-key` warn, --secret-stdin
 * refusals, the listener's Host / Origin / Content-Type checks, escape sequences in
 * events) runs in process: test/commands/webhooks-listen.test.ts and sandbox.test.ts.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';
import { portClosed, postRaw } from '../helpers/listener.js';
import { event, rawRequest, signed, txnId } from '../helpers/webhook-events.js';
import { asText } from '../helpers/stderr-json.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
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
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Proc {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` (SIGINT: Ctrl-C) and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  cleanups.push(() => child.kill('SIGKILL'));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async stop(signal: NodeJS.Signals = 'SIGINT') {
      child.kill(signal);
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
  const m = await poll(() => /Ready: listening for webhook events on (http:\/\/127\.0\.0\.1:(\d+)\/webhooks)/.exec(p.stderr()), `the Ready line (stderr: ${p.stderr()})`);
  await poll(() => p.stderr().includes('Press Ctrl-C to stop.'), 'the end of the start-up lines');
  return { ...p, url: m[1]!, port: Number(m[2]) };
}

describe('stop signals', () => {
  it('SIGTERM (`kill PID`) stops a listener as Ctrl-C does, exit 130, as for every command (README exit codes)', async () => {
    const l = await listenWithStdinSecret(secret('whsec_term'), configDir());
    const exit = await l.stop('SIGTERM');
    expect(exit.code, l.stderr()).toBe(130);
    expect(l.stderr()).toContain('Stopped listening.');
    expect(await portClosed(l.port)).toBe(true);
  });
});

describe('secrets never on argv', () => {
  it('webhooks listen --secret-stdin: the secret is used to verify and is not in /proc/<pid>/cmdline; no argv warning', async () => {
    const S = secret('whsec_stdin');
    const l = await listenWithStdinSecret(S, configDir());
    expect(cmdline(l.child.pid!)).toContain('webhooks listen');
    expect(cmdline(l.child.pid!)).not.toContain(S);
    expect(l.stderr()).not.toMatch(/command line|signatures will not be checked/);

    const tx = txnId();
    const body = event({ transaction_id: tx });
    expect((await postRaw(l.url, body, signed(body, 'whsec_some_other'))).status).toBe(400);
    expect((await postRaw(l.url, body, signed(body, S))).status).toBe(200);
    await poll(() => l.stdout().includes(tx), 'the verified event line');
    expect(l.stdout().split('\n').filter(Boolean)).toHaveLength(1);
    const exit = await l.stop();
    // Ctrl-C (SIGINT) ends a listener as an interruption: 130.
    expect(exit.code, l.stderr()).toBe(130);
    expect(l.stdout() + l.stderr()).not.toContain(S);
    expect(await portClosed(l.port)).toBe(true);
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
    expect(asText(start.stderr)).toMatch(
      /Warning: --api-key puts a secret on the command line, where other users of this machine can see it \(ps\)\. Set PAYCTL_SANDBOX_API_KEY instead\./,
    );
    expect(asText(start.stderr)).toMatch(/Warning: --webhook-secret puts a secret on the command line.*Set PAYCTL_SANDBOX_WEBHOOK_SECRET instead\./);
    // The child got them all the same.
    const user = await fetch(`${info.base_url}/auth/user`, { headers: { Authorization: `Bearer ${K}` } });
    expect(user.status).toBe(200);
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

    // The sandbox's own webhooks (application/json, Host 127.0.0.1:<port>) pass the listener's checks, its signature check and its timestamp check.
    // The API key is the bearer token.
    const balances = (await (await fetch(`${info.base_url}/wallets/balances`, { headers: { Authorization: `Bearer ${K}` } })).json()) as {
      data: Array<{ wallet_id: string; currency: string }>;
    };
    const wallet = balances.data.find((w) => w.currency === 'SLE')!;
    const payoutId = randomUUID();
    const created = await fetch(`${info.base_url}/payout`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${K}`, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({
        amount: 12.5,
        currency: 'SLE',
        payoutId,
        walletId: wallet.wallet_id,
        recipient: { type: 'wallet', accountDetails: { name: 'Aminata Kamara', provider: 'orange_money', accountNumber: '076123456', phoneNumber: '+23276123456' } },
      }),
    });
    expect(created.status).toBe(201);
    const { data: made } = (await created.json()) as { data: { transaction_id: string } };
    const tx = made.transaction_id;
    await poll(
      () => l.stdout().includes(`transfer.initiated  ${tx}  12.50 SLE  Pending`) && l.stdout().includes(`transfer.success  ${tx}  12.50 SLE  Successful`),
      `both events (stderr: ${l.stderr()})`,
    );
    expect(l.stderr()).not.toMatch(/rejected|refus/i);

    const stop = await runCli(['sandbox', 'stop'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect((await l.stop()).code).toBe(130);
  });
});

describe('Host, Origin and Content-Type checks (a browser page cannot drive them)', () => {
  it('a detached sandbox refuses Host: evil.example (421), a foreign Origin (403) and text/plain (415); payctl itself still works against it', async () => {
    const dir = configDir();
    const start = await runCli(['sandbox', 'start', '--detach', '--json'], { configDir: dir });
    const info = JSON.parse(start.stdout) as { base_url: string; api_key: string; port: number; pid: number };
    cleanups.push(() => killIfRunning(info.pid));
    expect(start.code, start.stderr).toBe(0);

    const rebind = await rawRequest(info.port, 'GET', '/v2/auth/user', { host: 'evil.example', authorization: `Bearer ${info.api_key}` });
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
    // (In process: only the sandbox needs to be a detached process here.)
    const balances = await payctl(['balances', '--profile', 'sandbox', '--json'], { dir });
    expect(balances.code, balances.stderr).toBe(0);
    const wallet = (JSON.parse(balances.stdout) as { data: Array<{ wallet_id: string; currency: string }> }).data.find((w) => w.currency === 'SLE')!;
    const create = await payctl(
      [
        'payout',
        'create',
        '--profile',
        'sandbox',
        '--yes',
        '--json',
        '--wallet',
        wallet.wallet_id,
        '--amount',
        '10.00',
        '--currency',
        'SLE',
        '--type',
        'wallet',
        '--name',
        'Aminata Kamara',
        '--provider',
        'orange_money',
        '--account',
        '076123456',
        '--phone',
        '+23276123456',
      ],
      { dir },
    );
    expect(create.code, create.stderr).toBe(0);
    const summary = await payctl(['summary', '--profile', 'sandbox', '--json'], { dir });
    expect(summary.code, summary.stderr).toBe(0);
    // The key was not revoked by the refused request.
    const user = await fetch(`${info.base_url}/auth/user`, { headers: { Authorization: `Bearer ${info.api_key}` } });
    expect(user.status).toBe(200);

    const stop = await runCli(['sandbox', 'stop'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
  });
});
