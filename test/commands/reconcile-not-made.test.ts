/**
 * `history reconcile --payout-id ID --resend` of a payout of unknown outcome: a resend like any
 * other, never an answer that the payout was not made. Its refusal (a lying 400) is searched for as
 * any resend's (resend-refused.ts): a payout made while its first answer was lost stays unknown, and
 * the same payout typed again is refused as a repeat. (A version that took the refusal on "a
 * person's word" recorded such a payout as not made, and the retype paid it again: probe 49-N.) A
 * refusal that says "duplicate" stays unknown; an accepted resend pays once. Against the in-process
 * sandbox over real HTTP.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { heldFor, heldFrom, loginInProcess } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
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

describe('history reconcile --payout-id ID --resend', () => {
  it('--resend refused 400, with no search ever shown, and one made while its first answer was lost: still unknown, exit 4, never "no payout was made"; the retype is refused as a repeat', async () => {
    // Probe 49-N F1: a --resend refusal taken on "a person's word" recorded a made payout as not made,
    // and the same payout typed again was paid. --resend is only a resend: its refusal is searched as any other.
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const acct = account();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await run(create(wallet, acct, '27.42', id))).code).toBe(4);
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
    const r = await run(['history', 'reconcile', '--payout-id', id, '--resend', '--yes']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).not.toMatch(/no payout was made/);
    expect((await outcome(id))?.kind).toBe('unknown');
    ctx.sb.faults.clear();
    const from = ctx.sb.requests().length;
    const again = await run(create(wallet, acct, '27.42'));
    expect(again.code, again.stderr).toBe(2);
    expect(posts(from)).toBe(0);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  });

  it("the printed advice of a refused resend held by another payout offers no resend that would be taken on anyone's word", async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const r = await heldByAnother(wallet, '27.43', id);
    expect(r.stdout).toContain('Sending it again uses the same idempotency key and body, and the list is searched again if it is refused again.');
    const resend = await run(['history', 'reconcile', '--payout-id', id, '--resend', '--yes']);
    expect(resend.code, resend.stderr).toBe(4);
    expect((await outcome(id))?.kind).toBe('unknown');
    expect(heldFor(ctx.sb, id)).toHaveLength(0);
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
    expect(r.stdout).toMatch(new RegExp(`^accepted  ${id}  resent with its journaled idempotency key: transaction `));
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);
    expect((await outcome(id))?.kind).toBe('accepted');
  });
});
