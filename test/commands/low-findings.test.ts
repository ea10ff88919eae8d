/**
 * Issue 27's low findings about the webhook listener, the config file, the sandbox's
 * admin routes and JSON output, in process (payctl's main in the test process, real HTTP
 * on 127.0.0.1 port 0, real temp folders). One test per finding. What needs a process of
 * its own (the detached sandbox's environment) is in test/e2e/low-findings.test.ts.
 * No traffic leaves the machine: an address that is not local fails to bind locally, and
 * a name with a 64-character label is refused by the resolver before any query is sent.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFile, writeProfile } from '../helpers/e2e.js';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { portClosed, postRaw } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope } from '../helpers/listen-in-process.js';
import { headersFor, oddBody, txnId, webhookId } from '../helpers/webhook-events.js';
import { admin, api, startSandbox } from '../helpers/sandbox.js';

const S = 'whsec_low_findings_7a2c';

const { cleanups, configDir, target } = useListenerScope();

/** A service on 127.0.0.1 that answers every request with `body` as JSON; counts what it got. */
async function service(body: string): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  const a = server.address();
  return { url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/v2`, hits: () => hits };
}

describe('webhooks listen: the low findings', () => {
  it('an address not on this machine, or a name that does not resolve: a plain usage error naming the cause (exit 2), never "a bug"', async () => {
    const notHere = await payctl(['webhooks', 'listen', '--port', '0', '--host', '192.0.2.1'], { dir: configDir() });
    expect(notHere.code, notHere.stderr).toBe(2);
    expect(notHere.stderr).toContain('Cannot listen on 192.0.2.1 port 0: the address is not one of this machine');
    expect(notHere.stderr).toContain('(EADDRNOTAVAIL)');
    expect(notHere.stderr).not.toContain('This is a bug');

    // A label over 63 characters: refused by the resolver itself, no query leaves the machine.
    const name = `${'a'.repeat(64)}.invalid`;
    const unresolvable = await payctl(['webhooks', 'listen', '--port', '0', '--host', name], { dir: configDir() });
    expect(unresolvable.code, unresolvable.stderr).toBe(2);
    expect(unresolvable.stderr).toContain(`Cannot listen on ${name} port 0: the name does not resolve to an address (ENOTFOUND).`);
    expect(unresolvable.stderr).not.toContain('This is a bug');
  });

  it('a password in --forward-to is never printed (Ready line, forward lines, errors, --verbose); the app gets it as Basic auth', async () => {
    const app = await target(() => 204);
    const password = 'pw-Secr3t-forward-77';
    const withPassword = app.url.replace('http://', `http://hook-user:${password}@`);
    const l = await listen(['--forward-to', withPassword, '--verbose'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    expect(l.stderr()).toContain(`forwarding to ${app.url.replace('http://', 'http://hook-user:***@')}`);
    const body = oddBody(webhookId(), txnId());
    expect((await postRaw(l.url, body, headersFor(body, S))).status).toBe(204);
    await l.waitFor(() => l.stderr().includes(' 204 ('), 'the forward line');
    expect(app.received[0]!.headers.authorization).toBe(`Basic ${Buffer.from(`hook-user:${password}`).toString('base64')}`);
    // Its answer gone: the failure line names the URL, masked.
    await app.close();
    const again = oddBody(webhookId(), txnId());
    expect((await postRaw(l.url, again, headersFor(again, S))).status).toBe(502);
    await l.waitFor(() => l.stderr().includes('(answered 502)'), 'the failed forward line');
    const exit = await l.stop();
    expect(exit.code).toBe(130);
    expect(exit.stderr).toContain('hook-user:***@');
    expect(exit.stderr + exit.stdout).not.toContain(password);

    // A --forward-to that is not a URL: the error quotes it, masked.
    const bad = await payctl(['webhooks', 'listen', '--port', '0', '--forward-to', `http://hook-user:${password}@[::1`], { dir: configDir() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('hook-user:***@');
    expect(bad.stderr + bad.stdout).not.toContain(password);
    // A password with "#" or "/" in it, where the URL does not parse: masked whole.
    for (const odd of ['Secr#etPw99', 'Secr/etPw99']) {
      const r = await payctl(['webhooks', 'listen', '--port', '0', '--forward-to', `http://u:${odd}@[bad/hook`], { dir: configDir() });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('"http://u:***@[bad/hook" is not a URL.');
    }
  });

  it('a token given as the user name alone in --forward-to is never printed either', async () => {
    const app = await target(() => 204);
    const token = 'ghp_UserTokenSecret123';
    const l = await listen(['--forward-to', app.url.replace('http://', `http://${token}@`)], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    expect(l.stderr()).toContain(`forwarding to ${app.url.replace('http://', 'http://***@')}`);
    const exit = await l.stop();
    expect(exit.stderr + exit.stdout).not.toContain(token);
  });

  it('--host 0.0.0.0 warns that every interface can reach the listener (port 0, stopped at once)', async () => {
    const run = startPayctl(['webhooks', 'listen', '--port', '0', '--host', '0.0.0.0'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const deadline = Date.now() + 10_000;
    while (!run.stderr().includes('Press Ctrl-C to stop.') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    run.interrupt();
    const exit = await run.done;
    expect(exit.code, exit.stderr).toBe(130);
    const port = Number(/listening for webhook events on http:\/\/0\.0\.0\.0:(\d+)\//.exec(exit.stderr)?.[1]);
    expect(port).toBeGreaterThan(0);
    expect(exit.stderr).toContain('Warning: --host 0.0.0.0 listens on every interface: every interface can reach the listener');
    expect(await portClosed(port)).toBe(true);

    // The default (loopback) says nothing of the kind.
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    expect(l.stderr()).not.toContain('every interface');
    await l.stop();
  });

  it('an event the app already took (2xx) is not forwarded again when replayed; one the app failed is', async () => {
    // The app fails the first delivery of b, takes everything else.
    const app = await target((n) => (n === 2 ? 500 : 202));
    const l = await listen(['--forward-to', app.url, '--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const [a, b] = [webhookId(), webhookId()];
    const bodyA = oddBody(a, txnId());
    const bodyB = oddBody(b, txnId());

    expect((await postRaw(l.url, bodyA, headersFor(bodyA, S))).status).toBe(202);
    // The same signed bytes again, within the 300 s window: answered as the app did, not forwarded.
    expect(await postRaw(l.url, bodyA, headersFor(bodyA, S))).toEqual({ status: 202, body: '{"received":true,"duplicate":true}' });
    expect(app.received).toHaveLength(1);

    // The app failed b: the sender's retry goes to the app again.
    expect((await postRaw(l.url, bodyB, headersFor(bodyB, S))).status).toBe(500);
    expect((await postRaw(l.url, bodyB, headersFor(bodyB, S))).status).toBe(202);
    expect(app.received).toHaveLength(3);

    const lines = (await l.waitFor(() => l.lines().length >= 4 && l.lines(), 'four JSON lines')).map((x) => JSON.parse(x) as Record<string, unknown>);
    expect(lines.map((x) => [x.webhook_id, x.duplicate, x.forward_status, x.answered])).toEqual([
      [a, false, 202, 202],
      [a, true, null, 202],
      [b, false, 500, 500],
      [b, true, 202, 202],
    ]);
    await l.stop();
  });
});

describe('--json escapes C1 and bidi controls', () => {
  it('the envelope as the service sent it, byte-equal but for \\u009b and \\u202e escapes, which read back to the same strings', async () => {
    const name = 'Main \u202eWallet\u009b31m \u2066x\u2069 \u200f';
    const raw = JSON.stringify({
      status: 'Successful',
      message: 'Balances \u202eretrieved',
      data: [{ wallet_id: '5553881136', wallet_name: name, currency: 'SLE', balance: 1469.95, updated_at: '2026-04-03T14:58:04.000000Z' }],
      timestamp: '2026-04-03T19:56:26.422431Z',
    });
    const svc = await service(raw);
    const dir = configDir();
    writeProfile(dir, { baseUrl: svc.url, apiKey: 'sk_low_findings_key_1234' });
    const r = await payctl(['balances', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0080-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(r.stdout).toContain('Main \\u202eWallet\\u009b31m \\u2066x\\u2069 \\u200f');
    const escaped = raw.replace(/[\u009b\u200f\u202e\u2066\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(r.stdout).toBe(escaped + '\n');
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(raw));
  });
});

describe('the config file and folder', () => {
  it('a config file over 1 MiB is refused unread, naming the file (exit 2), nothing sent', async () => {
    const svc = await service('{}');
    const dir = configDir();
    writeProfile(dir, { baseUrl: svc.url, apiKey: 'sk_low_findings_key_1234' });
    // A valid file, padded past the bound with whitespace.
    writeFileSync(configFile(dir), JSON.stringify({ profiles: { default: { baseUrl: svc.url, apiKey: 'sk_low_findings_key_1234' } } }) + ' '.repeat(1024 * 1024));
    const r = await payctl(['balances'], { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`The config file ${configFile(dir)} is over 1048576 bytes (1 MiB), too large to be a payctl config file`);
    expect(r.stderr).not.toContain('This is a bug');
    expect(svc.hits()).toBe(0);
  });

  it('a group- or world-writable config file, and a config folder anyone can write, are refused (exit 2), nothing sent', async () => {
    const svc = await service('{}');
    const dir = configDir();
    writeProfile(dir, { baseUrl: svc.url, apiKey: 'sk_low_findings_key_1234' });
    for (const mode of [0o666, 0o620]) {
      chmodSync(configFile(dir), mode);
      const r = await payctl(['balances'], { dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`Refusing to use the config file ${configFile(dir)}: others can write to it (mode ${mode.toString(8)})`);
      expect(r.stderr).toContain(`chmod 600 ${configFile(dir)}`);
    }
    chmodSync(configFile(dir), 0o600);
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const r = await payctl(['balances'], { dir: open });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Refusing to use the config folder ${open}: every user can write to it (mode 777)`);
    expect(svc.hits()).toBe(0);
  });
});

describe('the sandbox admin routes', () => {
  it('/_sandbox/requests masks every credential: authorization, api-key, x-api-key, cookie, key-like query parameters and body members', async () => {
    const sb = await startSandbox({ conformance: false });
    cleanups.push(() => sb.close());
    const secret = 'sk_leak_canary_5e1f9a';
    await admin(sb, 'DELETE', '/requests');
    const body = `{"note": "kept as sent",\n "apiKey":"${secret}", "nested":{"client_secret":"${secret}x","password":"${secret}y"}}`;
    await api(sb, 'POST', `/wallets/balances?api_key=${secret}&x=1`, {
      headers: { 'X-Api-Key': secret, 'Api-Key': secret, Cookie: `session=${secret}` },
      body,
    });
    const res = await admin(sb, 'GET', '/requests');
    expect(res.raw).not.toContain(secret);
    const got = res.body.data.at(-1);
    expect(got.headers).toMatchObject({ authorization: 'Bearer ***', 'x-api-key': '***', 'api-key': '***', cookie: '***' });
    expect(got.query).toEqual({ api_key: '***', x: '1' });
    // The body is kept byte for byte but for the masked values.
    expect(got.body).toBe(`{"note": "kept as sent",\n "apiKey":"***", "nested":{"client_secret":"***","password":"***"}}`);
  });
});
