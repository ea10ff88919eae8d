/**
 * `webhooks listen` and the documented webhook scheme (docs/service.md, "Webhooks"), in
 * process over real HTTP: the documentation's own example event, byte for byte
 * (test/fixtures/documented/), signed over its raw body with hex HMAC-SHA256, accepted
 * and printed in text and --json; a wrong signature refused; the signature header
 * `Signature` by default, another one named by --signature-header or by
 * `config set webhook-signature-header` (the flag first); a `sha256=` prefix and upper-case
 * hex accepted; the 300 s window of the payload's timestamp and --tolerance; the
 * configured header forwarded untouched with the raw body.
 */
import { describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { payctl } from '../helpers/in-process.js';
import { portClosed, postRaw, sign } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope, type InProcessListener } from '../helpers/listen-in-process.js';
import { DOCUMENTED_TIMESTAMP, documentedEvent, headersFor, isoAt, oddBody, txnId, webhookId, withTimestamp } from '../helpers/webhook-events.js';

const S = 'whsec_documented_3b7e';
const DOC_TX = 'TXN-BOK-CE5B34C8CABC6EF5B5A431045A';
const DOC_ID = 'a1688ad2-b1dc-4006-8e20-cd6b739d8cb5';

const { configDir, target } = useListenerScope();

/** A clock `seconds` after the documented example's timestamp, standing still. */
const afterDocumented = (seconds: number) => new TestClock(new Date(Date.parse(DOCUMENTED_TIMESTAMP) + seconds * 1000));

async function stopCleanly(l: InProcessListener) {
  const exit = await l.stop();
  expect(exit.code, exit.stderr).toBe(130);
  expect(exit.stderr).toContain('Stopped listening.');
  expect(await portClosed(l.port)).toBe(true);
  return exit;
}

describe('the documentation’s example event', () => {
  it('verbatim, signed over its raw bytes: accepted and printed as one line (status Pending, amount 10, no currency in this copy)', async () => {
    const body = documentedEvent();
    // The file is the page's example, four-space indentation and `0.0` included: nothing re-serialized it.
    expect(body.toString('utf8')).toContain('\n    "webhook_id": "a1688ad2-b1dc-4006-8e20-cd6b739d8cb5",\n');
    expect(body.toString('utf8')).toContain('"fee": 0.0\n');
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S }, clock: afterDocumented(2) });
    const res = await postRaw(l.url, body, { 'content-type': 'application/json', Signature: sign(S, body) });
    expect(res).toEqual({ status: 200, body: '{"received":true}' });
    const line = await l.waitFor(() => l.lines()[0], 'the event line');
    expect(line).toBe(`2026-04-05 18:38:56  transfer.initiated  ${DOC_TX}  10  Pending  ${DOC_ID}`);

    // The same bytes with a wrong signature: refused, said on stderr, nothing more on stdout.
    const wrong = await postRaw(l.url, body, { 'content-type': 'application/json', Signature: sign('whsec_not_ours', body) });
    expect(wrong.status).toBe(400);
    expect(JSON.parse(wrong.body)).toEqual({ error: 'signature does not match', reason: 'signature does not match' });
    await l.waitFor(() => l.stderr().includes(`rejected event ${DOC_ID}: signature does not match; answered 400, not forwarded.`), 'the refusal');
    expect(l.lines()).toHaveLength(1);
    await stopCleanly(l);
  });

  it('--json: the fuller copy of the page, exact amount and currency, the raw status word kept', async () => {
    const body = documentedEvent('full');
    const clock = afterDocumented(1);
    const l = await listen(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S }, clock });
    expect((await postRaw(l.url, body, { 'content-type': 'application/json', Signature: sign(S, body) })).status).toBe(200);
    const line = await l.waitFor(() => l.lines()[0], 'the JSON line');
    expect(JSON.parse(line)).toEqual({
      received_at: clock.now().toISOString(),
      webhook_id: DOC_ID,
      event: 'transfer.initiated',
      attempt: 1,
      timestamp: DOCUMENTED_TIMESTAMP,
      transaction_id: DOC_TX,
      amount: '10.00',
      currency: 'SLE',
      status: 'Pending',
      status_raw: 'Pending',
      failure_reason: null,
      verified: true,
      duplicate: false,
      differs_from_earlier: null,
      forward_status: null,
      answered: 200,
    });
    await stopCleanly(l);
  });

  it('on this machine’s own clock: the documented timestamp is refused as stale; with only the timestamp made fresh, the same event is accepted', async () => {
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S }, clock: afterDocumented(301) });
    const verbatim = documentedEvent();
    const res = await postRaw(l.url, verbatim, { 'content-type': 'application/json', Signature: sign(S, verbatim) });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: 'timestamp 301 s old, more than 300 s', reason: 'stale timestamp' });
    expect(l.stdout()).toBe('');
    await stopCleanly(l);

    const live = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const fresh = withTimestamp(verbatim, isoAt());
    expect(fresh.length).toBe(verbatim.length);
    expect((await postRaw(live.url, fresh, { 'content-type': 'application/json', Signature: sign(S, fresh) })).status).toBe(200);
    const line = await live.waitFor(() => live.lines()[0], 'the event line');
    expect(line).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d {2}transfer\\.initiated {2}${DOC_TX} {2}10 {2}Pending {2}${DOC_ID}$`));
    await stopCleanly(live);
  });
});

describe('where the signature is', () => {
  it('a sha256= prefix and upper-case hex are accepted; a signature made over a re-serialized body is not', async () => {
    const l = await listen(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const a = oddBody(webhookId(), txnId());
    const b = oddBody(webhookId(), txnId());
    const c = oddBody(webhookId(), txnId());
    expect((await postRaw(l.url, a, { 'content-type': 'application/json', Signature: `sha256=${sign(S, a)}` })).status).toBe(200);
    expect((await postRaw(l.url, b, { 'content-type': 'application/json', Signature: sign(S, b).toUpperCase() })).status).toBe(200);
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(c.toString('utf8'))));
    const res = await postRaw(l.url, c, { 'content-type': 'application/json', Signature: sign(S, reserialized) });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ reason: 'signature does not match' });
    await l.waitFor(() => l.lines().length === 2, 'two accepted events');
    await stopCleanly(l);
  });

  it('--signature-header NAME: read from that header only; the Signature header is then not enough; said at start', async () => {
    const l = await listen(['--signature-header', 'X-Bokumonie-Signature'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    expect(l.stderr()).toContain('Signatures from the X-Bokumonie-Signature header; timestamps within 300 s.');
    const tx = txnId();
    const body = oddBody(webhookId(), tx);
    const inDefault = await postRaw(l.url, body, headersFor(body, S));
    expect(inDefault.status).toBe(400);
    expect(JSON.parse(inDefault.body)).toEqual({ error: 'missing signature header (X-Bokumonie-Signature)', reason: 'missing signature header' });
    // Header names are case-insensitive.
    expect((await postRaw(l.url, body, headersFor(body, S, 'x-bokumonie-signature'))).status).toBe(200);
    await l.waitFor(() => l.lines().length === 1, 'the accepted event');
    expect(l.lines()[0]).toContain(tx);
    await stopCleanly(l);
  });

  it('config set webhook-signature-header: the profile’s header is used; --signature-header overrides it', async () => {
    const dir = configDir();
    const set = await payctl(['config', 'set', 'webhook-signature-header', 'X-Hook-Sig'], { dir });
    expect(set.code, set.stderr).toBe(0);
    const body = oddBody(webhookId(), txnId());

    const fromProfile = await listen([], { dir, env: { PAYCTL_WEBHOOK_SECRET: S } });
    expect(fromProfile.stderr()).toContain('Signatures from the X-Hook-Sig header');
    expect((await postRaw(fromProfile.url, body, headersFor(body, S))).status).toBe(400);
    expect((await postRaw(fromProfile.url, body, headersFor(body, S, 'X-Hook-Sig'))).status).toBe(200);
    await stopCleanly(fromProfile);

    const fromFlag = await listen(['--signature-header', 'Signature'], { dir, env: { PAYCTL_WEBHOOK_SECRET: S } });
    expect((await postRaw(fromFlag.url, body, headersFor(body, S, 'X-Hook-Sig'))).status).toBe(400);
    expect((await postRaw(fromFlag.url, body, headersFor(body, S))).status).toBe(200);
    await stopCleanly(fromFlag);
  });

  it('--signature-header that is not a header name, and --tolerance out of range: exit 2, nothing listens', async () => {
    const dir = configDir();
    const cases: Array<[string[], string]> = [
      [['--signature-header', 'Sig nature'], 'Error: --signature-header: "Sig nature" is not an HTTP header name.'],
      [['--tolerance', '0'], '--tolerance must be a whole number from 1 to 86400.'],
      [['--tolerance', '5m'], '--tolerance must be a whole number from 1 to 86400.'],
    ];
    for (const [args, message] of cases) {
      const r = await payctl(['webhooks', 'listen', '--port', '0', ...args], { dir, env: { PAYCTL_WEBHOOK_SECRET: S } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain('Ready');
      expect(r.stdout).toBe('');
    }
  });

  it('forwards the raw body and the configured signature header untouched', async () => {
    const app = await target(() => 200);
    const l = await listen(['--signature-header', 'X-Bokumonie-Signature', '--forward-to', app.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const body = oddBody(webhookId(), txnId());
    const value = `sha256=${sign(S, body).toUpperCase()}`;
    expect((await postRaw(l.url, body, { 'content-type': 'application/json', 'X-Bokumonie-Signature': value })).status).toBe(200);
    expect(app.received).toHaveLength(1);
    expect(app.received[0]!.raw.toString('hex')).toBe(body.toString('hex'));
    expect(app.received[0]!.headers['x-bokumonie-signature']).toBe(value);
    await l.waitFor(() => l.lines().length === 1, 'the event line');
    await stopCleanly(l);
  });
});

describe('--tolerance', () => {
  it('--tolerance 600 accepts a 412 s old event and refuses one 601 s old, naming the limit', async () => {
    const clock = new TestClock();
    const l = await listen(['--tolerance', '600', '--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S }, clock });
    expect(l.stderr()).toContain('Signatures from the Signature header; timestamps within 600 s.');
    const ok = oddBody(webhookId(), txnId(), { timestamp: isoAt(-412, clock.now()) });
    const old = oddBody(webhookId(), txnId(), { timestamp: isoAt(-601, clock.now()) });
    expect((await postRaw(l.url, ok, headersFor(ok, S))).status).toBe(200);
    const res = await postRaw(l.url, old, headersFor(old, S));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: 'timestamp 601 s old, more than 600 s', reason: 'stale timestamp' });
    await l.waitFor(() => l.lines().length === 1, 'the accepted event');
    await stopCleanly(l);
  });
});
