/**
 * The duplicate guards at a real terminal (tmux): a batch file with two identical rows
 * asks "Send all 2 identical rows as separate payouts?" (default No) even with --yes, and
 * a `payout create` typed again within 24 hours warns with the earlier payout and asks
 * again (default No). No or Enter sends nothing (exit 2); yes sends a new payout with a
 * new id. The built binary against the in-process sandbox.
 */
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, tempConfigDir } from '../helpers/cli.js';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { startInTerminal, stopTerminalServer, type TerminalSession } from '../helpers/pty.js';
import { loginCli, payctl, payoutPosts, postedPayoutId, readCsvReport, tempWorkDir, writeFile } from '../helpers/batch.js';

const ctx = useSandbox();

let cfg: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;
let terms: TerminalSession[] = [];

// A fresh config folder (and so a fresh journal) per test.
beforeEach(async () => {
  cfg = tempConfigDir();
  work = tempWorkDir();
  await loginCli(ctx.sb, cfg.dir);
  ctx.sb.clearRequests();
});

afterEach(() => {
  for (const t of terms) t.kill();
  terms = [];
  work.cleanup();
  cfg.cleanup();
});

afterAll(() => stopTerminalServer());

/** payctl in a terminal, logged in through the test's config folder. */
function payctlInTerminal(args: string[]): TerminalSession {
  const t = startInTerminal([process.execPath, BIN, ...args], {
    PAYCTL_CONFIG_DIR: cfg.dir,
    HOME: cfg.dir,
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  });
  terms.push(t);
  return t;
}

/** The exit line printed after payctl ends. */
async function exitCode(t: TerminalSession): Promise<number> {
  const screen = await t.waitFor(/^EXIT:\d+$/m, 20_000);
  return Number(/^EXIT:(\d+)$/m.exec(screen)![1]);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function heldFor(sb: Sandbox, walletId: string) {
  return sb.payouts().filter((p) => p.wallet_id === walletId);
}

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
  rows[3] = { ...rows[2]! };
  return rows;
}

function csvWithoutIds(rows: Array<Record<string, string>>): string {
  return [COLS.join(','), ...rows.map((r) => COLS.map((c) => r[c] ?? '').join(','))].join('\n') + '\n';
}

const PLAN_HEAD = (file: string) => new RegExp(`^Batch "default": 5 payouts to send from ${escape(file)}:$`, 'm');
const DUP_LINE = (walletId: string) =>
  `Possible duplicates: rows 4 and 5 are identical: 1,250.00 SLE from ${walletId} to Mariama Sesay (orange_money 077880003).`;
const DUP_PROMPT = /^\? Send all 2 identical rows as separate payouts\? \(y\/N\)/m;
const SEND_PROMPT = /^\? Send 5 payouts\? \(y\/N\)/m;

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
    const file = writeFile(work.file('twins.csv'), csvWithoutIds(rows));
    const reportPath = work.file('twins.report.csv');

    // 1. n: cancelled before the send question.
    let t = payctlInTerminal(['payout', 'batch', file]);
    let screen = await t.waitFor(DUP_PROMPT);
    expect(screen).toMatch(PLAN_HEAD(file));
    expect(screen).toContain(DUP_LINE(wal));
    // The plan comes before the question, and nothing left before the answer.
    expect(screen.indexOf(DUP_LINE(wal))).toBeLessThan(screen.search(DUP_PROMPT));
    expect(payoutPosts(sb)).toEqual([]);
    t.type('n');
    t.keys('Enter');
    let code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send all 2 identical rows as separate payouts? No');
    expect(screen).toContain('Cancelled: nothing was sent.');
    expect(screen).not.toMatch(/Send 5 payouts\?/);
    expect(screen).not.toMatch(/\d+ accepted/);
    expect(code).toBe(2);
    expectNothingSent(sb, wal, reportPath);

    // 2. Enter: No is the default.
    t = payctlInTerminal(['payout', 'batch', file]);
    screen = await t.waitFor(DUP_PROMPT);
    expect(screen).toContain(DUP_LINE(wal));
    t.keys('Enter');
    code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send all 2 identical rows as separate payouts? No');
    expect(screen).toContain('Cancelled: nothing was sent.');
    expect(screen).not.toMatch(/Send 5 payouts\?/);
    expect(code).toBe(2);
    expectNothingSent(sb, wal, reportPath);

    // 3. y, then y to "Send 5 payouts?": every row sent.
    t = payctlInTerminal(['payout', 'batch', file]);
    screen = await t.waitFor(DUP_PROMPT);
    expect(screen).toMatch(PLAN_HEAD(file));
    expect(screen).toContain(DUP_LINE(wal));
    t.type('y');
    t.keys('Enter');
    screen = await t.waitFor(SEND_PROMPT);
    expect(screen).toContain('Send all 2 identical rows as separate payouts? Yes');
    // Still nothing sent before the second yes.
    expect(payoutPosts(sb)).toEqual([]);
    t.type('y');
    t.keys('Enter');
    code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send 5 payouts? Yes');
    expect(screen).toContain('5 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expect(screen).toContain(`Report: ${reportPath}`);
    expect(screen).not.toContain('Cancelled');
    expect(code).toBe(0);
    expectAllFiveSent(sb, wal, rows, reportPath);
  }, 60_000);

  it('y to the duplicates question, then n to "Send 5 payouts?": exit 2, nothing sent', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const file = writeFile(work.file('twins.csv'), csvWithoutIds(rowsWithTwin(wal)));

    const t = payctlInTerminal(['payout', 'batch', file]);
    await t.waitFor(DUP_PROMPT);
    t.type('y');
    t.keys('Enter');
    await t.waitFor(SEND_PROMPT);
    t.type('n');
    t.keys('Enter');
    const code = await exitCode(t);
    const screen = t.screen();
    expect(screen).toContain('Send all 2 identical rows as separate payouts? Yes');
    expect(screen).toContain('Send 5 payouts? No');
    expect(screen).toContain('Cancelled: nothing was sent.');
    expect(code).toBe(2);
    expectNothingSent(sb, wal, work.file('twins.report.csv'));
  });

  it('with --yes (no --allow-duplicates) the duplicates question is still asked: Enter sends nothing; y sends all 5 without another question', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const rows = rowsWithTwin(wal);
    const file = writeFile(work.file('twins.csv'), csvWithoutIds(rows));
    const reportPath = work.file('twins.report.csv');

    // Enter: the default No.
    let t = payctlInTerminal(['payout', 'batch', file, '--yes']);
    let screen = await t.waitFor(DUP_PROMPT);
    expect(screen).toMatch(PLAN_HEAD(file));
    expect(screen).toContain(DUP_LINE(wal));
    expect(payoutPosts(sb)).toEqual([]);
    t.keys('Enter');
    let code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send all 2 identical rows as separate payouts? No');
    expect(screen).toContain('Cancelled: nothing was sent.');
    expect(code).toBe(2);
    expectNothingSent(sb, wal, reportPath);

    // y: --yes answers the send question, so the batch goes out at once.
    t = payctlInTerminal(['payout', 'batch', file, '--yes']);
    screen = await t.waitFor(DUP_PROMPT);
    expect(screen).toContain(DUP_LINE(wal));
    t.type('y');
    t.keys('Enter');
    code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send all 2 identical rows as separate payouts? Yes');
    expect(screen).not.toMatch(/Send 5 payouts\?/);
    expect(screen).toContain('5 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expect(code).toBe(0);
    expectAllFiveSent(sb, wal, rows, reportPath);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------
// payout create: the same payout typed again

/** A bank payout from `walletId`; every flag given. */
function bankArgs(walletId: string): string[] {
  return [
    '--wallet', walletId,
    '--amount', '2750.25',
    '--currency', 'SLE',
    '--type', 'bank',
    '--name', 'Ibrahim Conteh',
    '--provider', 'uba',
    '--account', '5401234567',
  ];
}

/** Sends the payout once without a terminal; returns the payout the sandbox holds. */
async function sendFirst(sb: Sandbox, walletId: string) {
  const first = await payctl(['payout', 'create', ...bankArgs(walletId), '--yes'], { dir: cfg.dir });
  expect(first.code, first.stderr).toBe(0);
  const held = heldFor(sb, walletId);
  expect(held).toHaveLength(1);
  expect(first.stderr).toContain(`Payout ${held[0]!.payout_id} submitted.`);
  expect(held[0]!.transaction_id).toMatch(/^TRX[0-9A-F]+$/);
  sb.clearRequests();
  return held[0]!;
}

/** The warning naming the earlier payout, as one (joined) line of the screen. */
function repeatWarning(payoutId: string, transactionId: string): RegExp {
  return new RegExp(
    String.raw`This payout repeats one sent from this machine (?:less than a minute|\d+ minutes?) ago \(\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\) ` +
      String.raw`with the same wallet, account, amount and currency: payout id ${escape(payoutId)}, accepted, transaction ${escape(transactionId)}\.`,
  );
}

describe('payout create at a terminal: the same payout typed again', () => {
  it('with --yes: warns with the earlier payout id and transaction and asks; Enter sends nothing; y sends a second payout with another id', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const earlier = await sendFirst(sb, wal);
    const warning = repeatWarning(earlier.payout_id, earlier.transaction_id);
    const prompt = /^\? Send it again, as a new payout\? \(y\/N\)/m;

    // Enter: the default No.
    let t = payctlInTerminal(['payout', 'create', ...bankArgs(wal), '--yes']);
    let screen = await t.waitFor(prompt);
    expect(screen).toMatch(warning);
    expect(screen.search(warning)).toBeLessThan(screen.search(prompt));
    // --yes: no summary card.
    expect(screen).not.toMatch(/^Payout ID\s/m);
    expect(payoutPosts(sb)).toEqual([]);
    t.keys('Enter');
    let code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send it again, as a new payout? No');
    expect(screen).toContain('Cancelled: nothing was sent.');
    expect(screen).not.toMatch(/submitted/);
    expect(code).toBe(2);
    expect(payoutPosts(sb)).toEqual([]);
    expect(heldFor(sb, wal).map((p) => p.payout_id)).toEqual([earlier.payout_id]);

    // y: a new payout, another id. The warning still names the first one (the cancelled run sent nothing).
    t = payctlInTerminal(['payout', 'create', ...bankArgs(wal), '--yes']);
    screen = await t.waitFor(prompt);
    expect(screen).toMatch(warning);
    t.type('y');
    t.keys('Enter');
    code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send it again, as a new payout? Yes');
    expect(code).toBe(0);

    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.outcome).toBe(201);
    const secondId = postedPayoutId(posts[0]!);
    expect(secondId).toMatch(/^[0-9a-f-]{36}$/);
    expect(secondId).not.toBe(earlier.payout_id);
    expect(screen).toContain(`Payout ${secondId} submitted.`);
    const body = JSON.parse(posts[0]!.body);
    expect(body).toMatchObject({ amount: 2750.25, currency: 'SLE', walletId: wal, recipient: { type: 'bank', accountDetails: { name: 'Ibrahim Conteh', provider: 'uba', accountNumber: '5401234567' } } });

    const held = heldFor(sb, wal);
    expect(held.map((p) => p.payout_id).sort()).toEqual([earlier.payout_id, secondId].sort());
    expect(held.every((p) => p.amount_minor === 275025n)).toBe(true);
    const second = held.find((p) => p.payout_id === secondId)!;
    expect(second.transaction_id).not.toBe(earlier.transaction_id);
    expect(screen).toMatch(new RegExp(`^Transaction\\s+${second.transaction_id}$`, 'm'));
  }, 45_000);

  it('without --yes: the summary card, the warning and "Send this payout again, as a new payout?"; n sends nothing; y sends the card\'s payout id', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const earlier = await sendFirst(sb, wal);
    const warning = repeatWarning(earlier.payout_id, earlier.transaction_id);
    const prompt = /^\? Send this payout again, as a new payout\? \(y\/N\)/m;

    // The card shows the live balance, after the first payout and its fee.
    const left = sb.wallets().find((w) => w.wallet_id === wal)!.balance_minor;
    expect(left).toBeLessThan(10000000n - 275025n);
    const leftText = (Number(left) / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const expectCard = (screen: string): string => {
      expect(screen).toMatch(/^Amount\s+2,750\.25 SLE$/m);
      expect(screen).toMatch(new RegExp(`^From wallet\\s+Test \\w+ \\(${wal}\\) · ${escape(leftText)} SLE$`, 'm'));
      expect(screen).toMatch(/^Recipient\s+Ibrahim Conteh \(bank\)$/m);
      expect(screen).toMatch(/^Provider\s+uba$/m);
      expect(screen).toMatch(/^Account\s+5401234567$/m);
      const id = /^Payout ID\s+([0-9a-f-]{36})$/m.exec(screen)?.[1];
      expect(id).toBeDefined();
      expect(id).not.toBe(earlier.payout_id);
      // Card, then warning, then question.
      expect(screen.search(/^Payout ID\s/m)).toBeLessThan(screen.search(warning));
      expect(screen.search(warning)).toBeLessThan(screen.search(prompt));
      return id!;
    };

    // n: cancelled.
    let t = payctlInTerminal(['payout', 'create', ...bankArgs(wal)]);
    let screen = await t.waitFor(prompt);
    expect(screen).toMatch(warning);
    expectCard(screen);
    expect(screen).not.toMatch(/^\? Send this payout\? /m);
    expect(payoutPosts(sb)).toEqual([]);
    t.type('n');
    t.keys('Enter');
    let code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send this payout again, as a new payout? No');
    expect(screen).toContain('Cancelled: nothing was sent.');
    expect(code).toBe(2);
    expect(payoutPosts(sb)).toEqual([]);
    expect(heldFor(sb, wal).map((p) => p.payout_id)).toEqual([earlier.payout_id]);

    // y: the payout on the card is sent.
    t = payctlInTerminal(['payout', 'create', ...bankArgs(wal)]);
    screen = await t.waitFor(prompt);
    expect(screen).toMatch(warning);
    const cardId = expectCard(screen);
    t.type('y');
    t.keys('Enter');
    code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send this payout again, as a new payout? Yes');
    expect(screen).toContain(`Payout ${cardId} submitted.`);
    expect(code).toBe(0);
    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(1);
    expect(postedPayoutId(posts[0]!)).toBe(cardId);
    expect(heldFor(sb, wal).map((p) => p.payout_id).sort()).toEqual([earlier.payout_id, cardId].sort());
  }, 45_000);
});
