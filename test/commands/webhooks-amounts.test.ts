/**
 * `webhooks listen` (in process, real HTTP on 127.0.0.1): an event's amount is read as a payout
 * record's is (schemas.ts `payoutAmount`: a JSON number, a plain or grouped decimal string,
 * more than zero, never through a float), and shown as an exact decimal string in CSV's form (no
 * grouping, at least the currency's digits, every digit written kept). One that cannot
 * be read (1e400, "1.000,00", -16, 0, a padded string, true) is never shown or put in --json as
 * an amount: "amount" is null, the line says "(amount unreadable)", a warning names what came
 * and why, and the app still gets the event's bytes as they came. Events are signed here with
 * node:crypto (listener.ts `sign`).
 */
import { describe, expect, it } from 'vitest';
import { postRaw } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope } from '../helpers/listen-in-process.js';
import { headersFor, isoAt, txnId, webhookId } from '../helpers/webhook-events.js';
import { asText } from '../helpers/stderr-json.js';

const S = 'whsec_amounts_8b2f0a';

const { configDir, target } = useListenerScope();

/** A compact event whose amount is written exactly as the JSON literal given. */
function eventWith(amountLiteral: string, transactionId: string): Buffer {
  return Buffer.from(
    `{"event":"transfer.success","timestamp":"${isoAt()}","webhook_id":"${webhookId()}","attempt":1,` +
      `"data":{"transaction_id":"${transactionId}","amount":${amountLiteral},"currency":"SLE","status":"successful"}}`,
  );
}

const DECIMAL = 'expected a decimal amount ("1000.00" or "1,000.00")';
const POSITIVE = 'expected an amount greater than zero';

describe('webhooks listen: amounts read as payout records read them', () => {
  it('--json: exact decimal strings for what reads; null and a warning for what does not; the app gets every event as it came', async () => {
    const app = await target(() => 200);
    const l = await listen(['--forward-to', app.url, '--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const cases: Array<[string, string | null, string?]> = [
      ['"1,000.00"', '1000.00'],
      ['10', '10.00'],
      ['0.1', '0.10'],
      // More digits than a double holds: exact, from the body's text.
      ['12345678901234567890.12', '12345678901234567890.12'],
      ['1e400', null, `"1e400" (${DECIMAL})`],
      ['"1.000,00"', null, `"1.000,00" (${DECIMAL})`],
      ['" 10.00"', null, `" 10.00" (${DECIMAL})`],
      ['-16', null, `-16 (${POSITIVE})`],
      ['"0.00"', null, `"0.00" (${POSITIVE})`],
      ['true', null, `true (${DECIMAL})`],
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
              `Warning: the event for ${tx} has an amount payctl cannot read, ${said}, so no amount is shown for it; the app gets the event as it came.`,
            ),
          `the warning for ${literal}`,
        );
    }
    expect(app.received.map((r) => r.raw)).toEqual(bodies);
    const lines = (await l.waitFor(() => l.lines().length >= cases.length && l.lines(), 'the JSON lines')).map((x) => JSON.parse(x) as Record<string, unknown>);
    expect(lines.map((x) => x.amount)).toEqual(cases.map(([, amount]) => amount));
    // Warned about the unreadable ones only.
    // Under --json, JSON lines (src/output/log.ts), read back as the text a person sees.
    expect(asText(l.stderr()).match(/cannot read/g)).toHaveLength(cases.filter(([, amount]) => amount === null).length);
    await l.stop();
  });

  it("--json: one form, as CSV writes amounts: ungrouped, the currency's digits, every digit written kept", async () => {
    const l = await listen(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    // Before: "100", "10.1", "10.10", "1000.50", "10.1": a number's written zero dropped, and no one form.
    const cases: Array<[string, string]> = [
      ['100', '100.00'],
      ['10.10', '10.10'],
      ['"10.10"', '10.10'],
      ['"1,000.50"', '1000.50'],
      ['10.100', '10.100'],
      ['"10.1"', '10.10'],
    ];
    for (const [literal] of cases) {
      const b = eventWith(literal, txnId());
      expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(200);
    }
    const lines = (await l.waitFor(() => l.lines().length >= cases.length && l.lines(), 'the JSON lines')).map((x) => JSON.parse(x) as Record<string, unknown>);
    expect(lines.map((x) => x.amount)).toEqual(cases.map(([, amount]) => amount));
    await l.stop();
  });

  it('text: an unreadable amount is "(amount unreadable)", never its text; a readable one exact with its currency', async () => {
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const [bad, good] = [txnId(), txnId()];
    for (const [literal, tx] of [
      ['1e400', bad],
      ['"1,000.00"', good],
    ] as const) {
      const b = eventWith(literal, tx);
      expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(200);
    }
    const lines = await l.waitFor(() => l.lines().length >= 2 && l.lines(), 'two lines');
    expect(lines[0]).toMatch(new RegExp(`${bad} {2}\\(amount unreadable\\) {2}Successful`));
    expect(lines[0]).not.toContain('1e400');
    expect(lines[1]).toMatch(new RegExp(`${good} {2}1,000\\.00 SLE {2}Successful`));
    expect(l.stderr()).toContain(`Warning: the event for ${bad} has an amount payctl cannot read, "1e400" (${DECIMAL}), so no amount is shown for it.`);
    await l.stop();
  });
});
