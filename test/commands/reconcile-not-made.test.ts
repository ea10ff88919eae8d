/**
 * A payout of unknown outcome whose resend is refused while the payout list holds another payout
 * of the same amount and currency stays unknown (resend-refused.ts): payctl cannot tell that record
 * from the earlier attempt. A person who looked and found it is not this payout answers with the
 * printed `history reconcile --payout-id ID --resend`: a refusal of that resend is recorded as not
 * made on the person's word, instead of the same search leaving it unknown for ever (exit 4 on every
 * reconcile, the payout retyped only with --allow-repeat). A refusal that says "duplicate" stays
 * unknown; an accepted resend pays once. Against the in-process sandbox over real HTTP.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { heldFor, heldFrom, loginInProcess } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { printed } from '../helpers/printed.js';
import { Journal } from '../../src/payouts/journal.js';

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
});

afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

const run = (args: string[]): Promise<Run> => payctl(args, { dir, clock: new TestClock() });

/** A bank payout of `amount` SLE to `account`; with `payoutId`, under that id. */
const create = (walletId: string, account: string, amount: string, payoutId?: string) => [
  'payout',
  'create',
  '--wallet',
  walletId,
  '--amount',
  amount,
  '--currency',
  'SLE',
  '--type',
  'bank',
  '--name',
  'Fatmata Sesay',
  '--provider',
  'ecobank',
  '--account',
  account,
  ...(payoutId ? ['--payout-id', payoutId] : []),
  '--yes',
];

const account = () => String(Math.floor(1e9 + Math.random() * 8e9));
const outcome = async (payoutId: string) => (await new Journal(dir).get(ctx.sb.baseUrl, payoutId))?.outcome;

const posts = (from: number) =>
  ctx.sb
    .requests()
    .slice(from)
    .filter((q) => q.method === 'POST' && q.path === '/v2/payout').length;

/**
 * Another payout of `amount` made from the wallet; then payout `id` of the same amount whose first
 * attempt never reached the service, and reconcile's resend refused 400: unknown, exit 4.
 */
async function heldByAnother(wallet: string, amount: string, id: string): Promise<Run> {
  const other = await run(create(wallet, account(), amount));
  expect(other.code, other.stderr).toBe(0);
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
  expect((await run(create(wallet, account(), amount, id))).code).toBe(4);
  ctx.sb.faults.clear();
  ctx.sb.faults.add({
    method: 'POST',
    path: '/v2/payout',
    kind: 'status',
    status: 400,
    code: 'INSUFFICIENT_FUNDS',
    message: 'Insufficient wallet balance',
    times: Infinity,
  });
  const r = await run(['history', 'reconcile']);
  expect(r.code, r.stderr).toBe(4);
  expect(r.stdout).toContain('but an earlier attempt may have been made: a record at the service could be it');
  expect((await outcome(id))?.kind).toBe('unknown');
  return r;
}

describe("a refused resend held unknown by another payout of the same amount: the person's --resend", () => {
  it("the printed --resend, refused 400 again: recorded as not made on the person's word, exit 0; reconcile then has nothing to do (before: unknown again, exit 4)", async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const r = await heldByAnother(wallet, '27.43', id);
    expect(r.stdout).toContain('If no payout at the service is this one (you looked), resend it with its journaled key and body; a refusal is then recorded as not made');
    const resend = printed(r.stdout, `history reconcile --payout-id ${id} --resend`);

    // Without a terminal the printed command needs --yes (at one it asks); nothing is sent before.
    const from = ctx.sb.requests().length;
    const unconfirmed = await run(resend);
    expect(unconfirmed.code, unconfirmed.stderr).toBe(2);
    expect(posts(from)).toBe(0);

    const answered = await run([...resend, '--yes']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toBe(
      `refused   ${id}  resent with its journaled key: INSUFFICIENT_FUNDS: Insufficient wallet balance; a person said no payout at the service is its earlier attempt (history reconcile --resend); no payout was made\n`,
    );
    expect(posts(from)).toBe(1);
    expect((await outcome(id))?.kind).toBe('rejected');

    const again = await run(['history', 'reconcile']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('No unknown outcomes');
    expect(heldFor(ctx.sb, id)).toHaveLength(0);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });

  it('the --resend refused as a duplicate ("Duplicate payout"): still unknown, exit 4, never taken for not made', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    await heldByAnother(wallet, '27.44', id);
    ctx.sb.faults.clear();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 409, code: 'CONFLICT', message: 'Duplicate payout', times: Infinity });
    const r = await run(['history', 'reconcile', '--payout-id', id, '--resend', '--yes']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).not.toMatch(/no payout was made/);
    expect((await outcome(id))?.kind).toBe('unknown');
  });

  it('the --resend accepted: one payout for it, recorded accepted', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    await heldByAnother(wallet, '27.45', id);
    ctx.sb.faults.clear();
    const r = await run(['history', 'reconcile', '--payout-id', id, '--resend', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^accepted  ${id}  resent with its journaled key: transaction `));
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);
    expect((await outcome(id))?.kind).toBe('accepted');
  });
});
