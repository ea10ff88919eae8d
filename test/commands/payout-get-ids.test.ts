/**
 * `payctl payout get <id>` against the documented service, which looks payouts up by
 * transaction id only (in process, the sandbox over real HTTP): a payout id works through
 * this config folder's journal (the card then shows it; the request goes to /payout/{transactionId});
 * a transaction id works anywhere (the journal's payout id shown when it has one); `--json`
 * prints the envelope as sent; an id known to neither exits 1 saying so; a journaled payout
 * whose outcome is unknown exits 4 (`--wait` too) without a request, pointing at
 * `history reconcile`. And
 * `--wait` sees the look-up's lower-case "successful" as settled.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import type { Run } from '../helpers/e2e.js';
import { direct, sameButTimestamp } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { heldFor, loginInProcess, payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { shellSplit } from '../helpers/pty.js';
import { sharedPostgres } from '../helpers/postgres.js';

let dir: string;
let cleanup: () => void;
const run = (args: string[], clock?: TestClock): Promise<Run> => payctl(args, { dir, ...(clock ? { clock } : {}) });

/** The look-ups the sandbox received since request `from`. */
const lookUps = (sb: { requests(): Array<{ method: string; path: string }> }, from: number) =>
  sb
    .requests()
    .slice(from)
    .filter((r) => r.method === 'GET' && r.path.startsWith('/v2/payout/') && r.path !== '/v2/payout/list')
    .map((r) => r.path);

describe('payout get: transaction ids, and payout ids through the journal', () => {
  const ctx = useSandbox();
  beforeEach(async () => {
    ({ dir, cleanup } = tempConfigDir());
    await loginInProcess(ctx.sb, dir);
  });
  afterEach(() => {
    ctx.sb.faults.clear();
    cleanup();
  });

  it('by payout id: looked up by its journaled transaction id; the card shows both ids and the documented fields', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    expect((await run(payoutArgs(wallet, id))).code).toBe(0);
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    const from = ctx.sb.requests().length;

    const r = await run(['payout', 'get', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(lookUps(ctx.sb, from)).toEqual([`/v2/payout/${txn}`]);
    expect(r.stdout).toMatch(new RegExp(`^Transaction\\s+${txn}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^Payout ID\\s+${id}$`, 'm'));
    expect(r.stdout).toMatch(/^Amount\s+1,500\.50 SLE$/m);
    expect(r.stdout).toMatch(/^Fee\s+15\.01 SLE$/m);
    expect(r.stdout).toMatch(/^Total debited\s+1,515\.51 SLE$/m);
    expect(r.stdout).toMatch(/^Note\s+Aminata's October stipend$/m);
    expect(r.stdout).toMatch(/^Provider ref\s+ORD-[0-9A-F]+$/m);

    // By transaction id: the same card, the payout id found in the journal.
    const t = await run(['payout', 'get', txn]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toBe(r.stdout);

    // --json: the envelope exactly as the service sent it (no payout id added).
    const j = await run(['payout', 'get', id, '--json']);
    expect(j.code).toBe(0);
    const want = await direct(ctx.sb, 'GET', `/payout/${txn}`);
    expect(sameButTimestamp(j.stdout)).toBe(sameButTimestamp(want.raw));
    expect(JSON.parse(j.stdout).data.payout_id).toBeUndefined();
  });

  it('from another machine (no journal): a transaction id works, without a payout id; the payout id is refused, saying why (exit 1)', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    expect((await run(payoutArgs(wallet, id))).code).toBe(0);
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    const other = tempConfigDir();
    try {
      await loginInProcess(ctx.sb, other.dir);
      const t = await payctl(['payout', 'get', txn], { dir: other.dir });
      expect(t.code, t.stderr).toBe(0);
      expect(t.stdout).toMatch(new RegExp(`^Transaction\\s+${txn}$`, 'm'));
      expect(t.stdout).not.toContain('Payout ID');

      // A payout id this machine never journaled: nothing to ask the service.
      const from = ctx.sb.requests().length;
      const p = await payctl(['payout', 'get', id], { dir: other.dir });
      expect(p.code).toBe(1);
      expect(p.stdout).toBe('');
      expect(ctx.sb.requests().length).toBe(from);
      expect(p.stderr).toContain(
        `No payout ${id}: it is not a transaction id (TXN-BOK- and hex digits; the service looks payouts up by transaction id only), and this config folder's journal has no payout id ${id}. Nothing was asked of the service.`,
      );
      expect(p.stderr).toContain('payctl history');
      const pj = await payctl(['payout', 'get', id, '--json'], { dir: other.dir });
      expect(pj.code).toBe(1);
      expect(JSON.parse(pj.stderr).error).toMatchObject({ code: 'NOT_FOUND' });
      // A transaction id the service does not have: its 404, said plainly.
      const missing = 'TXN-BOK-00000000000000000000000000';
      const m = await payctl(['payout', 'get', missing], { dir: other.dir });
      expect(m.code).toBe(1);
      expect(m.stderr).toMatch(
        new RegExp(`No payout ${missing}: the service has no transaction with this id \\(it said: .+\\), and this config folder's journal has no payout with it\\.`),
      );
      expect(m.stderr).toContain('HTTP 404 NOT_FOUND');
      // Typed in lower case, asked in the documented form.
      const lower = await payctl(['payout', 'get', txn.toLowerCase()], { dir: other.dir });
      expect(lower.code, lower.stderr).toBe(0);
      // Copied with what was around it (JSON's quotes, CSV's comma, a sentence's brackets and
      // full stop, a word processor's dashes): nothing asked, the id meant named, and the
      // printed command finds it.
      for (const copied of [`"${txn}",`, `(${txn}).`, txn.replaceAll('-', '\u2010')]) {
        const before = ctx.sb.requests().length;
        const c = await payctl(['payout', 'get', copied], { dir: other.dir });
        expect(c.code).toBe(1);
        expect(ctx.sb.requests().length).toBe(before);
        const printed = /^Did you mean (\S+) \(without the characters copied with it\)\? Look it up with: payctl (.+)$/m.exec(c.stderr);
        expect(printed?.[1], c.stderr).toBe(txn);
        const again = await payctl(shellSplit(printed![2]!), { dir: other.dir });
        expect(again.code, again.stderr).toBe(0);
        expect(again.stdout).toMatch(new RegExp(`^Transaction\\s+${txn}$`, 'm'));
      }
    } finally {
      other.cleanup();
    }
  });

  it('a journaled payout whose outcome is unknown: exit 4 (--wait and --json too) with no request, and the printed reconcile command resolves it', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: 10 });
    expect((await run(payoutArgs(wallet, id), new TestClock())).code).toBe(4);
    ctx.sb.faults.clear();
    const from = ctx.sb.requests().length;

    const r = await run(['payout', 'get', id]);
    expect(r.code, r.stderr).toBe(4);
    expect(ctx.sb.requests().length).toBe(from);
    expect(r.stderr).toContain(
      `No transaction id for payout ${id}: the service looks payouts up by transaction id only, and this config folder's journal has none for it: its outcome is unknown (it may or may not have been made; no answer was read: `,
    );
    expect(r.stderr).toMatch(/no answer was read: The connection to 127\.0\.0\.1:\d+ was closed before an answer arrived\)\. Nothing was asked of the service\.\n/);
    expect(r.stderr).not.toContain('NOT_FOUND');
    // Never 1 under --wait (which says Failed: a script may send it again), nor NOT_FOUND (no
    // such payout) in JSON: exit 4, OUTCOME_UNKNOWN, its payout id and the reconcile command.
    const hint = `Find out what became of it with: payctl history reconcile --payout-id ${id}`;
    for (const extra of [['--wait'], ['--json'], ['--wait', '--json']]) {
      const w = await run(['payout', 'get', id, ...extra]);
      expect(w.code, `${extra.join(' ')}: ${w.stderr}`).toBe(4);
      expect(w.stdout).toBe('');
      if (extra.includes('--json')) {
        expect(JSON.parse(w.stderr).error).toMatchObject({ code: 'OUTCOME_UNKNOWN', status: null, payout_id: id, hint });
      } else {
        expect(w.stderr).toContain('its outcome is unknown');
        expect(w.stderr).toContain(hint);
      }
    }
    expect(ctx.sb.requests().length).toBe(from);
    // On a shared ledger, the ledger is named as what it is, never "this config folder's journal".
    const shared = tempConfigDir();
    try {
      await loginInProcess(ctx.sb, shared.dir);
      const url = await (await sharedPostgres()).freshDatabase('get-ids');
      expect((await payctl(['config', 'set', 'ledger', '--stdin'], { dir: shared.dir, input: `${url}\n` })).code).toBe(0);
      const teamId = randomUUID();
      ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: 10 });
      expect((await payctl(payoutArgs(wallet, teamId), { dir: shared.dir, clock: new TestClock() })).code).toBe(4);
      ctx.sb.faults.clear();
      const team = await payctl(['payout', 'get', teamId], { dir: shared.dir });
      expect(team.code).toBe(4);
      expect(team.stderr).toContain(`and the team's shared ledger has none for it: its outcome is unknown`);
      const none = await payctl(['payout', 'get', 'no-such-id'], { dir: shared.dir });
      expect(none.stderr).toContain("and the team's shared ledger has no payout id no-such-id.");
      // history reconcile, and its --made-by, name it too.
      const rec = await payctl(['history', 'reconcile', '--payout-id', 'no-such-id'], { dir: shared.dir });
      expect(rec.stderr).toContain(`The team's shared ledger has no payout no-such-id for ${ctx.sb.baseUrl}. Nothing was sent.`);
      const made = await payctl(['history', 'reconcile', '--payout-id', 'no-such-id', '--made-by', 'TXN-BOK-0123456789ABCDEF0123456789'], { dir: shared.dir });
      expect(made.stderr).toContain(`The team's shared ledger has no payout no-such-id for ${ctx.sb.baseUrl}. Nothing was recorded.`);
      expect(made.stderr).toContain("Payouts in the team's shared ledger: payctl history");
    } finally {
      shared.cleanup();
    }
    const line = r.stderr.split('\n').find((l) => l.includes('payctl history reconcile'))!;
    const argv = shellSplit(line.slice(line.indexOf('payctl ')));
    expect(argv).toEqual(['payctl', 'history', 'reconcile', '--payout-id', id]);
    const rec = await run(argv.slice(1));
    expect(rec.code, rec.stderr).toBe(0);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
    const again = await run(['payout', 'get', id]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^Payout ID\\s+${id}$`, 'm'));
  });

  it('a refused payout: exit 1 saying it was refused and no payout was made', async () => {
    const wallet = freshWallet(ctx.sb, '1.00');
    const id = randomUUID();
    expect((await run(payoutArgs(wallet, id))).code).toBe(1);
    const r = await run(['payout', 'get', id]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`No transaction id for payout ${id}: .*: the service refused it \\(.+\\), so no payout was made\\.`));
  });
});

describe('payout get --wait sees the look-up\'s lower-case "successful"', () => {
  const ctx = useSandbox({ settleAfterMs: 300 });
  beforeEach(async () => {
    ({ dir, cleanup } = tempConfigDir());
    await loginInProcess(ctx.sb, dir);
  });
  afterEach(() => cleanup());

  it('by transaction id and by payout id: exit 0, Successful, while the service writes "successful"', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    expect((await run(payoutArgs(wallet, id))).code).toBe(0);
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    const r = await run(['payout', 'get', txn, '--wait', '--wait-timeout', '30']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Status\s+Successful$/m);
    expect(r.stderr).toMatch(new RegExp(`✓ Payout ${id} \\(transaction ${txn}\\) is Successful`));
    const seen = await direct(ctx.sb, 'GET', `/payout/${txn}`);
    expect(seen.body.data.status).toBe('successful');
    const byId = await run(['payout', 'get', id, '--wait']);
    expect(byId.code, byId.stderr).toBe(0);
  });
});
