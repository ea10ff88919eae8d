/**
 * `webhooks listen` (in process, real HTTP on 127.0.0.1): a transaction id, event name or
 * webhook id that is not in the documented shape (white space, a line break, a control, bidi)
 * is shown escaped, as status words are, and warned about on stderr; --json gives it as it
 * came (as printable ASCII JSON). Before, it was sanitized: a line break became a space and
 * U+202E vanished, so a signed event's transaction id could draw a second, made-up record on
 * the line ("… TXN-KCOB 2026-11-28 00:00:00  transfer.success  TXN-FAKE  99.00 SLE  Successful"),
 * and an event name with a line break passed with no warning.
 */
import { describe, expect, it } from 'vitest';
import { postRaw } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope } from '../helpers/listen-in-process.js';
import { event, signed } from '../helpers/webhook-events.js';
import { asText } from '../helpers/stderr-json.js';

const S = 'whsec_odd_ids_5a1f3c';
const { configDir } = useListenerScope();

const FAKE_TX = 'TXN-\u202eKCOB\n2026-11-28 00:00:00  transfer.success  TXN-FAKE  99.00 SLE  Successful  x';
const FAKE_TX_SHOWN =
  'TXN-\\u202eKCOB\\u000a2026-11-28\\u002000:00:00\\u0020\\u0020transfer.success\\u0020\\u0020TXN-FAKE\\u0020\\u002099.00\\u0020SLE\\u0020\\u0020Successful\\u0020\\u0020x';
const ODD_EVENT = 'transfer.success\ntransfer.failed';
const ODD_ID = 'h3\r\n2026-11-28 00:00:00  transfer.success';

/** The three odd events, each by what makes it odd. */
const bodies = () => [
  event({ event: 'transfer.failed', transaction_id: FAKE_TX, status: 'Failed', failure_reason: 'bad', webhook_id: 'h1' }),
  event({ event: ODD_EVENT, transaction_id: 'TXN-2', status: 'Pending', webhook_id: 'h2' }),
  event({ transaction_id: 'TXN-3', webhook_id: ODD_ID }),
];

describe('webhooks listen: an id or event name not in the documented shape is shown escaped and warned about', () => {
  it('text: one line an event, the odd field escaped (line breaks, spaces, U+202E), a warning for each', async () => {
    const l = await listen([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    for (const b of bodies()) expect((await postRaw(l.url, b, signed(b, S))).status).toBe(200);
    await l.waitFor(() => l.lines().length >= 3, 'a line per event');
    const exit = await l.stop();
    const lines = exit.stdout.split('\n').filter((x) => x !== '');
    expect(lines, exit.stdout).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^[\x20-\x7e]*$/);
    expect(lines[0]).toContain(`transfer.failed  ${FAKE_TX_SHOWN}  1,500.50 SLE  Failed: bad  h1`);
    expect(lines[1]).toContain('  transfer.success\\u000atransfer.failed  TXN-2  ');
    expect(lines[2]).toMatch(/ {2}TXN-3 {2}.*Successful {2}h3\\u000d\\u000a2026-11-28\\u002000:00:00\\u0020\\u0020transfer\.success$/);
    const err = exit.stderr;
    expect(err).toContain(
      `the event for ${FAKE_TX_SHOWN} is not in the documented shape {event, timestamp, webhook_id, attempt, data}: its transaction_id has white space, a line break`,
    );
    expect(err).toContain(
      'the event for TXN-2 is not in the documented shape {event, timestamp, webhook_id, attempt, data}: its event name has white space, a line break',
    );
    expect(err).toContain(
      'the event for TXN-3 is not in the documented shape {event, timestamp, webhook_id, attempt, data}: its webhook_id has white space, a line break',
    );
  });

  it('--json: the fields as they came, in printable ASCII JSON; the same warnings', async () => {
    const l = await listen(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    for (const b of bodies()) expect((await postRaw(l.url, b, signed(b, S))).status).toBe(200);
    await l.waitFor(() => l.lines().length >= 3, 'a JSON line per event');
    const exit = await l.stop();
    const lines = exit.stdout.split('\n').filter((x) => x !== '');
    for (const line of lines) expect(line).toMatch(/^[\x20-\x7e]*$/);
    const got = lines.map((x) => JSON.parse(x) as Record<string, unknown>);
    expect(got.map((j) => [j.transaction_id, j.event, j.webhook_id])).toEqual([
      [FAKE_TX, 'transfer.failed', 'h1'],
      ['TXN-2', ODD_EVENT, 'h2'],
      ['TXN-3', 'transfer.success', ODD_ID],
    ]);
    expect(asText(exit.stderr).match(/has white space, a line break or a character that is not printable ASCII, so it is shown escaped/g)).toHaveLength(3);
  });
});
