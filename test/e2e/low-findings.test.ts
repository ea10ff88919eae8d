/**
 * Issue 27's low finding that needs a process of its own: the detached sandbox's
 * environment, read from /proc/<pid>/environ of the real background process the built
 * binary starts. It keeps only what it needs (PATH, HOME, the config folder, locale, its
 * own PAYCTL_SANDBOX_* variables), never PAYCTL_API_KEY or anything else of the shell.
 * The in-process low findings are in test/commands/low-findings.test.ts.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function killIfRunning(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

/** A process's environment as its owner can read it. */
function environOf(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const i = entry.indexOf('=');
    if (i > 0) out[entry.slice(0, i)] = entry.slice(i + 1);
  }
  return out;
}

describe('payctl sandbox start --detach: the child environment', () => {
  it('gets only the variables it needs: no PAYCTL_API_KEY, token, proxy or other variable of the shell', async () => {
    const { dir, cleanup } = tempConfigDir();
    cleanups.push(cleanup);
    const started: { pid?: number } = {};
    cleanups.push(() => killIfRunning(started.pid));
    const canary = 'sk_live_env_canary_93b1c0';
    const start = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--json'], {
      configDir: dir,
      env: {
        PAYCTL_API_KEY: canary,
        PAYCTL_TOKEN: `${canary}_token`,
        PAYCTL_WEBHOOK_SECRET: `${canary}_whsec`,
        HTTPS_PROXY: 'http://127.0.0.1:9/',
        AWS_SECRET_ACCESS_KEY: `${canary}_aws`,
        PAYCTL_SANDBOX_API_KEY: 'sk_sandbox_low_findings_0001',
        TZ: 'UTC',
        LC_ALL: 'C.UTF-8',
      },
    });
    expect(start.code, start.stderr).toBe(0);
    const shown = JSON.parse(start.stdout) as { pid: number; api_key: string };
    started.pid = shown.pid;
    expect(shown.api_key).toBe('sk_sandbox_low_findings_0001');

    const env = environOf(shown.pid);
    const raw = readFileSync(`/proc/${shown.pid}/environ`, 'utf8');
    expect(raw).not.toContain(canary);
    expect(Object.keys(env).sort()).toEqual(
      ['HOME', 'LANG', 'LC_ALL', 'NO_COLOR', 'PATH', 'PAYCTL_CONFIG_DIR', 'PAYCTL_SANDBOX_API_KEY', 'PAYCTL_SANDBOX_DETACHED', 'TZ'].sort(),
    );
    expect(env).toMatchObject({ PAYCTL_CONFIG_DIR: dir, HOME: dir, TZ: 'UTC', LC_ALL: 'C.UTF-8', PAYCTL_SANDBOX_API_KEY: 'sk_sandbox_low_findings_0001' });

    const stop = await runCli(['sandbox', 'stop'], { configDir: dir });
    expect(stop.code, stop.stderr).toBe(0);
  });
});
