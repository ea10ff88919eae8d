/**
 * Issue 15 against the built binary: Ctrl-C ends `webhooks listen` and a foreground
 * `sandbox start` with exit 130 (interrupted), as README.md documents, after stopping
 * cleanly (port closed, the closing line on stderr, no "Error:"). Twice each: a SIGINT
 * sent to the process, and Ctrl-C typed in a real terminal (tmux), which signals the
 * terminal's foreground process group.
 */
import { spawn } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, tempConfigDir } from '../helpers/cli.js';
import { killLeftoverListeners, portClosed, postRaw, startListener } from '../helpers/listener.js';
import { startInTerminal, stopTerminalServer, tmuxAvailable, type TerminalSession } from '../helpers/pty.js';
import { event, signed } from '../helpers/webhook-events.js';
import { asText } from '../helpers/stderr-json.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  killLeftoverListeners();
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(() => stopTerminalServer());

function configDir(): string {
  const { dir, cleanup } = tempConfigDir();
  cleanups.push(cleanup);
  return dir;
}

async function until<T>(check: () => T, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function terminal(args: string[], dir: string): TerminalSession {
  const term = startInTerminal([process.execPath, BIN, ...args], { HOME: dir, PAYCTL_CONFIG_DIR: dir, NO_COLOR: '1', LANG: 'C.UTF-8' });
  cleanups.push(() => term.kill());
  return term;
}

describe('webhooks listen: Ctrl-C exits 130', () => {
  it('SIGINT after an event: exit 130, not a signal death; "Stopped listening.", no error; the port closed', async () => {
    const S = 'whsec_interrupt_130';
    const l = await startListener(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const body = event({ transaction_id: 'TXN-BOK-0123456789ABCDEF0123456789' });
    expect((await postRaw(l.url, body, signed(body, S))).status).toBe(200);
    await l.waitFor(() => l.lines().length === 1, 'the event line');

    const exit = await l.stop();
    expect(exit.signal).toBeNull();
    expect(exit.code, exit.stderr).toBe(130);
    // Under --json, JSON lines (src/output/log.ts), read back as the text a person sees.
    expect(asText(exit.stderr)).toMatch(/Stopped listening\.\n$/);
    expect(exit.stderr).not.toContain('Error');
    expect(JSON.parse(exit.stdout)).toMatchObject({ transaction_id: 'TXN-BOK-0123456789ABCDEF0123456789', verified: true });
    expect(await portClosed(l.port)).toBe(true);
  });

  it.skipIf(!tmuxAvailable())('Ctrl-C typed in a terminal: exit 130', async () => {
    const term = terminal(['webhooks', 'listen', '--port', '0'], configDir());
    await term.waitFor(/Press Ctrl-C to stop\./);
    term.keys('C-c');
    const screen = await term.waitFor(/EXIT:\d+/);
    expect(screen).toContain('Stopped listening.');
    expect(screen).toMatch(/^EXIT:130$/m);
    expect(screen).not.toContain('Error');
  });
});

describe('sandbox start (foreground): Ctrl-C exits 130', () => {
  it('SIGINT: exit 130, not a signal death; "Sandbox stopped.", no error; the port freed', async () => {
    const dir = configDir();
    const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json'], { env: cliEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(() => child.kill('SIGKILL'));
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('close', (code, signal) => r({ code, signal })));
    await until(() => err.includes('Press Ctrl-C to stop.'), 'the start-up lines');
    const info = JSON.parse(out) as { port: number; base_url: string };
    expect((await fetch(`${info.base_url.replace(/\/v2$/, '')}/_sandbox/health`)).status).toBe(200);

    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    const exit = await closed;
    clearTimeout(timer);
    expect(exit.signal).toBeNull();
    expect(exit.code, err).toBe(130);
    expect(asText(err)).toMatch(/Sandbox stopped\.\n$/);
    expect(err).not.toContain('Error');
    expect(await portClosed(info.port)).toBe(true);
  });

  it.skipIf(!tmuxAvailable())('Ctrl-C typed in a terminal: exit 130', async () => {
    const term = terminal(['sandbox', 'start', '--port', '0'], configDir());
    await term.waitFor(/Press Ctrl-C to stop\./);
    term.keys('C-c');
    const screen = await term.waitFor(/EXIT:\d+/);
    expect(screen).toContain('Sandbox stopped.');
    expect(screen).toMatch(/^EXIT:130$/m);
    expect(screen).not.toContain('Error');
  });
});
