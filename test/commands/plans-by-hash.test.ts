/**
 * Plans in the team's shared ledger (issue #30), in process against the sandbox and a real
 * PostgreSQL: config folders stand for machines, all on one database. `plan create` on A stores
 * the plan and prints commands naming it by hash; `plan show|approve` by hash (or a prefix) on
 * B; `plan send` by hash on C; sent again from A, nobody is paid twice. And what is refused
 * (exit 2, nothing sent or changed): an unknown hash, an ambiguous prefix, a row changed in the
 * database, the maker approving, a hash with the local journal. An approval the ledger keeps
 * that does not count (a stranger's, by hash) is left out, holding back no plan, while one inside
 * a plan file still refuses that file; one written with SQL under an approver's key that does not
 * hold locks her out no more (hers takes its place, one that holds never is replaced). Last, the
 * day of a daily total is the ledger's, not the machine's clock.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl, type InProcessOptions } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { addApproval, bankPayout, planBatchFile, planPathOf, readPlanFile, setUpTeam, type Person } from '../helpers/four-eyes.js';
import { loadSigningKey } from '../../src/plans/keys.js';
import { sharedPostgres, sql } from '../helpers/postgres.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const work = tempWorkDir();
const folders = ['maker', 'alice', 'bob', 'carol', 'dave'].map(() => tempConfigDir());
/** A is the maker's machine, B Alice's (an approver), C Carol's (she sends); Dave has only the local journal. */
const people = { maker: { dir: folders[0]!.dir }, alice: { dir: folders[1]!.dir }, bob: { dir: folders[2]!.dir } } as Record<'maker' | 'alice' | 'bob', Person>;
const carol = folders[3]!.dir;
const dave = folders[4]!.dir;
let url: string;
let superuserUrl: string;

const run = (dir: string, args: string[], opts: Omit<InProcessOptions, 'dir'> = {}): Promise<Run> => payctl(args, { dir, ...opts });

beforeAll(async () => {
  const server = await sharedPostgres();
  superuserUrl = server.superuserUrl;
  url = await server.freshDatabase('plans');
  const policy = await setUpTeam(ctx.sb, people, work.dir);
  for (const dir of [people.alice.dir, people.bob.dir, carol, dave]) await writeLoggedIn(ctx.sb, dir);
  for (const dir of [people.maker.dir, people.alice.dir, people.bob.dir, carol, dave]) {
    const set = await run(dir, ['config', 'set', 'policy', policy]);
    expect(set.code, set.stderr).toBe(0);
  }
  for (const dir of [people.maker.dir, people.alice.dir, people.bob.dir, carol]) {
    const set = await run(dir, ['config', 'set', 'ledger', '--stdin'], { input: `${url}\n` });
    expect(set.code, set.stderr).toBe(0);
  }
});
afterAll(() => {
  for (const f of folders) f.cleanup();
  work.cleanup();
});

/** A plan made on A (the maker's machine) of a fresh wallet: its hash, the wallet and what plan create said. */
async function planOnA(amounts: string[]): Promise<{ hash: string; wallet: string; made: Run; file: string }> {
  const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
  const batch = planBatchFile(work.dir, wallet, amounts);
  const made = await run(people.maker.dir, ['plan', 'create', batch]);
  expect(made.code, made.stderr).toBe(0);
  return { hash: readPlanFile(planPathOf(batch)).hash, wallet, made, file: planPathOf(batch) };
}

const held = (wallet: string) => ctx.sb.payouts().filter((p) => p.wallet_id === wallet);

describe('plans by hash in the shared ledger', () => {
  it('made on A, shown and approved on B, sent on C, sent again from A: each payout paid once', async () => {
    const { hash, wallet, made } = await planOnA(['1500.00', '2500.00']);
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(made.stderr).toContain(`Hash ${hash} (stored in the team's shared ledger`);
    for (const verb of ['show', 'approve', 'send']) expect(made.stderr).toContain(`payctl plan ${verb} ${hash}`);

    const from = ctx.sb.requests().length;
    const shown = await run(people.alice.dir, ['plan', 'show', hash.slice(7, 19)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`${hash} (in the team's shared ledger)`);
    expect(shown.stdout).toContain('1 approval needed');
    const json = oneJson((await run(people.alice.dir, ['plan', 'show', hash.slice(7), '--json'])).stdout) as { plan: string; hash: string };
    expect(json).toMatchObject({ plan: hash, hash });

    // Not yet approved: C cannot send it.
    const early = await run(carol, ['plan', 'send', hash, '--yes', '--report', join(work.dir, `${randomUUID()}.jsonl`)]);
    expect(early.code, early.stderr).toBe(2);
    expect(early.stderr).toContain('needs 1 approval');

    const own = await run(people.maker.dir, ['plan', 'approve', hash, '--yes']);
    expect(own.code).toBe(2);
    expect(own.stderr).toContain('its maker cannot approve it');
    const approved = await run(people.alice.dir, ['plan', 'approve', hash, '--yes', '--json']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(oneJson(approved.stdout)).toMatchObject({ plan: hash, hash, approved_by: 'Alice', approvals: 1 });
    const again = await run(people.alice.dir, ['plan', 'approve', hash, '--yes']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already carries your approval');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    const reportC = join(work.dir, `c-${randomUUID()}.report.jsonl`);
    const sent = await run(carol, ['plan', 'send', hash, '--yes', '--report', reportC]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toContain('2 accepted');
    expect(existsSync(reportC)).toBe(true);
    expect(held(wallet)).toHaveLength(2);

    const afterC = ctx.sb.requests().length;
    const resent = await run(people.maker.dir, ['plan', 'send', hash.slice(7, 31), '--yes', '--report', join(work.dir, `a-${randomUUID()}.report.jsonl`)]);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stderr).toContain('Nothing to send: every payout of the plan was accepted earlier.');
    expect(payoutPosts(ctx.sb, afterC)).toEqual([]);
    expect(held(wallet)).toHaveLength(2);
    expect(new Set(held(wallet).map((p) => p.payout_id)).size).toBe(2);
  });

  it('a plan file keeps working with the shared ledger: approved and sent as a file', async () => {
    const { file, wallet } = await planOnA(['1200.00']);
    expect((await run(people.bob.dir, ['plan', 'approve', file, '--yes'])).code).toBe(0);
    expect(readPlanFile(file).approvals).toHaveLength(1);
    const sent = await run(carol, ['plan', 'send', file, '--yes']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(held(wallet)).toHaveLength(1);
  });

  it('a plan file counts the approvals stored in the shared ledger (approved by hash), and an approval of the file is stored there too', async () => {
    // Before: approved by hash (as plan create printed), the file was "none yet" to plan show, 0
    // approvals to policy check, and plan send of the file refused it (exit 2, "carries 0").
    const { file, hash, wallet } = await planOnA(['1300.00']);
    expect((await run(people.alice.dir, ['plan', 'approve', hash, '--yes'])).code).toBe(0);
    expect(readPlanFile(file).approvals).toEqual([]);
    const shown = await run(carol, ['plan', 'show', file]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/Counts: Alice \(SHA256:/);
    expect(shown.stdout).toContain("(1 of them is kept in the team's shared ledger, not in the file; plan send of the file reads it too)");
    const shownJson = oneJson((await run(carol, ['plan', 'show', file, '--json'])).stdout) as { approvals: Array<{ name: string; in_shared_ledger_only?: boolean }> };
    expect(shownJson.approvals).toMatchObject([{ name: 'Alice', in_shared_ledger_only: true }]);
    const checked = await run(carol, ['policy', 'check', file]);
    expect(checked.code, checked.stdout).toBe(0);
    expect(checked.stdout).toContain('Approved by: 1 that count: Alice.');
    expect(checked.stdout).toContain(`It can be sent: payctl plan send ${file}\n`);
    // The same key approving the file as well: refused, saying where its approval is.
    const again = await run(people.alice.dir, ['plan', 'approve', file, '--yes']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already carries your approval (' + people.alice.key!.fingerprint + ") in the team's shared ledger");
    const sent = await run(carol, ['plan', 'send', file, '--yes']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(held(wallet)).toHaveLength(1);

    // The other way: an approval of the file is stored in the ledger too, so the hash counts it.
    const other = await planOnA(['1400.00']);
    const approved = await run(people.bob.dir, ['plan', 'approve', other.file, '--yes', '--json']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(oneJson(approved.stdout)).toMatchObject({ approvals: 1 });
    const byHash = await run(carol, ['plan', 'send', other.hash, '--yes', '--report', join(work.dir, `${randomUUID()}.report.jsonl`)]);
    expect(byHash.code, byHash.stderr).toBe(0);
    expect(held(other.wallet)).toHaveLength(1);
  });

  it('plan send asks the ledger a group of payouts at a time: a 300-payout plan sent again in a few dozen statements, not two a payout', async () => {
    // Before: each payout was looked up alone before anything was sent (its entry, its batch's
    // rows and the last day's batches by repeat key): 614 statements to send 600 payouts again.
    const { hash, wallet } = await planOnA(Array.from({ length: 300 }, () => '10.00'));
    expect((await run(people.alice.dir, ['plan', 'approve', hash, '--yes'])).code).toBe(0);
    const sent = await run(carol, ['plan', 'send', hash, '--yes', '--report', join(work.dir, `c-${randomUUID()}.report.jsonl`)]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(held(wallet)).toHaveLength(300);
    const database = new URL(url).pathname.slice(1);
    /** Transactions the database committed, once every payctl connection has ended (a backend's counts are kept as it exits). */
    const committed = async (): Promise<number> => {
      for (;;) {
        const [open] = await sql<{ n: string }>(superuserUrl, "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'payctl'", [
          database,
        ]);
        if (Number(open!.n) === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const [r] = await sql<{ n: string }>(superuserUrl, 'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [database]);
      return Number(r!.n);
    };
    const before = await committed();
    const again = await run(people.maker.dir, ['plan', 'send', hash, '--yes', '--report', join(work.dir, `a-${randomUUID()}.report.jsonl`)]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Nothing to send: every payout of the plan was accepted earlier.');
    const statements = (await committed()) - before;
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThan(60);
    expect(held(wallet)).toHaveLength(300);
  });

  it('refused, exit 2, nothing sent: an unknown hash, an ambiguous prefix, a stored plan changed in the database, a hash with the local journal', async () => {
    const from = ctx.sb.requests().length;
    const unknown = await run(carol, ['plan', 'show', '000000000000']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("No plan in the team's shared ledger has a hash starting with 000000000000");

    const { hash } = await planOnA(['1100.00']);
    const twin = `${hash.slice(0, 19)}${'0'.repeat(52)}` === hash ? `${hash.slice(0, 19)}${'1'.repeat(52)}` : `${hash.slice(0, 19)}${'0'.repeat(52)}`;
    await sql(
      url,
      `INSERT INTO payctl_plans (hash, content, maker_name, maker_fingerprint, maker_signature, created_at) SELECT $1, content, maker_name, maker_fingerprint, maker_signature, created_at FROM payctl_plans WHERE hash = $2`,
      [twin, hash],
    );
    const ambiguous = await run(people.alice.dir, ['plan', 'approve', hash.slice(7, 19), '--yes']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('the start of the hash of more than one plan');
    expect(ambiguous.stderr).toContain(hash);
    expect(ambiguous.stderr).toContain(twin);
    // The copy under another hash is not a plan: its content does not match the hash it is stored under.
    const copy = await run(people.alice.dir, ['plan', 'show', twin]);
    expect(copy.code).toBe(2);
    expect(copy.stderr).toContain('does not match its hash');
    // More digits name it; changed content in the database is refused as a changed file is.
    await sql(url, `UPDATE payctl_plans SET content = replace(content, '1100.00', '9100.00') WHERE hash = $1`, [hash]);
    const changed = await run(carol, ['plan', 'send', hash.slice(7, 40), '--yes', '--report', join(work.dir, `${randomUUID()}.jsonl`)]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('does not match its hash');

    const local = await run(dave, ['plan', 'send', hash, '--yes']);
    expect(local.code).toBe(2);
    expect(local.stderr).toContain('plans by hash need a shared ledger');
    expect(local.stderr).toContain('payctl config set ledger --stdin');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});

describe('an approval kept in the shared ledger that does not count', () => {
  it('is left out, never a refusal: a stray approval by hash holds back no plan, as a file or by hash; one inside the file still refuses it, saying what to do', async () => {
    // Before: a profile without a policy approving by hash with a key the policy does not list
    // blocked the plan for good, as a file (its own approvals []) and by hash: plan approve and
    // plan send refused it ("1 approval does not count").
    const stranger = tempConfigDir();
    folders.push(stranger);
    expect((await run(stranger.dir, ['keys', 'create', '--name', 'Stranger'])).code).toBe(0);
    expect((await run(stranger.dir, ['config', 'set', 'ledger', '--stdin'], { input: `${url}\n` })).code).toBe(0);
    const from = ctx.sb.requests().length;
    const [asFile, asHash] = [await planOnA(['2500.00']), await planOnA(['2600.00'])];
    for (const { hash } of [asFile, asHash]) {
      const stray = await run(stranger.dir, ['plan', 'approve', hash, '--yes']);
      expect(stray.code, stray.stderr).toBe(0);
    }
    expect(readPlanFile(asFile.file).approvals).toEqual([]);
    const leftOut = new RegExp(
      `Not counted: approval \\d \\(Stranger, SHA256:[^,]+, kept in the team's shared ledger\\): the key is not an approver in the policy [^\\n]+ \\(left out: it does not stop the plan\\)\\n`,
    );

    // The untouched file approved by Alice; shown with the stranger's approval left out; sent by Carol.
    const approvedFile = await run(people.alice.dir, ['plan', 'approve', asFile.file, '--yes']);
    expect(approvedFile.code, approvedFile.stderr).toBe(0);
    // The stranger's is not one of them (before: "it now carries 2 approvals").
    expect(approvedFile.stderr).toContain('it now carries 1 approval.');
    const shown = await run(carol, ['plan', 'show', asFile.file]);
    expect(shown.stdout).toMatch(/Counts: Alice \(SHA256:/);
    expect(shown.stdout).toMatch(leftOut);
    const checked = await run(carol, ['policy', 'check', asFile.file]);
    expect(checked.code, checked.stdout).toBe(0);
    expect(checked.stdout).toMatch(leftOut);
    expect(checked.stdout).toContain(`It can be sent: payctl plan send ${asFile.file}\n`);
    const sentFile = await run(carol, ['plan', 'send', asFile.file, '--yes']);
    expect(sentFile.code, sentFile.stderr).toBe(0);
    expect(sentFile.stderr).toMatch(leftOut);
    // By hash the same.
    const approvedHash = await run(people.alice.dir, ['plan', 'approve', asHash.hash, '--yes', '--json']);
    expect(approvedHash.code, approvedHash.stderr).toBe(0);
    expect(oneJson(approvedHash.stdout)).toMatchObject({ approved_by: 'Alice', approvals: 1 });

    // The stranger's approval inside the file itself: refused as before, saying what to do; sent by hash, as it says.
    addApproval(asHash.file, loadSigningKey(stranger.dir)!);
    const inFile = await run(carol, ['plan', 'send', asHash.file, '--yes']);
    expect(inFile.code, inFile.stderr).toBe(2);
    expect(inFile.stderr).toContain(`Error: Cannot send the plan ${asHash.file}: 1 approval does not count. Nothing was sent.\n`);
    expect(inFile.stderr).toMatch(/\n {2}- approval 1 \(Stranger, SHA256:[^,)]+\): the key is not an approver in the policy /);
    // What to do, not the usage (before: "(run `payctl plan send --help` for usage)", the --json hint too).
    const hint = `Get a clean copy of the plan file from its maker (as plan create wrote it) and send that, approved again if plan send asks: no command takes an approval out of a plan.\nOr send it by its hash, with the approvals the team's shared ledger keeps: payctl plan send ${asHash.hash}`;
    expect(inFile.stderr).toContain(`${hint}\n`);
    expect(inFile.stderr).not.toContain('--help');
    const inFileJson = await run(carol, ['plan', 'send', asHash.file, '--yes', '--json']);
    expect(inFileJson.code).toBe(2);
    expect(JSON.parse(inFileJson.stderr)).toMatchObject({ error: { message: expect.stringContaining('1 approval does not count'), hint } });
    // plan approve of that file refuses it too, and what it says to do works: approve it by its hash.
    const bobFile = await run(people.bob.dir, ['plan', 'approve', asHash.file, '--yes']);
    expect(bobFile.code, bobFile.stderr).toBe(2);
    expect(bobFile.stderr).toContain(
      `Get a clean copy of the plan file from its maker (as plan create wrote it) and have it approved again: no command takes an approval out of a plan.\nOr approve it by its hash, with the approvals the team's shared ledger keeps: payctl plan approve ${asHash.hash}\n`,
    );
    const bobHash = await run(people.bob.dir, ['plan', 'approve', asHash.hash, '--yes']);
    expect(bobHash.code, bobHash.stderr).toBe(0);
    const sentHash = await run(carol, ['plan', 'send', asHash.hash, '--yes', '--report', join(work.dir, `${randomUUID()}.report.jsonl`)]);
    expect(sentHash.code, sentHash.stderr).toBe(0);
    expect(sentHash.stderr).toMatch(leftOut);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
    expect(held(asFile.wallet)).toHaveLength(1);
    expect(held(asHash.wallet)).toHaveLength(1);
  });
});

describe("an approval in the shared ledger under an approver's key that does not hold", () => {
  /** Alice's approval row of a plan in the shared ledger (at most one: the key is the row's). */
  const aliceRows = (hash: string) =>
    sql<{ signature: string }>(url, 'SELECT signature FROM payctl_plan_approvals WHERE plan_hash = $1 AND fingerprint = $2', [hash, people.alice.key!.fingerprint]);

  it('locks her out no more: she approves the file and by hash, hers takes its place; one that holds is never replaced, also when she races herself', async () => {
    // Before: a row written with SQL (her key and fingerprint are public, in the policy) and a
    // garbage signature was left out by plan send, yet plan approve of the file and by hash said
    // "This plan already carries your approval" (exit 2), and the printed plan approve failed.
    const alice = people.alice.key!;
    const [asFile, asHash, raced] = [await planOnA(['2700.00']), await planOnA(['2800.00']), await planOnA(['2900.00'])];
    for (const { hash } of [asFile, raced]) {
      await sql(url, 'INSERT INTO payctl_plan_approvals (plan_hash, fingerprint, name, public_key, signed_at, signature) VALUES ($1, $2, $3, $4, $5, $6)', [
        hash,
        alice.fingerprint,
        'Alice',
        alice.publicKey,
        new Date().toISOString(),
        'AAAA',
      ]);
    }
    // A genuine approval of hers whose signature was then changed in the table.
    expect((await run(people.alice.dir, ['plan', 'approve', asHash.hash, '--yes'])).code).toBe(0);
    await sql(url, "UPDATE payctl_plan_approvals SET signature = overlay(signature placing 'AAAA' from 1 for 4) WHERE plan_hash = $1", [asHash.hash]);

    const refused = await run(carol, ['plan', 'send', asFile.file, '--yes']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/approval 1 \(Alice, SHA256:[^,]+, kept in the team's shared ledger\): the signature does not match this plan \(left out/);
    // The command the refusal prints works for her.
    expect(refused.stderr).toContain(`on their copy of the plan file: payctl plan approve ${asFile.file}\n`);
    const approvedFile = await run(people.alice.dir, ['plan', 'approve', asFile.file, '--yes', '--json']);
    expect(approvedFile.code, approvedFile.stderr).toBe(0);
    expect(oneJson(approvedFile.stdout)).toMatchObject({ approvals: 1 });
    expect(readPlanFile(asFile.file).approvals).toHaveLength(1);
    expect((await aliceRows(asFile.hash)).map((r) => r.signature)).toEqual([readPlanFile(asFile.file).approvals[0]!.signature]);
    const approvedHash = await run(people.alice.dir, ['plan', 'approve', asHash.hash, '--yes']);
    expect(approvedHash.code, approvedHash.stderr).toBe(0);
    expect(approvedHash.stderr).toContain('it now carries 1 approval.');

    // Hers holds now: never replaced, by the file or by hash, and never a second row.
    const [stored] = await aliceRows(asHash.hash);
    for (const named of [asHash.hash, asHash.file]) {
      const again = await run(people.alice.dir, ['plan', 'approve', named, '--yes']);
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain(`This plan already carries your approval (${alice.fingerprint})`);
    }
    expect(await aliceRows(asHash.hash)).toEqual([stored]);

    // Two of her terminals at once over the row that does not hold, Bob at the same time: one of hers is stored, the other told it is there.
    const [one, two, bob] = await Promise.all([
      run(people.alice.dir, ['plan', 'approve', raced.hash, '--yes']),
      run(people.alice.dir, ['plan', 'approve', raced.hash, '--yes']),
      run(people.bob.dir, ['plan', 'approve', raced.hash, '--yes']),
    ]);
    expect([one.code, two.code].sort(), one.stderr + two.stderr).toEqual([0, 2]);
    expect(one.stderr + two.stderr).toContain('This plan already carries your approval');
    expect(bob.code, bob.stderr).toBe(0);
    const shown = oneJson((await run(carol, ['plan', 'show', raced.hash, '--json'])).stdout) as { policy: { counted: Array<{ name: string }>; ignored: unknown[] } };
    expect(shown.policy.counted.map((c) => c.name).sort()).toEqual(['Alice', 'Bob']);
    expect(shown.policy.ignored).toEqual([]);

    const from = ctx.sb.requests().length;
    for (const named of [asFile.file, asHash.hash]) {
      const sent = await run(carol, ['plan', 'send', named, '--yes', '--report', join(work.dir, `${randomUUID()}.report.jsonl`)]);
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.stderr).not.toContain('Not counted');
    }
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
    expect(held(asFile.wallet)).toHaveLength(1);
    expect(held(asHash.wallet)).toHaveLength(1);
  });
});

describe("the day of a daily total is the ledger's", () => {
  it("a machine whose clock is a day ahead cannot send past the daily total: the database's day is still today", async () => {
    const policy = join(work.dir, `daily-${randomUUID().slice(0, 8)}.json`);
    writeFileSync(policy, JSON.stringify({ daily_total: { SLE: '1000' } }));
    const [a, b] = [tempConfigDir(), tempConfigDir()];
    folders.push(a, b);
    for (const dir of [a.dir, b.dir]) {
      await writeLoggedIn(ctx.sb, dir);
      expect((await run(dir, ['config', 'set', 'policy', policy])).code).toBe(0);
      expect((await run(dir, ['config', 'set', 'ledger', '--stdin'], { input: `${url}\n` })).code).toBe(0);
    }
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const first = await run(a.dir, bankPayout(wallet, '800.00'));
    expect(first.code, first.stderr).toBe(0);
    const from = ctx.sb.requests().length;
    const tomorrow = new TestClock(new Date(Date.now() + 24 * 60 * 60 * 1000));
    const ahead = await run(b.dir, bankPayout(wallet, '300.00'), { clock: tomorrow });
    expect(ahead.code, ahead.stderr).toBe(2);
    expect(ahead.stderr).toContain('policy daily_total.SLE');
    expect(ahead.stderr).toContain("already sent today through the team's shared ledger");
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(held(wallet)).toHaveLength(1);
  });
});
