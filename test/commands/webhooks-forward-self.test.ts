/**
 * `webhooks listen --forward-to` the listener's own port (in process, real sockets on
 * 127.0.0.1): refused before anything listens (exit 2), under every name of this machine's
 * loopback or every-interface address that could reach it, on any path. Such a listener once
 * started, and each event then waited --timeout for itself, was answered 502 and came back.
 * A --forward-to with port 0 is refused the same way (no app can be reached there). Each run here is bounded: a listener that starts is stopped at once and the case fails.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startPayctl } from '../helpers/in-process.js';
import { portClosed } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope } from '../helpers/listen-in-process.js';

const { configDir } = useListenerScope();

/** A port nothing listens on now (bound, then let go). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  await new Promise<void>((r) => server.close(() => r()));
  return typeof address === 'object' && address ? address.port : 0;
}

/** `webhooks listen ARGS`: its exit, or, when it started listening instead, that (stopped at once). */
async function refusedOrListening(args: string[], dir: string) {
  const run = startPayctl(['webhooks', 'listen', ...args], { dir, env: { PAYCTL_WEBHOOK_SECRET: 'whsec_self_3e9a' } });
  const deadline = Date.now() + 5000;
  let ended = false;
  void run.done.then(() => (ended = true));
  while (!ended && !run.stderr().includes('Ready:') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const listening = !ended;
  if (listening) run.interrupt();
  const exit = await run.done;
  return { ...exit, listening };
}

describe('webhooks listen --forward-to the listener itself', () => {
  it('is refused (exit 2, nothing listens) under every loopback and every-interface name of its port, on any path', async () => {
    const dir = configDir();
    const port = await freePort();
    const forwards = [
      `http://localhost:${port}/webhooks`,
      `http://127.0.0.1:${port}/webhooks`,
      `http://127.1:${port}/webhooks`,
      `http://LOCALHOST.:${port}/webhooks`,
      `http://[::1]:${port}/webhooks`,
      `http://[::ffff:127.0.0.1]:${port}/webhooks`,
      `http://0.0.0.0:${port}/webhooks`,
      `http://[::]:${port}/webhooks`,
      `https://localhost:${port}/webhooks`,
      `http://localhost:${port}/app/hooks?x=1`,
      `http://user:pa55word@localhost:${port}/webhooks`,
    ];
    for (const forward of forwards) {
      const r = await refusedOrListening(['--port', String(port), '--forward-to', forward], dir);
      expect(r.listening, `${forward}: started listening\n${r.stderr}`).toBe(false);
      expect(r.code, `${forward}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`is this listener itself (port ${port} on 127.0.0.1): every event would be forwarded back to the listener, never to your app.`);
      expect(r.stderr).toContain('Give the address your app listens on (another port)');
      expect(r.stderr).not.toContain('pa55word');
      expect(r.stdout).toBe('');
      expect(await portClosed(port)).toBe(true);
    }
  });

  it('on every interface (--host 0.0.0.0) too; a listener on [::1] is its own [::1] and localhost', async () => {
    const dir = configDir();
    const port = await freePort();
    for (const [host, forward] of [
      ['0.0.0.0', `http://127.0.0.1:${port}/webhooks`],
      ['0.0.0.0', `http://localhost:${port}/webhooks`],
      ['::1', `http://[::1]:${port}/webhooks`],
      ['::1', `http://localhost:${port}/webhooks`],
    ]) {
      const r = await refusedOrListening(['--host', host!, '--port', String(port), '--forward-to', forward!], dir);
      expect(r.listening, `${host} ${forward}: started listening\n${r.stderr}`).toBe(false);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`is this listener itself (port ${port} on ${host}):`);
    }
  });

  it('another port of this machine is the app: accepted', async () => {
    const dir = configDir();
    const [port, app] = [await freePort(), await freePort()];
    const r = await refusedOrListening(['--port', String(port), '--forward-to', `http://localhost:${app}/webhooks`], dir);
    expect(r.listening, r.stderr).toBe(true);
    expect(r.code).toBe(130);
    // And with --port 0 (the usual test listener) beside an app on a fixed port.
    const l = await listen(['--forward-to', `http://127.0.0.1:${app}/webhooks`], { dir });
    expect(l.stderr()).toContain(`forwarding to http://127.0.0.1:${app}/webhooks`);
    await l.stop();
  });
});

describe('webhooks listen --forward-to port 0 (probe 53 W, finding 7)', () => {
  it('is refused (exit 2, nothing listens): no app can be reached there', async () => {
    // Before: it listened, "forwarding to http://127.0.0.1:0/x", and every event got 502.
    const dir = configDir();
    for (const forward of ['http://127.0.0.1:0/x', 'https://localhost:00/hooks', 'http://u:pa55word@127.0.0.1:0/x']) {
      const r = await refusedOrListening(['--port', '0', '--forward-to', forward], dir);
      expect(r.listening, `${forward}: started listening\n${r.stderr}`).toBe(false);
      expect(r.code, `${forward}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/Error: --forward-to \S+ has port 0, where no app can be reached: every event would be answered 502\./);
      expect(r.stderr).toContain('Give the port your app listens on');
      expect(r.stderr).not.toContain('pa55word');
    }
  });
});

describe('webhooks listen --forward-to a port past 65535 (probe 54 W, finding 3)', () => {
  it('is refused (exit 2) saying a port is 1 to 65535, not only that it is no URL', async () => {
    const dir = configDir();
    for (const [forward, port] of [
      ['http://127.0.0.1:65536/x', '65536'],
      ['http://[::1]:99999/x', '99999'],
      ['http://u:pa55word@localhost:70000', '70000'],
    ]) {
      const r = await refusedOrListening(['--port', '0', '--forward-to', forward!], dir);
      expect(r.listening, `${forward}: started listening\n${r.stderr}`).toBe(false);
      expect(r.code, `${forward}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`Error: --forward-to \\S+ has port ${port}: a port is 1 to 65535\\.`));
      expect(r.stderr).not.toContain('is not a URL');
      expect(r.stderr).not.toContain('pa55word');
    }
    const notUrl = await refusedOrListening(['--port', '0', '--forward-to', 'http://127.0.0.1:port/x'], dir);
    expect(notUrl.stderr).toContain('Error: --forward-to: "http://127.0.0.1:port/x" is not a URL.');
  });
});
