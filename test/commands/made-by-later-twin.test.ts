/**
 * `history reconcile --payout-id P --made-by TXN` while a payout journaled after P pays what P
 * pays under an id of its own (probe 54-H finding 3), in process against the sandbox over real
 * HTTP: refused (exit 2, nothing recorded) as the README says, naming that payout, while it may
 * have paid it (its outcome unknown), within 24 hours and 25 hours later (TestClock); P stays
 * unknown. Once that one is settled (or accepted with its transaction), P is recorded by its own
 * transaction, and the later one's is refused as recorded for it. Plain reconcile of P prints no
 * `--made-by` such a refusal would meet, but the later payout's reconcile, as the refusal advises
 * (each printed command run back as printed). Before, only a P whose id the service called used before was checked: a P
 * lost as any answer is lost was recorded as made by the transaction the later payout made.
 */
import { describe, expect, it } from 'vitest';
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

/** A bank payout of 20.20 SLE from `wallet` to `account` under payout id `id`. */
function createArgs(wallet: string, account: string, id: string): string[] {
  const args = ['payout', 'create', '--wallet', wallet, '--amount', '20.20', '--currency', 'SLE', '--type', 'bank'];
  return [...args, '--name', 'Later Test', '--provider', 'ecobank', '--account', account, '--payout-id', id, '--yes'];
}

/** Sends it with its answer lost (the sandbox commits it): exit 4, unknown (payout-fixtures.ts). */
const lostAnswer = (args: string[]): Promise<string> => createWithLostAnswer(ctx.sb, run, args);

/** Two payouts of the same details: `first` of unknown outcome, then `mine` (lost too, or accepted); their transactions, oldest first. */
async function twins(lostMine: boolean): Promise<{ first: string; mine: string; txns: string[] }> {
  const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
  const account = `00${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
  const tag = Math.random().toString(36).slice(2, 8);
  const first = `first-${tag}`;
  const mine = `mine-${tag}`;
  const made = () => heldFrom(ctx.sb, wallet).map((t) => t.transaction_id);
  await lostAnswer(createArgs(wallet, account, first));
  const [own] = made();
  if (lostMine) await lostAnswer(createArgs(wallet, account, mine));
  else expect((await run(createArgs(wallet, account, mine))).code).toBe(0);
  const txns = made();
  expect(txns).toHaveLength(2);
  return { first, mine, txns: [own!, txns.find((t) => t !== own)!] };
}

/** `history --json`'s rows. */
const jsonData = (stdout: string): Array<Record<string, unknown>> => (JSON.parse(stdout) as { data: Array<Record<string, unknown>> }).data;

/** The --made-by refused, naming the later payout, and P still unknown. */
async function refusedNaming(first: string, mine: string, txn: string, clock?: TestClock): Promise<Run> {
  const r = await run(['history', 'reconcile', '--payout-id', first, '--made-by', txn], clock);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(`Payout ${mine}, journaled after payout ${first}, pays what it pays`);
  expect(r.stderr).toContain('Nothing was recorded.');
  const unknown = await run(['history', '--status', 'unknown', '--json']);
  expect(jsonData(unknown.stdout).map((l) => l.payout_id)).toContain(first);
  return r;
}

describe('--made-by while a payout journaled after it pays the same under an id of its own', () => {
  it('that one unknown: refused, naming it, with the transaction of either, within 24 hours and 25 hours later', async () => {
    const { first, mine, txns } = await twins(true);
    for (const txn of txns) {
      const r = await refusedNaming(first, mine, txn);
      expect(printed(r.stderr, 'history reconcile')).toEqual(['history', 'reconcile', '--payout-id', mine]);
      await refusedNaming(first, mine, txn, new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR)));
    }
  });

  it("history reconcile --payout-id P (plain) prints no --made-by that would be refused: the later one's reconcile first, each command run as printed", async () => {
    // Before, 25 hours on, P was held with both transactions as candidates and a --made-by printed for each: pasted, each was refused (exit 2).
    const { first, mine } = await twins(true);
    const clock = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    const r = await run(['history', 'reconcile', '--payout-id', first], clock);
    expect(r.code, r.stderr).toBe(4);
    // Every reconcile printed, but the --resend (it asks to confirm), pasted back as printed: none refused.
    const commands = r.stdout.split('\n').filter((l) => l.includes('payctl history reconcile') && !l.includes('--resend'));
    expect(commands.length).toBeGreaterThan(0);
    for (const line of commands) {
      const again = await run(printed(line, 'history reconcile'), clock);
      expect(again.code, `${line}\n${again.stderr}`).not.toBe(2);
      expect(again.stderr).not.toContain('Nothing was recorded.');
    }
    // The later one's reconcile, then P's again, as the refusal of --made-by advises.
    expect(commands.map((l) => printed(l, 'history reconcile'))).toEqual([
      ['history', 'reconcile', '--payout-id', mine],
      ['history', 'reconcile', '--payout-id', first],
    ]);
    expect(r.stdout).toContain(`If one of them is this payout, it cannot be recorded as made yet. Payout ${mine}, journaled after payout ${first}, pays what it pays`);
    const json = await run(['--json', 'history', 'reconcile', '--payout-id', first], clock);
    const [result] = (JSON.parse(json.stdout) as { results: Array<{ commands: Record<string, unknown> }> }).results;
    expect(result!.commands).toMatchObject({ made_by: [], made_by_blocked: { later_payout_id: mine } });
  });

  it("that one settled first: the earlier one is then recorded by its own transaction, never by the later one's", async () => {
    const { first, mine, txns } = await twins(true);
    const clock = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    expect((await run(['history', 'reconcile', '--payout-id', mine, '--made-by', txns[1]!], clock)).code).toBe(0);
    const taken = await run(['history', 'reconcile', '--payout-id', first, '--made-by', txns[1]!], clock);
    expect(taken.code, taken.stderr).toBe(2);
    expect(taken.stderr).toContain(`is already recorded as payout ${mine}`);
    const own = await run(['history', 'reconcile', '--payout-id', first, '--made-by', txns[0]!], clock);
    expect(own.code, own.stderr).toBe(0);
  });

  it('that one accepted with its transaction: the earlier one is recorded by its own transaction only', async () => {
    const { first, mine, txns } = await twins(false);
    const taken = await run(['history', 'reconcile', '--payout-id', first, '--made-by', txns[1]!]);
    expect(taken.code, taken.stderr).toBe(2);
    expect(taken.stderr).toContain(`is already recorded as payout ${mine}`);
    expect((await run(['history', 'reconcile', '--payout-id', first, '--made-by', txns[0]!])).code).toBe(0);
  });
});
