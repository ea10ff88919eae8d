/**
 * The duplicate guards at a terminal, in process: stdin and stdout claim to be terminals
 * and a scripted prompter answers (any other question fails the run; every confirmation's
 * default is checked to be No, which is what Enter answers). A batch file with two
 * identical rows asks "Send all 2 identical rows as separate payouts?" even with --yes,
 * and a `payout create` typed again within 24 hours warns with the earlier payout and asks
 * again. No or Enter sends nothing (exit 2); yes sends a new payout with a new id. One
 * case at a real terminal (tmux) is in test/e2e/confirm-duplicates-interactive.test.ts.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { payoutPosts, postedPayoutId, readCsvReport, writeFile } from '../helpers/batch.js';
import { bankArgs, escapeRe, heldFrom as heldFor, useFreshLogin, repeatWarning, sendFirst } from '../helpers/payout-fixtures.js';
import { recordingPrompter } from '../helpers/recording-prompter.js';
import type { Step } from '../helpers/prompts.js';

const ctx = useSandbox();

// A fresh config folder (and so a fresh journal) and work folder per test.
const setup = useFreshLogin(ctx);

/**
 * payctl at a (claimed) terminal with scripted answers. Each confirmation is checked to
 * default to No, and records what stderr and stdout held and how many payouts had been
 * posted when it was asked.
 */
async function atTerminal(args: string[], script: Step[]) {
  const prompter = recordingPrompter(script);
  const postsAtConfirm: number[] = [];
  const confirm = prompter.confirm.bind(prompter);
  prompter.confirm = async (o) => {
    expect(o.default, `the default answer to ${o.message}`).toBe(false);
    postsAtConfirm.push(payoutPosts(ctx.sb).length);
    return confirm(o);
  };
  const started = startPayctl(args, { dir: setup.dir, prompts: prompter });
  prompter.output = started;
  const r = await started.done;
  expect(prompter.pending, r.stderr).toEqual([]);
  return { r, prompter, postsAtConfirm };
}

/** The answer Enter gives at a confirmation (its default, checked to be No by atTerminal). */
const ENTER = false;

// ---------------------------------------------------------------------------------------
// payout batch: identical rows

const COLS = ['wallet_id', 'amount', 'currency', 'type', 'name', 'provider', 'account_number', 'phone_number', 'note'];

/**
 * Five wallet payouts from `walletId` without a payout_id column; spreadsheet rows 4 and
 * 5 (rows[2] and rows[3]) are identical and pay 1,250.00 SLE.
 */
function rowsWithTwin(walletId: string): Array<Record<string, string>> {
  const rows = [1, 2, 3, 4, 5].map((k) => ({
    wallet_id: walletId,
    amount: `${30 + k}.${String(k * 11).padStart(2, '0')}`,
    currency: 'SLE',
    type: 'wallet',
    name: `Payee ${k}`,
    provider: 'orange_money',
    account_number: `07788${String(k).padStart(4, '0')}`,
    phone_number: `+2327788${String(k).padStart(4, '0')}`,
    note: `twin test ${k}`,
  }));
  rows[2] = { ...rows[2]!, amount: '1250.00', name: 'Mariama Sesay' };
  rows[3] = { ...rows[2] };
  return rows;
}

function csvWithoutIds(rows: Array<Record<string, string>>): string {
  return [COLS.join(','), ...rows.map((r) => COLS.map((c) => r[c] ?? '').join(','))].join('\n') + '\n';
}

const PLAN_HEAD = (file: string) => new RegExp(`^Batch "default": 5 payouts to send from ${escapeRe(file)}:$`, 'm');
const DUP_LINE = (walletId: string) => `Possible duplicates: rows 4 and 5 are identical: 1,250.00 SLE from ${walletId} to Mariama Sesay (orange_money 077880003).`;
const DUP_PROMPT = 'Send all 2 identical rows as separate payouts?';
const SEND_PROMPT = 'Send 5 payouts?';

/** Nothing posted, nothing held, no report written. */
function expectNothingSent(sb: Sandbox, walletId: string, reportPath: string): void {
  expect(payoutPosts(sb).map((p) => `${p.method} ${p.path} ${p.outcome}`)).toEqual([]);
  expect(heldFor(sb, walletId)).toEqual([]);
  expect(existsSync(reportPath)).toBe(false);
}

/** Every row sent once, the twins as two payouts with two ids, all held by the sandbox. */
function expectAllFiveSent(sb: Sandbox, walletId: string, rows: Array<Record<string, string>>, reportPath: string): void {
  const posts = payoutPosts(sb);
  expect(posts).toHaveLength(5);
  expect(posts.every((p) => p.outcome === 201)).toBe(true);
  const postedIds = posts.map(postedPayoutId);
  expect(new Set(postedIds).size).toBe(5);

  const held = heldFor(sb, walletId);
  expect(held).toHaveLength(5);
  expect(held.map((p) => p.payout_id).sort()).toEqual([...postedIds].sort());
  // Every row's amount paid once, except the twins' 1,250.00, paid twice.
  const minor = (a: string) => BigInt(a.replace('.', ''));
  expect(held.map((p) => p.amount_minor).sort()).toEqual(rows.map((r) => minor(r.amount!)).sort());
  const twins = held.filter((p) => p.amount_minor === 125000n);
  expect(twins).toHaveLength(2);
  expect(twins[0]!.payout_id).not.toBe(twins[1]!.payout_id);
  for (const p of twins) {
    expect(p.recipient.accountDetails.name).toBe('Mariama Sesay');
    expect(p.recipient.accountDetails.accountNumber).toBe('077880003');
  }

  // The report: rows 4 and 5 accepted under the two ids the sandbox holds for the twins.
  const report = readCsvReport(reportPath);
  expect(report.map((l) => [l.row, l.outcome])).toEqual([
    ['2', 'accepted'],
    ['3', 'accepted'],
    ['4', 'accepted'],
    ['5', 'accepted'],
    ['6', 'accepted'],
  ]);
  const twinIds = report.filter((l) => l.row === '4' || l.row === '5').map((l) => l.payout_id);
  expect(twinIds.sort()).toEqual(twins.map((p) => p.payout_id).sort());
}

describe('payout batch at a terminal: two identical rows', () => {
  it('answer n to the duplicates question: exit 2, nothing sent; Enter (the default) too; then y and y: all 5 sent, the twins as two payouts', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const rows = rowsWithTwin(wal);
    const file = writeFile(setup.work.file('twins.csv'), csvWithoutIds(rows));
    const reportPath = setup.work.file('twins.report.csv');

    // 1. n: cancelled before the send question.
    let t = await atTerminal(['payout', 'batch', file], [{ confirm: /^Send all 2 identical rows as separate payouts\?$/, answer: false }]);
    // The plan comes before the question, and nothing left before the answer.
    let dup = t.prompter.call(/identical rows/);
    expect(dup.stderr).toMatch(PLAN_HEAD(file));
    expect(dup.stderr).toContain(DUP_LINE(wal));
    expect(t.postsAtConfirm).toEqual([0]);
    expect(t.prompter.asked).toEqual([DUP_PROMPT]);
    expect(t.r.stderr).toMatch(/^Nothing was sent\.$/m);
    expect(t.r.stderr).not.toContain('Error:');
    expect(t.r.stderr + t.r.stdout).not.toMatch(/\d+ accepted/);
    expect(t.r.code, t.r.stderr).toBe(2);
    expectNothingSent(sb, wal, reportPath);

    // 2. Enter: No is the default.
    t = await atTerminal(['payout', 'batch', file], [{ confirm: /^Send all 2 identical rows as separate payouts\?$/, answer: ENTER }]);
    expect(t.prompter.call(/identical rows/).stderr).toContain(DUP_LINE(wal));
    expect(t.prompter.asked).toEqual([DUP_PROMPT]);
    expect(t.r.stderr).toMatch(/^Nothing was sent\.$/m);
    expect(t.r.stderr).not.toContain('Error:');
    expect(t.r.code, t.r.stderr).toBe(2);
    expectNothingSent(sb, wal, reportPath);

    // 3. y, then y to "Send 5 payouts?": every row sent.
    t = await atTerminal(
      ['payout', 'batch', file],
      [
        { confirm: /^Send all 2 identical rows as separate payouts\?$/, answer: true },
        { confirm: /^Send 5 payouts\?$/, answer: true },
      ],
    );
    dup = t.prompter.call(/identical rows/);
    expect(dup.stderr).toMatch(PLAN_HEAD(file));
    expect(dup.stderr).toContain(DUP_LINE(wal));
    expect(t.prompter.asked).toEqual([DUP_PROMPT, SEND_PROMPT]);
    // Still nothing sent before the second yes.
    expect(t.postsAtConfirm).toEqual([0, 0]);
    expect(t.r.stderr).toContain('5 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expect(t.r.stderr).toContain(`Report: ${reportPath}`);
    expect(t.r.stderr).not.toContain('Nothing was sent.');
    expect(t.r.code, t.r.stderr).toBe(0);
    expectAllFiveSent(sb, wal, rows, reportPath);
  });

  it('y to the duplicates question, then n to "Send 5 payouts?": exit 2, nothing sent', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const file = writeFile(setup.work.file('twins.csv'), csvWithoutIds(rowsWithTwin(wal)));

    const t = await atTerminal(
      ['payout', 'batch', file],
      [
        { confirm: /^Send all 2 identical rows as separate payouts\?$/, answer: true },
        { confirm: /^Send 5 payouts\?$/, answer: false },
      ],
    );
    expect(t.prompter.asked).toEqual([DUP_PROMPT, SEND_PROMPT]);
    expect(t.postsAtConfirm).toEqual([0, 0]);
    expect(t.r.stderr).toMatch(/^Nothing was sent\.$/m);
    expect(t.r.stderr).not.toContain('Error:');
    expect(t.r.code, t.r.stderr).toBe(2);
    expectNothingSent(sb, wal, setup.work.file('twins.report.csv'));
  });

  it('with --yes (no --allow-duplicates) the duplicates question is still asked: Enter sends nothing; y sends all 5 without another question', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const rows = rowsWithTwin(wal);
    const file = writeFile(setup.work.file('twins.csv'), csvWithoutIds(rows));
    const reportPath = setup.work.file('twins.report.csv');

    // Enter: the default No.
    let t = await atTerminal(['payout', 'batch', file, '--yes'], [{ confirm: /^Send all 2 identical rows as separate payouts\?$/, answer: ENTER }]);
    const dup = t.prompter.call(/identical rows/);
    expect(dup.stderr).toMatch(PLAN_HEAD(file));
    expect(dup.stderr).toContain(DUP_LINE(wal));
    expect(t.postsAtConfirm).toEqual([0]);
    expect(t.prompter.asked).toEqual([DUP_PROMPT]);
    expect(t.r.stderr).toMatch(/^Nothing was sent\.$/m);
    expect(t.r.stderr).not.toContain('Error:');
    expect(t.r.code, t.r.stderr).toBe(2);
    expectNothingSent(sb, wal, reportPath);

    // y: --yes answers the send question, so the batch goes out at once.
    t = await atTerminal(['payout', 'batch', file, '--yes'], [{ confirm: /^Send all 2 identical rows as separate payouts\?$/, answer: true }]);
    expect(t.prompter.call(/identical rows/).stderr).toContain(DUP_LINE(wal));
    expect(t.prompter.asked).toEqual([DUP_PROMPT]);
    expect(t.r.stderr).toContain('5 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expect(t.r.code, t.r.stderr).toBe(0);
    expectAllFiveSent(sb, wal, rows, reportPath);
  });
});

// ---------------------------------------------------------------------------------------
// payout create: the same payout typed again

describe('payout create at a terminal: the same payout typed again', () => {
  it('with --yes: warns with the earlier payout id and transaction and asks; Enter sends nothing; y sends a second payout with another id', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const earlier = await sendFirst(sb, wal, (args) => payctl(args, { dir: setup.dir }));
    const warning = repeatWarning(earlier.payout_id, earlier.transaction_id);
    const prompt = /^Send it again, as a new payout\?$/;

    // Enter: the default No.
    let t = await atTerminal(['payout', 'create', ...bankArgs(wal), '--yes'], [{ confirm: prompt, answer: ENTER }]);
    const asked = t.prompter.call(prompt);
    // The warning before the question; --yes: no summary card.
    expect(asked.stderr).toMatch(warning);
    expect(asked.stdout).toBe('');
    expect(t.r.stdout).not.toMatch(/^Payout ID\s/m);
    expect(t.postsAtConfirm).toEqual([0]);
    expect(t.prompter.asked).toEqual(['Send it again, as a new payout?']);
    expect(t.r.stderr).toMatch(/^Nothing was sent\.$/m);
    expect(t.r.stderr).not.toContain('Error:');
    expect(t.r.stderr).not.toMatch(/submitted/);
    expect(t.r.stdout).toBe('');
    expect(t.r.code, t.r.stderr).toBe(2);
    expect(payoutPosts(sb)).toEqual([]);
    expect(heldFor(sb, wal).map((p) => p.payout_id)).toEqual([earlier.payout_id]);

    // y: a new payout, another id. The warning still names the first one (the cancelled run sent nothing).
    t = await atTerminal(['payout', 'create', ...bankArgs(wal), '--yes'], [{ confirm: prompt, answer: true }]);
    expect(t.prompter.call(prompt).stderr).toMatch(warning);
    expect(t.r.code, t.r.stderr).toBe(0);

    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.outcome).toBe(201);
    const secondId = postedPayoutId(posts[0]!);
    expect(secondId).toMatch(/^[0-9a-f-]{36}$/);
    expect(secondId).not.toBe(earlier.payout_id);
    expect(t.r.stderr).toContain(`Payout ${secondId} submitted.`);
    const body = JSON.parse(posts[0]!.body);
    expect(body).toMatchObject({
      amount: 2750.25,
      currency: 'SLE',
      walletId: wal,
      recipient: { type: 'bank', accountDetails: { name: 'Ibrahim Conteh', provider: 'uba', accountNumber: '5401234567' } },
    });

    const held = heldFor(sb, wal);
    expect(held.map((p) => p.payout_id).sort()).toEqual([earlier.payout_id, secondId].sort());
    expect(held.every((p) => p.amount_minor === 275025n)).toBe(true);
    const second = held.find((p) => p.payout_id === secondId)!;
    expect(second.transaction_id).not.toBe(earlier.transaction_id);
    expect(t.r.stdout).toMatch(new RegExp(`^Transaction\\s+${second.transaction_id}$`, 'm'));
  });

  it('without --yes: the summary card, the warning and "Send this payout again, as a new payout?"; n sends nothing; y sends the card\'s payout id', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const earlier = await sendFirst(sb, wal, (args) => payctl(args, { dir: setup.dir }));
    const warning = repeatWarning(earlier.payout_id, earlier.transaction_id);
    const prompt = /^Send this payout again, as a new payout\?$/;

    // The card shows the live balance, after the first payout and its fee.
    const left = sb.wallets().find((w) => w.wallet_id === wal)!.balance_minor;
    expect(left).toBeLessThan(10000000n - 275025n);
    const leftText = (Number(left) / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    /** The card on stdout and the warning on stderr, both written before the question. */
    const expectCard = (asked: { stdout: string; stderr: string }): string => {
      const card = asked.stdout;
      expect(card).toMatch(/^Amount\s+2,750\.25 SLE$/m);
      expect(card).toMatch(new RegExp(`^From wallet\\s+Test \\w+ \\(${wal}\\) · ${escapeRe(leftText)} SLE$`, 'm'));
      expect(card).toMatch(/^Recipient\s+Ibrahim Conteh \(bank\)$/m);
      expect(card).toMatch(/^Provider\s+uba$/m);
      expect(card).toMatch(/^Account\s+5401234567$/m);
      const id = /^Payout ID\s+([0-9a-f-]{36})$/m.exec(card)?.[1];
      expect(id).toBeDefined();
      expect(id).not.toBe(earlier.payout_id);
      expect(asked.stderr).toMatch(warning);
      return id!;
    };

    // n: cancelled.
    let t = await atTerminal(['payout', 'create', ...bankArgs(wal)], [{ confirm: prompt, answer: false }]);
    expectCard(t.prompter.call(prompt));
    // Only the repeat question: not also "Send this payout?".
    expect(t.prompter.asked).toEqual(['Send this payout again, as a new payout?']);
    expect(t.postsAtConfirm).toEqual([0]);
    expect(t.r.stderr).toMatch(/^Nothing was sent\.$/m);
    expect(t.r.stderr).not.toContain('Error:');
    expect(t.r.code, t.r.stderr).toBe(2);
    expect(payoutPosts(sb)).toEqual([]);
    expect(heldFor(sb, wal).map((p) => p.payout_id)).toEqual([earlier.payout_id]);

    // y: the payout on the card is sent.
    t = await atTerminal(['payout', 'create', ...bankArgs(wal)], [{ confirm: prompt, answer: true }]);
    const cardId = expectCard(t.prompter.call(prompt));
    expect(t.r.stderr).toContain(`Payout ${cardId} submitted.`);
    expect(t.r.code, t.r.stderr).toBe(0);
    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(1);
    expect(postedPayoutId(posts[0]!)).toBe(cardId);
    expect(
      heldFor(sb, wal)
        .map((p) => p.payout_id)
        .sort(),
    ).toEqual([earlier.payout_id, cardId].sort());
  });
});
