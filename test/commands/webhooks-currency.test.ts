/**
 * `webhooks listen` (in process, real HTTP on 127.0.0.1): an event's currency is read as a
 * payout record's is (schemas.ts: ASCII white space around it dropped, upper case, three ASCII
 * letters). One that is no code ("SLE\u200b", "S1E", 5) is never cleaned into a code: --json's
 * "currency" is null, the line says "(currency unreadable)", a warning names it escaped and
 * why, and the app still gets the event's bytes as they came. Events are signed here with
 * node:crypto (listener.ts `sign`).
 */
import { describe, expect, it } from 'vitest';
import { postRaw } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope } from '../helpers/listen-in-process.js';
import { headersFor, isoAt, txnId, webhookId } from '../helpers/webhook-events.js';
import { asText } from '../helpers/stderr-json.js';

const S = 'whsec_currency_4c19d7';

const { configDir, target } = useListenerScope();

/** A compact event whose currency is written exactly as the JSON literal given. */
function eventWith(currencyLiteral: string, transactionId: string): Buffer {
  return Buffer.from(
    `{"event":"transfer.success","timestamp":"${isoAt()}","webhook_id":"${webhookId()}","attempt":1,` +
      `"data":{"transaction_id":"${transactionId}","amount":10,"currency":${currencyLiteral},"fee":0,"status":"Successful"}}`,
  );
}

const THREE = 'expected a currency code of three letters ("SLE")';

describe('webhooks listen: currencies read as payout records read them', () => {
  it('--json: a code for what reads; null and a warning for what does not; the app gets every event as it came', async () => {
    // Before: "SLE\u200b" came out as "currency":"SLE" without a word (probe M, finding 4).
    const app = await target(() => 200);
    const l = await listen(['--forward-to', app.url, '--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const cases: Array<[string, string | null, string?]> = [
      ['"SLE"', 'SLE'],
      ['"sle "', 'SLE'],
      ['"SLE\\u200b"', null, `"SLE\\u200b" (${THREE}, not "SLE\\u200b")`],
      ['"S\\u001b[31mLE"', null, `"S\\u001b[31mLE" (${THREE}, not "S\\u001b[31mLE")`],
      ['5', null, `5 (${THREE})`],
    ];
    const bodies: Buffer[] = [];
    for (const [literal, , said] of cases) {
      const tx = txnId();
      const b = eventWith(literal, tx);
      bodies.push(b);
      expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(200);
      if (said)
        await l.waitFor(
          () =>
            asText(l.stderr()).includes(
              `Warning: the event for ${tx} has a currency payctl cannot read, ${said}, so no currency is shown for it; the app gets the event as it came.`,
            ),
          `the warning for ${literal}`,
        );
    }
    expect(app.received.map((r) => r.raw)).toEqual(bodies);
    const lines = (await l.waitFor(() => l.lines().length >= cases.length && l.lines(), 'the JSON lines')).map((x) => JSON.parse(x) as Record<string, unknown>);
    expect(lines.map((x) => x.currency)).toEqual(cases.map(([, currency]) => currency));
    // The currency's digits when it reads (as CSV writes amounts); as written when it does not.
    expect(lines.map((x) => x.amount)).toEqual(cases.map(([, currency]) => (currency === null ? '10' : '10.00')));
    // Under --json, JSON lines (src/output/log.ts), read back as the text a person sees.
    expect(asText(l.stderr()).match(/cannot read/g)).toHaveLength(cases.filter(([, currency]) => currency === null).length);
    await l.stop();
  });

  it('text: an unreadable currency is "(currency unreadable)" beside the amount, never a code', async () => {
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const tx = txnId();
    const b = eventWith('"SLE\\u200b"', tx);
    expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(200);
    const [line] = await l.waitFor(() => l.lines().length >= 1 && l.lines(), 'one line');
    expect(line).toMatch(new RegExp(`${tx} {2}10 \\(currency unreadable\\) {2}Successful`));
    expect(line).not.toContain('SLE');
    expect(l.stderr()).toContain(
      `Warning: the event for ${tx} has a currency payctl cannot read, "SLE\\u200b" (${THREE}, not "SLE\\u200b"), so no currency is shown for it.`,
    );
    await l.stop();
  });
});
