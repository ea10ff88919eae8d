/**
 * `webhooks listen` (in process, real HTTP on 127.0.0.1) with a webhook_id that comes again
 * carrying another event: a retry is the same event sent again (only `attempt` and `timestamp`
 * change), so a delivery whose content differs (transfer.failed after transfer.initiated,
 * another amount) is an event of its own: printed, forwarded to the app, answered by the app,
 * with a warning naming what differs and `differs_from_earlier` in --json. True retries of
 * either stay duplicates. Before, the later event was answered `{"received":true,"duplicate":true}`
 * and never forwarded, so the app never learnt that the payout failed.
 */
import { describe, expect, it } from 'vitest';
import { postRaw } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope } from '../helpers/listen-in-process.js';
import { event, headersFor, isoAt, txnId, webhookId } from '../helpers/webhook-events.js';
import { asText } from '../helpers/stderr-json.js';

const S = 'whsec_same_id_9a3f';

const { configDir, target } = useListenerScope();

const json = (line: string) => JSON.parse(line) as Record<string, unknown>;

describe('webhooks listen: one webhook_id, another event', () => {
  it('forwards transfer.failed after transfer.initiated under the same id, warns what differs; true retries stay duplicates', async () => {
    const app = await target(() => 200);
    const l = await listen(['--forward-to', app.url, '--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const [id, tx] = [webhookId(), txnId()];
    const initiated = event({ webhook_id: id, transaction_id: tx, event: 'transfer.initiated', status: 'Pending', amount: 10 });
    const failed = event({ webhook_id: id, transaction_id: tx, event: 'transfer.failed', status: 'Failed', amount: 10, attempt: 2, timestamp: isoAt(1) });
    const failedRetry = event({ webhook_id: id, transaction_id: tx, event: 'transfer.failed', status: 'Failed', amount: 10, attempt: 3, timestamp: isoAt(2) });
    const initiatedRetry = event({ webhook_id: id, transaction_id: tx, event: 'transfer.initiated', status: 'Pending', amount: 10, attempt: 4, timestamp: isoAt(3) });

    expect(await postRaw(l.url, initiated, headersFor(initiated, S))).toEqual({ status: 200, body: 'from the app' });
    // Another event, not a retry: the app gets it and answers it.
    expect(await postRaw(l.url, failed, headersFor(failed, S))).toEqual({ status: 200, body: 'from the app' });
    // Retries of either: duplicates, answered with the app's 2xx, not forwarded again.
    expect(await postRaw(l.url, failedRetry, headersFor(failedRetry, S))).toEqual({ status: 200, body: '{"received":true,"duplicate":true}' });
    expect(await postRaw(l.url, initiatedRetry, headersFor(initiatedRetry, S))).toEqual({ status: 200, body: '{"received":true,"duplicate":true}' });
    expect(app.received.map((r) => r.raw)).toEqual([initiated, failed]);

    const lines = (await l.waitFor(() => l.lines().length >= 4 && l.lines(), 'four JSON lines')).map(json);
    expect(lines.map((x) => [x.event, x.status, x.attempt, x.duplicate, x.differs_from_earlier, x.forward_status, x.answered])).toEqual([
      ['transfer.initiated', 'Pending', 1, false, null, 200, 200],
      ['transfer.failed', 'Failed', 2, false, ['event', 'status'], 200, 200],
      ['transfer.failed', 'Failed', 3, true, null, null, 200],
      ['transfer.initiated', 'Pending', 4, true, null, null, 200],
    ]);
    const warnings = asText(l.stderr())
      .split('\n')
      .filter((x) => x.includes('which an earlier event had'));
    expect(warnings).toEqual([
      `Warning: the event for ${tx} came with webhook_id ${id}, which an earlier event had, but differs from it ` +
        `(event transfer.initiated → transfer.failed; status Pending → Failed): it is not a retry, so it is printed and forwarded to the app as an event of its own.`,
    ]);
    await l.stop();
  });

  it('without --forward-to: another amount under a known id is printed as its own event, answered 200 not as a duplicate', async () => {
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const [id, tx] = [webhookId(), txnId()];
    const first = event({ webhook_id: id, transaction_id: tx, amount: 10 });
    const other = event({ webhook_id: id, transaction_id: tx, amount: 99999, attempt: 2, timestamp: isoAt(1) });
    const otherFields = Buffer.from(first.toString().replace('"currency":"SLE"', '"currency":"SLE","fee":1'));

    expect(await postRaw(l.url, first, headersFor(first, S))).toEqual({ status: 200, body: '{"received":true}' });
    expect(await postRaw(l.url, other, headersFor(other, S))).toEqual({ status: 200, body: '{"received":true}' });
    expect(await postRaw(l.url, otherFields, headersFor(otherFields, S))).toEqual({ status: 200, body: '{"received":true}' });

    const lines = await l.waitFor(() => l.lines().length >= 3 && l.lines(), 'three event lines');
    expect(lines[1]).toContain('99,999.00 SLE');
    expect(lines.join('\n')).not.toContain('duplicate');
    await l.waitFor(() => l.stderr().includes('(other fields)'), 'the other-fields warning');
    expect(l.stderr()).toContain(
      `came with webhook_id ${id}, which an earlier event had, but differs from it (amount 10.00 → 99999.00): it is not a retry, so it is printed as an event of its own.`,
    );
    await l.stop();
  });
});
