/**
 * payctl sandbox start / status / stop, end to end: the built binary in child
 * processes, with a temp config folder.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, tempConfigDir } from '../helpers/cli.js';

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups.splice(0)) c();
});

/**
 * The process has exited. A zombie counts: where PID 1 does not reap orphans (some
 * containers), an exited detached process stays in the table as `Z` until reboot.
 */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
  } catch {
    return true;
  }
}

async function refusesConnections(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return false;
  } catch (err) {
    return /ECONNREFUSED/.test(String((err as { cause?: unknown }).cause ?? err));
  }
}

function killIfRunning(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

describe('payctl sandbox start --detach / status / stop', () => {
  it('runs a background sandbox, reports it, and stops it leaving no process and a closed port', async () => {
    const { dir, cleanup } = tempConfigDir();
    cleanups.push(cleanup);
    let pid: number | undefined;
    cleanups.push(() => killIfRunning(pid));

    const start = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--seed', '5'], { configDir: dir });
    expect(start.stderr).toContain('Running in the background');
    expect(start.code, start.stderr).toBe(0);
    const baseUrl = /^Sandbox running at (http:\/\/127\.0\.0\.1:\d+\/v2)$/m.exec(start.stdout)?.[1];
    const apiKey = /^API key: (sk_sandbox_[0-9a-f]{24})$/m.exec(start.stdout)?.[1];
    expect(baseUrl).toBeDefined();
    expect(apiKey).toBeDefined();
    expect(start.stdout).toMatch(/^Webhook secret: whsec_sandbox$/m);

    const recordFile = join(dir, 'sandbox.json');
    const record = JSON.parse(readFileSync(recordFile, 'utf8')) as { pid: number; port: number; baseUrl: string; apiKey: string };
    pid = record.pid;
    expect(record.baseUrl).toBe(baseUrl);
    expect(record.apiKey).toBe(apiKey);
    expect(baseUrl).toBe(`http://127.0.0.1:${record.port}/v2`);
    expect(statSync(recordFile).mode & 0o777).toBe(0o600);
    expect(processGone(record.pid)).toBe(false);

    // It serves the contract.
    const token = await fetch(`${baseUrl}/auth/token`, { headers: { 'Api-Key': apiKey! } });
    expect(token.status).toBe(200);
    const { data } = (await token.json()) as { data: { access_token: string } };
    const balances = await fetch(`${baseUrl}/wallets/balances`, { headers: { Authorization: `Bearer ${data.access_token}` } });
    expect(balances.status).toBe(200);
    expect(((await balances.json()) as { data: unknown[] }).data).toHaveLength(3);

    // Profile "sandbox" points at it.
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
      profiles: Record<string, { baseUrl?: string; apiKey?: string }>;
    };
    expect(config.profiles.sandbox).toMatchObject({ baseUrl, apiKey });

    const status = await runCli(['sandbox', 'status'], { configDir: dir });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`Sandbox running at ${baseUrl} (pid ${record.pid}`);
    const statusJson = await runCli(['sandbox', 'status', '--json'], { configDir: dir });
    expect(statusJson.code, statusJson.stderr).toBe(0);
    expect(JSON.parse(statusJson.stdout)).toMatchObject({ running: true, base_url: baseUrl, pid: record.pid, port: record.port });

    // A second one is refused while the first runs.
    const again = await runCli(['sandbox', 'start', '--detach'], { configDir: dir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`A sandbox is already running at ${baseUrl} (pid ${record.pid})`);
    expect(again.stderr).toContain('payctl sandbox stop');

    const stop = await runCli(['sandbox', 'stop'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toContain('Sandbox stopped.');
    expect(processGone(record.pid)).toBe(true);
    expect(await refusesConnections(`${baseUrl}/auth/token`)).toBe(true);
    expect(existsSync(recordFile)).toBe(false);

    const after = await runCli(['sandbox', 'status'], { configDir: dir });
    expect(after.code, after.stderr).toBe(1);
    expect(after.stdout).toContain('No sandbox is running.');
    const afterJson = await runCli(['sandbox', 'status', '--json'], { configDir: dir });
    expect(afterJson.code, afterJson.stderr).toBe(1);
    expect(JSON.parse(afterJson.stdout)).toEqual({ running: false });

    const stopAgain = await runCli(['sandbox', 'stop'], { configDir: dir });
    expect(stopAgain.code, stopAgain.stderr).toBe(0);
    expect(stopAgain.stderr).toContain('No sandbox is running.');
  });

  it('prints one JSON object with --json and honours --api-key', async () => {
    const { dir, cleanup } = tempConfigDir();
    cleanups.push(cleanup);
    const start = await runCli(['sandbox', 'start', '--detach', '--json', '--api-key', 'sk_sandbox_e2e_fixed'], { configDir: dir });
    const info = JSON.parse(start.stdout) as { base_url: string; api_key: string; webhook_secret: string; port: number; pid: number };
    cleanups.push(() => killIfRunning(info.pid));
    expect(start.code, start.stderr).toBe(0);
    expect(Object.keys(info).sort()).toEqual(['api_key', 'base_url', 'pid', 'port', 'webhook_secret']);
    expect(info).toMatchObject({ api_key: 'sk_sandbox_e2e_fixed', webhook_secret: 'whsec_sandbox', base_url: `http://127.0.0.1:${info.port}/v2` });
    const token = await fetch(`${info.base_url}/auth/token`, { headers: { 'Api-Key': 'sk_sandbox_e2e_fixed' } });
    expect(token.status).toBe(200);
    const stop = await runCli(['sandbox', 'stop', '--json'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(JSON.parse(stop.stdout)).toMatchObject({ stopped: true, pid: info.pid });
    expect(processGone(info.pid)).toBe(true);
  });

  it('treats a record of a dead process as stale', async () => {
    const { dir, cleanup } = tempConfigDir();
    cleanups.push(cleanup);
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    writeFileSync(
      join(dir, 'sandbox.json'),
      JSON.stringify({ pid: dead.pid, port: 1, baseUrl: 'http://127.0.0.1:1/v2', apiKey: 'x', webhookSecret: 'y', startedAt: '' }),
    );
    const status = await runCli(['sandbox', 'status'], { configDir: dir });
    expect(status.code, status.stderr).toBe(1);
    const stop = await runCli(['sandbox', 'stop'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toContain(`No sandbox is running (removed a stale record of pid ${dead.pid})`);
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
  });
});

describe('payctl sandbox start (foreground)', () => {
  it('serves until SIGINT, then exits 0 and frees the port', async () => {
    const { dir, cleanup } = tempConfigDir();
    cleanups.push(cleanup);
    const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json'], {
      env: cliEnv(dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => killIfRunning(child.pid));
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    const info = await new Promise<{ base_url: string; pid: number; port: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no JSON line; stderr: ${stderr}`)), 15_000);
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        const line = stdout.split('\n').find((l) => l.startsWith('{'));
        if (line && stdout.includes('\n')) {
          clearTimeout(timer);
          resolve(JSON.parse(line) as { base_url: string; pid: number; port: number });
        }
      });
    });
    expect(info.pid).toBe(child.pid);
    expect(info.base_url).toBe(`http://127.0.0.1:${info.port}/v2`);
    const health = await fetch(info.base_url.replace(/\/v2$/, '/_sandbox/health'));
    expect(health.status).toBe(200);
    expect(stderr).toContain('Press Ctrl-C to stop.');
    // No background record for a foreground sandbox.
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);

    child.kill('SIGINT');
    const { code, signal } = await exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(stderr).toContain('Sandbox stopped.');
    expect(await refusesConnections(`${info.base_url}/auth/token`)).toBe(true);
  });

  it('refuses a port in use with exit 2 and a hint', async () => {
    const { dir, cleanup } = tempConfigDir();
    cleanups.push(cleanup);
    const { startSandbox } = await import('../../src/sandbox/server.js');
    const busy = await startSandbox();
    try {
      const res = await runCli(['sandbox', 'start', '--port', String(busy.port)], { configDir: dir });
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(`Port ${busy.port} is already in use.`);
      expect(res.stderr).toContain('--port 0');
    } finally {
      await busy.close();
    }
  });
});
