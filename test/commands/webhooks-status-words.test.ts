/**
 * `webhooks listen` (in process, real HTTP on 127.0.0.1): an event's status word follows the
 * one rule of docs/service.md, "Status words" (service/status-words.ts normalizeStatus): a known
 * word in any case is one of Successful, Failed, Pending; any other word is shown trimmed with
 * every character but printable ASCII written as an escape, so that "Succ\u200bessful",
 * "Successful\u0000" or "\u202eFailed" never passes for one of the three (before, the listener
 * removed those characters first and printed a clean Successful or Failed, and `status_raw`
 * was the cleaned word too). `status_raw` in --json is the word exactly as it came, written as
 * printable ASCII JSON (`\uXXXX` escapes, which JSON.parse reads back to the same word). Events
 * are signed here with node:crypto (listener.ts `sign`). A status that is no word at all (7,
 * null, none) is shown as unknown with the same warning, and an event that is not in the
 * documented shape is warned about (before, both were printed with no status and no warning).
 */
import { describe, expect, it } from 'vitest';
import { postRaw } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope } from '../helpers/listen-in-process.js';
import { event, signed, txnId } from '../helpers/webhook-events.js';
import { asText } from '../helpers/stderr-json.js';

const S = 'whsec_status_words_3c7d1e';

const { configDir } = useListenerScope();

/** [the word sent, the status shown]: odd words as escapes, known ones normalized. */
const CASES: Array<[string, string]> = [
  ['Succ\u200bessful', 'Succ\\u200bessful'],
  ['Successful\u0000', 'Successful\\u0000'],
  ['\u202eFailed', '\\u202eFailed'],
  ['Success\u001b[8mful', 'Success\\u001b[8mful'],
  ['Pend\u00ading', 'Pend\\u00ading'],
  ['Su\u0441cessful', 'Su\\u0441cessful'],
  ['Paid\u{e0041}', 'Paid\\u{e0041}'],
  ['  successful ', 'Successful'],
  ['FAILED', 'Failed'],
];

/** Non-empty lines of a text, for stdout. */
const linesOf = (t: string) => t.split('\n').filter((x) => x.trim() !== '');

describe('webhooks listen: status words as docs/service.md says, never cleaned into one of the three', () => {
  it('--json: status is the word escaped (or normalized when known); status_raw is exactly what came, in printable ASCII', async () => {
    const l = await listen(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const sent = CASES.map(([status]) => ({ status, tx: txnId() }));
    for (const { status, tx } of sent) {
      const b = event({ status, transaction_id: tx });
      expect((await postRaw(l.url, b, signed(b, S))).status, JSON.stringify(status)).toBe(200);
    }
    await l.waitFor(() => l.lines().length === CASES.length, 'a JSON line per event');
    const exit = await l.stop();
    expect(exit.code, exit.stderr).toBe(130);

    const got = linesOf(exit.stdout);
    // Every byte of stdout is printable ASCII: nothing of a word reaches a terminal raw.
    for (const line of got) expect(line).toMatch(/^[\x20-\x7e]*$/);
    const byTx = new Map(got.map((line) => JSON.parse(line) as Record<string, unknown>).map((j) => [j.transaction_id, j]));
    for (const [i, [word, shown]] of CASES.entries()) {
      const j = byTx.get(sent[i]!.tx)!;
      expect({ status: j.status, status_raw: j.status_raw }, JSON.stringify(word)).toEqual({ status: shown, status_raw: word });
    }
    // A word payctl does not know is named on stderr, escaped, with what it means.
    // Under --json, JSON lines (src/output/log.ts), read back as the text a person sees.
    expect(asText(exit.stderr)).toContain(`the status "Succ\\u200bessful", a word payctl does not know: whether the payout was paid cannot be told from this event.`);
    expect(asText(exit.stderr).match(/a word payctl does not know/g)).toHaveLength(7);
  });

  it('text: the line shows the escaped word, never a clean Successful or Failed', async () => {
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const odd = CASES.slice(0, 7);
    const sent = odd.map(([status]) => ({ status, tx: txnId() }));
    for (const { status, tx } of sent) {
      const b = event({ status, transaction_id: tx, event: status.includes('Fail') ? 'transfer.failed' : 'transfer.success' });
      expect((await postRaw(l.url, b, signed(b, S))).status).toBe(200);
    }
    await l.waitFor(() => l.lines().length === odd.length, 'a line per event');
    const exit = await l.stop();
    for (const [i, [, shown]] of odd.entries()) {
      const line = linesOf(exit.stdout).find((x) => x.includes(sent[i]!.tx))!;
      expect(line, shown).toContain(`  ${shown}`);
      expect(line, shown).not.toMatch(/ (Successful|Failed|Pending)( |$)/);
    }
  });

  it('a status that is no word (7, null, none), an event that is no name or data that is no object: status unknown, warned like an unknown word', async () => {
    const l = await listen(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const [t7, tNull, tNone] = [txnId(), txnId(), txnId()];
    const ts = new Date().toISOString();
    const bodies = [
      `{"event":"transfer.success","timestamp":"${ts}","webhook_id":"n7","attempt":1,"data":{"status":7,"transaction_id":"${t7}","amount":"10.00","currency":"SLE"}}`,
      `{"event":"transfer.success","timestamp":"${ts}","webhook_id":"nn","attempt":1,"data":{"status":null,"transaction_id":"${tNull}","amount":"10.00","currency":"SLE"}}`,
      `{"event":"transfer.success","timestamp":"${ts}","webhook_id":"nm","attempt":1,"data":{"transaction_id":"${tNone}","amount":"10.00","currency":"SLE"}}`,
      `{"event":5,"timestamp":"${ts}","webhook_id":"n8","attempt":1,"data":[]}`,
    ].map((b) => Buffer.from(b));
    for (const b of bodies) expect((await postRaw(l.url, b, signed(b, S))).status).toBe(200);
    await l.waitFor(() => l.lines().length === bodies.length, 'a JSON line per event');
    const exit = await l.stop();
    const got = linesOf(exit.stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(got.map((j) => [j.webhook_id, j.status, j.status_raw])).toEqual([
      ['n7', null, null],
      ['nn', null, null],
      ['nm', null, null],
      ['n8', null, null],
    ]);
    const warnings = asText(exit.stderr)
      .split('\n')
      .filter((x) => x.startsWith('Warning: '));
    expect(warnings).toEqual([
      `Warning: the event for ${t7} has a status that is not a word, 7: whether the payout was paid cannot be told from this event.`,
      `Warning: the event for ${tNull} has a status that is not a word, null: whether the payout was paid cannot be told from this event.`,
      `Warning: the event for ${tNone} has no status: whether the payout was paid cannot be told from this event.`,
      'Warning: an event has no status: whether the payout was paid cannot be told from this event.',
      'Warning: an event is not in the documented shape {event, timestamp, webhook_id, attempt, data}: its event is 5, not a name; its data is [], not an object.',
    ]);
  });

  it('a status, event or data that is no word and holds the secret across the 40th character: masked whole before the cut (probe Z, 2)', async () => {
    // Before, the value was cut to 40 characters and masked after: "whsec_status_words_3…" showed.
    const l = await listen(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const tx = txnId();
    const ts = new Date().toISOString();
    const bodies = [
      `{"event":"transfer.success","timestamp":"${ts}","webhook_id":"sx","attempt":1,"data":{"status":{"a":"xxxxxxxxxxx ${S}"},"transaction_id":"${tx}","amount":"10.00","currency":"SLE"}}`,
      `{"event":["xxxxxxxxxxxxxxxxxxxxxx ${S}"],"timestamp":"${ts}","webhook_id":"sy","attempt":1,"data":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxx ${S}"}`,
    ].map((b) => Buffer.from(b));
    for (const b of bodies) expect((await postRaw(l.url, b, signed(b, S))).status).toBe(200);
    await l.waitFor(() => l.lines().length === bodies.length, 'a JSON line per event');
    const exit = await l.stop();
    const said = asText(exit.stderr);
    expect(said).toContain(`the event for ${tx} has a status that is not a word, {"a":"xxxxxxxxxxx ***"}:`);
    expect(said).toContain('its event is ["xxxxxxxxxxxxxxxxxxxxxx ***"], not a name');
    expect(said).toContain('its data is "xxxxxxxxxxxxxxxxxxxxxxxxxxxxx ***", not an object');
    expect(exit.stderr).not.toContain(S.slice(0, 8));
  });

  it('text: a status that is no word is shown as (status unknown)', async () => {
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const tx = txnId();
    const b = Buffer.from(
      `{"event":"transfer.success","timestamp":"${new Date().toISOString()}","webhook_id":"n7","attempt":1,"data":{"status":7,"transaction_id":"${tx}","amount":"10.00","currency":"SLE"}}`,
    );
    expect((await postRaw(l.url, b, signed(b, S))).status).toBe(200);
    await l.waitFor(() => l.lines().length === 1, 'the event line');
    const exit = await l.stop();
    expect(linesOf(exit.stdout)[0]).toMatch(new RegExp(`${tx} {2}10\\.00 SLE {2}\\(status unknown\\) {2}n7$`));
    expect(exit.stderr).toContain('has a status that is not a word, 7: whether the payout was paid cannot be told from this event.');
  });
});
