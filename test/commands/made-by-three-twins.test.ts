/**
 * Probe R58a findings 1 and 2, in process against the sandbox over real HTTP: three payouts of the
 * same details, P1 made with its answer lost, P2 and Q not made (their requests dropped before the
 * sandbox made them); 25 hours later (TestClock) the service holds one record that could be any of
 * them. Each printed command run as printed until reconcile exits 0: never a `--resend` printed,
 * `--resend` of a payout whose twin is recorded as made by that record refused (exit 2, nothing
 * sent), every payout closed, one payout at the sandbox. Before, once Q took the record, P2 "matched
 * nothing", was offered `--resend` and resent (a second payment), and its `--made-by` of the record
 * was refused as taken.
 */
import { describe, expect, it } from 'vitest';
import { payoutPosts } from '../helpers/batch.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import type { Run } from '../helpers/e2e.js';
import { printed } from '../helpers/printed.js';
import { createWithLostAnswer, heldFrom, useFreshLogin } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();
const setup = useFreshLogin(ctx);

const DAY_AND_AN_HOUR = 25 * 60 * 60 * 1000;
const run = (args: string[], clock?: TestClock): Promise<Run> => payctl(args, { dir: setup.dir, ...(clock ? { clock } : {}) });

/** A bank payout of 31.00 SLE from `wallet` to `account` under payout id `id`. */
function createArgs(wallet: string, account: string, id: string): string[] {
  const args = ['payout', 'create', '--wallet', wallet, '--amount', '31.00', '--currency', 'SLE', '--type', 'bank'];
  return [...args, '--name', 'Ibrahim', '--provider', 'ecobank', '--account', account, '--payout-id', id, '--yes', '--allow-repeat'];
}

/** Sends it with its answer lost, after the sandbox made it or before (`kind`): exit 4, unknown (payout-fixtures.ts). */
const lost = (args: string[], kind: 'reset-after-commit' | 'reset-before-commit'): Promise<string> => createWithLostAnswer(ctx.sb, run, args, kind);

/** Every `payctl history reconcile` command `out` prints, as argv. */
const commands = (out: string): string[][] =>
  out
    .split('\n')
    .filter((l) => l.includes('payctl history reconcile'))
    .map((l) => printed(l, 'history reconcile'));

describe('three payouts of the same details, the first made, one record for the three', () => {
  it('each printed command run as printed: no --resend printed or sent, all closed, one payout', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const account = `00${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
    const tag = Math.random().toString(36).slice(2, 8);
    const [p1, p2, q] = [`p1-${tag}`, `p2-${tag}`, `q-${tag}`];
    await lost(createArgs(wallet, account, p1), 'reset-after-commit');
    await lost(createArgs(wallet, account, p2), 'reset-before-commit');
    await lost(createArgs(wallet, account, q), 'reset-before-commit');
    const made = heldFrom(ctx.sb, wallet).map((t) => t.transaction_id);
    expect(made).toHaveLength(1);
    const clock = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    const from = ctx.sb.requests().length;

    // Q first, as the probe did: Q takes the one record.
    const qMade = await run(['history', 'reconcile', '--payout-id', q, '--made-by', made[0]!], clock);
    expect(qMade.code, qMade.stderr).toBe(0);
    // P2's resend is refused while Q is recorded as made by a record that could be P2's.
    const resend = await run(['history', 'reconcile', '--payout-id', p2, '--resend', '--yes'], clock);
    expect(resend.code, resend.stderr).toBe(2);
    expect(resend.stderr).toContain('Nothing was sent.');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    let all: Run | undefined;
    for (let i = 0; i < 6; i++) {
      all = await run(['history', 'reconcile'], clock);
      if (all.code === 0) break;
      expect(all.code, all.stderr).toBe(4);
      expect(all.stdout).not.toContain('--resend');
      const next = commands(all.stdout);
      expect(next.length, all.stdout).toBeGreaterThan(0);
      for (const c of next) {
        // A --made-by with --json too: a script gets its document on stdout, a payout closed as paid in its place too.
        const madeBy = c.includes('--made-by');
        const r = await run(madeBy ? ['--json', ...c] : c, clock);
        expect(r.code, `${c.join(' ')}\n${r.stderr}`).not.toBe(2);
        if (madeBy && r.code === 0) {
          const doc = JSON.parse(r.stdout) as { results: Array<{ payout_id: string; action: string }> };
          expect(doc.results.map((x) => [x.payout_id, x.action])).toEqual([[c[c.indexOf('--payout-id') + 1], 'made-by']]);
        }
      }
    }
    expect(all!.code, all!.stdout).toBe(0);
    const unknown = await run(['history', '--status', 'unknown', '--json']);
    const ids = (JSON.parse(unknown.stdout) as { data: Array<{ payout_id: string }> }).data.map((l) => l.payout_id);
    for (const id of [p1, p2, q]) expect(ids).not.toContain(id);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(heldFrom(ctx.sb, wallet).map((t) => t.transaction_id)).toEqual(made);
  });
});
