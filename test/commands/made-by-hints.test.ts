/**
 * The hint of a refused `history reconcile --payout-id ID --made-by TXN` names the reconcile of
 * that payout by what it will do (probe 53-H finding 4: "See the candidates with" printed a
 * command that, within 24 hours, resends the payout). In process, against the sandbox over real
 * HTTP, a transaction the service does not have (exit 1): within 24 hours of the first attempt,
 * "Settle it (… resent under its own idempotency key …)", and run as printed it resends it, one
 * payout; a day later, "See the candidates (listed; nothing is sent)", and run as printed it sends
 * nothing.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { printed } from '../helpers/printed.js';
import { heldFor, payoutArgs, useFreshLogin } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const login = useFreshLogin(ctx);
const NO_SUCH = 'TXN-BOK-0000000000000000000000A1B2';
const DAY_AND_AN_HOUR = 25 * 3600_000;

/** A payout whose answer was lost before the sandbox made it (unknown in the journal), sent at `clock`'s time. */
async function lost(clock: TestClock): Promise<string> {
  const id = randomUUID();
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: 10 });
  const r = await payctl(payoutArgs(freshWallet(ctx.sb, '10000.00'), id), { dir: login.dir, clock });
  ctx.sb.faults.clear();
  expect(r.code, r.stderr).toBe(4);
  return id;
}

const posts = () => ctx.sb.requests().filter((r) => r.method === 'POST').length;

describe('--made-by refused: the reconcile it prints, worded by what it does', () => {
  it('within 24 hours: "Settle it", resent under its own key as printed, one payout (before: "See the candidates")', async () => {
    const t0 = new Date();
    const id = await lost(new TestClock(t0));
    const r = await payctl(['history', 'reconcile', '--payout-id', id, '--made-by', NO_SUCH], { dir: login.dir, clock: new TestClock(t0) });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `Settle it (within 24 hours of its first attempt it is resent under its own idempotency key: one payout either way) with: payctl history reconcile --payout-id ${id}`,
    );
    expect(r.stderr).not.toContain('See the candidates');
    const settle = await payctl(printed(r.stderr, 'history reconcile'), { dir: login.dir, clock: new TestClock(t0) });
    expect(settle.code, settle.stdout + settle.stderr).toBe(0);
    expect(settle.stdout).toMatch(new RegExp(`^accepted\\s+${id}\\s+resent with its journaled idempotency key`, 'm'));
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  });

  it('a day later: "See the candidates (listed; nothing is sent)", and as printed nothing is sent', async () => {
    const t0 = new Date();
    const id = await lost(new TestClock(t0));
    const later = () => new TestClock(new Date(t0.getTime() + DAY_AND_AN_HOUR));
    const r = await payctl(['history', 'reconcile', '--payout-id', id, '--made-by', NO_SUCH], { dir: login.dir, clock: later() });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`See the candidates (listed; nothing is sent) with: payctl history reconcile --payout-id ${id}`);
    const before = posts();
    const see = await payctl(printed(r.stderr, 'history reconcile'), { dir: login.dir, clock: later() });
    expect(see.code, see.stdout + see.stderr).toBe(4);
    expect(posts()).toBe(before);
    expect(heldFor(ctx.sb, id)).toHaveLength(0);
  });
});
