/**
 * payctl sandbox start / status / stop, in process: the foreground sandbox runs in the
 * test process until Ctrl-C; status and stop read a record naming a dead, foreign, hung
 * or running process; `start --detach`'s parent (run through fakeDeps with a stand-in for
 * the node binary) waits for its child's record, and says why when it never comes.
 * A real detached sandbox and `sandbox stop` of it are in e2e/sandbox-cli.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedPort, readProfile } from '../helpers/e2e.js';
import { fakeDeps } from '../helpers/fake-deps.js';
import { payctl, startPayctl, type Started } from '../helpers/in-process.js';
import { startSandbox } from '../helpers/sandbox.js';
import { run as startRun } from '../../src/commands/sandbox/start.js';
import { run as stopRun } from '../../src/commands/sandbox/stop.js';
import { exitCodeOf, LocalError, UsageError } from '../../src/errors.js';
import { useCleanups } from '../helpers/cleanups.js';
import { portClosed } from '../helpers/listener.js';
import { renderErrorJson, renderErrorText } from '../../src/output/error-report.js';
import { makeStyle } from '../../src/output/style.js';

const { cleanups, configDir } = useCleanups();

/** A process of the test's own making, killed after the test. */
function child(command: string, args: string[]): ChildProcess {
  const c = spawn(command, args, { stdio: 'ignore' });
  cleanups.push(() => void c.kill('SIGKILL'));
  return c;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

async function until<T>(check: () => T, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function writeRecordFile(dir: string, record: Record<string, unknown>): void {
  writeFileSync(join(dir, 'sandbox.json'), JSON.stringify(record), { mode: 0o600 });
}

/** A foreground `sandbox start` in process; resolves once its start-up lines are out. */
async function foreground(args: string[], opts: { dir: string; env?: Record<string, string> }): Promise<Started> {
  const run = startPayctl(['sandbox', 'start', '--port', '0', ...args], opts);
  cleanups.push(async () => {
    run.interrupt();
    await run.done.catch(() => {});
  });
  let ended = false;
  run.done.then(
    () => (ended = true),
    () => (ended = true),
  );
  await until(() => /Press Ctrl-C to stop\.|Profile \\?"sandbox\\?" saved/.test(run.stderr()) || ended, 'the foreground sandbox');
  if (ended) throw new Error(`sandbox start ended early: ${run.stderr()}`);
  return run;
}

describe('payctl sandbox start (foreground)', () => {
  it('serves until Ctrl-C (SIGINT), then exits 130 (interrupted) and frees the port', async () => {
    const dir = configDir();
    const run = await foreground(['--json'], { dir });
    const info = JSON.parse(run.stdout()) as { base_url: string; api_key: string; webhook_secret: string; pid: number; port: number };
    expect(run.stdout().trimEnd().split('\n')).toHaveLength(1);
    // The host's pid (this process: payctl runs in it).
    expect(info.pid).toBe(process.pid);
    expect(info.base_url).toBe(`http://127.0.0.1:${info.port}/v2`);
    expect(info.webhook_secret).toBe('whsec_sandbox');
    expect(info.api_key).toMatch(/^sk_sandbox_[0-9a-f]{24}$/);
    const health = await fetch(info.base_url.replace(/\/v2$/, '/_sandbox/health'));
    expect(health.status).toBe(200);
    expect(((await health.json()) as { data: { pid: number } }).data.pid).toBe(process.pid);
    expect(run.stderr()).toContain('Press Ctrl-C to stop.');
    // Profile "sandbox" points at it; no background record for a foreground sandbox.
    expect(readProfile(dir, 'sandbox')).toMatchObject({ baseUrl: info.base_url, apiKey: info.api_key, webhookSecret: 'whsec_sandbox' });
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);

    run.interrupt();
    const { code, stderr } = await run.done;
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('Sandbox stopped.');
    expect(await portClosed(info.port)).toBe(true);
  });

  it('text: prints the base URL, API key and webhook secret on stdout, messages on stderr', async () => {
    const dir = configDir();
    const run = await foreground(['--seed', '5', '--settle-after', '100', '--rate-limit', '50', '--error-shape', 'problem', '--list-shape', 'array'], {
      dir,
      env: { PAYCTL_SANDBOX_API_KEY: 'sk_sandbox_fixed_text_0001', PAYCTL_SANDBOX_WEBHOOK_SECRET: 'whsec_text_fixed' },
    });
    const m = /^Sandbox running at (http:\/\/127\.0\.0\.1:(\d+)\/v2)\nAPI key: sk_sandbox_fixed_text_0001\nWebhook secret: whsec_text_fixed\n$/.exec(run.stdout());
    expect(m, run.stdout()).not.toBeNull();
    // A fresh config folder: the default profile points at the sandbox too, and says until when.
    expect(run.stderr()).toBe(
      'Profile "sandbox" saved, and the default profile points at this sandbox too (until `payctl login` sets up your account). Try: payctl balances\n' +
        'By name: payctl balances --profile sandbox; or for this shell: export PAYCTL_PROFILE=sandbox\n' +
        'Press Ctrl-C to stop.\n',
    );
    // The key is the bearer token; the shapes asked for are served.
    const list = await fetch(`${m![1]}/payout/list`, { headers: { Authorization: 'Bearer sk_sandbox_fixed_text_0001' } });
    expect(list.status).toBe(200);
    expect(Array.isArray(((await list.json()) as { data: unknown }).data)).toBe(true);
    const refused = await fetch(`${m![1]}/payout/list?per_page=0`, { headers: { Authorization: 'Bearer sk_sandbox_fixed_text_0001' } });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    run.interrupt();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr.endsWith('Sandbox stopped.\n')).toBe(true);
  });

  it('refuses a port in use with exit 2 and a hint', async () => {
    const busy = await startSandbox();
    try {
      const res = await payctl(['sandbox', 'start', '--port', String(busy.port)], { dir: configDir() });
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(`Port ${busy.port} is already in use.`);
      expect(res.stderr).toContain('--port 0');
      expect(res.stdout).toBe('');
    } finally {
      await busy.close();
    }
  });

  it('refuses a state file that is not a sandbox state (exit 2), nothing started', async () => {
    const dir = configDir();
    const state = join(dir, 'state.json');
    writeFileSync(state, 'not json at all');
    const res = await payctl(['sandbox', 'start', '--port', '0', '--state', state], { dir });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`Error: The sandbox state file ${state} is damaged`);
    expect(res.stderr).toContain('Move it away or delete it to start afresh.');
    expect(res.stdout).toBe('');
    expect(readProfile(dir, 'sandbox')).toBeUndefined();
  });

  // Probe 51 F3: `null` said "damaged (Cannot read properties of null (reading 'version'))"; a null currency loaded and balances answered 500.
  it.each([
    ['null', 'null', 'it holds no JSON object'],
    ["a wallet's currency null", 'CURRENCY_NULL', 'wallets[0].currency: Invalid input: expected string, received null'],
  ])('a state file with %s: refused at start (exit 2), naming what is wrong in words, nothing started', async (_what, text, why) => {
    const dir = configDir();
    const state = join(dir, 'state.json');
    if (text === 'CURRENCY_NULL') {
      const sb = await startSandbox({ stateFile: state });
      await sb.close();
      const written = JSON.parse(readFileSync(state, 'utf8')) as { wallets: Array<Record<string, unknown>> };
      written.wallets[0]!.currency = null;
      writeFileSync(state, JSON.stringify(written));
    } else writeFileSync(state, text);
    const res = await payctl(['sandbox', 'start', '--port', '0', '--state', state], { dir });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toBe(`Error: The sandbox state file ${state} is damaged (${why}). Move it away or delete it to start afresh.\n`);
    expect(res.stdout).toBe('');
    expect(readProfile(dir, 'sandbox')).toBeUndefined();
  });

  it('sandbox start --api-key in the foreground warns that the key is visible; PAYCTL_SANDBOX_API_KEY does not', async () => {
    const K = `sk_sandbox_fg_${Date.now().toString(16)}abcdef`;
    const fg = await foreground(['--api-key', K], { dir: configDir() });
    expect(fg.stderr()).toMatch(/Warning: --api-key puts a secret on the command line, where other users of this machine can see it \(ps\)/);
    fg.interrupt();
    expect((await fg.done).code).toBe(130);

    const env = await foreground(['--json'], { dir: configDir(), env: { PAYCTL_SANDBOX_API_KEY: K } });
    expect(JSON.parse(env.stdout())).toMatchObject({ api_key: K });
    expect(env.stderr()).not.toContain('Warning');
    // payctl runs in this process here: nothing it did put the key on this process's command line.
    expect(readFileSync('/proc/self/cmdline', 'utf8').replace(/\0/g, ' ')).not.toContain(K);
    env.interrupt();
    expect((await env.done).code).toBe(130);
  });
});

describe('the background record (a detached child, run in process)', () => {
  it('as the detached child it records itself (0600), status reports it, a second --detach is refused; Ctrl-C removes the record', async () => {
    const dir = configDir();
    // PAYCTL_SANDBOX_DETACHED=1 is what the detached parent gives its child: this run is that child.
    const run = await foreground(['--json'], { dir, env: { PAYCTL_SANDBOX_DETACHED: '1' } });
    const info = JSON.parse(run.stdout()) as { base_url: string; api_key: string; pid: number; port: number };
    expect(run.stderr()).not.toContain('Press Ctrl-C');
    const recordFile = join(dir, 'sandbox.json');
    const record = JSON.parse(readFileSync(recordFile, 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({ pid: process.pid, port: info.port, baseUrl: info.base_url, apiKey: info.api_key, webhookSecret: 'whsec_sandbox' });
    expect(Number.isNaN(Date.parse(String(record.startedAt)))).toBe(false);
    expect(statSync(recordFile).mode & 0o777).toBe(0o600);

    const status = await payctl(['sandbox', 'status'], { dir });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toBe(`Sandbox running at ${info.base_url} (pid ${process.pid}, started ${String(record.startedAt)})\n`);
    expect(status.stderr).toBe('');
    const statusJson = await payctl(['sandbox', 'status', '--json'], { dir });
    expect(statusJson.code, statusJson.stderr).toBe(0);
    expect(JSON.parse(statusJson.stdout)).toEqual({ running: true, base_url: info.base_url, pid: process.pid, port: info.port, started_at: record.startedAt });

    const again = await payctl(['sandbox', 'start', '--detach'], { dir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`A sandbox is already running at ${info.base_url} (pid ${process.pid})`);
    expect(again.stderr).toContain('payctl sandbox stop');
    expect(again.stdout).toBe('');

    run.interrupt();
    const r = await run.done;
    // The detached child ends normally (0) when stopped; only a foreground sandbox exits 130.
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Sandbox stopped.');
    expect(existsSync(recordFile)).toBe(false);

    const after = await payctl(['sandbox', 'status'], { dir });
    expect(after.code, after.stderr).toBe(1);
    expect(after.stdout).toBe('No sandbox is running.\n');
    expect(after.stderr).toBe(`(None recorded in the config folder ${dir}.) Start one with: payctl sandbox start --detach\n`);
  });
});

describe('payctl sandbox status / stop on a record', () => {
  it('treats a record of a dead process as stale', async () => {
    const dir = configDir();
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    writeRecordFile(dir, { pid: dead.pid, port: 1, baseUrl: 'http://127.0.0.1:1/v2', apiKey: 'x', webhookSecret: 'y', startedAt: '' });
    const status = await payctl(['sandbox', 'status'], { dir });
    expect(status.code, status.stderr).toBe(1);
    expect(status.stdout).toBe('No sandbox is running.\n');
    const stop = await payctl(['sandbox', 'stop'], { dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toContain(`No sandbox is running (removed a stale record of pid ${dead.pid})`);
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
  });

  it('a record whose pid is now some other program: not running, the record is removed, and that program is not signalled', async () => {
    const dir = configDir();
    const other = child('sleep', ['30']);
    await until(() => alive(other.pid!), 'the other program');
    const port = await closedPort();
    writeRecordFile(dir, { pid: other.pid, port, baseUrl: `http://127.0.0.1:${port}/v2`, apiKey: 'x', webhookSecret: 'y', startedAt: '' });

    const status = await payctl(['sandbox', 'status', '--json'], { dir });
    expect(status.code, status.stderr).toBe(1);
    expect(JSON.parse(status.stdout)).toEqual({ running: false });
    const stop = await payctl(['sandbox', 'stop', '--json'], { dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(JSON.parse(stop.stdout)).toEqual({ stopped: false, running: false });
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
    expect(alive(other.pid!)).toBe(true);
  });

  /** A process that looks like a hung detached `payctl sandbox start` (it never answers) of `configDir`. */
  function hungSandbox(configDir: string, relative = false): ChildProcess {
    // `relative`: started in the folder above, its PAYCTL_CONFIG_DIR naming the folder from there.
    const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', 'sandbox', 'start', '--port', '0'], {
      stdio: 'ignore',
      env: { PATH: process.env.PATH, PAYCTL_CONFIG_DIR: relative ? basename(configDir) : configDir, PAYCTL_SANDBOX_DETACHED: '1' },
      ...(relative ? { cwd: dirname(configDir) } : {}),
    });
    cleanups.push(() => void c.kill('SIGKILL'));
    return c;
  }

  it.each([
    ['named by its path', false],
    // Its relative PAYCTL_CONFIG_DIR read from its own working folder, not from the stop's (taken for a stranger before: its record removed, it left running).
    ['started with a relative PAYCTL_CONFIG_DIR in another folder', true],
  ])('a detached sandbox of this config folder (%s) that is alive but does not answer counts as running; stop ends it with SIGTERM', async (_what, relative) => {
    const dir = configDir();
    const hung = hungSandbox(dir, relative);
    await until(() => alive(hung.pid!) && readFileSync(`/proc/${hung.pid}/cmdline`, 'utf8').includes('sandbox\0start'), 'the hung sandbox');
    const port = await closedPort();
    const baseUrl = `http://127.0.0.1:${port}/v2`;
    writeRecordFile(dir, { pid: hung.pid, port, baseUrl, apiKey: 'x', webhookSecret: 'y', startedAt: '2026-01-01T00:00:00.000Z', instance: 'i1' });

    const status = await payctl(['sandbox', 'status'], { dir });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toBe(`Sandbox running at ${baseUrl} (pid ${hung.pid}, started 2026-01-01T00:00:00.000Z)\n`);

    const exited = new Promise<NodeJS.Signals | null>((r) => hung.on('exit', (_code, signal) => r(signal)));
    const stop = await payctl(['sandbox', 'stop', '--json'], { dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(JSON.parse(stop.stdout)).toEqual({ stopped: true, pid: hung.pid, base_url: baseUrl });
    expect(stop.stderr).toBe('');
    expect(await exited).toBe('SIGTERM');
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
  });

  it.each([
    ['a program whose command line says "payctl sandbox start"', (): ChildProcess => child('bash', ['-c', 'exec -a "payctl sandbox start" sleep 30'])],
    ['a script named start in a folder named sandbox', (): ChildProcess => child('bash', ['-c', 'exec -a "/bin/bash /tmp/sandbox/start-notes.sh" sleep 30'])],
    ["another config folder's detached sandbox", (): ChildProcess => hungSandbox(configDir())],
  ])('a record whose pid was reused by %s: stale, said so, removed, and that process is never signalled', async (_what, make) => {
    const dir = configDir();
    const other = make();
    await until(() => alive(other.pid!) && /sandbox/.test(readFileSync(`/proc/${other.pid}/cmdline`, 'utf8')), 'the other process');
    const port = await closedPort();
    writeRecordFile(dir, { pid: other.pid, port, baseUrl: `http://127.0.0.1:${port}/v2`, apiKey: 'x', webhookSecret: 'y', startedAt: '', instance: 'i2' });
    let signalled: NodeJS.Signals | null = null;
    other.on('exit', (_code, signal) => (signalled = signal));

    const status = await payctl(['sandbox', 'status'], { dir });
    expect(status.code, status.stderr).toBe(1);
    expect(status.stdout).toBe('No sandbox is running.\n');
    expect(status.stderr).toContain(`The sandbox record is stale: pid ${other.pid} is not this config folder's sandbox.`);
    const stop = await payctl(['sandbox', 'stop'], { dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toBe(
      `No sandbox is running (removed a stale record of pid ${other.pid}; that process is not this config folder's sandbox and was left alone).\n`,
    );
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(signalled).toBeNull();
    expect(alive(other.pid!)).toBe(true);
  });

  it("a sandbox answering on the recorded port with the recorded pid but another instance (not this record's): stale, not signalled", async () => {
    const dir = configDir();
    const other = child('sleep', ['30']);
    await until(() => alive(other.pid!), 'the other program');
    // Another folder's sandbox that reports the recorded pid: the instance token tells them apart.
    const sb = await startSandbox({ pid: other.pid!, instance: 'theirs' });
    cleanups.push(() => sb.close());
    writeRecordFile(dir, { pid: other.pid, port: sb.port, baseUrl: sb.baseUrl, apiKey: 'x', webhookSecret: 'y', startedAt: '', instance: 'ours' });
    const stop = await payctl(['sandbox', 'stop', '--json'], { dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(JSON.parse(stop.stdout)).toEqual({ stopped: false, running: false });
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
    expect(alive(other.pid!)).toBe(true);
  });

  it('no record: nothing runs; stop says so and exits 0', async () => {
    const dir = configDir();
    const none = await payctl(['sandbox', 'stop'], { dir });
    expect(none.code, none.stderr).toBe(0);
    // The folder looked in is named: a sandbox started under another PAYCTL_CONFIG_DIR runs on unseen.
    expect(none.stderr).toBe(`No sandbox is running from the config folder ${dir}: nothing was stopped.\n`);
    expect(none.stdout).toBe('');
    const status = await payctl(['sandbox', 'status', '--json'], { dir });
    expect(status.code, status.stderr).toBe(1);
    expect(JSON.parse(status.stdout)).toEqual({ running: false });
  });

  // Probe 51 F2: a record cut to `{` was taken for none: "No sandbox is running", stop exit 0, while its sandbox ran on.
  it.each([
    ['cut short', '{', 'it is not complete JSON: cut short or overwritten'],
    ['empty', '', 'it is empty (0 bytes)'],
    ['not an object', '[1]', 'it holds no JSON object'],
    ['without a number for its pid', JSON.stringify({ pid: 'x', port: 41234, baseUrl: 'http://127.0.0.1:41234/v2' }), 'it names no pid (a number)'],
    ['without a base URL', JSON.stringify({ pid: 1, port: 41234 }), 'it names no baseUrl (a string)'],
  ])('a damaged record (%s): status and stop say so and how to find its sandbox (exit 2), signal nothing and keep it', async (_what, text, why) => {
    const dir = configDir();
    const file = join(dir, 'sandbox.json');
    writeFileSync(file, text, { mode: 0o600 });
    const said = `Error: The sandbox record ${file} is damaged (${why}): payctl cannot tell whether the background sandbox it recorded still runs.`;
    const port = text.includes('41234') ? '41234' : 'PORT';

    const status = await payctl(['sandbox', 'status'], { dir });
    expect(status.code, status.stderr).toBe(2);
    expect(status.stdout).toBe('');
    expect(status.stderr).toContain(`${said} Its status is unknown.`);
    expect(status.stderr).not.toContain('No sandbox is running');

    const stop = await payctl(['sandbox', 'stop'], { dir });
    expect(stop.code, stop.stderr).toBe(2);
    expect(stop.stderr).toContain(`${said} Nothing was stopped.`);
    expect(stop.stderr).toContain(`ss -ltnp 'sport = :${port}'  (or: lsof -i :${port})`);
    expect(stop.stderr).toContain(port === 'PORT' ? `("Sandbox running at …" in ${join(dir, 'sandbox.log')})` : 'port 41234, as the record says');
    expect(stop.stderr).toContain(`remove the record: rm ${file}`);
    expect(stop.stderr).not.toContain('No sandbox is running');
    expect(readFileSync(file, 'utf8')).toBe(text);

    const json = await payctl(['sandbox', 'stop', '--json'], { dir });
    expect(json.code, json.stderr).toBe(2);
    expect(json.stdout).toBe('');
    expect((JSON.parse(json.stderr) as { error: { message: string } }).error.message).toContain('is damaged');
  });

  it('start over a damaged record, foreground or detached: refused (exit 2) before it listens, saying why, not "port in use"', async () => {
    const dir = configDir();
    const busy = await startSandbox();
    cleanups.push(() => busy.close());
    const file = join(dir, 'sandbox.json');
    writeFileSync(file, '{', { mode: 0o600 });
    for (const extra of [[], ['--detach']]) {
      const res = await payctl(['sandbox', 'start', '--port', String(busy.port), ...extra], { dir });
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(`Error: The sandbox record ${file} is damaged (it is not complete JSON: cut short or overwritten)`);
      expect(res.stderr).toContain('The sandbox was not started.');
      expect(res.stderr).not.toContain('already in use');
      expect(res.stdout).toBe('');
    }
    expect(readFileSync(file, 'utf8')).toBe('{');
    expect(existsSync(join(dir, 'sandbox.log'))).toBe(false);
    expect(readProfile(dir, 'sandbox')).toBeUndefined();

    // The detached child, finding it in the way of its claim: refused too, the record kept (it removed it before).
    const child = await payctl(['sandbox', 'start', '--port', '0'], { dir, env: { PAYCTL_SANDBOX_DETACHED: '1' } });
    expect(child.code, child.stderr).toBe(2);
    expect(child.stderr).toContain(`Error: The sandbox record ${file} is damaged`);
    expect(readFileSync(file, 'utf8')).toBe('{');
    expect(readProfile(dir, 'sandbox')).toBeUndefined();
  });
});

/**
 * `sandbox start --detach`'s parent with a stand-in for the node binary (Deps' host
 * execPath): a shell script that receives the child's command line and environment,
 * and does what the test says (write the record as the real child would, exit, hang).
 */
function fakeNode(dir: string, script: string): string {
  const file = join(dir, 'fake-node.sh');
  writeFileSync(file, `#!/bin/sh\n${script}\n`);
  chmodSync(file, 0o755);
  return file;
}

async function detachWith(execPath: string, dir: string, opts: Parameters<typeof startRun>[0], env: Record<string, string> = {}, json = true) {
  const fd = fakeDeps({ dir, env, globals: { json } });
  const started: number[] = [];
  fd.deps.host = {
    ...fd.deps.host,
    execPath,
    kill: (pid, signal) => {
      if (signal === 'SIGKILL') started.push(pid);
      process.kill(pid, signal);
    },
  };
  cleanups.push(() => fd.close());
  return { fd, killed: started, result: startRun({ detach: true, ...opts }, fd.deps) };
}

describe('payctl sandbox start --detach (the parent, in process)', () => {
  it('starts the child with the secrets in its environment, never on its command line, and prints what the child recorded', async () => {
    const dir = configDir();
    const script = fakeNode(
      dir,
      [
        'printf "%s\\n" "$@" > "$PAYCTL_CONFIG_DIR/child-argv"',
        'env > "$PAYCTL_CONFIG_DIR/child-env"',
        'printf \'{"pid":%s,"port":4010,"baseUrl":"http://127.0.0.1:4010/v2","apiKey":"%s","webhookSecret":"%s","startedAt":"2026-01-01T00:00:00.000Z"}\' $$ "$PAYCTL_SANDBOX_API_KEY" "$PAYCTL_SANDBOX_WEBHOOK_SECRET" > "$PAYCTL_CONFIG_DIR/sandbox.json.tmp"',
        'mv "$PAYCTL_CONFIG_DIR/sandbox.json.tmp" "$PAYCTL_CONFIG_DIR/sandbox.json"',
        'exec sleep 30',
      ].join('\n'),
    );
    const K = 'sk_sandbox_detach_flag_0042';
    const { fd, result } = await detachWith(
      script,
      dir,
      {
        apiKey: K,
        port: 0,
        seed: 5,
        settleAfter: 200,
        rateLimit: 7,
        state: '/tmp/st.json',
        webhookUrl: 'http://127.0.0.1:4242/webhooks',
        listShape: 'resource',
        errorShape: 'envelope',
        kycStatus: 'Pending',
      },
      { PAYCTL_SANDBOX_WEBHOOK_SECRET: 'whsec_from_env_77' },
    );
    expect(await result).toBe(0);
    const out = JSON.parse(fd.stdout()) as { pid: number };
    cleanups.push(() => {
      try {
        process.kill(out.pid, 'SIGKILL');
      } catch {
        // gone
      }
    });
    expect(out).toEqual({ base_url: 'http://127.0.0.1:4010/v2', api_key: K, webhook_secret: 'whsec_from_env_77', port: 4010, pid: out.pid });
    expect(alive(out.pid)).toBe(true);
    expect(fd.stderr()).toBe(
      'Warning: --api-key puts a secret on the command line, where other users of this machine can see it (ps). Set PAYCTL_SANDBOX_API_KEY instead.\n' +
        'Profile "sandbox" saved. Try: payctl balances --profile sandbox\n' +
        'Or for this shell, so that commands need no --profile: export PAYCTL_PROFILE=sandbox\n' +
        `Running in the background (pid ${out.pid}). Stop it with: payctl sandbox stop\n`,
    );

    const argv = readFileSync(join(dir, 'child-argv'), 'utf8').trimEnd().split('\n');
    expect(argv[0]).toMatch(/bin\/payctl\.js$/);
    expect(argv.slice(1)).toEqual([
      'sandbox',
      'start',
      '--port',
      '0',
      '--seed',
      '5',
      '--settle-after',
      '200',
      '--rate-limit',
      '7',
      '--list-shape',
      'resource',
      '--error-shape',
      'envelope',
      '--kyc-status',
      'Pending',
      '--state',
      '/tmp/st.json',
      '--webhook-url',
      'http://127.0.0.1:4242/webhooks',
    ]);
    const env = readFileSync(join(dir, 'child-env'), 'utf8').split('\n');
    expect(env).toContain('PAYCTL_SANDBOX_DETACHED=1');
    expect(env).toContain('NO_COLOR=1');
    expect(env).toContain(`PAYCTL_SANDBOX_API_KEY=${K}`);
    expect(env).toContain('PAYCTL_SANDBOX_WEBHOOK_SECRET=whsec_from_env_77');
    expect(env).toContain(`PAYCTL_CONFIG_DIR=${dir}`);
  });

  it('a child that exits before it is ready: exit 1 with the end of its log', async () => {
    const dir = configDir();
    const script = fakeNode(dir, 'echo "listen EACCES: the first reason"\necho "the last words"\nexit 3');
    const { fd, result } = await detachWith(script, dir, {}, {}, false);
    const err = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LocalError);
    expect(exitCodeOf(err)).toBe(1);
    expect((err as Error).message).toBe('The background sandbox exited before it was ready (exit code 3).\nlisten EACCES: the first reason\nthe last words');
    expect((err as LocalError).hint).toBe(`Its log is in ${join(dir, 'sandbox.log')}.`);
    expect(statSync(join(dir, 'sandbox.log')).mode & 0o777).toBe(0o600);
    expect(fd.stdout()).toBe('');
  });

  it('a child that refused what it was given (exit 2: a damaged state file): exit 2 too, as in the foreground, with the end of its log', async () => {
    const dir = configDir();
    const script = fakeNode(dir, 'echo "Error: The sandbox state file s.json is damaged (it holds no JSON object)."\nexit 2');
    const { result } = await detachWith(script, dir, {}, {}, false);
    const err = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(exitCodeOf(err)).toBe(2);
    // The child's error without its "Error:" (probe C53, 6).
    expect((err as Error).message).toBe(
      'The background sandbox exited before it was ready (exit code 2): The sandbox state file s.json is damaged (it holds no JSON object).',
    );
    expect((err as UsageError).hint).toBe(`Its log is in ${join(dir, 'sandbox.log')}.`);
  });

  it("a port in use: the child's error in the message, its advice in the hint, --json and text alike (probe C53, 6)", async () => {
    const dir = configDir();
    const script = fakeNode(
      dir,
      'echo "Sandbox starting"\necho "Error: Port 4010 is already in use."\necho "Pick another with --port N, or --port 0 for a free one."\nexit 2',
    );
    const { result } = await detachWith(script, dir, {});
    const err = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(exitCodeOf(err)).toBe(2);
    const doc = JSON.parse(renderErrorJson(err)) as { error: { message: string; hint: string } };
    expect(doc.error.message).toBe('The background sandbox exited before it was ready (exit code 2): Port 4010 is already in use.');
    expect(doc.error.hint).toBe(`Pick another with --port N, or --port 0 for a free one.\nIts log is in ${join(dir, 'sandbox.log')}.`);
    expect(renderErrorText(err, makeStyle(false))).toBe(
      `Error: The background sandbox exited before it was ready (exit code 2): Port 4010 is already in use.\nPick another with --port N, or --port 0 for a free one.\nIts log is in ${join(dir, 'sandbox.log')}.\n`,
    );
  });

  it('a node binary that cannot be started: exit 1, saying why', async () => {
    const dir = configDir();
    const { fd, result } = await detachWith(join(dir, 'no-such-node'), dir, {});
    const err = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LocalError);
    expect((err as Error).message).toMatch(/^Could not start the background sandbox: spawn .*no-such-node ENOENT$/);
    expect(fd.stdout()).toBe('');
  });

  it('Ctrl-C while waiting for the child: the child is killed and the run ends as a usage error (exit 2)', async () => {
    const dir = configDir();
    const script = fakeNode(dir, 'exec sleep 30');
    const { fd, killed, result } = await detachWith(script, dir, {});
    const settled = result.then(
      () => undefined,
      (e: unknown) => e,
    );
    await new Promise((r) => setTimeout(r, 120));
    fd.interrupt();
    const err = await settled;
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('Interrupted before the sandbox was ready; it was stopped.');
    expect(killed).toHaveLength(1);
    await until(() => !alive(killed[0]!), 'the killed child gone', 3000);
    expect(fd.stdout()).toBe('');
  });

  it('a stale record (its process is gone) is removed before a new child starts', async () => {
    const dir = configDir();
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    writeRecordFile(dir, { pid: dead.pid, port: 1, baseUrl: 'http://127.0.0.1:1/v2', apiKey: 'x', webhookSecret: 'y', startedAt: '' });
    const script = fakeNode(dir, 'test -e "$PAYCTL_CONFIG_DIR/sandbox.json" && echo "the stale record is still there"\nexit 5');
    const { result } = await detachWith(script, dir, {});
    const err = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).toBe('The background sandbox exited before it was ready (exit code 5).');
  });
});

/**
 * `sandbox stop` of a sandbox that ignores SIGTERM, through fakeDeps with a stand-in host
 * (a pid above pid_max: no such process, no /proc entry) and vitest's fake timers for
 * the 5 s grace and 2 s kill waits.
 */
describe('payctl sandbox stop: a sandbox that does not stop', () => {
  const FAKE_PID = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) + 1000;

  async function stopWith(dir: string, onSignal: (signal: NodeJS.Signals) => boolean) {
    // The record's sandbox answers its health route with the recorded pid and instance: proven to be it.
    const sb = await startSandbox({ pid: FAKE_PID, instance: 'fake-instance' });
    cleanups.push(() => sb.close());
    const baseUrl = sb.baseUrl;
    writeRecordFile(dir, { pid: FAKE_PID, port: sb.port, baseUrl, apiKey: 'x', webhookSecret: 'y', startedAt: '', instance: 'fake-instance' });
    const fd = fakeDeps({ dir });
    cleanups.push(() => fd.close());
    let alive = true;
    const signals: NodeJS.Signals[] = [];
    fd.deps.host = {
      ...fd.deps.host,
      kill: (pid, signal) => {
        expect(pid).toBe(FAKE_PID);
        if (!alive) throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
        if (signal === 0) return;
        signals.push(signal);
        if (onSignal(signal)) alive = false;
      },
    };
    // The health check runs on real I/O; the waits on fakeDeps' TestClock.
    const started = fd.clock.now().getTime();
    const result = await stopRun({}, fd.deps).then(
      (code) => ({ code, err: undefined as unknown }),
      (err: unknown) => ({ code: undefined, err }),
    );
    return { ...result, fd, signals, baseUrl, waitedMs: fd.clock.now().getTime() - started };
  }

  it('SIGTERM ignored: after 5 s it is killed (SIGKILL), with a warning; then "Sandbox stopped."', async () => {
    const dir = configDir();
    const { code, err, fd, signals, waitedMs } = await stopWith(dir, (signal) => signal === 'SIGKILL');
    expect(err).toBeUndefined();
    expect(waitedMs).toBeGreaterThanOrEqual(5000);
    expect(waitedMs).toBeLessThan(5200);
    expect(code).toBe(0);
    expect(signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(fd.stderr()).toBe(`Warning: The sandbox (pid ${FAKE_PID}) did not stop within 5 s; killing it.\nSandbox stopped.\n`);
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
  });

  it('neither SIGTERM nor SIGKILL ends it: exit 1, saying how to kill it by hand; the record is removed', async () => {
    const dir = configDir();
    const { code, err, fd, signals, waitedMs } = await stopWith(dir, () => false);
    expect(code).toBeUndefined();
    // 5 s for SIGTERM, then 2 s for SIGKILL.
    expect(waitedMs).toBeGreaterThanOrEqual(7000);
    expect(waitedMs).toBeLessThan(7200);
    expect(err).toBeInstanceOf(LocalError);
    expect(exitCodeOf(err)).toBe(1);
    expect((err as LocalError).message).toBe(`The sandbox (pid ${FAKE_PID}) could not be stopped.`);
    expect((err as LocalError).hint).toBe(`Try: kill -9 ${FAKE_PID}`);
    expect(signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(fd.stderr()).toBe(`Warning: The sandbox (pid ${FAKE_PID}) did not stop within 5 s; killing it.\n`);
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
  });
});
