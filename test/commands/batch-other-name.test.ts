/**
 * `payctl payout batch` run again under another name than the batch that sent its rows: left out
 * (`default`), or the same name in other letter case ("dec-2026" for "Dec-2026"). Either would pay
 * every row again as new payouts; both are refused (exit 2, nothing sent) with the two commands a
 * person can choose from, and each works as printed. A file given as a descriptor is named by its
 * own path in all of it. In process, the sandbox over real HTTP.
 */
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { batchRows, payoutPosts, toCsv, withOwnPayees, writeFile } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { printed } from '../helpers/printed.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

const WHEN = '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The two commands of the refusal's hint: resume, and pay again. */
function hintCommands(stderr: string): { resume: string[]; payAgain: string[] } {
  const resume = /^To resume that batch: +payctl (.*)$/m.exec(stderr)?.[1];
  const payAgain = /^To pay these rows again as new payouts: payctl (.*)$/m.exec(stderr)?.[1];
  expect(resume, stderr).toBeDefined();
  expect(payAgain, stderr).toBeDefined();
  return { resume: resume!.split(' '), payAgain: payAgain!.split(' ') };
}

describe('payout batch: rows a named batch sent, run under another name', () => {
  // Each case a batch of its own name: the config folder is the file's, and a named batch is
  // compared with its rows from any file (changed-rows.ts).
  it.each([
    ['left out', 'Dec-2026', [] as string[], ''],
    ['in other letter case', 'Dec-2027', ['--batch-id', 'dec-2027'], ', a batch id that differs from "dec-2027" only in letter case'],
    ['with other separators', 'Dec-2028', ['--batch-id', 'dec_2028'], ', a batch id that differs from "dec_2028" only in letter case or in the separators - _ . :'],
  ])('--batch-id %s: exit 2, nothing sent; "resume" sends nothing, "pay again" (confirmed) pays each row once more', async (_, sent, given, why) => {
    const rows = batchRows(3, setup.sleWallet, `other-name-${Date.now()}`);
    for (const row of rows) delete row.payout_id;
    const file = writeFile(setup.work.file('december.csv'), toCsv(rows));
    const first = await payctl(['payout', 'batch', file, '--batch-id', sent, '--yes'], { dir: setup.dir });
    expect(first.code, first.stderr).toBe(0);
    const from = ctx.sb.requests().length;

    const r = await payctl(['payout', 'batch', file, ...given, '--yes'], { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^Error: ${escape(file)}: 3 rows match payouts already sent in batch "${sent}" from ${escape(file)} on ${WHEN}${escape(why)}\\. Nothing was sent\\.\\n`),
    );
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    const { resume, payAgain } = hintCommands(r.stderr);
    expect(resume).toEqual(['payout', 'batch', file, '--batch-id', sent, '--yes']);
    const resumed = await payctl(resume, { dir: setup.dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('3 accepted (3 in an earlier run)');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // Printed without --yes, so that the plan is shown and asked; a person confirms.
    expect(payAgain).not.toContain('--yes');
    const newId = payAgain[payAgain.indexOf('--batch-id') + 1]!;
    expect(newId.toLowerCase()).not.toBe(sent.toLowerCase());
    // Never a batch id sent before: the cases before paid their december.csv under
    // december-<today> (from another folder, the same accounts and amounts to other names):
    // under that id these rows would be refused as its rows, changed (changed-rows.ts), and
    // the command below would not pay as printed.
    const paid = await payctl([...payAgain, '--yes'], { dir: setup.dir });
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stderr).toContain(`Batch "${newId}": 3 payouts to send`);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(3);
  });

  it("the resume printed carries that batch's --report and --concurrency, not this run's: pasted, its outcome stays in its one report", async () => {
    const rows = batchRows(3, setup.sleWallet, `slip-options-${Date.now()}`);
    for (const row of rows) delete row.payout_id;
    const file = writeFile(setup.work.file('january.csv'), toCsv(rows));
    const report = setup.work.file("rep jan's.csv");
    const first = await payctl(['payout', 'batch', file, '--batch-id', 'Jan-2031', '--concurrency', '3', '--report', report, '--yes'], { dir: setup.dir });
    expect(first.code, first.stderr).toBe(0);
    const before = readFileSync(report, 'utf8');
    const from = ctx.sb.requests().length;

    const r = await payctl(['payout', 'batch', file, '--batch-id', 'jan_2031', '--yes'], { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    const resume = printed(r.stderr, 'payout batch');
    expect(resume).toEqual(['payout', 'batch', file, '--batch-id', 'Jan-2031', '--concurrency', '3', '--report', report, '--yes']);
    const resumed = await payctl(resume, { dir: setup.dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('3 accepted (3 in an earlier run)');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    // The batch's one report, written again; none beside the file.
    expect(readdirSync(setup.work.dir).sort()).toEqual(['january.csv', "rep jan's.csv"]);
    expect(readFileSync(report, 'utf8').split('\n')[0]).toBe(before.split('\n')[0]);
  });

  it('a batch sent from another file: the resume names the report beside that file', async () => {
    const rows = batchRows(2, setup.sleWallet, `slip-file-${Date.now()}`);
    for (const row of rows) delete row.payout_id;
    mkdirSync(setup.work.file('a'));
    mkdirSync(setup.work.file('b'));
    const sent = writeFile(setup.work.file('a/feb.csv'), toCsv(rows));
    const copy = setup.work.file('b/feb (1).csv');
    copyFileSync(sent, copy);
    expect((await payctl(['payout', 'batch', sent, '--batch-id', 'Feb-2031', '--yes'], { dir: setup.dir })).code).toBe(0);
    const from = ctx.sb.requests().length;

    const r = await payctl(['payout', 'batch', copy, '--batch-id', 'FEB-2031', '--yes'], { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    const resume = printed(r.stderr, 'payout batch');
    expect(resume).toEqual(['payout', 'batch', copy, '--batch-id', 'Feb-2031', '--report', setup.work.file('a/feb.report.csv'), '--yes']);
    const resumed = await payctl(resume, { dir: setup.dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(readdirSync(setup.work.file('b'))).toEqual(['feb (1).csv']);
  });

  it('a name that differs in more than letter case is a new batch: its rows paid again, after the plan names the earlier run', async () => {
    const rows = batchRows(2, setup.sleWallet, `other-name-new-${Date.now()}`);
    for (const row of rows) delete row.payout_id;
    const file = writeFile(setup.work.file('november.csv'), toCsv(rows));
    expect((await payctl(['payout', 'batch', file, '--batch-id', 'nov-2026', '--yes'], { dir: setup.dir })).code).toBe(0);
    const from = ctx.sb.requests().length;
    const r = await payctl(['payout', 'batch', file, '--batch-id', 'nov-2026-b', '--yes'], { dir: setup.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('batch "nov-2026-b" pays them again as new payouts');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
  });

  it('a file given as a descriptor (/dev/stdin < payroll.csv, /proc/self/fd/N) is named by its own path: the report beside it, the printed commands runnable', async () => {
    const tag = `descriptor-${Date.now()}`;
    const rows = withOwnPayees(batchRows(2, setup.sleWallet, tag), tag);
    for (const row of rows) delete row.payout_id;
    const file = writeFile(setup.work.file('payroll.csv'), toCsv(rows));
    const fd = openSync(file, 'r');
    try {
      const r = await payctl(['payout', 'batch', `/proc/self/fd/${fd}`, '--yes'], { dir: setup.dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`Batch "default": 2 payouts to send from /proc/self/fd/${fd}:`);
      expect(r.stderr).toContain(`Report: ${setup.work.file('payroll.report.csv')}\n`);
      expect(existsSync(setup.work.file('payroll.report.csv'))).toBe(true);
      // Run again under another name: the earlier run is named by the file, and so is the command to pay again.
      const again = await payctl(['payout', 'batch', `/proc/self/fd/${fd}`, '--yes'], { dir: setup.dir });
      expect(again.stderr).toContain(`accepted earlier in batch "default" from ${file} on `);
      expect(again.stderr).toContain(`give the batch a new name: payctl payout batch ${file} --batch-id payroll-`);
    } finally {
      closeSync(fd);
    }
  });
});
