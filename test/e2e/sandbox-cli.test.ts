/**
 * payctl sandbox start --detach / stop, end to end: the built binary starts a real
 * background process and `sandbox stop` ends it (a real pid and signal), with a temp
 * config folder. The steps between that need no process (status, a refused second
 * start) run in process. The foreground sandbox, and status / stop on records of
 * dead, foreign or hung processes, are in test/commands/sandbox.test.ts.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';
import { portClosed } from '../helpers/listener.js';

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
    const started: { pid?: number } = {};
    cleanups.push(() => killIfRunning(started.pid));

    const start = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--seed', '5', '--list-shape', 'items', '--kyc-status', 'Pending'], { configDir: dir });
    expect(start.stderr).toContain('Running in the background');
    expect(start.code, start.stderr).toBe(0);
    const baseUrl = /^Sandbox running at (http:\/\/127\.0\.0\.1:\d+\/v2)$/m.exec(start.stdout)?.[1];
    const apiKey = /^API key: (sk_sandbox_[0-9a-f]{24})$/m.exec(start.stdout)?.[1];
    expect(baseUrl).toBeDefined();
    expect(apiKey).toBeDefined();
    expect(start.stdout).toMatch(/^Webhook secret: whsec_sandbox$/m);

    const recordFile = join(dir, 'sandbox.json');
    const record = JSON.parse(readFileSync(recordFile, 'utf8')) as { pid: number; port: number; baseUrl: string; apiKey: string };
    started.pid = record.pid;
    expect(record.baseUrl).toBe(baseUrl);
    expect(record.apiKey).toBe(apiKey);
    expect(baseUrl).toBe(`http://127.0.0.1:${record.port}/v2`);
    expect(statSync(recordFile).mode & 0o777).toBe(0o600);
    expect(processGone(record.pid)).toBe(false);

    // It serves the documented service: the API key is the bearer token; the options reached the child.
    const auth = { Authorization: `Bearer ${apiKey!}` };
    const balances = await fetch(`${baseUrl}/wallets/balances`, { headers: auth });
    expect(balances.status).toBe(200);
    expect(((await balances.json()) as { data: unknown[] }).data).toHaveLength(3);
    const user = (await (await fetch(`${baseUrl}/auth/user`, { headers: auth })).json()) as { data: { kycStatus: string } };
    expect(user.data.kycStatus).toBe('Pending');
    const list = (await (await fetch(`${baseUrl}/payout/list`, { headers: auth })).json()) as { data: { items: unknown[] } };
    expect(list.data.items.length).toBeGreaterThan(0);
    expect((await fetch(`${baseUrl}/auth/token`, { headers: { 'Api-Key': apiKey! } })).status).toBe(404);

    // Profile "sandbox" points at it.
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
      profiles: Record<string, { baseUrl?: string; apiKey?: string }>;
    };
    expect(config.profiles.sandbox).toMatchObject({ baseUrl, apiKey });

    const status = await payctl(['sandbox', 'status'], { dir });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`Sandbox running at ${baseUrl} (pid ${record.pid}`);
    const statusJson = await payctl(['sandbox', 'status', '--json'], { dir });
    expect(statusJson.code, statusJson.stderr).toBe(0);
    expect(JSON.parse(statusJson.stdout)).toMatchObject({ running: true, base_url: baseUrl, pid: record.pid, port: record.port });

    // A second one is refused while the first runs.
    const again = await payctl(['sandbox', 'start', '--detach'], { dir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`A sandbox is already running at ${baseUrl} (pid ${record.pid})`);
    expect(again.stderr).toContain('payctl sandbox stop');
    // So is one in the foreground (it took over both profiles, and stopped, left them pointing at nothing).
    const foreground = await payctl(['sandbox', 'start', '--port', '0'], { dir });
    expect(foreground.code, foreground.stderr).toBe(2);
    expect(foreground.stderr).toContain(`A sandbox is already running at ${baseUrl} (pid ${record.pid})`);
    expect((JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as typeof config).profiles.sandbox).toMatchObject({ baseUrl, apiKey });

    const stop = await runCli(['sandbox', 'stop'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toContain('Sandbox stopped.');
    expect(processGone(record.pid)).toBe(true);
    expect(await portClosed(Number(new URL(baseUrl!).port))).toBe(true);
    expect(existsSync(recordFile)).toBe(false);

    const after = await payctl(['sandbox', 'status'], { dir });
    expect(after.code, after.stderr).toBe(1);
    expect(after.stdout).toContain('No sandbox is running.');
    const afterJson = await payctl(['sandbox', 'status', '--json'], { dir });
    expect(afterJson.code, afterJson.stderr).toBe(1);
    expect(JSON.parse(afterJson.stdout)).toEqual({ running: false });

    const stopAgain = await payctl(['sandbox', 'stop'], { dir });
    expect(stopAgain.code, stopAgain.stderr).toBe(0);
    expect(stopAgain.stderr).toContain('No sandbox is running from the config folder ');
  });

  // Probe 51 F2: a record cut to `{` was taken for none: status and stop said "No sandbox is running" (stop exit 0), the sandbox ran on, and the next start only said "Port … already in use".
  it('a damaged record of a running background sandbox: status, stop and start say it is damaged (exit 2); the sandbox is left running', async () => {
    const { dir, cleanup } = tempConfigDir();
    cleanups.push(cleanup);
    const start = await runCli(['sandbox', 'start', '--detach', '--json'], { configDir: dir });
    const info = JSON.parse(start.stdout) as { base_url: string; port: number; pid: number };
    cleanups.push(() => killIfRunning(info.pid));
    expect(start.code, start.stderr).toBe(0);
    const recordFile = join(dir, 'sandbox.json');
    writeFileSync(recordFile, '{');

    for (const cmd of ['status', 'stop']) {
      const r = await runCli(['sandbox', cmd], { configDir: dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`The sandbox record ${recordFile} is damaged (it is not complete JSON: cut short or overwritten)`);
      expect(r.stderr).not.toContain('No sandbox is running');
      expect(r.stderr).toContain(`in ${join(dir, 'sandbox.log')}`);
    }
    expect(processGone(info.pid)).toBe(false);
    // The log names its port (what the message points at), and was not written over by the refused start below.
    const again = await runCli(['sandbox', 'start', '--detach', '--port', String(info.port)], { configDir: dir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`The sandbox record ${recordFile} is damaged`);
    expect(again.stderr).toContain('The sandbox was not started.');
    expect(again.stderr).not.toContain('already in use');
    expect(readFileSync(join(dir, 'sandbox.log'), 'utf8')).toContain(`Sandbox running at ${info.base_url}`);
    expect(readFileSync(recordFile, 'utf8')).toBe('{');
    expect((await fetch(info.base_url.replace(/\/v2$/, '/_sandbox/health'))).status).toBe(200);
  });

  // Probe 51 F3: with --detach a damaged state file exited 1 (2 in the foreground).
  it('a damaged --state file with --detach: exit 2, as in the foreground, its words from the child; nothing left running', async () => {
    const { dir, cleanup } = tempConfigDir();
    cleanups.push(cleanup);
    const state = join(dir, 'state.json');
    writeFileSync(state, 'null');
    const start = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--state', state], { configDir: dir });
    expect(start.code, start.stderr).toBe(2);
    expect(start.stderr).toContain(
      `The background sandbox exited before it was ready (exit code 2): The sandbox state file ${state} is damaged (it holds no JSON object).`,
    );
    expect(start.stderr).not.toContain('Cannot read properties');
    expect(start.stdout).toBe('');
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
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
    const user = await fetch(`${info.base_url}/auth/user`, { headers: { Authorization: 'Bearer sk_sandbox_e2e_fixed' } });
    expect(user.status).toBe(200);
    const stop = await runCli(['sandbox', 'stop', '--json'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(JSON.parse(stop.stdout)).toMatchObject({ stopped: true, pid: info.pid });
    expect(processGone(info.pid)).toBe(true);
  });
});
