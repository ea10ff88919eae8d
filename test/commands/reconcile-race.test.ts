/**
 * Two resolutions of unknown outcomes at once, as two terminals run them (resolve-lock.ts): the
 * `--made-by TXN` and `--resend` printed as two choices for one payout, run together; two
 * `--made-by` naming one transaction for two payouts, run together. The first is held in flight
 * (its look-up of the transaction delayed at the sandbox) while the second starts: the second must
 * see what the first recorded. One config folder, two runs in one process (the lock files are the
 * same for two processes); and two machines sharing a PostgreSQL ledger (its advisory locks).
 * Against the in-process sandbox over real HTTP.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { heldFor, loginInProcess } from '../helpers/payout-fixtures.js';
import { freshWallet, requestArrived, useSandbox } from '../helpers/sandbox.js';
import { sharedPostgres } from '../helpers/postgres.js';
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

const run = (args: string[], on = dir): Promise<Run> => payctl(args, { dir: on, clock: new TestClock() });

/** A payout made at the sandbox, its answer lost: journaled unknown (in `on`'s ledger); returns its transaction id. */
async function lost(wallet: string, id: string, extra: string[] = [], on = dir): Promise<string> {
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
  const r = await run(
    [
      'payout',
      'create',
      '--wallet',
      wallet,
      '--amount',
      '64.10',
      '--currency',
      'SLE',
      '--type',
      'bank',
      '--name',
      'Aminata Conteh',
      '--provider',
      'ecobank',
      '--account',
      '5522334411',
      '--payout-id',
      id,
      '--yes',
      ...extra,
    ],
    on,
  );
  expect(r.code, r.stderr).toBe(4);
  ctx.sb.faults.clear();
  return heldFor(ctx.sb, id)[0]!.transaction_id;
}

/** Requests the sandbox had from request `from` on, of this method and path. */
const seen = (from: number, method: string, path: string) =>
  ctx.sb
    .requests()
    .slice(from)
    .filter((q) => q.method === method && q.path === path).length;

/** Resolves once the sandbox has had a request of this method and path since `from`. */
const arrived = (from: number, method: string, path: string) => requestArrived(ctx.sb, from, method, path);

describe('two terminals resolving unknown outcomes at once', () => {
  it('--made-by in flight, then --resend of the same payout: the resend waits, sees it recorded, sends nothing (before: both went through, the payout resent)', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const txn = await lost(wallet, id);
    expect((await new Journal(dir).get(ctx.sb.baseUrl, id))?.outcome?.kind).toBe('unknown');
    ctx.sb.faults.add({ method: 'GET', path: `/v2/payout/${txn}`, kind: 'delay', delayMs: 1500, times: Infinity });
    const from = ctx.sb.requests().length;

    const made = run(['history', 'reconcile', '--payout-id', id, '--made-by', txn]);
    await arrived(from, 'GET', `/v2/payout/${txn}`);
    const resend = await run(['history', 'reconcile', '--payout-id', id, '--resend', '--yes']);
    const m = await made;

    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toContain(`recorded as made by transaction ${txn}`);
    expect(resend.code, resend.stderr).toBe(0);
    expect(resend.stderr).toContain(`Payout ${id} is not unknown: accepted, transaction ${txn}. Nothing to do.`);
    expect(resend.stderr).toMatch(/Waiting for another payctl \(pid \d+\) that is resolving the outcome of payout /);
    expect(seen(from, 'POST', '/v2/payout')).toBe(0);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  });

  it('two --made-by naming one transaction for two payouts: the second waits and is refused, exit 2 (before: both recorded it, exit 0)', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const a = randomUUID();
    const b = randomUUID();
    const txn = await lost(wallet, a);
    // Another note: not a later twin of the first (same body but its id), whose --made-by that one would refuse (made-by-later-twin.test.ts).
    await lost(wallet, b, ['--allow-repeat', '--note', 'second payout']);
    ctx.sb.faults.add({ method: 'GET', path: `/v2/payout/${txn}`, kind: 'delay', delayMs: 1500, times: Infinity });
    const from = ctx.sb.requests().length;

    const first = run(['history', 'reconcile', '--payout-id', a, '--made-by', txn]);
    await arrived(from, 'GET', `/v2/payout/${txn}`);
    const second = await run(['history', 'reconcile', '--payout-id', b, '--made-by', txn]);
    const f = await first;

    expect(f.code, f.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toContain(`Transaction ${txn} is already recorded as payout ${a}. Nothing was recorded.`);
    const journal = new Journal(dir);
    expect((await journal.get(ctx.sb.baseUrl, b))?.outcome?.kind).toBe('unknown');
    expect(seen(from, 'GET', `/v2/payout/${txn}`)).toBe(1);
  });
});

describe('a run over every unknown payout meets one another payctl is resolving', () => {
  it('leaves it after a short wait (unknown, said), resolves the others, exits 4 with its counts (before: stopped after 30 s, exit 1, "Nothing was sent")', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const [busy, other] = [randomUUID(), randomUUID()];
    const txn = await lost(wallet, busy);
    // Another note: not a later twin of the first (same body but its id), whose --made-by that one would refuse (made-by-later-twin.test.ts).
    await lost(wallet, other, ['--allow-repeat', '--note', 'second payout']);
    ctx.sb.faults.add({ method: 'GET', path: `/v2/payout/${txn}`, kind: 'delay', delayMs: 6000, times: Infinity });
    const from = ctx.sb.requests().length;

    const made = run(['history', 'reconcile', '--payout-id', busy, '--made-by', txn]);
    await arrived(from, 'GET', `/v2/payout/${txn}`);
    const all = await run(['history', 'reconcile']);
    const m = await made;

    expect(all.code, all.stderr).toBe(4);
    expect(all.stdout).toMatch(new RegExp(`^unknown   ${busy}  not resolved here: Payout ${busy} is locked by another payctl \\(pid \\d+ on `, 'm'));
    expect(all.stdout).toMatch(new RegExp(`^accepted  ${other}  resent with its journaled idempotency key`, 'm'));
    expect(all.stderr).toContain(
      '2 unknown: 1 resent with their journaled idempotency keys, 0 not resent (older than 24 hours), 1 being resolved by another payctl; now 1 accepted, 0 refused, 1 still unknown.',
    );
    expect(all.stderr).not.toContain('Nothing was sent');
    expect(m.code, m.stderr).toBe(0);
    expect(seen(from, 'POST', '/v2/payout')).toBe(1);
  });
});

describe('two machines sharing a PostgreSQL ledger', () => {
  const machines = [tempConfigDir(), tempConfigDir()];
  const [a, b] = machines.map((m) => m.dir) as [string, string];
  beforeAll(async () => {
    const url = await (await sharedPostgres()).freshDatabase('resolve');
    for (const on of [a, b]) {
      await writeLoggedIn(ctx.sb, on);
      const set = await payctl(['config', 'set', 'ledger', '--stdin'], { dir: on, input: `${url}\n` });
      expect(set.code, set.stderr).toBe(0);
    }
  });
  afterAll(() => machines.forEach((m) => m.cleanup()));

  it("--made-by in flight on one, --resend of the same payout on the other: the resend waits for the ledger's lock, sends nothing", async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const txn = await lost(wallet, id, [], a);
    ctx.sb.faults.add({ method: 'GET', path: `/v2/payout/${txn}`, kind: 'delay', delayMs: 1500, times: Infinity });
    const from = ctx.sb.requests().length;

    const made = run(['history', 'reconcile', '--payout-id', id, '--made-by', txn], a);
    await arrived(from, 'GET', `/v2/payout/${txn}`);
    const resend = await run(['history', 'reconcile', '--payout-id', id, '--resend', '--yes'], b);
    const m = await made;

    expect(m.code, m.stderr).toBe(0);
    expect(resend.code, resend.stderr).toBe(0);
    expect(resend.stderr).toContain(`Payout ${id} is not unknown: accepted, transaction ${txn}. Nothing to do.`);
    expect(resend.stderr).toMatch(/Waiting for another payctl( \(pid \d+\))? that is resolving the outcome of payout /);
    expect(seen(from, 'POST', '/v2/payout')).toBe(0);
  });
});
