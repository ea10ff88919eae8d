/**
 * `webhooks listen` at terminals 40 to 120 columns wide (in process, real HTTP on 127.0.0.1,
 * fakeDeps with the terminal's width): the status word is never cut. Before, the status cell
 * could be cut down to 10 columns, so at 58 columns `Successful\u0000` (a word payctl does not
 * know, escaped so that it never passes for one of the three) was shown as `Successful…`,
 * the amount kept: an unknown outcome read as paid. Now only the failure reason is cut (down
 * to `Failed:…`), then the webhook id, the time, the event and the amount are left out, in
 * that order (README, "webhooks listen"); when even the transaction id and the word cannot
 * fit, a card shows the word whole and the reason on a row of its own.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { fakeDeps, type FakeDeps } from '../helpers/fake-deps.js';
import { postRaw } from '../helpers/listener.js';
import { event, headersFor, txnId } from '../helpers/webhook-events.js';
import { run as listenRun } from '../../src/commands/webhooks/listen.js';
import { displayWidth } from '../../src/output/table.js';

const config = tempConfigDir();
const open: FakeDeps[] = [];
afterEach(async () => {
  for (const fd of open.splice(0)) await fd.close();
});

/** [status sent, the word shown, failure reason]: unknown words (escaped) and a real Failed with a reason. */
const EVENTS: Array<[string, string, string | undefined]> = [
  ['Successful\u0000', 'Successful\\u0000', undefined],
  ['Successful\u200b', 'Successful\\u200b', undefined],
  ['Failed\u0000', 'Failed\\u0000', 'The recipient account is closed at the provider'],
  ['Pending\u200b', 'Pending\\u200b', undefined],
  ['failed', 'Failed', 'The recipient account is closed at the provider'],
];

describe('webhooks listen at narrow terminals: the status word whole, the rest cut or left out in the README order', () => {
  it('40 to 120 columns: an unknown status is never cut into a known word and …', async () => {
    const secret = `whsec_${randomUUID().slice(0, 8)}`;
    let width = 80;
    const fd = fakeDeps({ dir: config.dir, tty: { stdout: true, stderr: true }, env: { PAYCTL_WEBHOOK_SECRET: secret } });
    open.push(fd);
    // The width as the listener reads it at each event (a terminal resized between events).
    fd.deps.io = Object.defineProperties({ ...fd.deps.io }, { stdoutColumns: { get: () => width }, stderrColumns: { get: () => width } });
    const running = listenRun({ port: 0 }, fd.deps);
    let url: string | undefined;
    const started = Date.now();
    while (!(url = /Ready: listening for webhook events on (http:\S+?)(,|\s|$)/.exec(fd.stderr())?.[1])) {
      if (Date.now() - started > 5000) throw new Error(`no Ready line: ${fd.stderr()}`);
      await new Promise((r) => setTimeout(r, 5));
    }

    const seen: string[] = [];
    for (width = 40; width <= 120; width++) {
      for (const [status, word, reason] of EVENTS) {
        const tx = txnId();
        const id = randomUUID();
        const body = event({ status, transaction_id: tx, webhook_id: id, amount: '1234567890123.45', failure_reason: reason });
        const before = fd.stdout().length;
        expect((await postRaw(url, body, headersFor(body, secret))).status).toBe(200);
        const out = fd.stdout().slice(before);
        const at = `${width} columns, ${JSON.stringify(status)}:\n${out}`;
        // The word whole, and never a known word then … (a cut) or a known word alone.
        expect(out, at).toContain(word);
        expect(out, at).not.toMatch(/(Successful|Failed|Pending)…/);
        expect(out, at).toContain(tx);
        const lines = out.replace(/\n+$/, '').split('\n');
        if (lines.length === 1) {
          const line = lines[0]!;
          expect(displayWidth(line), at).toBeLessThanOrEqual(width);
          if (reason) expect(line, at).toMatch(new RegExp(`${word.replace(/\\/g, '\\\\')}:( T|…)`));
          // Left out in the README's order: the webhook id, the time, the event, the amount.
          const has = [id, /\d\d:\d\d:\d\d/, 'transfer.', '1,234,567,890,123.45 SLE'].map((p) => (typeof p === 'string' ? line.includes(p) : p.test(line)));
          for (let k = 1; k < has.length; k++) if (has[k - 1]) expect(has[k], `${at}: ${k - 1} kept, ${k} left out`).toBe(true);
          seen.push(`line:${has.filter(Boolean).length}`);
        } else {
          // A card: the word on its row whole, the reason (cut) on its own.
          expect(out, at).toMatch(new RegExp(`^STATUS +${word.replace(/\\/g, '\\\\')}$`, 'm'));
          if (reason) expect(out, at).toMatch(/^REASON +The recipient/m);
          seen.push('card');
        }
      }
    }
    fd.interrupt();
    await running;
    // Every layout was met: cards, a line with nothing left out but the webhook id, and lines in between.
    expect(new Set(seen)).toEqual(new Set(['card', 'line:0', 'line:1', 'line:2', 'line:3']));
  });
});
