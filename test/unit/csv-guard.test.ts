/**
 * The formula guard of CSV exports (src/output/csv.ts) and the cells the exports write:
 * plain numbers (a phone number, a signed amount) are left alone; =, @, tab, CR, and + or -
 * followed by anything but a number are neutralized with a leading '. Amounts carry the
 * currency's digits (src/money), in payouts, balances and summary CSV alike.
 */
import { describe, expect, it } from 'vitest';
import { csvCell, csvRow, isFormula } from '../../src/output/csv.js';
import { payoutCsvValues } from '../../src/output/payout.js';
import { SUMMARY_CSV_HEADER, periodBound, summaryCsv } from '../../src/output/summary.js';
import { BALANCES_CSV_HEADER, walletCsvValues } from '../../src/commands/balances.js';
import { payoutRecordSchema, summarySchema, walletSchema } from '../../src/api/schemas.js';

describe('plain numbers are not formulas', () => {
  it.each(['+23276000001', '+232 76 000 001', '+1', '+1.50', '+0.125', '-5', '-1500.50', '-0.001', '100.00', '0', '23276000002'])('%j is kept as it is', (v) => {
    expect(isFormula(v)).toBe(false);
    expect(csvCell(v)).toBe(v);
  });
});

describe('formulas are neutralized', () => {
  it.each([
    ['=HYPERLINK("http://evil","x")', `"'=HYPERLINK(""http://evil"",""x"")"`],
    ['=1+1', "'=1+1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['+SUM(A1)', "'+SUM(A1)"],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ['+1+1', "'+1+1"],
    ['+1.5.5', "'+1.5.5"],
    ['+1.', "'+1."],
    ['+.5', "'+.5"],
    ['+1e5', "'+1e5"],
    ['-A1', "'-A1"],
    ['-5+cmd', "'-5+cmd"],
    ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
    ['-', "'-"],
    ['+', "'+"],
    ['\t=1', "'\t=1"],
    ['\tx', "'\tx"],
  ])('%j -> %j', (v, out) => {
    expect(isFormula(v)).toBe(true);
    expect(csvCell(v)).toBe(out);
  });

  it('a carriage return in front is removed as a control character, and what follows is checked', () => {
    expect(csvCell('\r=1+1')).toBe("'=1+1");
    expect(csvCell('\r+23276000001')).toBe('+23276000001');
  });

  it('the number test runs on the sanitized text: an escape cannot hide a formula', () => {
    expect(csvCell('+232\x1b]0;x\x07=1')).toBe("'+232=1");
    expect(csvCell('+232\x1b[31m76000001')).toBe('+23276000001');
  });
});

describe('payout CSV cells', () => {
  const record = (over: Record<string, unknown>) =>
    payoutRecordSchema.parse({
      transaction_id: 'TRX1',
      payout_id: 'p-1',
      wallet_id: 'wal_1',
      status: 'Successful',
      amount: 100,
      fee: 1,
      currency: 'SLE',
      created_at: '2026-11-21T10:15:30.123456Z',
      recipient: { type: 'wallet', accountDetails: { name: 'A', provider: 'orange_money', accountNumber: '076000001', phoneNumber: '+23276000001' } },
      ...over,
    });

  it.each([
    [100, 1, 'SLE', '100.00', '1.00'],
    [250.5, 2.51, 'SLE', '250.50', '2.51'],
    ['250.5', '1', 'SLE', '250.50', '1.00'],
    [1500, 15, 'JPY', '1500', '15'],
    [12.5, 0.125, 'KWD', '12.500', '0.125'],
    [1234567.5, 12345.68, 'NGN', '1234567.50', '12345.68'],
  ])('amount %j fee %j %s -> %s, %s', (amount, fee, currency, a, f) => {
    const v = payoutCsvValues(record({ amount, fee, currency }));
    expect([v[5], v[6]]).toEqual([a, f]);
  });

  it('keeps digits beyond the currency exponent rather than rounding them away', () => {
    expect(payoutCsvValues(record({ amount: 1.005 }))[5]).toBe('1.005');
  });

  it('a row with the phone number as it is', () => {
    expect(csvRow(payoutCsvValues(record({})))).toBe(
      '2026-11-21T10:15:30.123456Z,TRX1,p-1,wal_1,Successful,100.00,1.00,SLE,wallet,A,orange_money,076000001,+23276000001,,\r\n',
    );
  });
});

describe('balances CSV cells', () => {
  it('the balance exact with the currency digits, the name neutralized', () => {
    const w = walletSchema.parse({ wallet_id: 'wal_1', wallet_name: '@evil', currency: 'KWD', balance: 9876.5, updated_at: '2026-11-21T10:15:30Z' });
    expect(BALANCES_CSV_HEADER).toEqual(['wallet_id', 'wallet_name', 'currency', 'balance', 'updated_at']);
    expect(csvRow(walletCsvValues(w))).toBe("wal_1,'@evil,KWD,9876.500,2026-11-21T10:15:30Z\r\n");
  });
});

describe('summary CSV', () => {
  it('a header, then one row per currency and status; amounts exact; service text neutralized', () => {
    const s = summarySchema.parse({
      currencies: [
        { currency: 'SLE', count: 3, amount: 2000.5, fee: 20.01, statuses: { Successful: { count: 2, amount: 1500.5 }, Pending: { count: 1, amount: '500' } } },
        { currency: 'JPY', count: 1, amount: 1234567, statuses: { '=HYPERLINK("x")': { count: 1, amount: 1234567 } } },
        { currency: 'KWD', count: 0, amount: 0 },
      ],
    });
    expect(SUMMARY_CSV_HEADER).toEqual(['currency', 'status', 'count', 'amount']);
    expect(summaryCsv(s)).toBe(
      ['currency,status,count,amount', 'SLE,Successful,2,1500.50', 'SLE,Pending,1,500.00', `JPY,"'=HYPERLINK(""x"")",1,1234567`, ''].join('\r\n'),
    );
  });
});

describe('periodBound: the summary header as dates', () => {
  it.each([
    ['2026-11-01T00:00:00.000000Z', false, '2026-11-01'],
    ['2026-11-01T00:00:00Z', false, '2026-11-01'],
    ['2026-11-01T00:00Z', false, '2026-11-01'],
    ['2026-11-30T23:59:59.999999Z', true, '2026-11-30'],
    ['2026-11-30T23:59:59.999Z', true, '2026-11-30'],
    // Not a whole day: the UTC time.
    ['2026-11-30T23:59:59.999999Z', false, '2026-11-30 23:59:59.999999 UTC'],
    ['2026-11-01T00:00:00.000000Z', true, '2026-11-01 00:00:00 UTC'],
    ['2026-11-30T23:59:59Z', true, '2026-11-30 23:59:59 UTC'],
    ['2026-11-01T10:30:00.000000Z', false, '2026-11-01 10:30:00 UTC'],
    ['2026-11-01T10:30:00.250000Z', false, '2026-11-01 10:30:00.25 UTC'],
    // Another offset: shown in UTC.
    ['2026-11-01T10:30:00+01:00', false, '2026-11-01 09:30:00 UTC'],
    // Not a time: as it came, sanitized.
    ['last week', false, 'last week'],
    ['\x1b]0;evil\x07x', false, 'x'],
  ])('%j (end: %s) -> %j', (value, end, out) => {
    expect(periodBound(value, end)).toBe(out);
  });
});
