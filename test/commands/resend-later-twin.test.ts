/**
 * `--resend` of a payout P of unknown outcome while a payout journaled after it pays what P pays
 * under an id of its own (its "later twin", payouts/later-twin.ts) and may have paid the person,
 * in process against the sandbox over real HTTP. If that one was made and P was not, resending P
 * pays twice: `history reconcile --payout-id P --resend` is refused (exit 2, no POST reaches the
 * service, the payouts made before the only ones there), in the words of the `--made-by` refusal,
 * within 24 hours and 25 hours later (TestClock); plain reconcile of P and `payout create`'s own
 * advice for P (run again 25 hours later) print neither a `--resend` nor a `--made-by` (each would
 * be refused), and every command they print, run as printed, is never refused. Once that one is
 * settled, `--resend` of P works as before. Before, the resend was printed, and sent.
 */
import { describe, expect, it } from 'vitest';
import { payoutPosts } from '../helpers/batch.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import type { Run } from '../helpers/e2e.js';
import { printed } from '../helpers/printed.js';
import { heldFrom, useFreshLogin, createWithLostAnswer } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();
const setup = useFreshLogin(ctx);

const DAY_AND_AN_HOUR = 25 * 60 * 60 * 1000;
const run = (args: string[], clock?: TestClock): Promise<Run> => payctl(args, { dir: setup.dir, ...(clock ? { clock } : {}) });
const later = (): TestClock => new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));

/** A bank payout of 30.30 SLE from `wallet` to `account` under payout id `id`. */
function createArgs(wallet: string, account: string, id: string): string[] {
  const args = ['payout', 'create', '--wallet', wallet, '--amount', '30.30', '--currency', 'SLE', '--type', 'bank'];
  return [...args, '--name', 'Twin Test', '--provider', 'ecobank', '--account', account, '--payout-id', id, '--yes'];
}

/** Sends it with its answer lost (the sandbox commits it): exit 4, unknown (payout-fixtures.ts). */
const lostAnswer = (args: string[]): Promise<string> => createWithLostAnswer(ctx.sb, run, args);

/** P (`first`) of unknown outcome, then its later twin (`mine`), unknown too; the wallet, P's create arguments, and the transactions made (P's first). */
async function twins(): Promise<{ first: string; mine: string; wallet: string; firstArgs: string[]; txns: string[] }> {
  const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
  const account = `00${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
  const tag = Math.random().toString(36).slice(2, 8);
  const first = `first-${tag}`;
  const mine = `mine-${tag}`;
  const made = () => heldFrom(ctx.sb, wallet).map((t) => t.transaction_id);
  const firstArgs = createArgs(wallet, account, first);
  await lostAnswer(firstArgs);
  const [own] = made();
  await lostAnswer(createArgs(wallet, account, mine));
  const txns = made();
  expect(txns).toHaveLength(2);
  return { first, mine, wallet, firstArgs, txns: [own!, txns.find((t) => t !== own)!] };
}

/** Every `payctl history reconcile` line of `out`, pasted back as printed: none is refused (exit 2). */
async function runEachPrinted(out: string, clock: TestClock): Promise<string[][]> {
  const lines = out.split('\n').filter((l) => l.includes('payctl history reconcile'));
  expect(lines.length, out).toBeGreaterThan(0);
  for (const line of lines) {
    const again = await run(printed(line, 'history reconcile'), clock);
    expect(again.code, `${line}\n${again.stderr}`).not.toBe(2);
  }
  return lines.map((l) => printed(l, 'history reconcile'));
}

describe('--resend of a payout while a later payout of the same details may have paid it', () => {
  it('refused (exit 2) as --made-by is, nothing sent, within 24 hours and 25 hours later; once that one is settled, resent as before', async () => {
    const { first, mine, wallet, txns } = await twins();
    const before = heldFrom(ctx.sb, wallet).map((t) => t.transaction_id);
    for (const clock of [undefined, later()]) {
      const from = ctx.sb.requests().length;
      const r = await run(['history', 'reconcile', '--payout-id', first, '--resend', '--yes'], clock);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`Payout ${mine}, journaled after payout ${first}, pays what it pays`);
      expect(r.stderr).toContain('Nothing was sent.');
      // The same refusal as --made-by's: that one's reconcile first, then P's again.
      const madeBy = await run(['history', 'reconcile', '--payout-id', first, '--made-by', before[0]!], clock);
      expect(madeBy.code).toBe(2);
      expect(r.stderr.replace('Nothing was sent.', 'Nothing was recorded.')).toBe(madeBy.stderr);
      expect(printed(r.stderr, 'history reconcile')).toEqual(['history', 'reconcile', '--payout-id', mine]);
      expect(r.stderr).toContain(`Then reconcile payout ${first} again: payctl`);
      expect(payoutPosts(ctx.sb, from)).toEqual([]);
      expect(heldFrom(ctx.sb, wallet).map((t) => t.transaction_id)).toEqual(before);
    }
    const unknown = await run(['history', '--status', 'unknown', '--json']);
    expect((JSON.parse(unknown.stdout) as { data: Array<{ payout_id: string }> }).data.map((l) => l.payout_id)).toContain(first);
    // That one settled by its own transaction: it no longer may have paid this one, and --resend works as before.
    const clock = later();
    expect((await run(['history', 'reconcile', '--payout-id', mine, '--made-by', txns[1]!], clock)).code).toBe(0);
    const from = ctx.sb.requests().length;
    const r = await run(['history', 'reconcile', '--payout-id', first, '--resend', '--yes'], clock);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`accepted  ${first}  resent with its journaled idempotency key: transaction ${txns[0]}`);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
    // The service gave its first answer again: no third payout.
    expect(heldFrom(ctx.sb, wallet).map((t) => t.transaction_id)).toEqual(before);
  });

  it('plain reconcile of it 25 hours later prints no --resend: every command printed runs as printed', async () => {
    const { first, mine } = await twins();
    const clock = later();
    const r = await run(['history', 'reconcile', '--payout-id', first], clock);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).not.toContain('--resend');
    expect(r.stdout).toContain(`so ${first} is neither recorded as made as well nor resent`);
    expect(await runEachPrinted(r.stdout, clock)).toEqual([
      ['history', 'reconcile', '--payout-id', mine],
      ['history', 'reconcile', '--payout-id', first],
    ]);
    const json = await run(['--json', 'history', 'reconcile', '--payout-id', first], clock);
    const [result] = (JSON.parse(json.stdout) as { results: Array<{ commands: Record<string, unknown> }> }).results;
    expect(result!.commands).toMatchObject({ made_by: [], resend: null, made_by_blocked: { later_payout_id: mine } });
  });

  it('payout create run again 25 hours later prints no --made-by or --resend: each command printed runs as printed', async () => {
    // Before, its held advice printed a --made-by for each transaction (each refused) and the --resend (it would pay twice).
    const { first, mine, firstArgs } = await twins();
    const clock = later();
    const from = ctx.sb.requests().length;
    const r = await run(firstArgs, clock);
    expect(r.code, r.stderr).toBe(4);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(r.stderr).not.toContain('--made-by');
    expect(r.stderr).not.toContain('--resend');
    expect(await runEachPrinted(r.stderr, clock)).toEqual([
      ['history', 'reconcile', '--payout-id', mine],
      ['history', 'reconcile', '--payout-id', first],
    ]);
  });
});
