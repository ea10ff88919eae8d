/**
 * `webhooks listen --forward-to` with an app slower than --timeout (probe 53 W, finding 2), in
 * process over real HTTP on 127.0.0.1: the sender is answered 502 at --timeout in plain words,
 * but the forward goes on (up to the forward limit); a 2xx the app gives late is remembered, so
 * the event's retry is answered with it and not forwarded again, and a retry that comes while the
 * app has still not answered is not forwarded either. Before, the forward was dropped at
 * --timeout ("Headers Timeout Error") and the retry forwarded again: the app acted twice.
 * Time comes from a short --timeout and an app that answers when the test says, never a sleep.
 */
import { createServer, type ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startListener } from '../../src/webhooks/listener.js';
import { fakeDeps } from '../helpers/fake-deps.js';
import { postRaw } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope } from '../helpers/listen-in-process.js';
import { event, headersFor, webhookId } from '../helpers/webhook-events.js';

const S = 'whsec_slow_app_93c1';

const { configDir, cleanups } = useListenerScope();

/** An app that holds every request until the test answers it (`answer`), counting what it got. */
async function slowApp(): Promise<{ url: string; got: () => number; waiting: () => number; answer: (status: number) => void }> {
  const held: ServerResponse[] = [];
  let got = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got++;
      held.push(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/slow`,
    got: () => got,
    waiting: () => held.length,
    answer: (status) => {
      for (const res of held.splice(0)) res.writeHead(status, { 'content-type': 'text/plain' }).end('done');
    },
  };
}

/** The same event as `fields` made it, with another attempt (a retry). */
const retry = (b: Buffer, attempt: number) => Buffer.from(b.toString('utf8').replace('"attempt":1', `"attempt":${attempt}`));

describe('webhooks listen: an app slower than --timeout', () => {
  it('answers the sender 502 in plain words, remembers the late 200, and answers the retry 200 without forwarding it', async () => {
    const app = await slowApp();
    const l = await listen(['--timeout', '0.3', '--forward-to', app.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const id = webhookId();
    const b = event({ webhook_id: id });
    const first = await postRaw(l.url, b, headersFor(b, S));
    expect(first.status).toBe(502);
    const plain = 'the app did not answer within 0.3 s (--timeout); it may still act on the event';
    expect(JSON.parse(first.body)).toEqual({ error: plain });
    await l.waitFor(() => l.stderr().includes(`  → ${app.url} failed: ${plain} (answered 502)`), 'the plain forward failure');
    expect(l.stderr()).not.toContain('Headers Timeout');
    expect(app.waiting()).toBe(1);

    app.answer(200);
    await l.waitFor(
      () => l.stderr().includes(`the app answered 200 to event ${id} after`) && l.stderr().includes('so its retry will be answered 200 without being forwarded again.'),
      'the late answer',
    );
    const again = retry(b, 2);
    const second = await postRaw(l.url, again, headersFor(again, S));
    expect(second.status).toBe(200);
    expect(app.got()).toBe(1);
    await l.waitFor(() => l.stderr().includes('→ not forwarded again: the app answered 200 to this event before'), 'the retry not forwarded');
    await l.stop();
  });

  it("names an odd webhook id in the late answer's warning as the event's line does: escaped, the secret masked", async () => {
    const app = await slowApp();
    const l = await listen(['--timeout', '0.3', '--forward-to', app.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const id = `w-1\nTXN-FAKE ${S}`;
    const b = event({ webhook_id: id });
    expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(502);
    await l.waitFor(() => app.waiting() === 1, 'the forward held');
    app.answer(200);
    await l.waitFor(() => l.stderr().includes('the app answered 200 to event '), 'the late answer');
    const said = l
      .stderr()
      .split('\n')
      .find((line) => line.includes('the app answered 200 to event '))!;
    expect(said).toContain('the app answered 200 to event w-1\\u000aTXN-FAKE\\u0020*** after');
    expect(l.stderr()).not.toContain(S);
    await l.stop();
  });

  it('a retry that comes while the app has still not answered is answered 502, not forwarded; the late 200 then answers the next', async () => {
    const app = await slowApp();
    const l = await listen(['--timeout', '0.3', '--forward-to', app.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const id = webhookId();
    const b = event({ webhook_id: id });
    expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(502);
    const two = retry(b, 2);
    const second = await postRaw(l.url, two, headersFor(two, S));
    expect(second.status).toBe(502);
    expect(JSON.parse(second.body).error).toBe('the app has not yet answered an earlier delivery of this event; not forwarded again while it may still act on it');
    await l.waitFor(() => l.stderr().includes(`event ${id} came again while the app had still not answered its delivery forwarded`), 'the busy warning');
    expect(app.got()).toBe(1);

    app.answer(201);
    await l.waitFor(() => l.stderr().includes(`the app answered 201 to event ${id}`), 'the late answer');
    const three = retry(b, 3);
    expect((await postRaw(l.url, three, headersFor(three, S))).status).toBe(201);
    expect(app.got()).toBe(1);
    await l.stop();
  });

  it('a late error is said, and the retry is forwarded again', async () => {
    const app = await slowApp();
    const l = await listen(['--timeout', '0.3', '--forward-to', app.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const id = webhookId();
    const b = event({ webhook_id: id });
    expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(502);
    app.answer(500);
    await l.waitFor(() => l.stderr().includes(`the app answered 500 to event ${id}`) && l.stderr().includes('its retry will be forwarded again.'), 'the late 500');
    const two = retry(b, 2);
    const pending = postRaw(l.url, two, headersFor(two, S));
    await l.waitFor(() => app.got() === 2, 'the retry forwarded again');
    app.answer(200);
    expect((await pending).status).toBe(200);
    await l.stop();
  });

  it('stopping says that the app had not answered a forwarded event, and does not wait for it', async () => {
    const app = await slowApp();
    const l = await listen(['--timeout', '0.3', '--forward-to', app.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const b = event();
    expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(502);
    const exit = await l.stop();
    expect(exit.code).toBe(130);
    expect(exit.stderr).toContain("stopped waiting for the app's answer to a forwarded event: the app may still act on them");
  });
});

describe('webhooks listen: the forward limit', () => {
  it('ends a forward the app has not answered at the limit, says so, and forwards the retry again', async () => {
    const app = await slowApp();
    const f = fakeDeps({ dir: configDir() });
    const d = f.deps;
    const l = await startListener(
      { host: '127.0.0.1', port: 0, path: '/webhooks', secret: S, headerName: 'Signature', tolerance: 300, forwardTo: new URL(app.url), forwardLimitMs: 700 },
      { io: d.io, log: d.log, clock: { now: () => new Date() }, env: d.env, json: false, timeoutMs: 200 },
    );
    cleanups.push(() => l.close());
    const url = `http://127.0.0.1:${l.port}/webhooks`;
    const id = webhookId();
    const b = event({ webhook_id: id });
    expect((await postRaw(url, b, headersFor(b, S))).status).toBe(502);
    const stderr = () => f.stderr();
    const deadline = Date.now() + 5000;
    while (!stderr().includes(`event ${id}: the forward ended after`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(stderr()).toContain(
      `event ${id}: the forward ended after 0.7 s: the app did not answer within 0.7 s (the forward limit); the sender was answered 502 at 0.2 s (--timeout), and its retry will be forwarded again.`,
    );
    const two = retry(b, 2);
    const pending = postRaw(url, two, headersFor(two, S));
    while (app.got() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(app.got()).toBe(2);
    app.answer(200);
    expect((await pending).status).toBe(200);
  });
});

describe('webhooks listen: the bound of forwards held past --timeout', () => {
  /** A listener with a small bound of held forwards (the test-only `heldLimit`), its URL and stderr. */
  async function bounded(app: { url: string }, heldLimit: { forwards: number; bytes: number }) {
    const f = fakeDeps({ dir: configDir() });
    const d = f.deps;
    const l = await startListener(
      { host: '127.0.0.1', port: 0, path: '/webhooks', secret: S, headerName: 'Signature', tolerance: 300, forwardTo: new URL(app.url), heldLimit },
      { io: d.io, log: d.log, clock: { now: () => new Date() }, env: d.env, json: false, timeoutMs: 500 },
    );
    let closed: Promise<void> | undefined;
    const close = () => (closed ??= l.close());
    cleanups.push(close);
    const waitFor = async (ok: () => boolean, what: string) => {
      const deadline = Date.now() + 5000;
      while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      if (!ok()) throw new Error(`timed out waiting for ${what}; stderr:\n${f.stderr()}`);
    };
    return { url: `http://127.0.0.1:${l.port}/webhooks`, stderr: () => f.stderr(), waitFor, close };
  }

  it('ends the forward past the bound at --timeout (its retry forwarded again), says so once, and the held ones still remember a late 2xx', async () => {
    const app = await slowApp();
    const l = await bounded(app, { forwards: 2, bytes: 1024 * 1024 });
    const bodies = [0, 1, 2, 3].map(() => event({ webhook_id: webhookId() }));
    for (const b of bodies) expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(502);
    await l.waitFor(() => app.got() === 4, 'four forwards');
    expect(l.stderr().match(/as many as the listener holds \(2 events, 1 MiB of bodies\)/g)).toHaveLength(1);
    expect(l.stderr()).toContain('the forward was ended (the listener holds as many unanswered forwards as it may)');

    // The first is held: its retry is not forwarded. The third was ended: its retry is forwarded again.
    const first = retry(bodies[0]!, 2);
    expect((await postRaw(l.url, first, headersFor(first, S))).status).toBe(502);
    expect(app.got()).toBe(4);
    const third = retry(bodies[2]!, 2);
    const pending = postRaw(l.url, third, headersFor(third, S));
    await l.waitFor(() => app.got() === 5, 'the retry of the ended forward forwarded again');

    app.answer(200);
    expect((await pending).status).toBe(200);
    await l.waitFor(() => (l.stderr().match(/so its retry will be answered 200 without being forwarded again/g) ?? []).length === 2, 'the two late 200s');
    const again = retry(bodies[1]!, 3);
    expect((await postRaw(l.url, again, headersFor(again, S))).status).toBe(200);
    expect(app.got()).toBe(5);
    await l.close();
    expect(l.stderr()).toContain('2 forwards were ended at --timeout, not held for a late answer');
  });

  it('ends a forward whose event would take the held bytes past the bound', async () => {
    const app = await slowApp();
    const bodies = [0, 1].map(() => event({ webhook_id: webhookId() }));
    const l = await bounded(app, { forwards: 100, bytes: bodies[0]!.length + 10 });
    for (const b of bodies) expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(502);
    expect(l.stderr().match(/the app has not answered 1 forwarded events/g)).toHaveLength(1);
    const two = retry(bodies[1]!, 2);
    const pending = postRaw(l.url, two, headersFor(two, S));
    await l.waitFor(() => app.got() === 3, 'the retry of the ended forward forwarded again');
    app.answer(200);
    expect((await pending).status).toBe(200);
  });
});
