/**
 * A payroll sent just after one of its people was paid by hand (`payout create`), in process
 * against the sandbox over real HTTP. payout create refuses a payout typed again after a batch
 * row paid it (the repeat guard); the other way round, payout batch only noted "pays the same as
 * payouts sent as single payouts" and, with --yes, paid that person a second time. A run without
 * --batch-id now refuses rows that pay all that a single payout of the last day paid (exit 2,
 * nothing sent), as plan create does; named, or a day later, they are new payouts, noted.
 */
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { payoutPosts, toCsv, writeFile } from '../helpers/batch.js';
import { payrollRows, useBatchFolders } from '../helpers/batch-fixtures.js';
import { shellSplit } from '../helpers/pty.js';
import { TestClock } from '../helpers/clock.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

/** payout create of what `row` pays. */
function createArgs(row: ReturnType<typeof payrollRows>[number]): string[] {
  const cells = ['wallet_id', 'amount', 'currency', 'type', 'name', 'provider', 'account_number', 'note'].map((c) => String(row[c]));
  const flags = ['--wallet', '--amount', '--currency', '--type', '--name', '--provider', '--account', '--note'];
  return ['payout', 'create', ...flags.flatMap((f, i) => [f, cells[i]!]), '--metadata', `employee=${row['metadata.employee']}`, '--yes'];
}

const accounts = (from: number) =>
  payoutPosts(ctx.sb, from).map((p) => (JSON.parse(p.body) as { recipient: { accountDetails: { accountNumber: string } } }).recipient.accountDetails.accountNumber);

describe('payout batch after a payout typed by hand that pays one of its rows', () => {
  it('without --batch-id: refused, nothing sent; the printed command pays the file as new payouts', async () => {
    const rows = payrollRows(3, setup.sleWallet, `single${Date.now()}`);
    const single = await payctl(createArgs(rows[1]!), { dir: setup.dir });
    expect(single.code, single.stderr).toBe(0);
    const file = writeFile(setup.work.file('jul.csv'), toCsv(rows));

    const from = ctx.sb.requests().length;
    const r = await payctl(['payout', 'batch', file, '--yes'], { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Error: ${file}: row 3 pays what was sent as single payouts (payout create) on `);
    expect(r.stderr).toContain('that person is paid twice. Nothing was sent.');
    expect(accounts(from)).toEqual([]);
    // plan create refuses it alike.
    await payctl(['keys', 'create', '--name', 'Mariama Kanu'], { dir: setup.dir });
    const plan = await payctl(['plan', 'create', file], { dir: setup.dir });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stderr).toContain('No plan was written.');

    // The history command, as printed, lists the payout typed by hand.
    const see = r.stderr.split('\n').find((l) => l.startsWith('See what was paid: '))!;
    const h = await payctl([...shellSplit(see.slice('See what was paid: '.length)).slice(1), '--json'], { dir: setup.dir });
    expect(h.code, h.stderr).toBe(0);
    expect(h.stdout).toContain(rows[1]!.account_number);
    // As said: the row taken out of the file (it is paid), the same command again pays the other two.
    expect(r.stderr).toContain("If the file's row 3 is that payout, take it out of the file (paid) and run the same command again.");
    writeFile(file, toCsv([rows[0]!, rows[2]!]));
    const rest = await payctl(['payout', 'batch', file, '--yes'], { dir: setup.dir });
    expect(rest.code, rest.stderr).toBe(0);
    expect(accounts(from).sort()).toEqual([rows[0]!.account_number, rows[2]!.account_number].sort());
  });

  it('named with --batch-id, or the payout typed more than a day before: noted, and sent', async () => {
    const rows = payrollRows(2, setup.sleWallet, `named${Date.now()}`);
    expect((await payctl(createArgs(rows[0]!), { dir: setup.dir })).code).toBe(0);
    const file = writeFile(setup.work.file('aug.csv'), toCsv(rows));
    const from = ctx.sb.requests().length;
    const named = await payctl(['payout', 'batch', file, '--batch-id', `aug-${Date.now()}`, '--yes'], { dir: setup.dir });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).toContain('Note: 1 row pays the same as payouts sent as single payouts (payout create)');
    expect(accounts(from)).toHaveLength(2);

    const later = payrollRows(2, setup.sleWallet, `later${Date.now()}`);
    expect((await payctl(createArgs(later[0]!), { dir: setup.dir })).code).toBe(0);
    const clock = new TestClock(new Date(Date.now() + 25 * 3_600_000));
    const next = writeFile(setup.work.file('sep.csv'), toCsv(later));
    const r = await payctl(['payout', 'batch', next, '--yes'], { dir: setup.dir, clock });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Note: 1 row pays the same as payouts sent as single payouts (payout create)');
  });
});
