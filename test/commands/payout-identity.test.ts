/**
 * Payout identity (docs/architecture.md, "Identity"): a batch row without a payout_id is identified by
 * what it pays and its batch id, never by the file name or row position. Reversed,
 * copied and re-saved files resume and pay nobody twice; a new --batch-id pays again
 * after naming the earlier run; identical rows need --allow-duplicates; a single payout
 * typed twice needs --allow-repeat. Also: reports that cannot be written, rows whose
 * wallet is unknown or in another currency, and amounts with more significant digits
 * than a JSON number carries. Derived ids are version 5 UUIDs, and a batch an earlier
 * version journaled under `b-` ids resumes under them. In process (payctl's main) against
 * the sandbox over real HTTP; the report left by a run killed with SIGKILL is in
 * test/e2e/payout-identity.test.ts.
 */
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts, postedPayoutId, writeFile } from '../helpers/batch.js';
import { checkBatch, identifiedRows, openBatch, type IdentifiedRow } from '../../src/payouts/batch-load.js';
import { derivedPayoutId, legacyDerivedPayoutId } from '../../src/payouts/identity.js';
import { Journal, type JournalEntry } from '../../src/payouts/journal.js';
import { payoutBody } from '../../src/payouts/request.js';
import { readPlan } from '../../src/plans/plan.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';

const ctx = useSandbox();
const REPORT_HEADER = 'row,payout_id,outcome,code,message,transaction_id,fee,earlier_run';
/** A derived payout id: a name-based UUID, version 5. */
const DERIVED = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const WHEN = String.raw`(?:on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC|between \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC and \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC)`;

const setup = useBatchFolders(ctx, writeLoggedIn);

afterEach(() => {
  ctx.sb.faults.clear();
});

let seq = 0;
/** A tag no other test (or earlier run of this file against the same journal) uses. */
const uniq = (): string => `${Date.now().toString(36)}${(seq++).toString(36)}`;

const batch = (args: string[]): Promise<Run> => payctl(['payout', 'batch', ...args], { dir: setup.dir });
const create = (args: string[], clock?: TestClock): Promise<Run> => payctl(['payout', 'create', ...args], { dir: setup.dir, ...(clock ? { clock } : {}) });

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Rows without payout_id: `n` wallet payouts from `walletId`, every one different; row 0 pays `100`. */
function plainRows(n: number, walletId: string, tag: string, currency = 'SLE'): Array<Record<string, string>> {
  return Array.from({ length: n }, (_, i) => ({
    wallet_id: walletId,
    amount: i === 0 ? '100' : `${20 + i}.${String((i * 7) % 100).padStart(2, '0')}`,
    currency,
    type: 'wallet',
    name: `Payee ${i + 1} ${tag}`,
    provider: 'orange_money',
    account_number: `0770${String(i + 1).padStart(5, '0')}`,
    phone_number: `+232770${String(i + 1).padStart(5, '0')}`,
    note: `identity ${tag}`,
    'metadata.run': tag,
  }));
}

const COLS = ['wallet_id', 'amount', 'currency', 'type', 'name', 'provider', 'account_number', 'phone_number', 'note', 'metadata.run'];

/** CSV without a payout_id column, with the given line end. */
function csv(rows: Array<Record<string, string>>, eol = '\n'): string {
  const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return [COLS.join(','), ...rows.map((r) => COLS.map((c) => cell(r[c] ?? '')).join(','))].join(eol) + eol;
}

/** Report lines (the header checked: the usual columns first). */
function reportLines(path: string): Array<Record<string, string>> {
  const text = readFileSync(path, 'utf8');
  expect(text.split(/\r?\n/)[0]!.startsWith(REPORT_HEADER), text.split(/\r?\n/)[0]).toBe(true);
  return parse<Record<string, string>>(text, { columns: true, skip_empty_lines: true });
}

function heldFor(sb: Sandbox, walletId: string) {
  return sb.payouts().filter((p) => p.wallet_id === walletId);
}

function noPosts(sb: Sandbox, from = 0): void {
  expect(payoutPosts(sb, from).map((p) => `${p.method} ${p.path} ${p.outcome}`)).toEqual([]);
}

describe('a batch row is the payout it pays: sorted, copied or re-saved files resume', () => {
  it('20 rows sent, then reversed, copied under another name, re-saved with CRLF and 100.00: 20 payouts; a new --batch-id pays them again (40) and names the earlier run', async () => {
    const sb = ctx.sb;
    const tag = uniq();
    const wal = freshWallet(sb, '90000000.00', 'SLE');
    const rows = plainRows(20, wal, tag);
    expect(rows[0]!.amount).toBe('100');
    const pay = writeFile(setup.work.file('pay.csv'), csv(rows));

    // 1. The file as first sent.
    const first = await batch([pay, '--yes']);
    expect(first.stderr).toContain(`Batch "default": 20 payouts to send from ${pay}:`);
    expect(first.stderr).toContain('20 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expect(first.code, first.stderr).toBe(0);
    expect(heldFor(sb, wal)).toHaveLength(20);
    const report = reportLines(setup.work.file('pay.report.csv'));
    expect(report).toHaveLength(20);
    const ids = report.map((l) => l.payout_id!);
    for (const id of ids) expect(id).toMatch(DERIVED);
    expect(new Set(ids).size).toBe(20);
    expect(
      heldFor(sb, wal)
        .map((p) => p.payout_id)
        .sort(),
    ).toEqual([...ids].sort());
    // The row of `100` paid 100.00.
    const hundred = heldFor(sb, wal).filter((p) => p.amount_minor === 10000n);
    expect(hundred).toHaveLength(1);

    const resumes = (r: Run, shown: string) => {
      expect(r.stderr).toMatch(new RegExp(`Note: 20 rows were accepted earlier in batch "default" from ${escape(pay)} ${WHEN}; they are not sent again\\.`));
      expect(r.stderr).toContain(`Nothing to send: every row of ${shown} was accepted earlier (batch "default").`);
      expect(r.code, r.stderr).toBe(0);
    };

    // 2. The same rows reversed, same file name.
    let from = sb.requests().length;
    writeFile(pay, csv([...rows].reverse()));
    const reversed = await batch([pay, '--yes']);
    resumes(reversed, pay);
    noPosts(sb, from);
    expect(heldFor(sb, wal)).toHaveLength(20);

    // 3. A copy under another name.
    const copy = setup.work.file('pay (copy).csv');
    copyFileSync(pay, copy);
    from = sb.requests().length;
    const copied = await batch([copy, '--yes']);
    resumes(copied, copy);
    noPosts(sb, from);
    expect(heldFor(sb, wal)).toHaveLength(20);

    // 4. Re-saved by a spreadsheet: CRLF line ends, 100.00 for 100, yet another name.
    const resavedRows = rows.map((r) => (r.amount === '100' ? { ...r, amount: '100.00' } : r));
    const resavedText = csv(resavedRows, '\r\n');
    expect(resavedText).toContain(',100.00,');
    expect(resavedText).toContain('\r\n');
    const resaved = writeFile(setup.work.file('pay-resaved.csv'), resavedText);
    from = sb.requests().length;
    const again = await batch([resaved, '--yes']);
    resumes(again, resaved);
    noPosts(sb, from);
    expect(heldFor(sb, wal)).toHaveLength(20);

    // 5. The same rows as a new batch: paid again as 20 new payouts, after naming the earlier run.
    from = sb.requests().length;
    const fresh = await batch([resaved, '--batch-id', 'NEW', '--yes']);
    expect(fresh.stderr).toContain(`Batch "NEW": 20 payouts to send from ${resaved}:`);
    expect(fresh.stderr).toMatch(
      new RegExp(`Note: 20 rows pay the same as payouts sent in batch "default" from ${escape(pay)} ${WHEN}; batch "NEW" pays them again as new payouts\\.`),
    );
    // The note comes in the plan, before anything is sent.
    expect(fresh.stderr.indexOf('batch "NEW" pays them again')).toBeLessThan(fresh.stderr.indexOf('20 accepted'));
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(payoutPosts(sb, from)).toHaveLength(20);
    const all = heldFor(sb, wal);
    expect(all).toHaveLength(40);
    expect(new Set(all.map((p) => p.payout_id)).size).toBe(40);
    const newIds = payoutPosts(sb, from).map(postedPayoutId);
    for (const id of newIds) {
      expect(id).toMatch(DERIVED);
      expect(ids).not.toContain(id);
    }
    expect(all.filter((p) => p.amount_minor === 10000n)).toHaveLength(2);
  }, 40_000);

  it('two identical rows: exit 2 and nothing sent without a terminal; --allow-duplicates --yes sends both (and a rerun sends nothing new)', async () => {
    const sb = ctx.sb;
    const tag = uniq();
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const rows = plainRows(5, wal, tag);
    rows[3] = { ...rows[2]! }; // spreadsheet rows 4 and 5 (the header is row 1)
    const file = writeFile(setup.work.file('dups.csv'), csv(rows));

    const r = await batch([file, '--yes']);
    expect(r.stderr).toContain('1 group of identical rows. Nothing was sent.');
    expect(r.stderr).toContain('rows 4 and 5 are identical');
    expect(r.code, r.stderr).toBe(2);
    noPosts(sb);
    expect(heldFor(sb, wal)).toHaveLength(0);

    const ok = await batch([file, '--allow-duplicates', '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(payoutPosts(sb)).toHaveLength(5);
    const held = heldFor(sb, wal);
    expect(held).toHaveLength(5);
    const dupMinor = BigInt(rows[2]!.amount!.replace('.', ''));
    expect(held.filter((p) => p.amount_minor === dupMinor && p.recipient.accountDetails.name === rows[2]!.name)).toHaveLength(2);

    const from = sb.requests().length;
    const rerun = await batch([file, '--allow-duplicates', '--yes']);
    expect(rerun.code, rerun.stderr).toBe(0);
    noPosts(sb, from);
    expect(heldFor(sb, wal)).toHaveLength(5);
  });
});

describe('a batch sent by the previous version, under its b- ids, resumes under them', () => {
  /** The rows of a file as payctl identifies them (fingerprint, occurrence). */
  async function identify(path: string, batchId: string): Promise<IdentifiedRow[]> {
    const src = openBatch(path, batchId);
    const rows: IdentifiedRow[] = [];
    for await (const r of identifiedRows(src, [], await checkBatch(src))) rows.push(r);
    return rows;
  }

  it('rows it accepted are not sent again, a row it left unanswered is resent under its old id and key, and plan create keeps both', async () => {
    const sb = ctx.sb;
    const tag = uniq();
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const pay = writeFile(setup.work.file('old.csv'), csv(plainRows(4, wal, tag)));
    const rows = await identify(pay, 'default');
    // The journal as the previous version left it: rows 2 and 3 accepted, row 4 journaled, its answer lost.
    const journal = new Journal(setup.dir);
    const old: JournalEntry[] = [];
    for (const r of rows.slice(0, 3)) {
      const payoutId = legacyDerivedPayoutId('default', r.fingerprint, r.occurrence);
      const e = await journal.begin({
        baseUrl: sb.baseUrl,
        payoutId,
        body: payoutBody({ ...r.request, payoutId }),
        now: new Date(),
        origin: { batch: { id: 'default', file: openBatch(pay, 'default').file, row: r.row }, fingerprint: r.fingerprint },
      });
      if (r.row < 4) await journal.record(e, { kind: 'accepted', status: 201, transactionId: `TXN-OLD-${r.row}`, fee: '1.00', replayed: false, at: e.createdAt });
      old.push(e);
    }

    const run = await batch([pay, '--yes']);
    expect(run.stderr).toMatch(/Note: 2 rows were accepted earlier in batch "default"/);
    // Two requests: the unanswered row (its old id, body and key) and the row never sent (a v5 id).
    const posts = payoutPosts(sb);
    expect(posts.map(postedPayoutId)).toEqual(expect.arrayContaining([old[2]!.payoutId, derivedPayoutId('default', rows[3]!.fingerprint, 0)]));
    expect(posts).toHaveLength(2);
    const resent = posts.find((p) => postedPayoutId(p) === old[2]!.payoutId)!;
    expect(resent.headers['idempotency-key']).toBe(old[2]!.idempotencyKey);
    expect(resent.body).toBe(old[2]!.body);
    // Nobody paid twice: at most one payout per row at the service, none for the rows accepted before.
    expect(heldFor(sb, wal).length).toBeLessThanOrEqual(2);
    for (const id of old.slice(0, 2).map((e) => e.payoutId)) expect(heldFor(sb, wal).map((p) => p.payout_id)).not.toContain(id);
    const report = reportLines(setup.work.file('old.report.csv'));
    expect(report.map((l) => [l.row, l.payout_id, l.earlier_run])).toEqual(
      expect.arrayContaining([
        ['2', old[0]!.payoutId, 'yes'],
        ['3', old[1]!.payoutId, 'yes'],
      ]),
    );

    // A plan of the same file: the old ids and keys where the journal has them.
    const keys = await payctl(['keys', 'create', '--name', 'Maker'], { dir: setup.dir });
    expect(keys.code, keys.stderr).toBe(0);
    const made = await payctl(['plan', 'create', pay], { dir: setup.dir });
    expect(made.code, made.stderr).toBe(0);
    const { plan } = readPlan(pay.replace(/\.csv$/, '.plan.json'));
    expect(plan.payouts.map((p) => [p.payout_id, p.idempotency_key])).toEqual([
      ...old.map((e) => [e.payoutId, e.idempotencyKey]),
      [
        derivedPayoutId('default', rows[3]!.fingerprint, 0),
        (await new Journal(setup.dir).get(sb.baseUrl, derivedPayoutId('default', rows[3]!.fingerprint, 0)))!.idempotencyKey,
      ],
    ]);
  });
});

describe('payout create: the same payout typed again', () => {
  it('without --payout-id, same wallet/account/amount/currency within 24 h: exit 2 and nothing sent without a terminal; --allow-repeat sends it', async () => {
    const sb = ctx.sb;
    const tag = uniq();
    const wal = freshWallet(sb, '10000.00', 'SLE');
    const args = [
      '--wallet',
      wal,
      '--amount',
      '321.50',
      '--currency',
      'SLE',
      '--type',
      'wallet',
      '--name',
      `Fatmata ${tag}`,
      '--provider',
      'orange_money',
      '--account',
      '076555123',
      '--phone',
      '+23276555123',
      '--yes',
    ];
    const first = await create(args);
    expect(first.code, first.stderr).toBe(0);
    expect(heldFor(sb, wal)).toHaveLength(1);

    let from = sb.requests().length;
    const second = await create(args);
    expect(second.stderr).toContain('This payout repeats one sent from this config folder');
    expect(second.stderr).toContain('add --allow-repeat');
    expect(second.stdout).toBe('');
    expect(second.code, second.stderr).toBe(2);
    noPosts(sb, from);
    expect(heldFor(sb, wal)).toHaveLength(1);

    from = sb.requests().length;
    const third = await create([...args, '--allow-repeat']);
    expect(third.code, third.stderr).toBe(0);
    expect(payoutPosts(sb, from)).toHaveLength(1);
    const held = heldFor(sb, wal);
    expect(held).toHaveLength(2);
    expect(new Set(held.map((p) => p.payout_id)).size).toBe(2);
    expect(held.every((p) => p.amount_minor === 32150n)).toBe(true);
  });

  it('the earlier payout of unknown outcome (its answer lost after the service made it): refused with the reconcile command and no --allow-repeat; --allow-repeat refused too until it is reconciled, then sends it (before: offered and paid twice)', async () => {
    const sb = ctx.sb;
    const tag = uniq();
    const wal = freshWallet(sb, '10000.00', 'SLE');
    const args = [
      '--wallet',
      wal,
      '--amount',
      '12.34',
      '--currency',
      'SLE',
      '--type',
      'bank',
      '--name',
      `Unknown ${tag}`,
      '--provider',
      'ecobank',
      '--account',
      '0765550011',
      '--yes',
    ];
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: 10 });
    const first = await create(args, new TestClock());
    sb.faults.clear();
    expect(first.code, first.stderr).toBe(4);
    expect(heldFor(sb, wal)).toHaveLength(1);

    let from = sb.requests().length;
    const second = await create(args);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toContain('outcome unknown');
    expect(second.stderr).not.toContain('--allow-repeat');
    const reconcile = second.stderr.split('\n').find((l) => l.includes('payctl history reconcile --payout-id'));
    expect(reconcile, second.stderr).toBeDefined();

    const forced = await create([...args, '--allow-repeat']);
    expect(forced.code, forced.stderr).toBe(2);
    expect(forced.stderr).toContain('--allow-repeat sends no payout while');
    noPosts(sb, from);
    expect(heldFor(sb, wal)).toHaveLength(1);

    const settled = await payctl(reconcile!.slice(reconcile!.indexOf('payctl ') + 7).split(' '), { dir: setup.dir });
    expect(settled.code, settled.stderr).toBe(0);
    expect(heldFor(sb, wal)).toHaveLength(1);
    const refusedAgain = await create(args);
    expect(refusedAgain.code, refusedAgain.stderr).toBe(2);
    expect(refusedAgain.stderr).toContain('add --allow-repeat');
    from = sb.requests().length;
    const third = await create([...args, '--allow-repeat']);
    expect(third.code, third.stderr).toBe(0);
    expect(payoutPosts(sb, from)).toHaveLength(1);
    expect(heldFor(sb, wal)).toHaveLength(2);
  });

  it("the same, with the journal's index folder deleted in between: found from the entries, still refused", async () => {
    const sb = ctx.sb;
    const tag = uniq();
    const wal = freshWallet(sb, '10000.00', 'SLE');
    const args = ['--wallet', wal, '--amount', '12.75', '--currency', 'SLE', '--type', 'wallet', '--name', `Abu ${tag}`, '--provider', 'orange_money'];
    const more = ['--account', '076555124', '--phone', '+23276555124', '--yes'];
    const first = await create([...args, ...more]);
    expect(first.code, first.stderr).toBe(0);
    rmSync(join(setup.dir, 'journal', 'index'), { recursive: true });
    const from = sb.requests().length;
    const second = await create([...args, ...more]);
    expect(second.stderr).toContain('This payout repeats one sent from this config folder');
    expect(second.code, second.stderr).toBe(2);
    noPosts(sb, from);
    expect(heldFor(sb, wal)).toHaveLength(1);
  });
});

describe('the report: checked before anything is sent', () => {
  it('--report into a missing folder: exit 2, nothing sent, the input unchanged', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '10000.00', 'SLE');
    const text = csv(plainRows(3, wal, uniq()));
    const file = writeFile(setup.work.file('r.csv'), text);
    const r = await batch([file, '--report', setup.work.file('no-such-folder/r.report.csv'), '--yes']);
    expect(r.stderr).toContain('Cannot write the report. Nothing was sent.');
    expect(r.code, r.stderr).toBe(2);
    noPosts(sb);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(setup.work.file('no-such-folder'))).toBe(false);
    expect(heldFor(sb, wal)).toHaveLength(0);
  });

  it('--report equal to the input file: exit 2, nothing sent, the input byte for byte unchanged', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '10000.00', 'SLE');
    const text = csv(plainRows(3, wal, uniq()), '\r\n');
    const file = writeFile(setup.work.file('same.csv'), text);
    const before = readFileSync(file);
    const r = await batch([file, '--report', file, '--yes']);
    expect(r.stderr).toContain('Cannot write the report. Nothing was sent.');
    expect(r.code, r.stderr).toBe(2);
    noPosts(sb);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(heldFor(sb, wal)).toHaveLength(0);
  });
});

describe('rows checked against the wallets before anything is sent', () => {
  it("an unknown wallet and a currency other than the wallet's: exit 2, nothing sent, rows named; --dry-run exits 2 too", async () => {
    const sb = ctx.sb;
    const tag = uniq();
    const rows = plainRows(3, setup.sleWallet, tag);
    rows[0] = { ...rows[0]!, wallet_id: 'wal_nope' }; // row 2
    rows[1] = { ...rows[1]!, currency: 'NGN' }; // row 3
    const file = writeFile(setup.work.file('wallets.csv'), csv(rows));

    const r = await batch([file, '--yes']);
    expect(r.stderr).toContain('row 2: wallet_id "wal_nope" is not one of your wallets');
    expect(r.stderr).toContain(`row 3: wallet ${setup.sleWallet} holds SLE, not NGN`);
    expect(r.stderr).toContain('Nothing was sent.');
    expect(r.code, r.stderr).toBe(2);
    noPosts(sb);

    const dry = await batch([file, '--dry-run']);
    expect(dry.stderr).toContain('row 2: wallet_id "wal_nope" is not one of your wallets');
    expect(dry.stderr).toContain(`row 3: wallet ${setup.sleWallet} holds SLE, not NGN`);
    expect(dry.code, dry.stderr).toBe(2);
    noPosts(sb);
    expect(existsSync(setup.work.file('wallets.report.csv'))).toBe(false);
  });
});

describe('amounts a JSON number cannot carry exactly', () => {
  it('payout create with 18 significant digits (0 and 2 minor digits): exit 2, nothing sent', async () => {
    const sb = ctx.sb;
    const base = ['--type', 'wallet', '--name', `Big ${uniq()}`, '--provider', 'orange_money', '--account', '076000111', '--phone', '+23276000111', '--yes'];
    const sleWallet = freshWallet(sb, '10000.00', 'SLE');
    const ugxWallet = freshWallet(sb, '10000', 'UGX');
    for (const [wallet, amount, currency] of [
      [sleWallet, '1234567890123456.78', 'SLE'],
      [ugxWallet, '123456789012345678', 'UGX'],
    ] as const) {
      const r = await create(['--wallet', wallet, '--amount', amount, '--currency', currency, ...base]);
      expect(r.stderr, `${amount} ${currency}`).toContain('significant digits');
      expect(r.stdout).toBe('');
      expect(r.code, r.stderr).toBe(2);
    }
    noPosts(sb);
    expect(heldFor(sb, sleWallet)).toHaveLength(0);
    expect(heldFor(sb, ugxWallet)).toHaveLength(0);
  });

  it('the same amount in a batch row: exit 2, nothing sent, the row named', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '10000.00', 'SLE');
    const rows = plainRows(4, wal, uniq());
    rows[1] = { ...rows[1]!, amount: '1234567890123456.78' }; // row 3
    const file = writeFile(setup.work.file('big.csv'), csv(rows));
    const r = await batch([file, '--yes']);
    expect(r.stderr).toMatch(/row 3: .*significant digits/);
    expect(r.stderr).toContain('Nothing was sent.');
    expect(r.code, r.stderr).toBe(2);
    noPosts(sb);
    expect(heldFor(sb, wal)).toHaveLength(0);
  });
});
