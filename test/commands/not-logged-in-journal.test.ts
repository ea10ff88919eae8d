/**
 * A config folder with only a named profile ("fk", no "default"; probe 53-H finding 3), in
 * process against the sandbox over real HTTP. A payout of unknown outcome sent with --profile fk,
 * then `payout get <payout id>` and `history reconcile` without --profile: the journal, which
 * needs no login, is read first. Before: all exited 3 "Not logged in: profile "default" has no
 * base URL", naming neither fk nor the payout. Now: exit 4 OUTCOME_UNKNOWN naming profile fk, the
 * commands printed carrying --profile fk and working as printed; accepted, `payout get` exits 2
 * with the look-up that shows it; a transaction id still needs a login (exit 3), its hint naming
 * the profile that sent it, with a command that shows it.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { printed } from '../helpers/printed.js';
import { heldFor, payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
let dir: string;
let cleanup: () => void;
const run = (args: string[], opts: { clock?: TestClock; env?: NodeJS.ProcessEnv } = {}): Promise<Run> => payctl(args, { dir, ...opts });

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl, '--profile', 'fk'], { dir, input: ctx.sb.apiKey + '\n' });
  expect(r.code, r.stderr).toBe(0);
});
afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

/** A payout sent with --profile fk whose answer was lost before the sandbox made it: unknown. */
async function lost(): Promise<string> {
  const id = randomUUID();
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: 10 });
  const r = await run([...payoutArgs(freshWallet(ctx.sb, '10000.00'), id), '--profile', 'fk'], { clock: new TestClock() });
  ctx.sb.faults.clear();
  expect(r.code, r.stderr).toBe(4);
  return id;
}

describe('no default profile: the journal answers before "Not logged in"', () => {
  it('payout get <payout id> of unknown outcome: exit 4 OUTCOME_UNKNOWN naming profile fk; its printed commands work (before: exit 3)', async () => {
    const id = await lost();
    const from = ctx.sb.requests().length;
    const r = await run(['payout', 'get', id]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('Not logged in:');
    expect(r.stderr).toContain(
      `Payout ${id} was not looked up at the service: this run is not logged in (profile "default" has no base URL). This config folder's journal has it for ${ctx.sb.baseUrl} (sent with profile fk). Its outcome is unknown there`,
    );
    const j = await run(['payout', 'get', id, '--json']);
    expect(j.code).toBe(4);
    expect(JSON.parse(j.stderr.trim().split('\n').at(-1)!).error).toMatchObject({ code: 'OUTCOME_UNKNOWN', payout_id: id });
    expect((await run(['payout', 'get', id, '--wait'])).code).toBe(4);
    expect(ctx.sb.requests().length).toBe(from);

    const get = printed(r.stderr, 'payout get');
    expect(get).toEqual(['payout', 'get', id, '--profile', 'fk']);
    const g = await run(get);
    expect(g.code, g.stderr).toBe(4);
    const rec = printed(r.stderr, 'history reconcile');
    expect(rec).toEqual(['history', 'reconcile', '--profile', 'fk', '--payout-id', id]);
    expect((await run(rec)).code).toBe(0);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);

    // Accepted now: exit 2 with the look-up of profile fk, which shows it.
    const a = await run(['payout', 'get', id]);
    expect(a.code, a.stderr).toBe(2);
    expect(a.stderr).not.toContain('Not logged in:');
    const shown = await run(printed(a.stderr, 'payout get'));
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^Payout ID\\s+${id}$`, 'm'));

    // Its transaction id needs the service: still exit 3, the hint naming profile fk with a look-up that works.
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    const t = await run(['payout', 'get', txn]);
    expect(t.code, t.stderr).toBe(3);
    expect(t.stderr).toContain(`This config folder's journal has transaction ${txn} as payout ${id} for ${ctx.sb.baseUrl} (sent with profile fk)`);
    const byTxn = printed(t.stderr, 'payout get');
    expect(byTxn).toEqual(['payout', 'get', txn, '--profile', 'fk']);
    expect((await run(byTxn)).code).toBe(0);
  });

  it('history reconcile: exit 4 OUTCOME_UNKNOWN naming profile fk and how many, with the reconcile that resolves them (before: exit 3)', async () => {
    const ids = [await lost(), await lost()];
    const r = await run(['history', 'reconcile']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('Not logged in:');
    expect(r.stderr).toContain(
      `Nothing was reconciled: this run is not logged in (profile "default" has no base URL). This config folder's journal has payouts of unknown outcome (they may or may not have been made): 2 payouts for ${ctx.sb.baseUrl} (sent with profile fk). Nothing was sent.`,
    );
    const j = await run(['history', 'reconcile', '--json']);
    expect(j.code).toBe(4);
    const doc = JSON.parse(j.stderr.trim().split('\n').at(-1)!).error;
    expect(doc).toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    expect(doc.payout_id).toBeUndefined();
    const one = await run(['history', 'reconcile', '--payout-id', ids[0]!]);
    expect(one.code, one.stderr).toBe(4);
    expect(printed(one.stderr, 'history reconcile')).toEqual(['history', 'reconcile', '--profile', 'fk', '--payout-id', ids[0]!]);

    const rec = printed(r.stderr, 'history reconcile');
    expect(rec).toEqual(['history', 'reconcile', '--profile', 'fk']);
    const done = await run(rec);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    for (const id of ids) expect(heldFor(ctx.sb, id)).toHaveLength(1);
    // Nothing unknown left: what needs the service is "Not logged in" again (exit 3).
    const after = await run(['history', 'reconcile']);
    expect(after.code, after.stderr).toBe(3);
    expect(after.stderr).toContain('Not logged in: profile "default" has no base URL');
  });
});
