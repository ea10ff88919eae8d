import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Wallet } from '../../src/service/schemas.js';
import { makeStyle, type Style } from '../../src/output/style.js';
import type { RowOutcome } from '../../src/payouts/batch.js';
import { computePlan, planJson, type PlanGroup } from '../../src/payouts/batch-plan.js';
import { renderPlan } from '../../src/output/batch.js';
import { defaultReportPath, REPORT_COLUMNS, writeReport } from '../../src/payouts/report.js';
import { validatePayout, type PayoutRequest } from '../../src/payouts/request.js';
import { parseAmount } from '../../src/money/amount.js';

const plain = makeStyle(false);

/** A request with any exact amount (validatePayout refuses more than 15 significant digits; the plan sums any). */
function req(walletId: string, amount: string, currency: string): PayoutRequest {
  const r = validatePayout({ walletId, amount: '1', currency, type: 'bank', name: 'A', provider: 'uba', account: '1' });
  if (!r.ok) throw new Error(r.problems.join('; '));
  const a = parseAmount(amount, currency);
  if (!a.ok) throw new Error(a.problem);
  return { ...r.request, amountMinor: a.minor, digits: a.digits, amount: a.decimal };
}

function wallet(wallet_id: string, currency: string, balance: number | string, wallet_name = ''): Wallet {
  return { wallet_id, wallet_name, currency, balance };
}

describe('computePlan', () => {
  it('totals per wallet and currency in exact minor units, in first-seen order', () => {
    const groups = computePlan(
      [req('wal_sle', '1500.50', 'SLE'), req('wal_ngn', '10', 'NGN'), req('wal_sle', '0.30', 'SLE'), req('wal_sle', '7', 'NGN')],
      [wallet('wal_sle', 'SLE', 10000, 'Main SLE'), wallet('wal_ngn', 'NGN', '50.00', 'Naira')],
    );
    expect(groups).toEqual<PlanGroup[]>([
      {
        walletId: 'wal_sle',
        walletName: 'Main SLE',
        currency: 'SLE',
        digits: 2,
        count: 2,
        totalMinor: 150080n,
        balanceMinor: 1000000n,
        currencyMismatch: false,
        short: false,
        missingWallet: false,
      },
      {
        walletId: 'wal_ngn',
        walletName: 'Naira',
        currency: 'NGN',
        digits: 2,
        count: 1,
        totalMinor: 1000n,
        balanceMinor: 5000n,
        currencyMismatch: false,
        short: false,
        missingWallet: false,
      },
      {
        walletId: 'wal_sle',
        walletName: 'Main SLE',
        currency: 'NGN',
        digits: 2,
        count: 1,
        totalMinor: 700n,
        balanceMinor: undefined,
        currencyMismatch: true,
        short: false,
        missingWallet: false,
      },
    ]);
  });

  it('adds decimal amounts exactly: 0.10 + 0.20 equals a balance of 0.3 (a float sum would exceed it)', () => {
    const [g] = computePlan([req('w', '0.10', 'SLE'), req('w', '0.20', 'SLE')], [wallet('w', 'SLE', 0.3)]);
    expect(g).toMatchObject({ totalMinor: 30n, balanceMinor: 30n, short: false });
  });

  it('sums ten payouts of 0.10 to exactly 1.00, and many large ones past float precision', () => {
    const tenths = computePlan(
      Array.from({ length: 10 }, () => req('w', '0.10', 'SLE')),
      [wallet('w', 'SLE', '1.00')],
    );
    expect(tenths[0]).toMatchObject({ count: 10, totalMinor: 100n, short: false });
    const big = computePlan(
      [req('w', '99999999999999.99', 'SLE'), req('w', '99999999999999.99', 'SLE'), req('w', '0.01', 'SLE')],
      [wallet('w', 'SLE', '199999999999999.99')],
    );
    expect(big[0]).toMatchObject({ totalMinor: 19999999999999999n, balanceMinor: 19999999999999999n, short: false });
  });

  it('flags a wallet whose balance is below the total, by one minor unit', () => {
    const [g] = computePlan([req('w', '100.01', 'SLE')], [wallet('w', 'SLE', '100.00')]);
    expect(g).toMatchObject({ totalMinor: 10001n, balanceMinor: 10000n, short: true });
  });

  it("uses each currency's exponent (JPY 0, KWD 3)", () => {
    const groups = computePlan(
      [req('j', '1500', 'JPY'), req('j', '1', 'JPY'), req('k', '0.001', 'KWD'), req('k', '1.5', 'KWD')],
      [wallet('j', 'jpy', 1500), wallet('k', 'KWD', '1.501')],
    );
    expect(groups.map((g) => [g.walletId, g.digits, g.totalMinor, g.balanceMinor, g.short])).toEqual([
      ['j', 0, 1501n, 1500n, true],
      ['k', 3, 1501n, 1501n, false],
    ]);
  });

  it('marks a wallet that is not listed, and a wallet in another currency, without a balance', () => {
    const groups = computePlan([req('nope', '5', 'SLE'), req('usd', '5', 'SLE')], [wallet('usd', 'USD', 1_000_000)]);
    expect(
      groups.map((g) => ({ id: g.walletId, missing: g.missingWallet, mismatch: g.currencyMismatch, balance: g.balanceMinor, short: g.short, name: g.walletName })),
    ).toEqual([
      { id: 'nope', missing: true, mismatch: false, balance: undefined, short: false, name: undefined },
      { id: 'usd', missing: false, mismatch: true, balance: undefined, short: false, name: '' },
    ]);
  });

  it('is empty for no requests', () => {
    expect(computePlan([], [wallet('w', 'SLE', 1)])).toEqual([]);
  });
});

describe('renderPlan', () => {
  const groups = () =>
    computePlan(
      [
        req('wal_sle', '1500.50', 'SLE'),
        req('wal_sle', '0.30', 'SLE'),
        req('wal_ngn', '1000000', 'NGN'),
        req('wal_x', '5', 'SLE'),
        req('wal_usd', '5', 'SLE'),
        req('wal_jpy', '1500', 'JPY'),
      ],
      [
        wallet('wal_sle', 'SLE', 10000, 'Main SLE'),
        wallet('wal_ngn', 'NGN', '999999.99', 'Naira'),
        wallet('wal_usd', 'USD', 50, 'Dollars'),
        wallet('wal_jpy', 'jpy', 1500, 'Yen'),
      ],
    );

  it('draws the table with totals, balances and what is left, then one warning per problem wallet', () => {
    expect(renderPlan(groups(), plain)).toBe(
      [
        'WALLET   NAME      CURRENCY  PAYOUTS         TOTAL     BALANCE  AFTER (before fees)',
        'wal_sle  Main SLE  SLE             2      1,500.80   10,000.00             8,499.20',
        'wal_ngn  Naira     NGN             1  1,000,000.00  999,999.99                -0.01',
        'wal_x              SLE             1          5.00           ?                    ?',
        'wal_usd  Dollars   SLE             1          5.00           ?                    ?',
        'wal_jpy  Yen       JPY             1         1,500       1,500                    0',
        'Warning: wallet wal_ngn would go short: it holds 999,999.99 NGN but the payouts total 1,000,000.00 NGN before fees.',
        'Warning: wallet wal_x is not among your wallets; the service will refuse its payouts.',
        'Warning: wallet wal_usd does not hold SLE; the service will refuse its payouts.',
        // A grand total per currency (the SLE one counts every SLE row, wherever it goes).
        'Total SLE: 1,510.80 in 4 payouts from 3 wallets, before fees.',
        'Total NGN: 1,000,000.00 in 1 payout, before fees.',
        'Total JPY: 1,500 in 1 payout, before fees.',
        "Fees: charged by the service per payout, not known before sending; each accepted payout's fee is in the report.",
        '',
      ].join('\n'),
    );
  });

  it('shows no warning when every wallet can pay', () => {
    const out = renderPlan(computePlan([req('w', '10', 'SLE')], [wallet('w', 'SLE', '10')]), plain);
    expect(out).not.toContain('Warning');
    expect(out.trimEnd().split('\n').at(-1)).toBe("Fees: charged by the service per payout, not known before sending; each accepted payout's fee is in the report.");
  });

  it('colours through the style: the short amount red, warnings yellow, the footnote dim', () => {
    const tag = (name: string) => (t: string) => `<${name}>${t}</${name}>`;
    const style: Style = { bold: tag('b'), dim: tag('d'), red: tag('r'), green: tag('g'), yellow: tag('y') };
    const out = renderPlan(computePlan([req('w', '10', 'SLE'), req('v', '1', 'SLE')], [wallet('w', 'SLE', '9.99'), wallet('v', 'SLE', 5)]), style);
    expect(out).toContain('<r>-0.01</r>');
    expect(out).not.toContain('<r>4.00</r>');
    expect(out).toContain('<y>Warning:</y> wallet w would go short: it holds 9.99 SLE but the payouts total 10.00 SLE before fees.\n');
    expect(out).toContain('<b>WALLET</b>');
    expect(out.endsWith("<d>Fees: charged by the service per payout, not known before sending; each accepted payout's fee is in the report.</d>\n")).toBe(true);
  });

  it('removes escape sequences and bidi controls from wallet names and ids', () => {
    // Neither passes validation in a wallet id; the plan sanitizes what the service says all the same.
    const id = 'w\u202eX';
    const out = renderPlan(computePlan([{ ...req('w', '1', 'SLE'), walletId: id }], [wallet(id, 'SLE', 0, 'Evil\u001b]0;title\u0007\u001b[31mName')]), plain);
    expect(out).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(out).toContain('wX      EvilName');
    expect(out).toContain('Warning: wallet wX would go short');
  });
});

describe('planJson', () => {
  it("gives decimal strings with the currency's digits, null for an unknown balance", () => {
    const groups = computePlan(
      [req('a', '1500.50', 'SLE'), req('a', '0.3', 'SLE'), req('j', '1500', 'JPY'), req('k', '0.001', 'KWD'), req('x', '1', 'SLE')],
      [wallet('a', 'SLE', 1000), wallet('j', 'JPY', 99999), wallet('k', 'KWD', '0')],
    );
    expect(planJson(groups)).toEqual([
      { wallet_id: 'a', currency: 'SLE', count: 2, total: '1500.80', balance: '1000.00', short: true },
      { wallet_id: 'j', currency: 'JPY', count: 1, total: '1500', balance: '99999', short: false },
      { wallet_id: 'k', currency: 'KWD', count: 1, total: '0.001', balance: '0.000', short: true },
      { wallet_id: 'x', currency: 'SLE', count: 1, total: '1.00', balance: null, short: false },
    ]);
  });

  it('is exact past float precision', () => {
    const groups = computePlan([req('a', '12345678901234.56', 'SLE'), req('a', '0.01', 'SLE')], [wallet('a', 'SLE', '12345678901234.57')]);
    expect(planJson(groups)).toEqual([{ wallet_id: 'a', currency: 'SLE', count: 2, total: '12345678901234.57', balance: '12345678901234.57', short: false }]);
  });
});

describe('defaultReportPath', () => {
  it.each([
    ['a/b.csv', 'a/b.report.csv'],
    ['payouts.csv', 'payouts.report.csv'],
    ['/data/oct/payouts.CSV', '/data/oct/payouts.report.csv'],
    ['x.jsonl', 'x.report.jsonl'],
    ['x.ndjson', 'x.report.jsonl'],
    ['x.json', 'x.report.jsonl'],
    ['x.txt', 'x.report.jsonl'],
    ['payouts', 'payouts.report.jsonl'],
    ['dir.v2/payouts', 'dir.v2/payouts.report.jsonl'],
    ['a.b.csv', 'a.b.report.csv'],
  ])('%s -> %s', (input, expected) => {
    expect(defaultReportPath(input)).toBe(expected);
  });
});

describe('writeReport', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payctl-report-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const OUTCOMES: RowOutcome[] = [
    { row: 2, payoutId: 'p-1', outcome: 'accepted', transactionId: 'TRX0123456789ABCDEF0123', fee: '15.01' },
    { row: 3, payoutId: 'p-2', outcome: 'replayed', transactionId: 'TRXAAAAAAAAAAAAAAAAAAAA', fee: '0.00', earlier: true },
    { row: 4, payoutId: 'p-3', outcome: 'rejected', code: 'INSUFFICIENT_FUNDS', message: 'Insufficient funds, top up' },
    { row: 5, payoutId: 'p-4', outcome: 'unknown', message: '=HYPERLINK("http://evil")' },
    { row: 6, payoutId: 'p-5', outcome: 'not sent', code: '+1', message: '@SUM(A1)', fee: '-1.00' },
    { row: 7, payoutId: 'p-6', outcome: 'rejected', message: '\tx \u001b[31mred\u001b[0m "q"\nnext' },
  ];

  it('writes CSV: the header and one line per row, formula cells neutralized', () => {
    const path = join(dir, 'out.report.csv');
    writeReport(path, OUTCOMES);
    expect(REPORT_COLUMNS).toEqual(['row', 'payout_id', 'outcome', 'code', 'message', 'transaction_id', 'fee', 'earlier_run']);
    expect(readFileSync(path, 'utf8')).toBe(
      'row,payout_id,outcome,code,message,transaction_id,fee,earlier_run\r\n' +
        '2,p-1,accepted,,,TRX0123456789ABCDEF0123,15.01,\r\n' +
        '3,p-2,replayed,,,TRXAAAAAAAAAAAAAAAAAAAA,0.00,yes\r\n' +
        '4,p-3,rejected,INSUFFICIENT_FUNDS,"Insufficient funds, top up",,,\r\n' +
        '5,p-4,unknown,,"\'=HYPERLINK(""http://evil"")",,,\r\n' +
        // +1 and -1.00 are plain numbers, no formula (see src/output/csv.ts); @ is neutralized.
        "6,p-5,not sent,+1,'@SUM(A1),,-1.00,\r\n" +
        '7,p-6,rejected,,"\'\tx red ""q""\nnext",,,\r\n',
    );
  });

  it('writes only the header for no rows', () => {
    const path = join(dir, 'r.csv');
    writeReport(path, []);
    expect(readFileSync(path, 'utf8')).toBe('row,payout_id,outcome,code,message,transaction_id,fee,earlier_run\r\n');
  });

  it.each(['r.jsonl', 'r.ndjson', 'r.json', 'R.JSONL'])('writes JSON lines to %s', (name) => {
    const path = join(dir, name);
    writeReport(path, OUTCOMES.slice(0, 4));
    expect(readFileSync(path, 'utf8')).toBe(
      '{"row":2,"payout_id":"p-1","outcome":"accepted","code":null,"message":null,"transaction_id":"TRX0123456789ABCDEF0123","fee":"15.01","earlier_run":false}\n' +
        '{"row":3,"payout_id":"p-2","outcome":"replayed","code":null,"message":null,"transaction_id":"TRXAAAAAAAAAAAAAAAAAAAA","fee":"0.00","earlier_run":true}\n' +
        '{"row":4,"payout_id":"p-3","outcome":"rejected","code":"INSUFFICIENT_FUNDS","message":"Insufficient funds, top up","transaction_id":null,"fee":null,"earlier_run":false}\n' +
        '{"row":5,"payout_id":"p-4","outcome":"unknown","code":null,"message":"=HYPERLINK(\\"http://evil\\")","transaction_id":null,"fee":null,"earlier_run":false}\n',
    );
  });

  it('writes CSV for any other extension', () => {
    const path = join(dir, 'report.txt');
    writeReport(path, OUTCOMES.slice(0, 1));
    expect(readFileSync(path, 'utf8').split('\r\n')[0]).toBe('row,payout_id,outcome,code,message,transaction_id,fee,earlier_run');
  });

  it('replaces an existing report and leaves no temp file behind', () => {
    const path = join(dir, 'r.jsonl');
    writeFileSync(path, 'old content that is much longer than the new report\n'.repeat(20));
    writeReport(path, OUTCOMES.slice(0, 1));
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(2);
    expect(readdirSync(dir)).toEqual(['r.jsonl']);
  });
});
