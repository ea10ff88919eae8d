import { describe, expect, it } from 'vitest';
import { CSV_HEADER, money, payoutCsvValues, payoutRow, totalDebited } from '../../src/output/payout.js';
import { payoutRecordSchema, type PayoutRecord } from '../../src/api/schemas.js';
import { csvRow } from '../../src/output/csv.js';
import { makeStyle } from '../../src/output/style.js';

describe('totalDebited', () => {
  it.each([
    [1500.5, 15.01, 'SLE', '1,515.51'],
    [0.1, 0.2, 'SLE', '0.30'],
    [0.1, 0.2, 'NGN', '0.30'],
    ['1500.50', '15.01', 'SLE', '1,515.51'],
    [1500, 15, 'JPY', '1,515'],
    [1.5, 0.125, 'KWD', '1.625'],
    [999999.99, 0.01, 'NGN', '1,000,000.00'],
    [123456789012.34, 0.66, 'NGN', '123,456,789,013.00'],
    [1500.5, 0, 'SLE', '1,500.50'],
  ])('%s + %s %s = %s', (amount, fee, currency, out) => {
    expect(totalDebited(amount, fee, currency)).toBe(out);
  });

  it('keeps extra decimals the service sent instead of rounding them away', () => {
    expect(totalDebited(1.005, 0.001, 'SLE')).toBe('1.006');
    expect(totalDebited(100, 0.5, 'JPY')).toBe('100.5');
  });

  it('is undefined when the fee is unknown', () => {
    expect(totalDebited(1500.5, undefined, 'SLE')).toBeUndefined();
    expect(totalDebited(1500.5, null, 'SLE')).toBeUndefined();
  });
});

describe('money', () => {
  it('formats an amount with its currency', () => {
    expect(money(1500.5, 'SLE')).toBe('1,500.50 SLE');
    expect(money('0.30', 'NGN')).toBe('0.30 NGN');
    expect(money(null, 'SLE')).toBe('');
    expect(money(undefined, 'SLE')).toBe('');
  });
});

const RECORD: PayoutRecord = payoutRecordSchema.parse({
  transaction_id: 'TRX0123456789ABCDEF0123',
  payout_id: 'p-1',
  wallet_id: 'wal_1',
  amount: 1500.5,
  fee: 15.01,
  currency: 'SLE',
  status: 'Pending',
  failure_reason: null,
  recipient: {
    type: 'wallet',
    accountDetails: { name: 'Aminata Kamara', provider: 'orange_money', accountNumber: '076123456', phoneNumber: '+23276123456', note: 'October stipend' },
  },
  provider_response: { status: 'Pending', provider: 'ORANGE_MONEY' },
  created_at: '2026-11-21T10:15:30.123456Z',
});

describe('payoutCsvValues', () => {
  it("gives one value per header column, amounts as exact decimals with the currency's digits, without grouping", () => {
    const values = payoutCsvValues(RECORD);
    expect(values).toHaveLength(CSV_HEADER.length);
    expect(values).toEqual([
      '2026-11-21T10:15:30.123456Z',
      'TRX0123456789ABCDEF0123',
      'p-1',
      'wal_1',
      'Pending',
      '1500.50',
      '15.01',
      'SLE',
      'wallet',
      'Aminata Kamara',
      'orange_money',
      '076123456',
      '+23276123456',
      'October stipend',
      null,
    ]);
  });

  it('writes a CSV row with the phone number as it is (a plain +number is no formula)', () => {
    expect(csvRow(payoutCsvValues(RECORD))).toBe(
      '2026-11-21T10:15:30.123456Z,TRX0123456789ABCDEF0123,p-1,wal_1,Pending,1500.50,15.01,SLE,wallet,Aminata Kamara,orange_money,076123456,+23276123456,October stipend,\r\n',
    );
  });

  it('still neutralizes a phone field that is a formula', () => {
    const r = payoutRecordSchema.parse({
      ...RECORD,
      recipient: { type: 'wallet', accountDetails: { name: 'A', phoneNumber: "+232+cmd|' /C calc'!A0" } },
    });
    expect(csvRow(payoutCsvValues(r))).toContain(",'+232+cmd|' /C calc'!A0,");
  });

  it('expands exponent amounts and leaves an unknown fee empty', () => {
    const r = payoutRecordSchema.parse({ amount: 1e21, fee: null, currency: 'NGN', status: undefined, provider_response: { status: 'Failed', provider: 'MTN' } });
    const values = payoutCsvValues(r);
    expect(values[4]).toBe('Failed');
    expect(values[5]).toBe('1000000000000000000000.00');
    expect(values[6]).toBe('');
    expect(values[10]).toBe('MTN');
  });

  it('neutralizes a formula in service text', () => {
    const r = payoutRecordSchema.parse({ ...RECORD, recipient: { type: 'bank', accountDetails: { name: '=HYPERLINK("http://evil")' } } });
    expect(csvRow(payoutCsvValues(r))).toContain(`"'=HYPERLINK(""http://evil"")"`);
  });
});

describe('payoutRow', () => {
  it('shows a list row in UTC with sanitized text', () => {
    const r = payoutRecordSchema.parse({ ...RECORD, recipient: { accountDetails: { name: 'Ami\x1b[2Jnata\n' } } });
    expect(payoutRow(r, makeStyle(false))).toEqual(['2026-11-21 10:15:30', 'TRX0123456789ABCDEF0123', 'p-1', 'Aminata ', '1,500.50 SLE', 'Pending']);
  });
});
