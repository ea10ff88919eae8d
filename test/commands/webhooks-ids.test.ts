/**
 * `webhooks listen` (in process, real HTTP on 127.0.0.1) with event fields in forms the
 * documentation does not show (docs/service.md, "Webhooks": its one example has a string
 * webhook_id and a number attempt): a number webhook_id is the event's id as its text, so a
 * retry of it is marked and not forwarded to an app that took it, and 987654 is "987654"; ids
 * a double cannot hold are kept as written and never taken for one another; an attempt written
 * as digits is read; an event with no usable id is warned about, since its retries cannot be
 * recognised. Events are signed here with node:crypto (listener.ts `sign`).
 */
import { describe, expect, it } from 'vitest';
import { postRaw } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope } from '../helpers/listen-in-process.js';
import { headersFor, isoAt, txnId } from '../helpers/webhook-events.js';
import { asText } from '../helpers/stderr-json.js';

const S = 'whsec_ids_4c1d7e';

const { configDir, target } = useListenerScope();

/** A compact event whose webhook_id and attempt are written exactly as the JSON literals given. */
function eventWith(idLiteral: string | undefined, attemptLiteral: string, transactionId: string, timestamp = isoAt()): Buffer {
  const id = idLiteral === undefined ? '' : `"webhook_id":${idLiteral},`;
  return Buffer.from(
    `{"event":"transfer.success","timestamp":"${timestamp}",${id}"attempt":${attemptLiteral},` +
      `"data":{"transaction_id":"${transactionId}","amount":"1,000.00","currency":"SLE","status":"successful"}}`,
  );
}

const json = (line: string) => JSON.parse(line) as Record<string, unknown>;

describe('webhooks listen: webhook_id and attempt in undocumented forms', () => {
  it('a number webhook_id is the event’s id: its retry is marked, not forwarded again, and is the same event as the string "987654"', async () => {
    const app = await target(() => 200);
    const l = await listen(['--forward-to', app.url, '--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const tx = txnId();
    const first = eventWith('987654', '1', tx);
    const retry = eventWith('987654', '"2"', tx, isoAt(1));
    const asString = eventWith('"987654"', '3', tx, isoAt(2));

    expect((await postRaw(l.url, first, headersFor(first, S))).status).toBe(200);
    // The same signed bytes again, the sender's retry with the attempt as digits, and the id as a string.
    expect(await postRaw(l.url, first, headersFor(first, S))).toEqual({ status: 200, body: '{"received":true,"duplicate":true}' });
    expect(await postRaw(l.url, retry, headersFor(retry, S))).toEqual({ status: 200, body: '{"received":true,"duplicate":true}' });
    expect(await postRaw(l.url, asString, headersFor(asString, S))).toEqual({ status: 200, body: '{"received":true,"duplicate":true}' });
    // The app acted once.
    expect(app.received.map((r) => r.raw)).toEqual([first]);

    const lines = (await l.waitFor(() => l.lines().length >= 4 && l.lines(), 'four JSON lines')).map(json);
    expect(lines.map((x) => [x.webhook_id, x.attempt, x.duplicate, x.forward_status, x.answered])).toEqual([
      ['987654', 1, false, 200, 200],
      ['987654', 1, true, null, 200],
      ['987654', 2, true, null, 200],
      ['987654', 3, true, null, 200],
    ]);
    expect(l.stderr()).not.toContain('webhook_id');
    await l.stop();
  });

  it('text: the number id is shown and its retry marked "(duplicate, attempt 2)"', async () => {
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const tx = txnId();
    const first = eventWith('987654', '1', tx);
    const retry = eventWith('987654', '2', tx, isoAt(1));
    expect((await postRaw(l.url, first, headersFor(first, S))).status).toBe(200);
    expect((await postRaw(l.url, retry, headersFor(retry, S))).status).toBe(200);
    const lines = await l.waitFor(() => l.lines().length >= 2 && l.lines(), 'two lines');
    expect(lines[0]).toMatch(new RegExp(`${tx} {2}1,000\\.00 SLE {2}Successful {2}987654$`));
    expect(lines[1]).toMatch(/ {2}987654 {2}\(duplicate, attempt 2\)$/);
    await l.stop();
  });

  it('ids a double cannot hold are kept as written: two that differ past its precision are two events, each forwarded', async () => {
    const app = await target(() => 200);
    const l = await listen(['--forward-to', app.url, '--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    // 12345678901234567890 and …891 are the same double: read as numbers, the second would be taken for the first.
    const ids = ['12345678901234567890', '12345678901234567891', '1e400'];
    const txs = ids.map(() => txnId());
    for (const [i, id] of ids.entries()) {
      const b = eventWith(id, '1', txs[i]!);
      expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(200);
    }
    // 1e400 again: the same event (a retry: the same content, the next attempt).
    const again = eventWith('1e400', '2', txs[2]!, isoAt(1));
    expect((await postRaw(l.url, again, headersFor(again, S))).status).toBe(200);
    expect(app.received).toHaveLength(3);
    const lines = (await l.waitFor(() => l.lines().length >= 4 && l.lines(), 'four JSON lines')).map(json);
    expect(lines.map((x) => [x.webhook_id, x.duplicate])).toEqual([
      ['12345678901234567890', false],
      ['12345678901234567891', false],
      ['1e400', false],
      ['1e400', true],
    ]);
    await l.stop();
  });

  it('an event with no usable webhook_id (missing, blank, true, an object) is forwarded every time and warned about', async () => {
    const app = await target(() => 200);
    const l = await listen(['--forward-to', app.url, '--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'has no webhook_id'],
      ['""', 'has a blank webhook_id'],
      // Blank again, another payout: not a retry of the first blank one (it was once not forwarded).
      ['""', 'has a blank webhook_id'],
      ['" "', 'has a blank webhook_id'],
      ['true', 'has a webhook_id that is a boolean, not a string or a number'],
      ['{"id":1}', 'has a webhook_id that is an object, not a string or a number'],
    ];
    for (const [id, said] of cases) {
      const tx = txnId();
      const b = eventWith(id, '1', tx);
      expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(200);
      await l.waitFor(() => asText(l.stderr()).includes(`Warning: the event for ${tx} ${said}: a retry of it cannot be recognised`), `the warning for ${id}`);
    }
    expect(app.received).toHaveLength(cases.length);
    expect(l.stderr()).toContain('so each delivery is printed as new and forwarded to the app again.');
    const lines = (await l.waitFor(() => l.lines().length >= cases.length && l.lines(), 'the JSON lines')).map(json);
    expect(lines.map((x) => [x.webhook_id, x.duplicate])).toEqual(cases.map(() => [null, false]));
    await l.stop();
  });
});
