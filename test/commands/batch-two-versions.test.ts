/**
 * Two runs of one batch at once, from two versions of its file (src/payouts/batch-lock.ts), in
 * process against the sandbox over real HTTP. What a run sends is decided from the batch's
 * journaled rows (changed-rows.ts): two runs side by side, the payroll and a copy a spreadsheet
 * re-saved (the notes' dates reformatted, so every row a new identity), each planned before the
 * other had journaled anything, and each paid every row. Now a run holds its batch's lock from
 * its plan to its last row: the second waits (saying so after a second), then plans with the
 * first run's rows journaled and is refused (exit 2, nothing sent). Each person is paid once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { startPayctl } from '../helpers/in-process.js';
import { payoutPosts, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';
import { until } from '../helpers/e2e.js';
import { payrollRows, useBatchFolders } from '../helpers/batch-fixtures.js';
import { TestClock } from '../helpers/clock.js';
import { Journal } from '../../src/payouts/journal.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

/**
 * A payroll (`name`.csv) and its copy a spreadsheet re-saved (`name (1).csv`, the notes' dates
 * reformatted) sent at the same time with `args` (a batch id, or none): one run sends, the other
 * is refused as rows batch `batch` paid before, and every account is paid once.
 */
async function bothAtOnce(name: string, tag: string, amountFrom: number, args: string[], batch: string): Promise<void> {
  const rows = payrollRows(3, setup.sleWallet, tag, amountFrom);
  const file = writeFile(setup.work.file(`${name}.csv`), toCsv(rows));
  const copy = setup.work.file(`${name} (1).csv`);
  writeFileSync(copy, readFileSync(file, 'utf8').replaceAll('2026-11-30', '11/30/2026'));
  const from = ctx.sb.requests().length;
  // Each run's first question to the service (its wallets, for the plan) answered after a
  // second: without a lock both runs plan in the same moment, before either journals a row.
  ctx.sb.faults.add({ method: 'GET', path: '/v2/wallets/balances', kind: 'delay', delayMs: 1000, times: 2 });

  const first = startPayctl(['payout', 'batch', file, ...args, '--yes'], { dir: setup.dir });
  const second = startPayctl(['payout', 'batch', copy, ...args, '--yes'], { dir: setup.dir });
  const [a, b] = await Promise.all([first.done, second.done]);

  const paid = payoutPosts(ctx.sb, from).map(
    (p) => (JSON.parse(p.body) as { recipient: { accountDetails: { accountNumber: string } } }).recipient.accountDetails.accountNumber,
  );
  expect(paid.sort()).toEqual(rows.map((r) => r.account_number).sort());
  // Which run got the lock first is the scheduler's: one sent, the other waited and was refused.
  const [sent, refused, refusedFile] = a.code === 0 ? [a, b, copy] : [b, a, file];
  expect(sent.code, sent.stderr).toBe(0);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain(`Error: ${refusedFile}: 3 rows pay what batch "${batch}" paid before, their other cells changed since. Nothing was sent.`);
}

describe('payout batch: the same batch from two versions of its file, at the same time', () => {
  it('the second run waits for the first, then is refused; every account is paid once', async () => {
    const tag = `both${Date.now()}`;
    await bothAtOnce('payroll', tag, 30, ['--batch-id', tag], tag);
  });

  it('without --batch-id too: the payroll and its copy at once, the second waits (the same rows, another file), then is refused', async () => {
    // Runs without --batch-id locked their file only; a copy is another file, so both planned at
    // once and each paid every row (the last day's batches are compared only once journaled).
    await bothAtOnce('stipends', `unnamed${Date.now()}`, 50, [], 'default');
  });

  it('a run that finds the batch being sent says what it waits for, then goes on', async () => {
    const tag = `wait${Date.now()}`;
    const file = writeFile(setup.work.file('wait.csv'), toCsv(payrollRows(1, setup.sleWallet, tag, 40)));
    const from = ctx.sb.requests().length;
    ctx.sb.faults.add({ method: 'GET', path: '/v2/wallets/balances', kind: 'delay', delayMs: 2000, times: 1 });
    const first = startPayctl(['payout', 'batch', file, '--batch-id', tag, '--yes'], { dir: setup.dir });
    // The first run holds the lock while it asks for its wallets.
    await until(() =>
      ctx.sb
        .requests()
        .slice(from)
        .some((r) => r.path === '/v2/wallets/balances'),
    );
    const second = startPayctl(['payout', 'batch', file, '--batch-id', tag, '--yes'], { dir: setup.dir });
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toContain(`Waiting for another payctl (pid ${process.pid}) that is sending batch "${tag}"…\n`);
    // Then planned with the first run's row journaled: accepted earlier, not sent again.
    expect(b.stderr).toContain('1 accepted (1 in an earlier run), 0 already submitted, 0 rejected, 0 unknown.');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
  });
});

describe('payout batch: two versions of a payroll that pay different sets of rows, at the same time, without --batch-id', () => {
  it('no row is paid twice: a run that finds the other paying its rows, once its own are journaled, stops (exit 1) and says which', async () => {
    // The copy has a row added, so the two runs pay different sets of rows and lock different
    // things (batch-lock.ts): both planned in the same moment, before either had journaled a
    // row, and each paid the three rows they share. Now each run, once a group of its rows is
    // journaled and before any of them is sent, looks for those rows among what other runs
    // journaled since: of two runs, at least one sees the other's rows.
    const tag = `added${Date.now()}`;
    const rows = payrollRows(4, setup.sleWallet, tag, 70);
    const file = writeFile(setup.work.file('bonus.csv'), toCsv(rows.slice(0, 3)));
    const copy = writeFile(setup.work.file('bonus (1).csv'), toCsv([rows[3]!, ...rows.slice(0, 3)]).replaceAll('2026-11-30', '11/30/2026'));
    const from = ctx.sb.requests().length;
    ctx.sb.faults.add({ method: 'GET', path: '/v2/wallets/balances', kind: 'delay', delayMs: 1000, times: 2 });

    const [a, b] = await Promise.all([
      startPayctl(['payout', 'batch', file, '--yes'], { dir: setup.dir }).done,
      startPayctl(['payout', 'batch', copy, '--yes'], { dir: setup.dir }).done,
    ]);

    const paid = () =>
      payoutPosts(ctx.sb, from).map((p) => (JSON.parse(p.body) as { recipient: { accountDetails: { accountNumber: string } } }).recipient.accountDetails.accountNumber);
    const twice = () => paid().filter((acct, i, all) => all.indexOf(acct) !== i);
    expect(twice(), 'accounts paid twice').toEqual([]);
    const stopped = [a, b].filter((r) => r.code !== 0);
    expect(stopped.length, `${a.stderr}\n${b.stderr}`).toBeGreaterThan(0);
    // Stopped once its rows were journaled (exit 1), or refused by its plan when the other run had journaled its rows by then (exit 2).
    for (const r of stopped) {
      if (r.code === 2) expect(r.stderr).toContain('rows pay what batch "default" paid before, their other cells changed since. Nothing was sent.');
      else expect(r.stderr).toMatch(/Row \d+ pays what batch "default" of \S+bonus(?: \(1\))?\.csv (?:paid|may have paid|journaled)/);
      expect([1, 2], r.stderr).toContain(r.code);
    }
    // What was journaled and not sent is recorded as not made: nothing reads as unknown, so
    // history reconcile sends nothing of it.
    const history = await startPayctl(['history', '--status', 'unknown', '--json'], { dir: setup.dir }).done;
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).not.toContain(tag);
    // Each file run again, one after the other (whichever run stopped, or both): the payroll's
    // rows are paid once in all, and a file whose rows the other run paid is refused (exit 2).
    for (const f of [file, copy]) {
      const again = await startPayctl(['payout', 'batch', f, '--yes'], { dir: setup.dir }).done;
      expect([0, 2], again.stderr).toContain(again.code);
      if (again.code === 2) expect(again.stderr).toContain('paid before, their other cells changed since. Nothing was sent.');
    }
    expect(twice(), 'accounts paid twice').toEqual([]);
    for (const r of rows.slice(0, 3)) expect(paid(), r.account_number).toContain(r.account_number);
  });
});

describe('payout batch: the payroll and a copy whose accounts lost their leading zeros, at the same time, without --batch-id', () => {
  it('no row is paid twice: the check while sending finds the rows whatever zeros each wrote', async () => {
    // A spreadsheet saved the copy's account column as numbers: `0000123...` became `123...`,
    // and a row was added, so the runs lock different things and plan at the same moment.
    const tag = `zeros${Date.now()}`;
    const rows = payrollRows(4, setup.sleWallet, tag, 90).map((r) => ({ ...r, account_number: `00${r.account_number}` }));
    const file = writeFile(setup.work.file('zeros.csv'), toCsv(rows.slice(0, 3)));
    const bare = [rows[3]!, ...rows.slice(0, 3)].map((r) => ({ ...r, account_number: r.account_number.replace(/^0+/, '') }));
    const copy = writeFile(setup.work.file('zeros (1).csv'), toCsv(bare));
    const from = ctx.sb.requests().length;
    ctx.sb.faults.add({ method: 'GET', path: '/v2/wallets/balances', kind: 'delay', delayMs: 1000, times: 2 });

    const [a, b] = await Promise.all([
      startPayctl(['payout', 'batch', file, '--yes'], { dir: setup.dir }).done,
      startPayctl(['payout', 'batch', copy, '--yes'], { dir: setup.dir }).done,
    ]);

    const paid = payoutPosts(ctx.sb, from).map((p) =>
      (JSON.parse(p.body) as { recipient: { accountDetails: { accountNumber: string } } }).recipient.accountDetails.accountNumber.replace(/^0+/, ''),
    );
    expect(
      paid.filter((acct, i) => paid.indexOf(acct) !== i),
      `accounts paid twice\n${a.stderr}\n${b.stderr}`,
    ).toEqual([]);
    const stopped = [a, b].filter((r) => r.code !== 0);
    expect(stopped.length, `${a.stderr}\n${b.stderr}`).toBeGreaterThan(0);
    for (const r of stopped) expect([1, 2], r.stderr).toContain(r.code);
  });
});

describe('payout batch: a copy whose run was stopped before it sent, then the payroll, then the copy again', () => {
  /** The copy (`name (1).csv`, its notes' dates reformatted) run and stopped by the service refusing the key: its first row refused, the other two journaled and not made. */
  async function stoppedCopy(name: string, tag: string, amountFrom: number): Promise<{ rows: BatchRow[]; file: string; copy: string; from: number }> {
    const rows = payrollRows(3, setup.sleWallet, tag, amountFrom);
    const file = writeFile(setup.work.file(`${name}.csv`), toCsv(rows));
    const copy = writeFile(setup.work.file(`${name} (1).csv`), toCsv(rows).replaceAll('2026-11-30', '11/30/2026'));
    const from = ctx.sb.requests().length;
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 401, times: 1 });
    const refused = await startPayctl(['payout', 'batch', copy, '--concurrency', '1', '--yes'], { dir: setup.dir }).done;
    expect(refused.code, refused.stderr).toBe(3);
    expect(payoutPosts(ctx.sb, from).length).toBe(1);
    return { rows, file, copy, from };
  }

  const accountsPaid = (from: number) =>
    payoutPosts(ctx.sb, from)
      .slice(1)
      .map((p) => (JSON.parse(p.body) as { recipient: { accountDetails: { accountNumber: string } } }).recipient.accountDetails.accountNumber)
      .sort();

  it('the payroll without --batch-id is paid (the copy paid nothing); the copy run again, then a day later, is refused (exit 2)', async () => {
    // Before, the copy's rows never sent counted as paid: the payroll was refused for them. And
    // being the copy's own, they were never compared again: run again, the copy paid them all.
    const tag = `unpaid${Date.now()}`;
    const { rows, file, copy, from } = await stoppedCopy('refunds', tag, 80);
    const payroll = await startPayctl(['payout', 'batch', file, '--yes'], { dir: setup.dir }).done;
    expect(payroll.code, payroll.stderr).toBe(0);
    // Then, and 25 hours on (past the last day's window: compared since the rows were journaled).
    for (const clock of [undefined, new TestClock(new Date(Date.now() + 25 * 3_600_000))]) {
      const again = await startPayctl(['payout', 'batch', copy, '--yes'], { dir: setup.dir, ...(clock ? { clock } : {}) }).done;
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain(`${copy}: `);
      expect(again.stderr).toContain(' paid before, their other cells changed since. Nothing was sent.');
    }
    expect(accountsPaid(from)).toEqual(rows.map((r) => r.account_number).sort());
  });

  it("a payout typed by hand that pays what the stopped copy's rows pay is refused as a repeat (exit 2): run again, the copy would pay it", async () => {
    // The copy, run again, compares its rows with other batches, never with single payouts.
    const tag = `unpaidhand${Date.now()}`;
    const { rows, copy, from } = await stoppedCopy('stipend', tag, 75);
    const r = rows[1]!;
    const args = [
      'payout',
      'create',
      '--wallet',
      r.wallet_id!,
      '--amount',
      r.amount!,
      '--currency',
      'SLE',
      '--type',
      'bank',
      '--name',
      r.name!,
      '--provider',
      'ecobank',
      '--account',
      r.account_number!,
    ];
    const typed = await startPayctl([...args, '--yes'], { dir: setup.dir }).done;
    expect(typed.code, typed.stderr).toBe(2);
    expect(typed.stderr).toContain('This payout repeats');
    const resumed = await startPayctl(['payout', 'batch', copy, '--yes'], { dir: setup.dir }).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(accountsPaid(from)).toEqual(rows.map((x) => x.account_number).sort());
  });

  it('a named batch stopped before it sent keeps its rows: the file without --batch-id is refused; the batch resumed pays each row once', async () => {
    // A named batch's rows, resumed, are compared with its own batch only: rows it journaled and
    // never sent still count for any other run, or the resume would pay them a second time.
    const tag = `stoppednamed${Date.now()}`;
    const rows = payrollRows(3, setup.sleWallet, tag, 95);
    const file = writeFile(setup.work.file('bonus-named.csv'), toCsv(rows));
    const from = ctx.sb.requests().length;
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 401, times: 1 });
    const stopped = await startPayctl(['payout', 'batch', file, '--batch-id', tag, '--concurrency', '1', '--yes'], { dir: setup.dir }).done;
    expect(stopped.code, stopped.stderr).toBe(3);
    const unnamed = await startPayctl(['payout', 'batch', file, '--yes'], { dir: setup.dir }).done;
    expect(unnamed.code, unnamed.stderr).toBe(2);
    expect(unnamed.stderr).toContain(`batch "${tag}"`);
    const resumed = await startPayctl(['payout', 'batch', file, '--batch-id', tag, '--yes'], { dir: setup.dir }).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(accountsPaid(from)).toEqual(rows.map((r) => r.account_number).sort());
  });

  it('the payroll as a batch of its own is paid; the copy run again is refused (exit 2)', async () => {
    const tag = `unpaidnamed${Date.now()}`;
    const { rows, file, copy, from } = await stoppedCopy('grants', tag, 85);
    const payroll = await startPayctl(['payout', 'batch', file, '--batch-id', tag, '--yes'], { dir: setup.dir }).done;
    expect(payroll.code, payroll.stderr).toBe(0);
    const again = await startPayctl(['payout', 'batch', copy, '--yes'], { dir: setup.dir }).done;
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`${copy}: 3 rows pay what batch "${tag}" paid before, their other cells changed since. Nothing was sent.`);
    expect(accountsPaid(from)).toEqual(rows.map((r) => r.account_number).sort());
  });
});

describe('payout batch: a run without --batch-id resumed after a named batch paid the same people', () => {
  it('finishes its unknown rows under their keys: rows an earlier run may have paid are its own, never "paid meanwhile" by another', async () => {
    const tag = `resumed${Date.now()}`;
    const rows = payrollRows(2, setup.sleWallet, tag, 90);
    const file = writeFile(setup.work.file('advance.csv'), toCsv(rows));
    // Every answer lost: both rows unknown (exit 4).
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: 10 });
    const lost = await startPayctl(['payout', 'batch', file, '--concurrency', '1', '--yes'], { dir: setup.dir, clock: new TestClock() }).done;
    ctx.sb.faults.clear();
    expect(lost.code, lost.stderr).toBe(4);
    // The same people under a batch of its own, another note: before, paid again (the rows of
    // unknown outcome had been paid); now refused, nothing sent (unsettled-repeats.ts openAlike).
    const named = writeFile(setup.work.file('advance-named.csv'), toCsv(rows.map((r) => ({ ...r, note: 'Advance' }))));
    const from = ctx.sb.requests().length;
    const other = await startPayctl(['payout', 'batch', named, '--batch-id', tag, '--yes'], { dir: setup.dir }).done;
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toContain('of unknown outcome may have paid');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    // The run resumed finishes its own rows under their keys: answered, never paid again, never "paid meanwhile".
    const again = await startPayctl(['payout', 'batch', file, '--yes'], { dir: setup.dir }).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/Row \d+ pays what batch "/);
  });
});

describe('payout batch: a run stopped by the check while sending, run again as it advises', () => {
  it('refuses the rows the other run paid (exit 2, nothing sent), also when its rows have no outcome recorded: no account is paid twice', async () => {
    // Two versions of a payroll (the copy with another note and a row added) at once: one run is
    // stopped once its rows are journaled ("journaled too ... no outcome recorded yet"). Its rows
    // left with no outcome recorded (as probe D54 found them, and as a run killed then leaves
    // them) were resumed under their own keys when the file was run again, unchecked: every row
    // the other run had paid was paid a second time. Now they are compared like new rows.
    const tag = `rerun${Date.now()}`;
    const rows = payrollRows(3, setup.sleWallet, tag, 60);
    const file = writeFile(setup.work.file('rerun.csv'), toCsv(rows.slice(0, 2)));
    const copy = writeFile(setup.work.file('rerun (1).csv'), toCsv(rows.map((r) => ({ ...r, note: 'Salary July' }))));
    const from = ctx.sb.requests().length;
    ctx.sb.faults.add({ method: 'GET', path: '/v2/wallets/balances', kind: 'delay', delayMs: 1000, times: 2 });
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 1000, times: 3 });
    const [a, b] = await Promise.all([
      startPayctl(['payout', 'batch', file, '--yes'], { dir: setup.dir }).done,
      startPayctl(['payout', 'batch', copy, '--yes'], { dir: setup.dir }).done,
    ]);
    ctx.sb.faults.clear();
    const paid = () =>
      payoutPosts(ctx.sb, from).map((p) => (JSON.parse(p.body) as { recipient: { accountDetails: { accountNumber: string } } }).recipient.accountDetails.accountNumber);
    const twice = () => paid().filter((acct, i, all) => all.indexOf(acct) !== i);
    expect(twice(), `accounts paid twice\n${a.stderr}\n${b.stderr}`).toEqual([]);
    const stopped = [[a, file] as const, [b, copy] as const].filter(([r]) => r.code === 1).map(([, f]) => f);
    expect(stopped.length, `${a.stderr}\n${b.stderr}`).toBeGreaterThan(0);
    // The stopped run's rows as probe D54 found them: journaled, no outcome recorded (when the
    // other run paid; both stopped on the same row, neither paid, and their rows stay not made).
    const journal = new Journal(setup.dir);
    for await (const it of journal.scan())
      if (stopped.length === 1 && 'entry' in it && it.entry.outcome?.kind === 'not-made' && it.entry.batch?.file === stopped[0])
        await journal.put({ ...it.entry, outcome: undefined });
    for (const f of stopped) {
      // As its message advises, and as history reconcile's "resume the batch" prints it.
      for (const args of [[], ['--batch-id', 'default']]) {
        const again = await startPayctl(['payout', 'batch', f, ...args, '--yes'], { dir: setup.dir }).done;
        expect(twice(), `accounts paid twice\n${again.stderr}`).toEqual([]);
        // Both stopped (on the same row), neither paid: the file run first pays, the other is refused.
        if (stopped.length === 1) expect(again.code, again.stderr).toBe(2);
        expect([0, 2], again.stderr).toContain(again.code);
        if (again.code === 2) expect(again.stderr).toContain('paid before, their other cells changed since. Nothing was sent.');
      }
    }
    // The payroll's rows are paid once in all.
    for (const r of rows.slice(0, 2)) expect(paid(), r.account_number).toContain(r.account_number);
  });
});
