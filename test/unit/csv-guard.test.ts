/**
 * The formula guard of CSV exports (src/output/csv.ts) and the cells the exports write:
 * plain numbers (a phone number, a signed amount) are left alone; =, @, tab, CR, and + or -
 * followed by anything but a number are neutralized with a leading '. Amounts carry the
 * currency's digits (src/money), in payouts, balances and summary CSV alike.
 */
import { describe, expect, it } from 'vitest';
import { csvCell, csvRow, isFormula } from '../../src/output/csv.js';
import { CSV_HEADER, payoutCsvValues } from '../../src/output/payout.js';
import { SUMMARY_CSV_HEADER, SummaryTally, periodBound, serviceSummaryCsv, summaryCsv } from '../../src/output/summary.js';
import { BALANCES_CSV_HEADER, walletCsvValues } from '../../src/commands/balances.js';
import { payoutRecordSchema, recordStatus, summarySchema, walletSchema } from '../../src/service/schemas.js';

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
  // The documented look-up record, as the list carries it (with the wallet id, no payout id).
  // The schema refuses a currency that is no three-letter code, and a transaction id with a
  // character that is not printable ASCII (service/schemas.ts); such fields are set after it, so
  // the CSV's own neutralizing is still what is tested.
  const record = ({ currency, transaction_id, ...over }: Record<string, unknown>) => {
    const r = parsed(over);
    if (typeof currency === 'string') r.currency = currency;
    if (typeof transaction_id === 'string') r.transaction_id = transaction_id;
    return r;
  };
  const parsed = (over: Record<string, unknown>) =>
    payoutRecordSchema.parse({
      transaction_id: 'TXN-BOK-FF051A7F00A49EB6AF225D10EA',
      wallet_id: '5564222970',
      status: 'successful',
      amount: '100.00',
      fee: '1.00',
      total_amount: '101.00',
      currency: 'SLE',
      created_at: '2026-11-21T10:15:30.123456Z',
      recipient: { transfer_type: 'wallet', account_number: '076000001', name: 'A', bank: 'ORANGE_MONEY' },
      description: 'October stipend',
      ...over,
    });

  it.each([
    [100, 1, 'SLE', '100.00', '1.00'],
    ['1,000.00', '5.00', 'SLE', '1000.00', '5.00'],
    ['1,234,567.5', '12,345.68', 'NGN', '1234567.50', '12345.68'],
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

  it('a row with the account number as it is', () => {
    expect(csvRow(payoutCsvValues(record({})))).toBe(
      '2026-11-21T10:15:30.123456Z,TXN-BOK-FF051A7F00A49EB6AF225D10EA,,5564222970,Successful,100.00,1.00,SLE,wallet,A,ORANGE_MONEY,076000001,,October stipend,\r\n',
    );
  });

  it("a phone number in the create body's names as it is", () => {
    const r = record({ recipient: { type: 'wallet', accountDetails: { name: 'A', provider: 'orange_money', accountNumber: '076000001', phoneNumber: '+23276000001' } } });
    expect(csvRow(payoutCsvValues(r))).toContain(',wallet,A,orange_money,076000001,+23276000001,October stipend,\r\n');
  });

  it.each([
    ['=1+1', "'=1+1"],
    ['+SUM(A1)', "'+SUM(A1)"],
    ['-A1', "'-A1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1+1', "'=1+1"],
  ])('every service text cell neutralized: %j -> %j', (v, out) => {
    const r = record({
      transaction_id: v,
      wallet_id: v,
      status: v,
      currency: v,
      description: v,
      failure_reason: v,
      recipient: { transfer_type: v, account_number: v, name: v, bank: v },
    });
    const cells = csvRow(payoutCsvValues(r)).slice(0, -2).split(',');
    // Every cell but the time, the empty payout id and phone, and the amounts.
    for (const i of [1, 3, 7, 8, 9, 10, 11, 13, 14]) expect(cells[i], CSV_HEADER[i]).toBe(out);
    // The status, a word payctl does not know, is written trimmed (service/status-words.ts): neutralized too.
    expect(cells[4], 'status').toBe(`'${v.trim()}`);
    // Such a currency never comes out of the schema.
    expect(payoutRecordSchema.safeParse({ ...parsed({}), currency: v }).success).toBe(false);
  });
});

describe('balances CSV cells', () => {
  it('the balance exact with the currency digits, the name neutralized', () => {
    const w = walletSchema.parse({ wallet_id: 5564222970, wallet_name: '@evil', currency: 'KWD', balance: 9876.5, updated_at: '2026-11-21T10:15:30Z' });
    expect(BALANCES_CSV_HEADER).toEqual(['wallet_id', 'wallet_name', 'currency', 'balance', 'updated_at']);
    expect(csvRow(walletCsvValues(w))).toBe("5564222970,'@evil,KWD,9876.500,2026-11-21T10:15:30Z\r\n");
  });
});

describe('summary CSV', () => {
  const tally = (records: Array<Record<string, unknown>>) => {
    const t = new SummaryTally();
    for (const d of records) {
      const r = payoutRecordSchema.parse(d);
      t.listed++;
      t.add(r, recordStatus(r));
    }
    return t.result({});
  };

  it('computed: a header, then one row per currency and status; amounts exact; service text neutralized', () => {
    const c = tally([
      { transaction_id: 'T1', currency: 'SLE', status: 'successful', amount: '1,000.25', fee: '5.00' },
      { transaction_id: 'T2', currency: 'SLE', status: 'Successful', amount: '500.25' },
      { transaction_id: 'T3', currency: 'SLE', status: 'pending', amount: '500' },
      { transaction_id: 'T4', currency: 'JPY', status: '=HYPERLINK("x")', amount: '1,234,567' },
      { transaction_id: 'T5', currency: 'NGN', status: '@SUM(A1)', amount: 0.1 },
      { transaction_id: 'T6', currency: 'ngn ', status: '@SUM(A1)', amount: 0.2 },
    ]);
    expect(SUMMARY_CSV_HEADER).toEqual(['currency', 'status', 'count', 'amount']);
    expect(summaryCsv(c)).toBe(
      ['currency,status,count,amount', `JPY,"'=HYPERLINK(""x"")",1,1234567`, "NGN,'@SUM(A1),2,0.30", 'SLE,Successful,2,1500.50', 'SLE,Pending,1,500.00', ''].join('\r\n'),
    );
  });

  it("the service's summary: figure,value rows, total_sent exact and plain, an extra field's name and value neutralized", () => {
    const s = summarySchema.parse({ total_transfers: 38, successful: 2, total_sent: '7,281.78', '=cmd|x': '-2+3+cmd', '@SUM(A1)': 7 });
    expect(serviceSummaryCsv(s)).toBe(['figure,value', 'total_transfers,38', 'successful,2', 'total_sent,7281.78', "'=cmd|x,'-2+3+cmd", "'@SUM(A1),7", ''].join('\r\n'));
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
