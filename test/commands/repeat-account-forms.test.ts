/**
 * The repeat guard with the account written another way (README "Typed twice by mistake"), in
 * process against the sandbox over real HTTP. Before: the repeat key held the account as typed,
 * so `payout create` with `sl12abcd0001` after `SL12ABCD0001`, or `4410-0012-34` after
 * `4410001234`, within 24 hours was a new recipient and paid the person twice without a word
 * (the service takes either form). Now the account is compared without letter case, spaces and
 * dashes (identity.ts comparedAccount): refused (exit 2, nothing sent), the earlier payout named
 * with the account as it wrote it; --allow-repeat sends it. Entries the previous version
 * journaled are still found; a batch resumed, a payout typed after a batch row and a batch
 * after single payouts compare alike. And one file's rows that differ only in how the account
 * is written are duplicates (before: both paid with --yes), each keeping its id and key.
 */
import { describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import type { Run } from '../helpers/e2e.js';
import { payoutPosts, postedPayoutId, readCsvReport, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';
import { payrollRows, useBatchFolders } from '../helpers/batch-fixtures.js';
import { bankPayoutArgs, bankPayoutRequest, heldFrom, previousRepeatKey } from '../helpers/payout-fixtures.js';
import { Journal } from '../../src/payouts/journal.js';
import { checkBatch, identifiedRows, openBatch } from '../../src/payouts/batch-load.js';
import { payoutBody } from '../../src/payouts/request.js';
import { derivedIdempotencyKey, derivedPayoutId, payoutFingerprint } from '../../src/payouts/identity.js';
import { journalBase } from '../../src/payouts/ledger/base-url.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

const create = (args: string[]): Promise<Run> => payctl(args, { dir: setup.dir });

/** A number of `n` digits no other test of this file uses. */
const digits = (n: number): string => String(Math.floor(10 ** (n - 1) + Math.random() * 9 * 10 ** (n - 1)));

describe('payout create: the same payout with its account written another way within 24 h', () => {
  it('in small letters, with dashes or with spaces: refused (exit 2, nothing sent), the earlier payout named with its account as written; --allow-repeat sends it', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const first = await create(bankPayoutArgs(wallet, 'SL12ABCD0001'));
    expect(first.code, first.stderr).toBe(0);
    const [paid] = heldFrom(ctx.sb, wallet);

    let from = ctx.sb.requests().length;
    const lower = await create(bankPayoutArgs(wallet, 'sl12abcd0001'));
    expect(lower.stderr).toContain(`Error: This payout repeats one sent from this config folder less than a minute ago (`);
    expect(lower.stderr).toContain(`with the same wallet, account (written "SL12ABCD0001" there), amount and currency: payout id ${paid!.payout_id}, accepted`);
    expect(lower.stderr).toContain('If it is meant to be paid again, add --allow-repeat.');
    expect(lower.code, lower.stderr).toBe(2);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    const again = await create([...bankPayoutArgs(wallet, 'sl12abcd0001'), '--allow-repeat']);
    expect(again.code, again.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);

    // Digits, then with dashes or spaces (a refused repeat is refused before anything leaves).
    const plain = digits(10);
    from = ctx.sb.requests().length;
    expect((await create(bankPayoutArgs(wallet, plain, 'Rep5'))).code).toBe(0);
    const plainId = postedPayoutId(payoutPosts(ctx.sb, from)[0]!);
    from = ctx.sb.requests().length;
    for (const written of [`${plain.slice(0, 4)}-${plain.slice(4, 8)}-${plain.slice(8)}`, `${plain.slice(0, 4)} ${plain.slice(4, 8)} ${plain.slice(8)}`]) {
      const r = await create(bankPayoutArgs(wallet, written, 'Rep5'));
      expect(r.stderr).toContain(`with the same wallet, account (written "${plain}" there), amount and currency: payout id ${plainId}, accepted`);
      expect(r.code, r.stderr).toBe(2);
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(3);
  });

  it('an entry the previous version journaled: found for a plain-digits account in any form, and for one with dashes typed as it was', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const plain = digits(10);
    const dashed = `${digits(4)}-${digits(4)}-${digits(2)}`;
    // The journal as the previous version left it an hour ago: each entry with its key of the account as typed.
    const journal = new Journal(setup.dir);
    const old = new Map<string, string>();
    for (const account of [plain, dashed]) {
      const r = bankPayoutRequest(wallet, account, 'Old Rep');
      const e = await journal.begin({
        baseUrl: ctx.sb.baseUrl,
        payoutId: r.payoutId,
        body: payoutBody(r),
        randomKey: true,
        now: new Date(Date.now() - 3_600_000),
        origin: { repeatKey: previousRepeatKey(r) },
      });
      await journal.record(e, { kind: 'accepted', status: 201, transactionId: `TXN-OLD-${account}`, fee: '0.00', replayed: false, at: e.createdAt });
      old.set(account, r.payoutId);
    }

    const from = ctx.sb.requests().length;
    for (const [typed, earlier] of [
      [`${plain.slice(0, 3)}-${plain.slice(3)}`, plain],
      [dashed, dashed],
    ] as const) {
      const r = await create(bankPayoutArgs(wallet, typed, 'Old Rep'));
      expect(r.stderr).toContain(`This payout repeats one sent from this config folder 60 minutes ago (`);
      expect(r.stderr).toContain(`payout id ${old.get(earlier)}, accepted, transaction TXN-OLD-${earlier}`);
      expect(r.code, r.stderr).toBe(2);
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});

describe('batch rows and the account written another way', () => {
  /** Each row's account written with a dash after its fourth digit. */
  const dashed = (rows: BatchRow[]) => rows.map((r) => ({ ...r, account_number: `${r.account_number!.slice(0, 4)}-${r.account_number!.slice(4)}` }));

  it('payout create of what a batch row paid, its account typed with dashes: refused, naming the row', async () => {
    const tag = `rowrep${Date.now()}`;
    const [row] = payrollRows(1, setup.sleWallet, tag);
    const file = writeFile(setup.work.file('one.csv'), toCsv([row!]));
    const sent = await payctl(['payout', 'batch', file, '--batch-id', tag, '--yes'], { dir: setup.dir });
    expect(sent.code, sent.stderr).toBe(0);
    const id = readCsvReport(setup.work.file('one.report.csv'))[0]!.payout_id;
    const from = ctx.sb.requests().length;
    const [typed] = dashed([row!]);
    const args = ['--wallet', row!.wallet_id!, '--amount', row!.amount!, '--currency', 'SLE', '--type', 'bank', '--name', row!.name!, '--provider', 'ecobank'];
    const r = await create(['payout', 'create', ...args, '--account', typed!.account_number, '--yes']);
    expect(r.stderr).toContain(`account (written "${row!.account_number}" there), amount and currency: payout id ${id} (row 2 of batch "${tag}" from ${file}), accepted`);
    expect(r.code, r.stderr).toBe(2);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('a run without --batch-id after single payouts of its rows typed with the account written another way: refused (exit 2, nothing sent; plan create too)', async () => {
    const tag = `rowsingle${Date.now()}`;
    const rows = payrollRows(3, setup.sleWallet, tag);
    const [typedDashed] = dashed([rows[0]!]);
    // Row 2's account typed with dashes by hand, row 3's as the file writes it (the file then re-typed with dashes).
    const file = setup.work.file('dec.csv');
    writeFile(file, toCsv([rows[0]!, ...dashed([rows[1]!]), rows[2]!]));
    for (const [row, account] of [
      [rows[0]!, typedDashed!.account_number],
      [rows[1]!, rows[1]!.account_number!],
    ] as const) {
      const cells = ['wallet_id', 'amount', 'currency', 'type', 'name', 'provider'].map((c) => String(row[c]));
      const flags = ['--wallet', '--amount', '--currency', '--type', '--name', '--provider'].flatMap((f, i) => [f, cells[i]!]);
      const single = await create([
        'payout',
        'create',
        ...flags,
        '--account',
        account,
        '--note',
        row.note!,
        '--metadata',
        `employee=${row['metadata.employee']}`,
        '--yes',
      ]);
      expect(single.code, single.stderr).toBe(0);
    }

    const from = ctx.sb.requests().length;
    const r = await payctl(['payout', 'batch', file, '--yes'], { dir: setup.dir });
    expect(r.stderr).toContain(`Error: ${file}: rows 2, 3 pay what was sent as single payouts (payout create) `);
    expect(r.stderr).toContain('those people are paid twice. Nothing was sent.');
    expect(r.code, r.stderr).toBe(2);
    await payctl(['keys', 'create', '--name', 'Mariama Kanu'], { dir: setup.dir });
    const plan = await payctl(['plan', 'create', file], { dir: setup.dir });
    expect(plan.stderr).toContain('rows 2, 3 pay what was sent as single payouts (payout create) ');
    expect(plan.code, plan.stderr).toBe(2);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('a batch the previous version sent today, its accounts written with dashes: a re-saved copy without --batch-id finds its rows by their old keys, refused', async () => {
    const tag = `oldbatch${Date.now()}`;
    const rows = dashed(payrollRows(2, setup.sleWallet, tag));
    const file = writeFile(setup.work.file('old.csv'), toCsv(rows));
    // The journal as the previous version left it: both rows accepted, each with the repeat key of its account as typed.
    const src = openBatch(file, tag);
    const journal = new Journal(setup.dir);
    const ids: string[] = [];
    for await (const r of identifiedRows(src, [], await checkBatch(src))) {
      const origin = { batch: { id: tag, file: src.file, row: r.row }, fingerprint: r.fingerprint, repeatKey: previousRepeatKey(r.request) };
      const e = await journal.begin({ baseUrl: ctx.sb.baseUrl, payoutId: r.request.payoutId, body: payoutBody(r.request), now: new Date(), log: true, origin });
      await journal.record(e, { kind: 'accepted', status: 201, transactionId: `TXN-OLD-${r.row}`, fee: '0.00', replayed: false, at: e.createdAt });
      ids.push(e.payoutId);
    }
    await journal.closeLog();

    // Re-saved by a spreadsheet under another name, its notes reformatted (each row a new identity), sent without its --batch-id.
    const copy = writeFile(setup.work.file('old (1).csv'), toCsv(rows.map((r) => ({ ...r, note: 'Salary 11/30/2026' }))));
    const from = ctx.sb.requests().length;
    const r = await payctl(['payout', 'batch', copy, '--yes'], { dir: setup.dir });
    expect(r.stderr).toContain(`Error: ${copy}: 2 rows pay what batch "${tag}" paid before, their other cells changed since. Nothing was sent.`);
    expect(r.stderr).toContain(
      `  - row 2: note "Salary 11/30/2026" was "Salary 2026-11-30" when payout ${ids[0]} paid the same in batch "${tag}" (its row 2 of ${src.file}, `,
    );
    expect(r.code, r.stderr).toBe(2);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('a named batch resumed with its accounts re-typed with dashes: refused (exit 2, nothing sent), naming the account cell and the payout that paid it', async () => {
    const tag = `acctform${Date.now()}`;
    const rows = payrollRows(2, setup.sleWallet, tag);
    const file = setup.work.file('payroll.csv');
    const first = await payctl(['payout', 'batch', writeFile(file, toCsv(rows)), '--batch-id', tag, '--yes'], { dir: setup.dir });
    expect(first.code, first.stderr).toBe(0);
    const report = readCsvReport(setup.work.file('payroll.report.csv'));
    const from = ctx.sb.requests().length;

    writeFile(file, toCsv(dashed(rows)));
    const r = await payctl(['payout', 'batch', file, '--batch-id', tag, '--yes'], { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Error: ${file}: 2 rows pay what batch "${tag}" paid before, their other cells changed since. Nothing was sent.`);
    dashed(rows).forEach((row, i) => {
      expect(r.stderr).toContain(
        `  - row ${i + 2}: account_number "${row.account_number}" was "${rows[i]!.account_number}" when payout ${report[i]!.payout_id} paid the same in this batch (its row ${i + 2}, `,
      );
    });
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});

describe('one file that pays the same person twice, the account written another way', () => {
  it('payout batch: the rows are duplicates (exit 2, nothing sent); --allow-duplicates sends each under its own id and key, as written; plan create warns', async () => {
    const tag = `twice${Date.now()}`;
    const [a, b] = payrollRows(2, setup.sleWallet, tag);
    const letters = `sl${digits(2)}abcd${digits(4)}`;
    const typed = `${letters.slice(0, 4)}-${letters.slice(4, 8)}-${letters.slice(8)}`.toUpperCase();
    const dashedB = `${b!.account_number!.slice(0, 4)}-${b!.account_number!.slice(4)}`;
    // Rows 2 and 3: small letters, then capitals with dashes. Rows 4 to 6: digits, with a dash, and digits again (identical to row 4).
    const rows = [{ ...a!, account_number: letters }, { ...a!, account_number: typed }, b!, { ...b!, account_number: dashedB }, b!];
    const file = writeFile(setup.work.file('twice.csv'), toCsv(rows));
    const batch = (extra: string[]) => payctl(['payout', 'batch', file, '--batch-id', tag, ...extra], { dir: setup.dir });
    const from = ctx.sb.requests().length;

    const r = await batch(['--yes']);
    expect(r.stderr).toContain(`Error: ${file}: 2 groups of identical rows. Nothing was sent.`);
    expect(r.stderr).toContain(
      `  - rows 2 and 3 are identical but for how the account is written ("${letters}" on row 2, "${typed}" on row 3: one account to the service): 20.00 SLE from ${setup.sleWallet} to Employee ${tag} 1 (ecobank)`,
    );
    expect(r.stderr).toContain(
      `  - rows 4, 5 and 6 are identical but for how the account is written ("${b!.account_number}" on rows 4 and 6, "${dashedB}" on row 5: one account to the service)`,
    );
    expect(r.stderr).toContain('add --allow-duplicates');
    expect(r.code, r.stderr).toBe(2);
    const dry = await batch(['--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { duplicates: number[][] }).duplicates).toEqual([
      [2, 3],
      [4, 5, 6],
    ]);

    // plan create makes the plan of every row, and says which pay the same.
    await payctl(['keys', 'create', '--name', 'Mariama Kanu'], { dir: setup.dir });
    const plan = await payctl(['plan', 'create', file, '--batch-id', tag, '-o', setup.work.file('twice.plan.json')], { dir: setup.dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain('5 payouts');
    expect(plan.stderr).toContain(
      `Warning: Possible duplicates: rows 2 and 3 are identical but for how the account is written ("${letters}" on row 2, "${typed}" on row 3`,
    );
    expect(plan.stderr).toContain('Warning: Possible duplicates: rows 4, 5 and 6 are identical but for how the account is written');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // Sent when meant: each row under the id and key of what it pays as written (rows identical as written told apart by occurrence).
    const ok = await batch(['--allow-duplicates', '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    const posts = payoutPosts(ctx.sb, from);
    const src = openBatch(file, tag);
    const seen = new Map<string, number>();
    const expected: Array<[string, string]> = [];
    for await (const row of identifiedRows(src, [])) {
      const occurrence = seen.get(row.fingerprint) ?? 0;
      seen.set(row.fingerprint, occurrence + 1);
      const id = derivedPayoutId(tag, payoutFingerprint(row.request), occurrence);
      expected.push([id, derivedIdempotencyKey(journalBase(ctx.sb.baseUrl), id, payoutBody({ ...row.request, payoutId: id }))]);
    }
    expect(posts.map((p) => [postedPayoutId(p), p.headers['idempotency-key']]).sort()).toEqual(expected.sort());
    const again = ctx.sb.requests().length;
    expect((await batch(['--allow-duplicates', '--yes'])).code).toBe(0);
    expect(payoutPosts(ctx.sb, again)).toEqual([]);
  });
});
