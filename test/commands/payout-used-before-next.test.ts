/**
 * The `payout create … --payout-id P-2` payctl prints after the service refused payout id P as
 * used before while its payout list held a record that could be P (create-replaces.ts): "only
 * if none is this payout". Beside it, `history reconcile --payout-id P --made-by TXN`. Answered
 * with --made-by first, the printed P-2 is refused (before: sent, the payout paid twice); sent
 * while P is unknown, P is recorded as not made (before: unknown for good, reconcile exit 4 on
 * every run). In process, against the sandbox over real HTTP: a second config folder reusing an
 * invoice's payout id for December's retainer, while November's retainer of the same amount is
 * in the payout list.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshWallet, requestArrived, useSandbox } from '../helpers/sandbox.js';
import { newKey, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { tempConfigDir } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { printed } from '../helpers/printed.js';
import { Journal } from '../../src/payouts/journal.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
let a: ReturnType<typeof tempConfigDir>;
let b: ReturnType<typeof tempConfigDir>;
let wallet: string;

beforeEach(() => {
  a = tempConfigDir();
  b = tempConfigDir();
  for (const dir of [a.dir, b.dir]) writeProfile(dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
});
afterEach(() => {
  a.cleanup();
  b.cleanup();
});

const bank = (amount: string, name: string, account: string, id: string) =>
  ['payout', 'create', '--wallet', wallet, '--amount', amount, '--currency', 'SLE', '--type', 'bank', '--name', name].concat([
    '--provider',
    'ecobank',
    '--account',
    account,
    '--payout-id',
    id,
    '--yes',
  ]);

/** December's retainer under the invoice's payout id (used by folder a): unknown in folder b, November's retainer offered. */
async function mistyped(): Promise<{ invoice: string; november: string; out: string }> {
  const tag = randomUUID().slice(0, 8);
  const ibrahim = String(Math.floor(1e9 + Math.random() * 8e9));
  const [retainer, invoice] = [`retainer-nov-${tag}`, `inv-1042-${tag}`];
  expect((await payctl(bank('500', 'Ibrahim Koroma', ibrahim, retainer), { dir: a.dir })).code).toBe(0);
  expect((await payctl(bank('75', 'Musa Bangura', '0099887766', invoice), { dir: a.dir })).code).toBe(0);
  const november = ctx.sb.payouts().find((p) => p.payout_id === retainer)!.transaction_id;
  const r = await payctl(bank('500', 'Ibrahim Koroma', ibrahim, invoice), { dir: b.dir });
  expect(r.code, r.stderr).toBe(4);
  return { invoice, november, out: r.stderr };
}

const outcome = async (id: string) => (await new Journal(b.dir).get(ctx.sb.baseUrl, id))?.outcome;

describe('the printed P-2 of a payout whose id was used before', () => {
  it('after --made-by recorded P as made: refused, exit 2, nothing sent (before: sent, paid twice); --allow-repeat sends it', async () => {
    const { invoice, november, out } = await mistyped();
    const made = await payctl(printed(out, `history reconcile --payout-id ${invoice} --made-by ${november}`), { dir: b.dir });
    expect(made.code, made.stderr).toBe(0);
    const before = ctx.sb.payouts().length;

    const next = printed(out, 'payout create');
    expect(next).toContain(`${invoice}-2`);
    const r = await payctl(next, { dir: b.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `Payout ${invoice} is recorded as made (transaction ${november}): payout id ${invoice}-2 is the one payctl prints for sending it under another id`,
    );
    expect(r.stderr).toContain('Nothing was sent.');
    expect(ctx.sb.payouts().length).toBe(before);

    const anyway = await payctl([...next, '--allow-repeat'], { dir: b.dir });
    expect(anyway.code, anyway.stderr).toBe(0);
    expect(ctx.sb.payouts().length).toBe(before + 1);
  });

  it('while P is unknown: sent once, and P recorded as not made; reconcile has nothing left; --made-by for P refused (before: P unknown for good)', async () => {
    const { invoice, november, out } = await mistyped();
    const before = ctx.sb.payouts().length;
    const next = printed(out, 'payout create');
    expect(next).toContain(`${invoice}-2`);
    const r = await payctl(next, { dir: b.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Payout ${invoice} is recorded as not made: it was sent as payout ${invoice}-2.`);
    expect(ctx.sb.payouts().length).toBe(before + 1);
    expect(await outcome(invoice)).toMatchObject({ kind: 'rejected', code: 'DUPLICATE_PAYOUT_ID' });

    const rec = await payctl(['history', 'reconcile'], { dir: b.dir });
    expect(rec.code, rec.stdout + rec.stderr).toBe(0);
    const made = await payctl(['history', 'reconcile', '--payout-id', invoice, '--made-by', november], { dir: b.dir });
    expect(made.code, made.stderr).toBe(2);
    expect(made.stderr).toContain(`Payout ${invoice} is not unknown`);
  });

  it('P-2 sent with its answer lost: --made-by for P refused, naming P-2, nothing recorded (probe 49-N F2: both recorded, paid twice)', async () => {
    const { invoice, november, out } = await mistyped();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const next = printed(out, 'payout create');
    const lost = await payctl([...next, '--timeout', '2'], { dir: b.dir, clock: new TestClock() });
    ctx.sb.faults.clear();
    expect(lost.code, lost.stderr).toBe(4);
    const made = await payctl(['history', 'reconcile', '--payout-id', invoice, '--made-by', november], { dir: b.dir });
    expect(made.code, made.stderr).toBe(2);
    expect(made.stderr).toContain(`Payout ${invoice}-2, journaled after payout ${invoice}, pays what it pays (its outcome: unknown)`);
    expect(await outcome(invoice)).toMatchObject({ kind: 'unknown' });
    // The hint says what its command does (within 24 hours: resent under its own key), and run as printed it settles P-2, once.
    expect(made.stderr).toContain(`Its outcome is unknown: Settle payout ${invoice}-2 (within 24 hours of its first attempt it is resent under its own idempotency key`);
    const settle = await payctl(printed(made.stderr, 'history reconcile'), { dir: b.dir });
    expect(settle.code, settle.stdout + settle.stderr).toBe(0);
    expect(ctx.sb.payouts().filter((p) => p.payout_id === `${invoice}-2`)).toHaveLength(1);
  });

  it('--made-by for P in flight, the printed P-2 started beside it: P-2 waits for P, then is refused; nothing sent (probe 49-N F3: sent)', async () => {
    const { invoice, november, out } = await mistyped();
    ctx.sb.faults.add({ method: 'GET', path: `/v2/payout/${november}`, kind: 'delay', delayMs: 1500, times: Infinity });
    const from = ctx.sb.requests().length;
    const made = payctl(['history', 'reconcile', '--payout-id', invoice, '--made-by', november], { dir: b.dir });
    await requestArrived(ctx.sb, from, 'GET', `/v2/payout/${november}`);
    const next = await payctl(printed(out, 'payout create'), { dir: b.dir });
    ctx.sb.faults.clear();
    expect((await made).code).toBe(0);
    expect(next.code, next.stderr).toBe(2);
    expect(next.stderr).toContain(`Payout ${invoice} is recorded as made (transaction ${november})`);
    expect(
      ctx.sb
        .requests()
        .slice(from)
        .filter((q) => q.method === 'POST' && q.path === '/v2/payout'),
    ).toHaveLength(0);
  });

  it('an ordinary payout P answered as usual, then P-2 with the same details: an ordinary new payout, sent (probe 49-N F10: refused, saying payctl printed that id)', async () => {
    const id = `inv-${randomUUID().slice(0, 8)}`;
    const acct = String(Math.floor(1e9 + Math.random() * 8e9));
    expect((await payctl(bank('20', 'Kadiatu Jalloh', acct, id), { dir: b.dir })).code).toBe(0);
    const again = await payctl(bank('20', 'Kadiatu Jalloh', acct, `${id}-2`), { dir: b.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('payctl prints');
  });

  /** P held, and its printed P-2 held too (folder a used that id for another payout first): P-2's own printed command, P-2-2. */
  async function chain(): Promise<{ invoice: string; november: string; nextOut: string }> {
    const { invoice, november, out } = await mistyped();
    expect((await payctl(bank('60', 'Musa Bangura', '0099887766', `${invoice}-2`), { dir: a.dir })).code).toBe(0);
    const next = await payctl(printed(out, 'payout create'), { dir: b.dir });
    expect(next.code, next.stderr).toBe(4);
    expect(next.stderr).toContain(`--payout-id ${invoice}-2-2`);
    return { invoice, november, nextOut: next.stderr };
  }

  it('P -> P-2 (held too) -> P-2-2 accepted: P recorded as not made, --made-by for P refused (probe 49-P F1: recorded, paid twice)', async () => {
    const { invoice, november, nextOut } = await chain();
    const last = await payctl(printed(nextOut, 'payout create'), { dir: b.dir });
    expect(last.code, last.stderr).toBe(0);
    const made = await payctl(['history', 'reconcile', '--payout-id', invoice, '--made-by', november], { dir: b.dir });
    expect(made.code, made.stderr).toBe(2);
    // P-2-2 accepted recorded P (and P-2) as not made: sent as P-2-2 instead.
    expect(made.stderr).toContain(`Payout ${invoice} is not unknown: refused`);
    expect(await outcome(invoice)).toMatchObject({ kind: 'rejected', message: expect.stringContaining(`sent as payout ${invoice}-2-2 instead`) });
  });

  it('P-2 (held) recorded as made by --made-by: P recorded as not made with it, reconcile has nothing left (probe 49-P F2: P unknown for good)', async () => {
    const { invoice, november } = await chain();
    const made = await payctl(['history', 'reconcile', '--payout-id', `${invoice}-2`, '--made-by', november], { dir: b.dir });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`Payout ${invoice} is recorded as not made: it was sent as payout ${invoice}-2.`);
    expect(await outcome(invoice)).toMatchObject({ kind: 'rejected' });
    const rec = await payctl(['history', 'reconcile'], { dir: b.dir });
    expect(rec.code, rec.stdout + rec.stderr).toBe(0);
  });

  it('--made-by while another payctl resolves the payout: left after a short wait, exit 4, code OUTCOME_UNKNOWN, cause LOCKED (probe 49-P F4: exit 1 after 30 s)', async () => {
    const { invoice, november } = await mistyped();
    ctx.sb.faults.add({ method: 'GET', path: `/v2/payout/${november}`, kind: 'delay', delayMs: 6000, times: Infinity });
    const from = ctx.sb.requests().length;
    const first = payctl(['history', 'reconcile', '--payout-id', invoice, '--made-by', november], { dir: b.dir });
    await requestArrived(ctx.sb, from, 'GET', `/v2/payout/${november}`);
    const second = await payctl(['history', 'reconcile', '--payout-id', invoice, '--made-by', november, '--json'], { dir: b.dir });
    ctx.sb.faults.clear();
    expect(second.code, second.stderr).toBe(4);
    expect(JSON.parse(second.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { code: 'OUTCOME_UNKNOWN', cause: 'LOCKED', payout_id: invoice } });
    expect((await first).code).toBe(0);
  });

  it('P-2 sent with its answer lost, then resolved by reconcile: P recorded as not made with it (probe 49-P #2: P unknown for good)', async () => {
    const { invoice, out } = await mistyped();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const lost = await payctl([...printed(out, 'payout create'), '--timeout', '2'], { dir: b.dir, clock: new TestClock() });
    ctx.sb.faults.clear();
    expect(lost.code, lost.stderr).toBe(4);
    const rec = await payctl(['history', 'reconcile', '--payout-id', `${invoice}-2`], { dir: b.dir });
    expect(rec.code, rec.stdout + rec.stderr).toBe(0);
    expect(rec.stderr).toContain(`Payout ${invoice} is recorded as not made: it was sent as payout ${invoice}-2.`);
    expect(await outcome(invoice)).toMatchObject({ kind: 'rejected' });
    expect((await payctl(['history', 'reconcile'], { dir: b.dir })).code).toBe(0);
  });

  it('P-2 sent with its answer lost, then its command run again: accepted, and P recorded as not made with it', async () => {
    const { invoice, out } = await mistyped();
    const next = printed(out, 'payout create');
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await payctl([...next, '--timeout', '2'], { dir: b.dir, clock: new TestClock() })).code).toBe(4);
    ctx.sb.faults.clear();
    const again = await payctl(next, { dir: b.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(await outcome(invoice)).toMatchObject({ kind: 'rejected' });
  });

  it('the same payout sent under an id a person chose (P-3): P is not closed on it (it may be another intention), and --made-by for P is refused while P-3 may have paid it', async () => {
    const { invoice, november, out } = await mistyped();
    const other = printed(out, 'payout create').map((w) => (w === `${invoice}-2` ? `${invoice}-3` : w));
    expect(other).toContain(`${invoice}-3`);
    const sent = await payctl(other, { dir: b.dir });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).not.toContain('recorded as not made');
    expect(await outcome(invoice)).toMatchObject({ kind: 'unknown' });
    const made = await payctl(['history', 'reconcile', '--payout-id', invoice, '--made-by', november], { dir: b.dir });
    expect(made.code, made.stderr).toBe(2);
    expect(made.stderr).toContain(`Payout ${invoice}-3, journaled after payout ${invoice}, pays what it pays`);
    // Accepted: what became of it is shown by payout get, run as printed (probe 53-H finding 4: a
    // `history reconcile --payout-id` was printed, which said only "not unknown … Nothing to do").
    const shown = await payctl(printed(made.stderr, 'payout get'), { dir: b.dir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^Payout ID\\s+${invoice}-3$`, 'm'));
  });

  it("P closed by its P-2, then P's own command run again: refused, exit 2, nothing sent, naming P-2 (probe 49-Q F1: resent, unknown again)", async () => {
    const { invoice, out } = await mistyped();
    expect((await payctl(printed(out, 'payout create'), { dir: b.dir })).code).toBe(0);
    const from = ctx.sb.requests().length;
    const again = await payctl(
      bank('500', 'Ibrahim Koroma', ctx.sb.payouts().find((p) => p.payout_id === `${invoice}-2`)!.recipient.accountDetails.accountNumber, invoice),
      { dir: b.dir },
    );
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`it was sent as payout ${invoice}-2 instead. Nothing was sent.`);
    expect(
      ctx.sb
        .requests()
        .slice(from)
        .filter((q) => q.method === 'POST'),
    ).toHaveLength(0);
  });

  it('a full reconcile where P is held and its P-2 (answer lost) is accepted later in the run: P said closed, counts and exit 0 (probe 49-Q F6: "1 still unknown", exit 4)', async () => {
    const { invoice, out } = await mistyped();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await payctl([...printed(out, 'payout create'), '--timeout', '2'], { dir: b.dir, clock: new TestClock() })).code).toBe(4);
    ctx.sb.faults.clear();
    const rec = await payctl(['history', 'reconcile'], { dir: b.dir });
    expect(rec.stdout).toContain(`refused   ${invoice}  not made: sent as payout ${invoice}-2 instead, accepted in this run`);
    expect(rec.code, rec.stdout + rec.stderr).toBe(0);
    expect(rec.stderr).toContain('0 still unknown');
  });

  it("P's own command run again while P-3 (its details, sent after it) may have paid it: its advice prints neither --made-by nor P-2, each printed command runs as printed", async () => {
    // Before, it printed a --made-by for each record (each refused) and the P-2 command (it would pay twice).
    const { invoice, out } = await mistyped();
    const next = printed(out, 'payout create');
    expect(
      (
        await payctl(
          next.map((w) => (w === `${invoice}-2` ? `${invoice}-3` : w)),
          { dir: b.dir },
        )
      ).code,
    ).toBe(0);
    const before = ctx.sb.payouts().length;
    const again = await payctl(
      next.map((w) => (w === `${invoice}-2` ? invoice : w)),
      { dir: b.dir },
    );
    expect(again.code, again.stderr).toBe(4);
    expect(again.stderr).toContain(`it cannot be sent under another payout id yet either. Payout ${invoice}-3, journaled after payout ${invoice}, pays what it pays`);
    expect(again.stderr).not.toContain('--made-by');
    expect(again.stderr).not.toContain(`${invoice}-2`);
    const lines = again.stderr.split('\n').filter((l) => l.includes('payctl '));
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) {
      const words = line
        .slice(line.indexOf('payctl ') + 'payctl '.length)
        .split(' ')
        .slice(0, 2)
        .join(' ');
      const r = await payctl(printed(line, words), { dir: b.dir });
      expect(r.code, `${line}\n${r.stderr}`).not.toBe(2);
    }
    expect(ctx.sb.payouts().length).toBe(before);
  });
});
