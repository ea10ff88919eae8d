/**
 * Issue 15, `webhooks listen` (in process, real HTTP), with the documented events: stdout
 * carries accepted events only; every refused delivery goes to stderr (a `{"rejected":…}`
 * JSON line with --json) and its 400 answer names the check that failed; duplicates are
 * judged among verified events only (a forgery reusing a real webhook_id is neither
 * marked nor marks); the app's status, body, content type and Retry-After go back to the
 * sender; transfer.failed lines show failure_reason. Events are signed here with
 * node:crypto (listener.ts `sign`). Real SIGINT to the binary is in e2e/interrupt-130.test.ts.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { postRaw, sign } from '../helpers/listener.js';
import { listenInProcess as listen, stopLeftoverListeners, type InProcessListener } from '../helpers/listen-in-process.js';
import { headersFor, isoAt, txnId, webhookId } from '../helpers/webhook-events.js';

const S = 'whsec_listen_verified_9a4e';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await stopLeftoverListeners();
  for (const c of cleanups.splice(0).reverse()) await c();
});

function configDir(): string {
  const { dir, cleanup } = tempConfigDir();
  cleanups.push(cleanup);
  return dir;
}

/** A compact event body with exactly these fields (failure_reason included when given), dated `timestamp` (default now). */
function body(id: string, transactionId: string, extra: Record<string, unknown> = {}, timestamp = isoAt()): Buffer {
  return Buffer.from(
    JSON.stringify({
      event: 'transfer.success',
      timestamp,
      webhook_id: id,
      attempt: 1,
      data: { transaction_id: transactionId, amount: 25, currency: 'SLE', status: 'successful', failure_reason: null, ...extra },
    }),
  );
}

const json = (line: string) => JSON.parse(line) as Record<string, unknown>;

/** The `{"rejected":…}` lines on stderr, parsed. */
function rejectedLines(l: InProcessListener): Array<Record<string, unknown>> {
  return l
    .stderr()
    .split('\n')
    .filter((x) => x.startsWith('{"rejected":'))
    .map((x) => json(x).rejected as Record<string, unknown>);
}

async function stop(l: InProcessListener) {
  const exit = await l.stop();
  expect(exit.code, exit.stderr).toBe(130);
  expect(exit.stderr).toContain('Stopped listening.');
  return exit;
}

/** An app for --forward-to that answers each request with `answer(n)`. */
async function app(answer: (n: number) => { status: number; headers?: Record<string, string>; body?: string | Buffer }) {
  let n = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const a = answer(++n);
      res.writeHead(a.status, a.headers ?? {}).end(a.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/in`, count: () => n };
}

describe('webhooks listen --json: stdout holds verified events only', () => {
  it('every refused delivery is a {"rejected":…} line on stderr, never on stdout; each 400 names its check', async () => {
    const clock = new TestClock();
    const at = (offset: number) => isoAt(offset, clock.now());
    const l = await listen(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S }, clock });
    const real = webhookId();
    const tx = txnId();
    const b = body(real, tx, {}, at(0));

    expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(200);

    // The same webhook_id and data: forged, stale, from the future, unsigned, malformed.
    const old = body(real, tx, {}, at(-412));
    const ahead = body(real, tx, {}, at(999));
    const cases: Array<[Buffer, Record<string, string>, string, string]> = [
      [b, headersFor(b, 'whsec_forger'), 'signature does not match', 'signature does not match'],
      [old, headersFor(old, S), 'stale timestamp', 'timestamp 412 s old, more than 300 s'],
      [ahead, headersFor(ahead, S), 'timestamp in the future', 'timestamp 999 s ahead, more than 300 s'],
      [b, { 'content-type': 'application/json' }, 'missing signature header', 'missing signature header (Signature)'],
      [b, { 'content-type': 'application/json', signature: 'v1=abc' }, 'malformed signature header', 'malformed signature header (Signature): not 64 hex characters'],
    ];
    for (const [sent, headers, reason, message] of cases) {
      const res = await postRaw(l.url, sent, headers);
      expect(res.status, reason).toBe(400);
      expect(JSON.parse(res.body), reason).toEqual({ error: message, reason });
    }
    await l.waitFor(() => rejectedLines(l).length === cases.length, 'a rejected line per refusal');

    // stdout: exactly the one verified event.
    expect(l.lines()).toHaveLength(1);
    expect(json(l.lines()[0]!)).toMatchObject({ webhook_id: real, transaction_id: tx, verified: true, duplicate: false, answered: 200 });
    expect(l.stdout()).not.toContain('"verified":false');

    // stderr: one JSON line per refusal, in order, with what the script needs.
    expect(rejectedLines(l)).toEqual(
      cases.map(([, , reason, message]) => ({
        reason,
        message,
        webhook_id: real,
        event: 'transfer.success',
        attempt: 1,
        transaction_id: tx,
        received_at: clock.now().toISOString(),
        answered: 400,
      })),
    );
    // No text warning for them in --json mode.
    expect(l.stderr()).not.toContain('Warning');

    const exit = await stop(l);
    for (const line of exit.stdout.split('\n').filter(Boolean)) expect(json(line).verified).toBe(true);
  });

  it('a webhook secret of 5 characters echoed in an event is masked, as an API key of that length is (probe 49-F: printed)', async () => {
    const short = 'Zq9x7';
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: short } });
    const b = body(webhookId(), txnId(), { status: 'failed', failure_reason: `secret is ${short}` });
    expect((await postRaw(l.url, b, headersFor(b, short))).status).toBe(200);
    await l.waitFor(() => l.stdout().includes('secret is'), 'the event printed');
    const exit = await stop(l);
    expect(exit.stdout + exit.stderr).not.toContain(short);
    expect(exit.stdout).toContain('secret is ***');
  });

  it('duplicates are judged among verified events only: a forgery never marks a webhook_id seen, nor is it itself a duplicate', async () => {
    const l = await listen(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const a = webhookId();
    const c = webhookId();
    const bodyA = body(a, txnId());
    const bodyC = body(c, txnId());
    const forged = (b: Buffer) => ({ 'content-type': 'application/json', signature: sign('whsec_forger', b) });

    // A forgery first (rejected), then the real event: the real one is not a duplicate.
    expect((await postRaw(l.url, bodyC, forged(bodyC))).status).toBe(400);
    expect((await postRaw(l.url, bodyC, headersFor(bodyC, S))).status).toBe(200);
    // The real event, a forgery reusing its id (rejected, not a "duplicate"), then a genuine retry: that one is.
    expect((await postRaw(l.url, bodyA, headersFor(bodyA, S))).status).toBe(200);
    expect((await postRaw(l.url, bodyA, forged(bodyA))).status).toBe(400);
    expect((await postRaw(l.url, bodyA, headersFor(bodyA, S))).status).toBe(200);

    const lines = await l.waitFor(() => l.lines().length >= 3 && l.lines().map(json), 'three accepted events');
    expect(lines.map((x) => [x.webhook_id, x.duplicate])).toEqual([
      [c, false],
      [a, false],
      [a, true],
    ]);
    await l.waitFor(() => rejectedLines(l).length === 2, 'two rejected lines');
    for (const r of rejectedLines(l)) {
      expect(r.reason).toBe('signature does not match');
      expect(r).not.toHaveProperty('duplicate');
    }
    await stop(l);
  });
});

describe('webhooks listen (text): a refused delivery says which check failed and what to do', () => {
  it('stale, forged, unsigned and malformed: one warning line each on stderr, with the webhook_id and a next step; stdout empty', async () => {
    const clock = new TestClock(new Date('2026-11-21T23:35:22.500Z'));
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S }, clock });
    const id = webhookId();
    const b = body(id, txnId(), {}, isoAt(0, clock.now()));
    const old = body(id, txnId(), {}, isoAt(-412, clock.now()));

    const stale = await postRaw(l.url, old, headersFor(old, S));
    expect(stale.status).toBe(400);
    // Not "invalid signature": the answer names the check.
    expect(JSON.parse(stale.body)).toEqual({ error: 'timestamp 412 s old, more than 300 s', reason: 'stale timestamp' });
    expect((await postRaw(l.url, b, headersFor(b, 'whsec_forger'))).status).toBe(400);
    expect((await postRaw(l.url, b, { 'content-type': 'application/json' })).status).toBe(400);
    expect((await postRaw(l.url, '{"no":"id"}', { 'content-type': 'application/json', signature: 'v1=abc' })).status).toBe(400);

    const shape = 'The service sends 64 hex characters of HMAC-SHA256(webhook secret, raw body) in the Signature header.';
    const expected = [
      `Warning: 2026-11-21 23:35:22  rejected event ${id}: timestamp 412 s old, more than 300 s; answered 400, not forwarded. A replayed or long-delayed delivery is refused on purpose; if this machine's clock is wrong, correct it (or widen --tolerance).`,
      `Warning: 2026-11-21 23:35:22  rejected event ${id}: signature does not match; answered 400, not forwarded. Check that this listener's webhook secret is the sender's, and that nothing changed the body on the way.`,
      `Warning: 2026-11-21 23:35:22  rejected event ${id}: missing signature header (Signature); answered 400, not forwarded. ${shape} If your sender uses another header, name it with --signature-header NAME or payctl config set webhook-signature-header NAME.`,
      `Warning: 2026-11-21 23:35:22  rejected an event: malformed signature header (Signature): not 64 hex characters; answered 400, not forwarded. ${shape}`,
    ];
    const warnings = () =>
      l
        .stderr()
        .split('\n')
        .filter((x) => x.includes('rejected'));
    await l.waitFor(() => warnings().length === expected.length, 'four warnings');
    expect(warnings()).toEqual(expected);
    expect(l.stdout()).toBe('');
    await stop(l);
  });
});

describe('webhooks listen --forward-to: the app’s answer goes back to the sender', () => {
  it('its 500 with its JSON body, a 429 with Retry-After, a 200 with its body: status, body and content type passed back', async () => {
    const answers: Array<{ status: number; headers: Record<string, string>; body: string }> = [
      { status: 500, headers: { 'content-type': 'application/json' }, body: '{"error":"database down","retry":true}' },
      { status: 429, headers: { 'content-type': 'text/plain', 'retry-after': '7' }, body: 'slow down' },
      { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"ok":1}' },
    ];
    const target = await app((n) => answers[n - 1]!);
    const l = await listen(['--forward-to', target.url, '--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });

    const got = [];
    for (let i = 0; i < answers.length; i++) {
      const b = body(webhookId(), txnId());
      got.push(await fetch(l.url, { method: 'POST', headers: headersFor(b, S), body: b }));
    }
    expect(got.map((r) => r.status)).toEqual([500, 429, 200]);
    expect(await got[0]!.text()).toBe('{"error":"database down","retry":true}');
    expect(got[0]!.headers.get('content-type')).toBe('application/json');
    expect(await got[1]!.text()).toBe('slow down');
    expect(got[1]!.headers.get('retry-after')).toBe('7');
    expect(await got[2]!.text()).toBe('{"ok":1}');
    expect(got[2]!.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // Never the listener's own {"received":true} in place of the app's answer.
    expect(target.count()).toBe(3);

    const lines = await l.waitFor(() => l.lines().length >= 3 && l.lines().map(json), 'three events');
    expect(lines.map((x) => [x.forward_status, x.answered])).toEqual([
      [500, 500],
      [429, 429],
      [200, 200],
    ]);
    await stop(l);
  });

  it('an answer over 1 MiB: its status is passed back without the body, with a warning; the listener goes on', async () => {
    const big = Buffer.alloc(1024 * 1024 + 10, 0x61);
    const target = await app((n) => (n === 1 ? { status: 202, headers: { 'content-type': 'text/plain' }, body: big } : { status: 200, body: 'ok' }));
    const l = await listen(['--forward-to', target.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const b1 = body(webhookId(), txnId());
    const r1 = await postRaw(l.url, b1, headersFor(b1, S));
    expect(r1).toEqual({ status: 202, body: '' });
    await l.waitFor(() => l.stderr().includes("Warning: the app's answer was over 1 MiB: its status was passed back to the sender without its body."), 'the warning');
    const b2 = body(webhookId(), txnId());
    expect(await postRaw(l.url, b2, headersFor(b2, S))).toEqual({ status: 200, body: 'ok' });
    await l.waitFor(() => l.lines().length === 2, 'both event lines');
    await stop(l);
  });

  it('without --forward-to, an accepted event is answered 200 {"received":true}', async () => {
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const b = body(webhookId(), txnId());
    expect(await postRaw(l.url, b, headersFor(b, S))).toEqual({ status: 200, body: '{"received":true}' });
    await l.waitFor(() => l.lines().length === 1, 'the event line');
    await stop(l);
  });
});

describe('webhooks listen: transfer.failed shows its failure_reason', () => {
  const TX = 'TXN-BOK-0123456789ABCDEF0123456789';
  const failed = (id: string, reason: unknown) => body(id, TX, { status: 'failed', failure_reason: reason });
  const withType = (b: Buffer) => Buffer.from(b.toString('utf8').replace('"transfer.success"', '"transfer.failed"'));

  it('text: the reason follows the status, sanitized; a successful line has none', async () => {
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const id = webhookId();
    const b = withType(failed(id, 'Recipient account rejected by the provider (account not found).'));
    expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(200);
    const hostile = withType(failed(webhookId(), 'Closed\u001b[2J\u001b]0;pwned\u0007 account'));
    expect((await postRaw(l.url, hostile, headersFor(hostile, S))).status).toBe(200);
    const ok = body(webhookId(), txnId());
    expect((await postRaw(l.url, ok, headersFor(ok, S))).status).toBe(200);

    const lines = await l.waitFor(() => l.lines().length >= 3 && l.lines(), 'three lines');
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d {2}transfer\\.failed {2}${TX} {2}25\\.00 SLE {2}Failed: Recipient account rejected by the provider \\(account not found\\)\\. {2}${id}$`,
      ),
    );
    expect(lines[1]).toContain('Failed: Closed account');
    expect(lines[1]).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(lines[2]).toContain('Successful');
    expect(lines[2]).not.toContain('Successful:');
    await stop(l);
  });

  it('--json: failure_reason on every line (null when there is none)', async () => {
    const l = await listen(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const b = withType(failed(webhookId(), 'Rejected by the provider.'));
    expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(200);
    const ok = body(webhookId(), txnId());
    expect((await postRaw(l.url, ok, headersFor(ok, S))).status).toBe(200);
    const lines = await l.waitFor(() => l.lines().length >= 2 && l.lines().map(json), 'two lines');
    expect(lines[0]).toMatchObject({ event: 'transfer.failed', status: 'Failed', status_raw: 'failed', failure_reason: 'Rejected by the provider.' });
    expect(lines[1]).toMatchObject({ event: 'transfer.success', status: 'Successful', failure_reason: null });
    await stop(l);
  });
});
