/**
 * Commands fitted to the terminal's width, in process (fakeDeps with the terminal flags
 * and width set, the sandbox over HTTP): `payouts list --all` page by page (the first
 * page's layout holds at a terminal, the IDs never cut, columns left out rather than
 * cards since issue #28; a pipe is never cut, its columns only grow),
 * `balances`, and the plan of `payout batch --dry-run` on stdout. Issue #28's other commands
 * (history, plan show/approve, webhooks listen, help) are in width-80.test.ts. Real terminals
 * (tmux) are in test/e2e/width.test.ts; the layouts as pure functions in test/unit/width.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { api, payoutBody, useSandbox } from '../helpers/sandbox.js';
import { useConfigDir, writeLoggedIn } from '../helpers/e2e.js';
import { fakeDeps, type FakeDeps } from '../helpers/fake-deps.js';
import { batchRows, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';
import { run as listRun } from '../../src/commands/payouts/list.js';
import { run as balancesRun } from '../../src/commands/balances.js';
import { run as batchRun } from '../../src/commands/payout/batch.js';
import { displayWidth } from '../../src/output/table.js';

const ctx = useSandbox();
const cfg = useConfigDir();
const LONG = 'Recipient with a name much longer than any terminal column would hold';
let wallet: string;
let work: ReturnType<typeof tempWorkDir>;
let open: FakeDeps[] = [];

beforeAll(async () => {
  wallet = ctx.sb.setWallet({ wallet_name: 'Payroll of the Western Area Rural District Council, Waterloo', currency: 'SLE', balance: '250000' }).wallet_id;
  // Newest first: one short name (the first page), then a long one (a later page).
  for (const name of [LONG, 'Ama', 'Bo', 'Kofi']) {
    const body = payoutBody(wallet, { amount: 12.5, metadata: { width: 'test' } });
    body.recipient.accountDetails.name = name;
    expect((await api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() })).status).toBe(201);
  }
});

beforeEach(async () => {
  await writeLoggedIn(ctx.sb, cfg.dir);
  work = tempWorkDir();
});

afterEach(async () => {
  for (const fd of open) await fd.close();
  open = [];
  work.cleanup();
});

/** Deps of a run whose stdout is a terminal of `columns` columns (undefined: a pipe). */
function depsAt(columns: number | undefined): FakeDeps {
  const fd = fakeDeps({ dir: cfg.dir, tty: { stdout: columns !== undefined, stderr: columns !== undefined } });
  fd.deps.io = { ...fd.deps.io, stdoutColumns: columns, stderrColumns: columns };
  open.push(fd);
  return fd;
}

const lines = (out: string) => out.trimEnd().split('\n');

describe('payouts list --all, streamed page by page', () => {
  it("at a 120-column terminal: the header once, every line fits, a long name on a later page cut to the first page's layout, the IDs whole", async () => {
    const fd = depsAt(120);
    expect(await listRun({ all: true, limit: 3, wallet }, fd.deps)).toBe(0);
    const out = lines(fd.stdout());
    expect(out).toHaveLength(5);
    expect(out.filter((l) => l.startsWith('CREATED (UTC)'))).toHaveLength(1);
    expect(out[0]).toMatch(/^CREATED \(UTC\)\s+TRANSACTION\s+WALLET\s+RECIPIENT\s+AMOUNT\s+STATUS$/);
    for (const l of out) expect(displayWidth(l), l).toBeLessThanOrEqual(120);
    // Page 2 lines up with page 1: the amounts end in the same column.
    const ends = out.slice(1).map((l) => l.indexOf('12.50 SLE') + '12.50 SLE'.length);
    expect(new Set(ends).size).toBe(1);
    const ids = ctx.sb.payouts().filter((p) => p.wallet_id === wallet);
    for (const p of ids) expect(fd.stdout()).toMatch(new RegExp(`  ${p.transaction_id}  ${wallet}  `));
    // The first page's names are short, so the later page's long name is cut to their width.
    expect(out[4]).toMatch(/ {2}Recipien… {2}12\.50 SLE {2}Pending$/);
    expect(out[4]).not.toContain(LONG);
    expect(fd.stderr()).toBe('4 payouts.\n');
  });

  it('at an 80-column terminal (issue #28): a table on every page, the created time left out, the IDs whole, the long name cut to the layout', async () => {
    const fd = depsAt(80);
    expect(await listRun({ all: true, limit: 3, wallet }, fd.deps)).toBe(0);
    const out = lines(fd.stdout());
    for (const l of out) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
    expect(out).toHaveLength(5);
    expect(out[0]).toBe('TRANSACTION                         WALLET      RECIPIENT     AMOUNT  STATUS');
    const ids = ctx.sb.payouts().filter((p) => p.wallet_id === wallet);
    expect(ids).toHaveLength(4);
    for (const p of ids) expect(fd.stdout()).toMatch(new RegExp(`^${p.transaction_id}  ${wallet}  `, 'm'));
    // Page 2 lines up with page 1; its long name is cut to the first page's width.
    expect(out[4]).toMatch(/^TXN-BOK-[0-9A-F]{26} {2}\d{10} {2}Recipien… {2}12\.50 SLE {2}Pending$/);
    expect(new Set(out.slice(1).map((l) => l.indexOf('12.50 SLE'))).size).toBe(1);
    expect(fd.stdout()).not.toContain(LONG);
    expect(fd.stderr()).toBe('4 payouts.\n');
  });

  it('in a pipe: nothing cut; the column grows for the long name of a later page; the header once', async () => {
    const fd = depsAt(undefined);
    expect(await listRun({ all: true, limit: 3, wallet }, fd.deps)).toBe(0);
    const out = lines(fd.stdout());
    expect(out).toHaveLength(5);
    expect(out.filter((l) => l.startsWith('CREATED (UTC)'))).toHaveLength(1);
    expect(out[4]).toContain(`${LONG}  12.50 SLE  Pending`);
    expect(fd.stdout()).not.toContain('…');
  });

  it('one page at a 60-column terminal (issue #28): the transaction id, amount and status, the other columns left out; --csv at the same terminal is whole', async () => {
    const fd = depsAt(60);
    expect(await listRun({ limit: 4, wallet }, fd.deps)).toBe(0);
    const out = fd.stdout();
    for (const l of lines(out)) expect(displayWidth(l), l).toBeLessThanOrEqual(60);
    const ids = ctx.sb.payouts().filter((p) => p.wallet_id === wallet);
    expect(ids).toHaveLength(4);
    expect(lines(out)[0]).toBe('TRANSACTION                            AMOUNT  STATUS');
    for (const p of ids) expect(out).toContain(`${p.transaction_id}  12.50 SLE  Pending\n`);

    const csv = depsAt(60);
    expect(await listRun({ limit: 4, wallet, csv: true }, csv.deps)).toBe(0);
    expect(csv.stdout()).toContain(LONG);
    expect(csv.stdout()).not.toContain('…');
  });
});

describe('balances at a terminal', () => {
  it('fits 60 columns as a table (issue #28: the update time gives way), the long wallet name cut, the wallet id and balance whole; a pipe gets it whole', async () => {
    const fd = depsAt(60);
    expect(await balancesRun({ wallet }, fd.deps)).toBe(0);
    for (const l of lines(fd.stdout())) expect(displayWidth(l), l).toBeLessThanOrEqual(60);
    expect(lines(fd.stdout())).toEqual([
      expect.stringMatching(/^WALLET {6}NAME +CURRENCY +BALANCE$/),
      expect.stringMatching(new RegExp(`^${wallet}  Payroll of the Western Ar… {2}SLE +249,9\\d\\d\\.\\d\\d$`)),
    ]);

    const piped = depsAt(undefined);
    expect(await balancesRun({ wallet }, piped.deps)).toBe(0);
    expect(piped.stdout()).toContain('Payroll of the Western Area Rural District Council, Waterloo');
  });
});

describe('payout batch --dry-run: the plan on stdout', () => {
  it('at 80 columns it fits, the wallet name cut, the amounts whole; in a pipe it is whole', async () => {
    const file = writeFile(work.file('p.csv'), toCsv(batchRows(3, wallet, `dry-${randomUUID().slice(0, 6)}`)));
    const fd = depsAt(80);
    expect(await batchRun({ file, dryRun: true }, fd.deps)).toBe(0);
    const out = fd.stdout();
    for (const l of lines(out)) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
    // Wallet ids are 10 digits: the table fits at 80 with the name cut to its minimum, the id whole.
    // (With 20-character wal_… ids it could not, and each wallet was a card.)
    expect(out).toMatch(/^WALLET {6}NAME\s+CURRENCY\s+PAYOUTS\s+TOTAL\s+BALANCE\s+AFTER \(before fees\)$/m);
    expect(out).toMatch(new RegExp(`^${wallet}  Payroll…\\s+SLE\\s+3\\s+36\\.06\\s+249,9\\d\\d\\.\\d\\d\\s+249,9\\d\\d\\.\\d\\d$`, 'm'));
    expect(out).not.toContain('Payroll of the Western Area Rural District Council, Waterloo');
    expect(fd.stderr()).toContain('Dry run: nothing was sent.');

    const piped = depsAt(undefined);
    expect(await batchRun({ file, dryRun: true }, piped.deps)).toBe(0);
    expect(piped.stdout()).toMatch(/^WALLET\s+NAME\s+CURRENCY\s+PAYOUTS\s+TOTAL\s+BALANCE\s+AFTER \(before fees\)$/m);
    expect(piped.stdout()).toContain('Payroll of the Western Area Rural District Council, Waterloo');
  });
});
