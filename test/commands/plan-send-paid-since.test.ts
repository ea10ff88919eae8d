/**
 * `payctl plan send` of a plan whose batch was paid since from another version of its file
 * (src/commands/plan/send.ts, refusePaidSince), in process against the sandbox over real HTTP.
 * Before: a payroll planned as batch "nov30", then, while the plan waited for its approvals,
 * the same payroll re-saved by a spreadsheet (the notes' dates reformatted) and sent with
 * `payout batch --batch-id nov30`: plan send then paid every row a second time. Now plan send
 * refuses such payouts (exit 2, nothing sent), naming the payout that paid each.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payoutPosts } from '../helpers/batch.js';
import { createWithLostAnswer } from '../helpers/payout-fixtures.js';
import { setUpTeam, useTeamFolders } from '../helpers/four-eyes.js';
import { scriptedPrompter, type ScriptedPrompter } from '../helpers/prompts.js';

const ctx = useSandbox();
const { work, people } = useTeamFolders();

/** A payroll of two rows without payout ids (each row's id made from what it pays and the batch id). */
function payroll(wallet: string, note: string, name: string): string {
  const account = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
  const file = join(work.dir, name);
  const rows = ['150.00', '160.00'].map((a, i) => `${wallet},${a},SLE,bank,Hawa Kargbo ${i + 1},ecobank,0099${account}${i},${note}`);
  writeFileSync(file, 'wallet_id,amount,currency,type,name,provider,account_number,note\n' + rows.join('\n') + '\n');
  return file;
}

const run = (...args: string[]) => payctl(args, { dir: people.maker.dir });

/** A payroll file (`name`, its notes `note`) planned as a batch of its own: the file, the batch id and the plan written. */
async function planPayroll(note: string, name: string): Promise<{ file: string; batch: string; plan: string }> {
  const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  const batch = `nov30-${randomUUID().slice(0, 8)}`;
  const file = payroll(wallet, note, name);
  const plan = join(work.dir, name.replace(/\.csv$/, '.plan.json'));
  const made = await run('plan', 'create', file, '--batch-id', batch, '-o', plan);
  expect(made.code, made.stderr).toBe(0);
  return { file, batch, plan };
}

/** A payroll (`name`) planned without --batch-id (batch "default"): its wallet, the file and the plan written. */
async function planUnnamed(name: string): Promise<{ wallet: string; file: string; plan: string }> {
  const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  const file = payroll(wallet, 'Salary 2026-11-30', name);
  const plan = join(work.dir, name.replace(/\.csv$/, '.plan.json'));
  const made = await run('plan', 'create', file, '-o', plan);
  expect(made.code, made.stderr).toBe(0);
  return { wallet, file, plan };
}

/** `file` re-saved by a spreadsheet (its dates reformatted) as `<name> (1).csv` and sent with payout batch (`args`: its batch id, if any): the copy, and the requests before plan send. */
async function sendResavedCopy(file: string, args: string[]): Promise<{ copy: string; from: number }> {
  const copy = file.replace(/\.csv$/, ' (1).csv');
  writeFileSync(copy, readFileSync(file, 'utf8').replaceAll('2026-11-30', '11/30/2026'));
  const sent = await run('payout', 'batch', copy, ...args, '--yes');
  expect(sent.code, sent.stderr).toBe(0);
  return { copy, from: ctx.sb.requests().length };
}

/** plan send of `plan`, refused (exit 2): the run and its stderr's lines. */
async function refusedSend(plan: string): Promise<{ r: Awaited<ReturnType<typeof run>>; lines: string[] }> {
  const r = await run('plan', 'send', plan, '--yes');
  expect(r.code, r.stderr).toBe(2);
  return { r, lines: r.stderr.split('\n') };
}

describe('plan send after its batch was paid from another version of the file', () => {
  beforeAll(async () => {
    await setUpTeam(ctx.sb, people, work.dir);
  });

  it('is refused, exit 2, nothing sent, each payout named with the one that paid', async () => {
    const { file, batch, plan } = await planPayroll('Salary 2026-11-30', 'payroll.csv');

    // While the plan waits, the file re-saved by a spreadsheet is sent as the same batch.
    const { copy, from } = await sendResavedCopy(file, ['--batch-id', batch]);
    const { r, lines } = await refusedSend(plan);
    expect(lines[0]).toBe(
      `Error: Cannot send the plan ${plan}: 2 of its payouts pay what batch "${batch}" paid since, from another version of its file. Nothing was sent.`,
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^ {2}- row 2: note "Salary 2026-11-30" was "Salary 11/30/2026" when payout \\S+ paid the same in this batch \\(its row 2 of ${copy.replace(/[()]/g, '\\$&')}, `,
      ),
    );
    expect(lines[2]).toMatch(/^ {2}- row 3: note /);
    expect(r.stderr).toContain(`See what the batch paid with: payctl history --batch-id ${batch}`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('a row paid by hand (payout create) after the plan was made: refused, naming both payouts; its approvers never saw it', async () => {
    const { file, plan } = await planUnnamed('byhand.csv');
    // While the plan waits: the first row's person paid with payout create, every cell alike.
    const [header, row] = readFileSync(file, 'utf8').split('\n');
    const cells = Object.fromEntries(header!.split(',').map((h, i) => [h, row!.split(',')[i]!]));
    const byHand = await run(
      ...['payout', 'create', '--wallet', cells.wallet_id!, '--amount', cells.amount!, '--currency', 'SLE', '--type', 'bank'],
      ...['--name', cells.name!, '--provider', cells.provider!, '--account', cells.account_number!, '--note', cells.note!, '--yes'],
    );
    expect(byHand.code, byHand.stderr).toBe(0);
    // plan show says what plan send will do with it (it said "plan send pays it again").
    const shown = await run('plan', 'show', plan);
    expect(shown.stdout + shown.stderr).toMatch(
      /row 2: pays what payout \S+ paid as single payouts \(payout create\) on .*, after the plan was made: plan send refuses the plan/,
    );
    const shownJson = await run('plan', 'show', plan, '--json');
    expect((JSON.parse(shownJson.stdout) as { sent_before: Array<{ kind: string }> }).sent_before.map((x) => x.kind)).toEqual(['after']);
    const from = ctx.sb.requests().length;
    // Before: plan send paid that person a second time.
    const { r, lines } = await refusedSend(plan);
    expect(lines[0]).toMatch(
      new RegExp(
        `^Error: Cannot send the plan ${plan.replace(/[.]/g, '\\.')}: 1 payout of it pays what was paid after the plan was made \\(\\S+\\), which its approvers did not see\\. Nothing was sent\\.$`,
      ),
    );
    expect(lines[1]).toMatch(/^ {2}- payout \S+ \(row 2\) pays what payout \S+ paid as single payouts \(payout create\) on /);
    expect(r.stderr).toContain('If some of it is still to pay, make a new plan of that, and have it approved.');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('a row paid by hand after the plan was made, its outcome unknown: said as may have paid, with the reconcile that settles it, which runs as printed (probe D54, F7)', async () => {
    const { file, plan } = await planUnnamed('byhand-unknown.csv');
    const [header, row] = readFileSync(file, 'utf8').split('\n');
    const cells = Object.fromEntries(header!.split(',').map((h, i) => [h, row!.split(',')[i]!]));
    await createWithLostAnswer(ctx.sb, (args, clock) => payctl(args, { dir: people.maker.dir, clock }), [
      ...['payout', 'create', '--wallet', cells.wallet_id!, '--amount', cells.amount!, '--currency', 'SLE', '--type', 'bank'],
      ...['--name', cells.name!, '--provider', cells.provider!, '--account', cells.account_number!, '--note', cells.note!, '--yes'],
    ]);
    const from = ctx.sb.requests().length;
    const { r, lines } = await refusedSend(plan);
    expect(lines[1]).toMatch(/^ {2}- payout \S+ \(row 2\) pays what payout \S+ may have paid the same \(its outcome is unknown\) as single payouts/);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    const settle = /^Settle payout \S+ first \(it may have been paid\): payctl (history reconcile --payout-id \S+)$/m.exec(r.stderr);
    expect(settle, r.stderr).not.toBeNull();
    const settled = await run(...settle![1]!.split(' '));
    expect(settled.code, settled.stderr).toBe(0);
  });

  it("batch status --failed-out of a plan's report leaves out a rejected row its retry paid (plan send journaled no fingerprint)", async () => {
    const wallet = freshWallet(ctx.sb, '200.00', 'SLE');
    const file = payroll(wallet, 'Salary 2026-11-30', 'short.csv');
    const plan = join(work.dir, 'short.plan.json');
    expect((await run('plan', 'create', file, '--batch-id', `short-${randomUUID().slice(0, 8)}`, '-o', plan)).code).toBe(0);
    const sent = await run('plan', 'send', plan, '--yes');
    expect(sent.code, sent.stderr).toBe(1); // 150.00 paid, 160.00 refused: the wallet had 200.00
    ctx.sb.setWallet({ wallet_id: wallet, wallet_name: 'Topped up', currency: 'SLE', balance: '3000.00' });
    const report = join(work.dir, 'short.plan.report.jsonl');
    const first = await run('payout', 'batch', 'status', report, '--failed-out', join(work.dir, 'short-r1.csv'));
    const retry = first.stderr
      .split('\n')
      .find((l) => l.trim().startsWith('payctl payout batch '))!
      .trim();
    expect(retry).toContain('--batch-id short.plan-retry-');
    expect((await run(...retry.split(' ').slice(1), '--yes')).code).toBe(0);
    const from = ctx.sb.requests().length;
    const second = await run('payout', 'batch', 'status', report, '--failed-out', join(work.dir, 'short-r2.csv'));
    // Before: written again, and its printed command paid the 160.00 a second time.
    // The retry is still Pending (this sandbox settles after a minute): left out all the same, not said to have paid.
    expect(second.stderr).toContain('Row 3 was rejected, and what it pays was sent again since (payout ');
    expect(second.stderr).toContain('that payout is not known to have paid (accepted, still Pending)');
    expect(existsSync(join(work.dir, 'short-r2.csv'))).toBe(false);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it("names the plan's own payout id when the copy paid the same cells under ids of its own", async () => {
    const { file, batch, plan } = await planPayroll('Salary', 'ids.csv');
    const planned = (JSON.parse(readFileSync(plan, 'utf8')) as { payouts: Array<{ payout_id: string }> }).payouts.map((p) => p.payout_id);

    // The same rows, given payout ids of their own (a column added by a colleague), sent as the batch.
    const copy = join(work.dir, 'ids (1).csv');
    const [head, ...rows] = readFileSync(file, 'utf8').trimEnd().split('\n');
    writeFileSync(copy, [`${head},payout_id`, ...rows.map((r, i) => `${r},emp-${i + 1}`)].join('\n') + '\n');
    expect((await run('payout', 'batch', copy, '--batch-id', batch, '--yes')).code).toBe(0);

    const r = await run('plan', 'send', plan, '--yes');
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.split('\n');
    expect(lines[1]).toContain(`- row 2: payout_id "${planned[0]}" was "emp-1" when payout emp-1 paid the same in this batch`);
    expect(lines[2]).toContain(`- row 3: payout_id "${planned[1]}" was "emp-2" when payout emp-2 paid the same in this batch`);
  });

  it('a plan made without --batch-id is compared with every batch sent since the day before it was made: a re-saved copy sent meanwhile is refused', async () => {
    // Before: the copy, sent without --batch-id, was batch "default" from another file, and
    // plan send paid every row again.
    const { file, plan } = await planUnnamed('unnamed.csv');
    const { copy, from } = await sendResavedCopy(file, []);
    const { r, lines } = await refusedSend(plan);
    expect(lines[0]).toBe(
      `Error: Cannot send the plan ${plan}: 2 of its payouts pay what batch "default" paid since, from another version of its file. Nothing was sent.`,
    );
    expect(lines[1]).toContain(`- row 2: note "Salary 2026-11-30" was "Salary 11/30/2026" when payout `);
    expect(lines[1]).toContain(` paid the same in batch "default" (its row 2 of ${copy}, `);
    expect(r.stderr).toContain('See what the batch paid with: payctl history --batch-id default');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it("a plan made without --batch-id, while a copy of its file with a row added is sent as its sender is asked: refused (exit 2, nothing sent), what was paid since read again under the wallets' locks; none paid twice", async () => {
    // The copy pays another set of rows, so it does not wait for the plan's lock: sent while
    // plan send asks its question (after the plan's look-ups, before its payouts are
    // journaled), it paid every row, and plan send then paid its two again. Then plan send
    // stopped at them as it journaled them (exit 1, paid-meanwhile.ts); now what was paid since
    // is read again just before its payouts are journaled, and the plan is refused whole.
    const { wallet, file, plan } = await planUnnamed('race.csv');
    const [head, ...rows] = readFileSync(file, 'utf8').trimEnd().split('\n');
    const copy = join(work.dir, 'race (1).csv');
    writeFileSync(
      copy,
      [head, ...rows, `${wallet},170.00,SLE,bank,Hawa Kargbo 3,ecobank,0099${randomUUID().slice(0, 6)},Salary 2026-11-30`]
        .join('\n')
        .replaceAll('2026-11-30', '11/30/2026') + '\n',
    );
    const from = ctx.sb.requests().length;

    let copyRun: Awaited<ReturnType<typeof run>> | undefined;
    const script = scriptedPrompter([]);
    const answer: ScriptedPrompter = {
      ...script,
      confirm: async () => {
        copyRun = await run('payout', 'batch', copy, '--yes');
        return true;
      },
    };
    const sent = await payctl(['plan', 'send', plan], { dir: people.maker.dir, prompts: answer });
    expect(copyRun?.code, copyRun?.stderr).toBe(0);
    expect(sent.code, sent.stderr).toBe(2);
    expect(sent.stderr).toContain(
      `Error: Cannot send the plan ${plan}: 2 of its payouts pay what batch "default" paid since, from another version of its file. Nothing was sent.`,
    );
    expect(sent.stderr).toContain(`its row 2 of ${copy}, `);
    expect(sent.stderr).toContain('See what the batch paid with: payctl history --batch-id default');
    const accounts = payoutPosts(ctx.sb, from).map(
      (p) => (JSON.parse(p.body) as { recipient: { accountDetails: { accountNumber: string } } }).recipient.accountDetails.accountNumber,
    );
    expect(accounts).toHaveLength(3);
    expect(new Set(accounts).size).toBe(3);
  });
});
