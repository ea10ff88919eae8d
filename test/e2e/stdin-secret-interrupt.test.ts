/**
 * Probe O, findings 1 and 2, against the built binary. A secret read from standard input
 * (`login --api-key-stdin`, `config set --stdin`) whose pipe stays open ends at the first
 * SIGTERM: exit 130 with "Interrupted …", not when the writer closes the pipe (it waited, then
 * said "empty", exit 2); `webhooks listen --secret-stdin` alike. At a real terminal (tmux) `login --api-key-stdin` (and `webhooks listen --secret-stdin`, probe B53) asks with a hidden
 * prompt, as `config set --stdin` does: the typed key is not echoed, and one Ctrl-C ends it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, tempConfigDir } from '../helpers/cli.js';
import { newKey, readProfile } from '../helpers/e2e.js';
import { useSandbox } from '../helpers/sandbox.js';
import { startInTerminal, stopTerminalServer, tmuxAvailable, type TerminalSession } from '../helpers/pty.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });

const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});
afterAll(() => stopTerminalServer());

function configDir(): string {
  const { dir, cleanup } = tempConfigDir();
  cleanups.push(cleanup);
  return dir;
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs payctl with a standard input that is never written to nor closed, sends one SIGTERM once
 * the run has opened its config folder (its signal handlers are in place by then), and gives how
 * it ended; a run still alive 10 s after the signal is killed and reported as hanging.
 */
async function termWhileReading(args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string; hung: boolean }> {
  const home = configDir();
  const cfg = join(home, 'cfg');
  const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(cfg, { HOME: home }), stdio: ['pipe', 'ignore', 'pipe'] });
  cleanups.push(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  let exited = false;
  void ended.then(() => (exited = true));
  await until(() => existsSync(cfg) || exited, 'the config folder');
  child.kill('SIGTERM');
  const hang = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000).unref());
  const first = await Promise.race([ended, hang]);
  if (first === 'hung') child.kill('SIGKILL');
  const { code, signal } = await ended;
  return { code, signal, stderr, hung: first === 'hung' };
}

describe('a secret read from a pipe held open: the first SIGTERM ends the read', () => {
  it('login --api-key-stdin: exit 130 at once, "Interrupted … Nothing was sent or saved.", nothing sent', async () => {
    const from = ctx.sb.requests().length;
    const r = await termWhileReading(['login', '--api-key-stdin', '--insecure-storage', '--base-url', ctx.sb.baseUrl]);
    expect(r.hung, r.stderr).toBe(false);
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toBe('Error: Interrupted while reading the API key from standard input. Nothing was sent or saved.\n');
    expect(ctx.sb.requests().slice(from)).toEqual([]);
  });

  it('config set webhook-secret --stdin: exit 130 at once, "Interrupted … Nothing was saved."', async () => {
    const r = await termWhileReading(['config', 'set', 'webhook-secret', '--stdin']);
    expect(r.hung, r.stderr).toBe(false);
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toBe('Error: Interrupted while reading webhook-secret from standard input. Nothing was saved.\n');
  });

  it('webhooks listen --secret-stdin: exit 130 at once, nothing listened for', async () => {
    const r = await termWhileReading(['webhooks', 'listen', '--secret-stdin', '--port', '0']);
    expect(r.hung, r.stderr).toBe(false);
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toBe('Error: Interrupted while reading the webhook secret from standard input; nothing was listened for.\n');
  });
});

describe('a first line that never ends: refused once 64 KiB are read (probe B53, 7)', () => {
  it('login --api-key-stdin with 100 kB and no line break, the pipe held open: exit 2, nothing sent', async () => {
    const home = configDir();
    const from = ctx.sb.requests().length;
    const child = spawn(process.execPath, [BIN, 'login', '--api-key-stdin', '--insecure-storage', '--base-url', ctx.sb.baseUrl], {
      env: cliEnv(join(home, 'cfg'), { HOME: home }),
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    cleanups.push(() => child.kill('SIGKILL'));
    child.stdin.on('error', () => {}); // the reader stops reading: EPIPE is expected
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.stdin.write('a'.repeat(100_000)); // and never closed
    const hang = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000).unref());
    expect(await Promise.race([ended, hang]), stderr).toBe(2);
    expect(stderr).toContain('The first line of standard input is longer than 64 KiB');
    expect(ctx.sb.requests().slice(from)).toEqual([]);
  });
});

describe.skipIf(!tmuxAvailable())('login --api-key-stdin at a terminal: a hidden prompt', () => {
  function terminal(dir: string): TerminalSession {
    const term = startInTerminal([process.execPath, BIN, 'login', '--api-key-stdin', '--insecure-storage', '--base-url', ctx.sb.baseUrl], {
      HOME: dir,
      PAYCTL_CONFIG_DIR: dir,
      NO_COLOR: '1',
      LANG: 'C.UTF-8',
    });
    cleanups.push(() => term.kill());
    return term;
  }

  it('the typed key is not shown; the login works and saves it', async () => {
    const dir = configDir();
    const term = terminal(dir);
    await term.waitFor(/API key:/);
    term.type(KEY);
    term.keys('Enter');
    const screen = await term.waitFor(/^EXIT:\d+$/m, 15_000);
    expect(screen).toMatch(/^EXIT:0$/m);
    expect(screen).toContain(`Logged in to ${ctx.sb.baseUrl} as profile "default" (key ****${KEY.slice(-4)})`);
    expect(screen).not.toContain(KEY);
    expect(screen).not.toContain(KEY.slice(0, -4));
    expect(readProfile(dir)).toMatchObject({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  });

  it('one Ctrl-C at the prompt: exit 130 with "Interrupted.", nothing saved', async () => {
    const dir = configDir();
    const term = terminal(dir);
    await term.waitFor(/API key:/);
    term.type('sk_half_typed');
    term.keys('C-c');
    const screen = await term.waitFor(/^EXIT:\d+$/m);
    expect(screen).toMatch(/^EXIT:130$/m);
    expect(screen).toMatch(/^Error: Interrupted\./m);
    expect(screen).not.toContain('sk_half_typed');
    expect(readProfile(dir)).toBeUndefined();
  });
});

describe.skipIf(!tmuxAvailable())('webhooks listen --secret-stdin at a terminal: a hidden prompt (probe B53, 2)', () => {
  it('asks for the secret, does not show it, and listens', async () => {
    const dir = configDir();
    const term = startInTerminal([process.execPath, BIN, 'webhooks', 'listen', '--secret-stdin', '--port', '0'], {
      HOME: dir,
      PAYCTL_CONFIG_DIR: dir,
      NO_COLOR: '1',
      LANG: 'C.UTF-8',
    });
    cleanups.push(() => term.kill());
    await term.waitFor(/Webhook secret:/);
    term.type('whsec_TOPSECRET');
    term.keys('Enter');
    await term.waitFor(/^Ready: listening/m, 15_000);
    term.keys('C-c');
    const screen = await term.waitFor(/^EXIT:\d+$/m);
    expect(screen).not.toContain('TOPSECRET');
    expect(screen).toMatch(/^EXIT:130$/m);
  });
});
