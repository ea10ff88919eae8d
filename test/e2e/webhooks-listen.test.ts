/**
 * payctl webhooks listen, end to end: the built binary as a long-running child on a
 * free port, events signed here with node:crypto (not with src/), a real --forward-to
 * target that keeps the raw bytes, and the in-process sandbox delivering its own
 * webhooks as payouts settle. Every listener is stopped with SIGINT and must exit 0
 * with its port closed. The secret is given as PAYCTL_WEBHOOK_SECRET (--secret, which
 * shows in `ps`, and --secret-stdin are in hardening-listen-sandbox.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeProfile } from '../helpers/e2e.js';
import {
  forwardTarget,
  killLeftoverListeners,
  nowSeconds,
  portClosed,
  postRaw,
  sign,
  startListener,
  type Listener,
} from '../helpers/listener.js';
import { api, freshWallet, payoutBody, startSandbox } from '../helpers/sandbox.js';

const S = 'whsec_e2e_listen_5f1c';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  killLeftoverListeners();
  for (const c of cleanups.splice(0).reverse()) await c();
});

function configDir(): string {
  const { dir, cleanup } = tempConfigDir();
  cleanups.push(cleanup);
  return dir;
}

async function target(answer?: (n: number) => number) {
  const t = await forwardTarget(answer);
  cleanups.push(() => t.close());
  return t;
}

/**
 * An event body as bytes, with spacing, key order, a trailing-zero amount, a \u escape
 * and non-ASCII text that any parse-and-reserialize step would change.
 */
function oddBody(id: string, payoutId: string, opts: { type?: string; amount?: string; status?: string } = {}): Buffer {
  const { type = 'payout.successful', amount = '1500.50', status = 'Successful' } = opts;
  return Buffer.from(
    `{ "id" : "${id}",\t"type":"${type}" ,\n` +
      `  "created_at":"2026-01-02T03:04:05.123456Z",\n` +
      `     "data" : {"payout_id":"${payoutId}","amount": ${amount} , "currency":"SLE","status":"${status}",\n` +
      `"recipient":{"type":"wallet","accountDetails":{"name":"Fatmata Sesay – Zoë 🇸🇱","note":"caf\\u00e9 / café"}},` +
      `"metadata":{"ünïcode":"日本語","n":1.0e2}}   }\r\n`,
    'utf8',
  );
}

function headersFor(body: Buffer, t = nowSeconds(), secret = S): Record<string, string> {
  return {
    'content-type': 'application/json; charset=UTF-8',
    'x-webhook-signature': sign(secret, t, body),
    'x-webhook-event': 'payout.successful',
    'x-webhook-attempt': '1',
    'user-agent': 'payctl-sandbox-webhooks',
  };
}

const evtId = () => `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

/** SIGINT, then: exit code 0, no signal, "Stopped listening." on stderr, the port closed. */
async function stopCleanly(l: Listener) {
  const exit = await l.stop();
  expect(exit.signal, exit.stderr).toBeNull();
  expect(exit.code, exit.stderr).toBe(0);
  expect(exit.stderr).toContain('Stopped listening.');
  expect(await portClosed(l.port)).toBe(true);
  return exit;
}

describe('payctl webhooks listen (end to end)', () => {
  it('verifies, prints and forwards a signed event byte for byte; the app’s 202 is passed back and shown', async () => {
    const app = await target(() => 202);
    const l = await startListener(['--forward-to', app.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    expect(l.stderr()).toContain(`forwarding to ${app.url}`);

    const id = evtId();
    const payoutId = `po_${randomUUID()}`;
    const body = oddBody(id, payoutId);
    const t = nowSeconds();
    const headers = headersFor(body, t);
    const res = await postRaw(l.url, body, headers);
    expect(res.status).toBe(202);

    // Forwarded once, the raw bytes untouched, the headers that matter unchanged.
    expect(app.received).toHaveLength(1);
    const got = app.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hooks/in?src=payctl');
    expect(got.raw.length).toBe(body.length);
    expect(got.raw.toString('hex')).toBe(body.toString('hex'));
    expect(got.headers['x-webhook-signature']).toBe(headers['x-webhook-signature']);
    expect(got.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(got.headers['x-webhook-event']).toBe('payout.successful');
    expect(got.headers['x-webhook-attempt']).toBe('1');
    expect(got.headers['user-agent']).toBe('payctl-sandbox-webhooks');
    expect(got.headers['content-length']).toBe(String(body.length));
    // So the app can verify the signature itself.
    expect(sign(S, t, got.raw)).toBe(got.headers['x-webhook-signature']);

    // One line: type, payout id, amount with grouping and the currency's digits, status.
    const lines = await l.waitFor(() => l.lines().length >= 1 && l.lines(), 'the event line');
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatch(/payout\.successful/);
    expect(line).toContain(payoutId);
    expect(line).toContain('1,500.50 SLE');
    expect(line).toContain('Successful');
    expect(line).toContain(id);
    expect(line).not.toContain('(duplicate)');
    expect(line.indexOf('payout.successful')).toBeLessThan(line.indexOf(payoutId));
    expect(line.indexOf(payoutId)).toBeLessThan(line.indexOf('1,500.50 SLE'));
    expect(line.indexOf('1,500.50 SLE')).toBeLessThan(line.indexOf('Successful'));

    await l.waitFor(() => new RegExp(`→ ${app.url.replace(/[?.]/g, '\\$&')} 202 \\(\\d+ ms\\)`).test(l.stderr()), 'the forward result');
    expect(l.stderr()).not.toContain('Warning');

    const exit = await stopCleanly(l);
    expect(exit.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('passes the app’s 500 back to the sender and shows it; an unreachable app is answered 502', async () => {
    const app = await target(() => 500);
    const l = await startListener(['--forward-to', app.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });

    const body = oddBody(evtId(), 'po_500_case', { amount: '20000', status: 'Pending', type: 'payout.pending' });
    const res = await postRaw(l.url, body, headersFor(body));
    expect(res.status).toBe(500);
    expect(app.received).toHaveLength(1);
    expect(app.received[0]!.raw.equals(body)).toBe(true);
    await l.waitFor(() => / 500 \(\d+ ms\)/.test(l.stderr()), 'the 500 forward result');
    await l.waitFor(() => l.lines().some((x) => x.includes('po_500_case') && x.includes('20,000.00 SLE')), 'the event line');

    // The app goes away: the sender gets 502 and the failure is shown.
    await app.close();
    const body2 = oddBody(evtId(), 'po_502_case');
    const res2 = await postRaw(l.url, body2, headersFor(body2));
    expect(res2.status).toBe(502);
    await l.waitFor(() => /failed: .*\(answered 502\)/.test(l.stderr()), 'the 502 forward failure');

    await stopCleanly(l);
  });

  it('answers 400 to a bad signature, a tampered body, no header and a stale timestamp; warns on stderr; never forwards', async () => {
    const app = await target(() => 202);
    const l = await startListener(['--forward-to', app.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const body = oddBody(evtId(), 'po_rejected');
    const tampered = Buffer.from(body.toString('utf8').replace('1500.50', '9500.50'), 'utf8');
    expect(tampered.equals(body)).toBe(false);

    // Headers are made just before each request. 301 s old stays stale however slow the
    // machine (the listener's clock only moves on); "ahead" gets a margin for the same reason.
    const cases: Array<[string, Buffer, () => Record<string, string>, RegExp]> = [
      ['signed with another secret', body, () => headersFor(body, nowSeconds(), 'whsec_someone_else'), /signature does not match/],
      ['body changed after signing', tampered, () => headersFor(body), /signature does not match/],
      ['no signature header', body, () => ({ 'content-type': 'application/json' }), /no X-Webhook-Signature header/],
      ['correctly signed, 301 s old', body, () => headersFor(body, nowSeconds() - 301), /timestamp is 30\d s from this clock/],
      ['correctly signed, 310 s ahead', body, () => headersFor(body, nowSeconds() + 310), /timestamp is 3\d\d s from this clock/],
      ['garbage header', body, () => ({ 'content-type': 'application/json', 'x-webhook-signature': 'v1=abc' }), /no timestamp/],
    ];
    for (const [what, b, h, reason] of cases) {
      const res = await postRaw(l.url, b, h());
      expect(res.status, what).toBe(400);
      expect(JSON.parse(res.body), what).toEqual({ error: 'invalid signature' });
      await l.waitFor(() => reason.test(l.stderr()), `the warning for: ${what}`);
    }
    const warnings = l.stderr().split('\n').filter((x) => x.startsWith('Warning:') && x.includes('rejected an event'));
    expect(warnings).toHaveLength(cases.length);
    for (const w of warnings) expect(w).toContain('answered 400, not forwarded');
    // Not on stdout, and nothing reached the app (each forward would finish before the answer).
    expect(l.stdout()).toBe('');
    expect(app.received).toHaveLength(0);

    // The same setup does forward a good event (295 s old is still inside the window),
    // so the silence above is the check at work, not a broken forward.
    const ok = await postRaw(l.url, body, headersFor(body, nowSeconds() - 295));
    expect(ok.status).toBe(202);
    expect(app.received).toHaveLength(1);
    expect(app.received[0]!.raw.equals(body)).toBe(true);
    await l.waitFor(() => l.lines().length === 1, 'the accepted event line');

    await stopCleanly(l);
  });

  it('marks a repeated event id (duplicate); a rejected forgery does not poison a later real event', async () => {
    const l = await startListener([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const a = evtId();
    const b = evtId();
    const c = evtId();
    const bodyA = oddBody(a, 'po_dup_a');
    const bodyB = oddBody(b, 'po_dup_b', { type: 'payout.failed', status: 'Failed' });
    const bodyC = oddBody(c, 'po_dup_c');

    expect((await postRaw(l.url, bodyA, headersFor(bodyA))).status).toBe(200);
    // A retry: same id and body, signed afresh.
    expect((await postRaw(l.url, bodyA, headersFor(bodyA, nowSeconds() - 1))).status).toBe(200);
    expect((await postRaw(l.url, bodyB, headersFor(bodyB))).status).toBe(200);
    // Forged first (rejected), then the real one: not a duplicate.
    expect((await postRaw(l.url, bodyC, headersFor(bodyC, nowSeconds(), 'wrong'))).status).toBe(400);
    expect((await postRaw(l.url, bodyC, headersFor(bodyC))).status).toBe(200);

    const lines = await l.waitFor(() => l.lines().length >= 4 && l.lines(), 'four event lines');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain(a);
    expect(lines[0]).not.toContain('(duplicate)');
    expect(lines[1]).toContain(a);
    expect(lines[1]).toMatch(/\(duplicate\)\s*$/);
    expect(lines[2]).toContain(b);
    expect(lines[2]).toContain('payout.failed');
    expect(lines[2]).not.toContain('(duplicate)');
    expect(lines[3]).toContain(c);
    expect(lines[3]).not.toContain('(duplicate)');

    await stopCleanly(l);
  });

  it('--json prints one JSON line per event with id, type, payout_id, verified and duplicate', async () => {
    const app = await target(() => 202);
    const l = await startListener(['--forward-to', app.url, '--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const a = evtId();
    const body = oddBody(a, 'po_json_1');

    expect((await postRaw(l.url, body, headersFor(body))).status).toBe(202);
    expect((await postRaw(l.url, body, headersFor(body))).status).toBe(202);
    expect((await postRaw(l.url, body, headersFor(body, nowSeconds() - 301))).status).toBe(400);

    const lines = await l.waitFor(() => l.lines().length >= 3 && l.lines(), 'three JSON lines');
    expect(lines).toHaveLength(3);
    const [first, second, stale] = lines.map((x) => JSON.parse(x) as Record<string, unknown>);
    expect(first).toMatchObject({
      id: a,
      type: 'payout.successful',
      payout_id: 'po_json_1',
      currency: 'SLE',
      status: 'Successful',
      verified: true,
      error: null,
      duplicate: false,
      forward_status: 202,
      answered: 202,
    });
    expect(Number(first!.amount)).toBe(1500.5);
    expect(Number.isNaN(Date.parse(String(first!.received_at)))).toBe(false);
    expect(second).toMatchObject({ id: a, payout_id: 'po_json_1', verified: true, duplicate: true, answered: 202 });
    expect(stale).toMatchObject({ id: a, verified: false, forward_status: null, answered: 400 });
    expect(String(stale!.error)).toMatch(/timestamp/);
    // The stale one was not forwarded.
    expect(app.received).toHaveLength(2);
    for (const r of app.received) expect(r.raw.equals(body)).toBe(true);

    await stopCleanly(l);
  });

  it('without --secret or a profile webhook-secret: accepts events and warns that signatures are not checked', async () => {
    const l = await startListener(['--path', '/hooks/payctl'], { dir: configDir() });
    expect(l.path).toBe('/hooks/payctl');
    expect(l.stderr()).toMatch(/no webhook secret.*signatures will not be checked/);

    // Only POST to the configured path is an event.
    const origin = `http://127.0.0.1:${l.port}`;
    const stray = oddBody(evtId(), 'po_stray');
    expect((await postRaw(`${origin}/webhooks`, stray, { 'content-type': 'application/json' })).status).toBe(404);
    expect((await fetch(l.url)).status).toBe(404);

    const unsigned = oddBody(evtId(), 'po_nosecret_1');
    const junk = oddBody(evtId(), 'po_nosecret_2');
    expect((await postRaw(l.url, unsigned, { 'content-type': 'application/json' })).status).toBe(200);
    expect((await postRaw(l.url, junk, headersFor(junk, 1, 'anything'))).status).toBe(200);

    const lines = await l.waitFor(() => l.lines().length >= 2 && l.lines(), 'two event lines');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('po_nosecret_1');
    expect(lines[1]).toContain('po_nosecret_2');
    const perEvent = await l.waitFor(
      () => l.stderr().match(/Warning: signature not checked/g)?.length === 2,
      'a warning per event',
    );
    expect(perEvent).toBe(true);

    await stopCleanly(l);
  });

  it('uses the profile’s webhook-secret when --secret is not given', async () => {
    const dir = configDir();
    writeProfile(dir, { webhookSecret: S });
    const l = await startListener([], { dir });
    expect(l.stderr()).toContain('Press Ctrl-C to stop.');
    expect(l.stderr()).not.toContain('signatures will not be checked');

    const body = oddBody(evtId(), 'po_profile_secret');
    expect((await postRaw(l.url, body, { 'content-type': 'application/json' })).status).toBe(400);
    expect((await postRaw(l.url, body, headersFor(body, nowSeconds(), 'not-the-profile-secret'))).status).toBe(400);
    expect((await postRaw(l.url, body, headersFor(body))).status).toBe(200);
    await l.waitFor(() => l.lines().length === 1, 'the accepted event line');
    expect(l.lines()[0]).toContain('po_profile_secret');

    const exit = await stopCleanly(l);
    expect(exit.stderr).not.toMatch(/signature not checked|signatures will not be checked/);
  });

  it('shows the sandbox’s own signed webhooks as payouts settle (Successful, and Failed for an account ending in 0000)', async () => {
    const l = await startListener([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const sb = await startSandbox({
      webhookUrl: l.url,
      webhookSecret: S,
      settleAfterMs: 300,
      demoPayouts: false,
      webhookRetryBaseMs: 100,
    });
    cleanups.push(() => sb.close());
    const walletId = freshWallet(sb, '100000');

    const create = async (accountNumber: string) => {
      const body = payoutBody(walletId, {
        recipient: { type: 'wallet', accountDetails: { name: 'Ibrahim Conteh', provider: 'afrimoney', accountNumber, phoneNumber: '+23277123456' } },
      });
      const res = await api(sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() });
      expect(res.status, res.raw).toBe(201);
      return body.payoutId;
    };
    const good = await create('077123456');
    const bad = await create('0770000000');

    const has = (type: string, payoutId: string) => l.lines().some((x) => x.includes(type) && x.includes(payoutId));
    await l.waitFor(
      () => has('payout.pending', good) && has('payout.successful', good) && has('payout.pending', bad) && has('payout.failed', bad),
      'pending + successful and pending + failed',
      10_000,
    );
    const forGood = l.lines().filter((x) => x.includes(good));
    const forBad = l.lines().filter((x) => x.includes(bad));
    expect(forGood.some((x) => /payout\.successful/.test(x) && x.includes('1,500.50 SLE') && x.includes('Successful'))).toBe(true);
    expect(forBad.some((x) => /payout\.failed/.test(x) && x.includes('Failed'))).toBe(true);
    expect(forGood.some((x) => x.includes('payout.failed'))).toBe(false);
    expect(forBad.some((x) => x.includes('payout.successful'))).toBe(false);
    // Pending is shown before the outcome.
    expect(forGood.findIndex((x) => x.includes('payout.pending'))).toBeLessThan(forGood.findIndex((x) => x.includes('payout.successful')));

    // Every delivery was verified with the shared secret and accepted the first time.
    expect(l.stderr()).not.toContain('rejected');
    const deliveries = await l.waitFor(() => sb.webhookDeliveries().length >= 4 && sb.webhookDeliveries(), 'four delivery results');
    expect(deliveries.map((d) => [d.attempt, d.outcome])).toEqual(Array(4).fill([1, 200]));

    await sb.close();
    await stopCleanly(l);
  });
});
