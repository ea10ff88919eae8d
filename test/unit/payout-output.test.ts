import { describe, expect, it } from 'vitest';
import { CSV_HEADER, money, payoutCsvValues, payoutRow, renderPayoutCard, totalDebited } from '../../src/output/payout.js';
import { payoutRecordSchema, type PayoutRecord } from '../../src/service/schemas.js';
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

/** The documented look-up record, as `GET /payout/list` carries it (the sandbox adds the wallet id; there is no payout id). */
const LISTED = {
  transaction_id: 'TXN-BOK-FF051A7F00A49EB6AF225D10EA',
  wallet_id: '5564222970',
  status: 'successful',
  amount: '1,000.00',
  currency: 'SLE',
  fee: '5.00',
  total_amount: '1,005.00',
  recipient: { transfer_type: 'bank', account_number: '0127500182', name: 'John Doe', bank: 'ECOBANK' },
  description: 'Payment for services',
  created_at: '2026-04-02T15:30:04.000000Z',
  updated_at: '2026-04-02T15:30:04.000000Z',
  provider_reference: 'ORD-79A7C916A37B46BA',
};
const RECORD: PayoutRecord = payoutRecordSchema.parse(LISTED);

/** A record in the create body's names (accountDetails, note, provider_response), with a phone number. */
const CREATED: PayoutRecord = payoutRecordSchema.parse({
  transaction_id: 'TXN-BOK-83BD4FB5EF52C8CB2329510901',
  payout_id: '1de0b5d7-da26-4005-bc25-b3130cd2b3b2',
  wallet_id: 5564222970,
  amount: 1500.5,
  fee: 15.01,
  currency: 'SLE',
  status: 'Pending',
  failure_reason: null,
  recipient: {
    type: 'wallet',
    accountDetails: { name: 'Aminata Kamara', provider: 'orange_money', accountNumber: '076123456', phoneNumber: '+23276123456', note: 'October stipend' },
  },
  provider_response: { status: 'Pending', provider: 'ORANGE_MONEY', orderId: 'ORD-1' },
  created_at: '2026-11-21T10:15:30.123456Z',
});

describe('payoutCsvValues', () => {
  it("gives one value per header column, amounts as exact decimals with the currency's digits, without grouping", () => {
    const values = payoutCsvValues(RECORD);
    expect(values).toHaveLength(CSV_HEADER.length);
    expect(values).toEqual([
      '2026-04-02T15:30:04.000000Z',
      'TXN-BOK-FF051A7F00A49EB6AF225D10EA',
      undefined,
      '5564222970',
      'Successful',
      '1000.00',
      '5.00',
      'SLE',
      'bank',
      'John Doe',
      'ECOBANK',
      '0127500182',
      undefined,
      'Payment for services',
      undefined,
    ]);
  });

  it("reads a record in the create body's names too", () => {
    expect(payoutCsvValues(CREATED)).toEqual([
      '2026-11-21T10:15:30.123456Z',
      'TXN-BOK-83BD4FB5EF52C8CB2329510901',
      '1de0b5d7-da26-4005-bc25-b3130cd2b3b2',
      '5564222970',
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
      undefined,
    ]);
  });

  it.each([
    ['1,000.00', '5.00', 'SLE', '1000.00', '5.00'],
    ['1,234,567.50', '12,345.68', 'NGN', '1234567.50', '12345.68'],
    ['12,500', '0', 'JPY', '12500', '0'],
    ['1,000.125', '0.125', 'KWD', '1000.125', '0.125'],
    ['0.10', '0.20', 'SLE', '0.10', '0.20'],
    [1000, 5, 'SLE', '1000.00', '5.00'],
  ])('grouped amount %j fee %j %s -> %s, %s exactly', (amount, fee, currency, a, f) => {
    const v = payoutCsvValues(payoutRecordSchema.parse({ ...LISTED, amount, fee, currency }));
    expect([v[5], v[6]]).toEqual([a, f]);
  });

  it('writes a CSV row with the phone number as it is (a plain +number is no formula)', () => {
    expect(csvRow(payoutCsvValues(RECORD))).toBe(
      '2026-04-02T15:30:04.000000Z,TXN-BOK-FF051A7F00A49EB6AF225D10EA,,5564222970,Successful,1000.00,5.00,SLE,bank,John Doe,ECOBANK,0127500182,,Payment for services,\r\n',
    );
    expect(csvRow(payoutCsvValues(CREATED))).toBe(
      '2026-11-21T10:15:30.123456Z,TXN-BOK-83BD4FB5EF52C8CB2329510901,1de0b5d7-da26-4005-bc25-b3130cd2b3b2,5564222970,Pending,1500.50,15.01,SLE,wallet,Aminata Kamara,orange_money,076123456,+23276123456,October stipend,\r\n',
    );
  });

  it('still neutralizes a phone field that is a formula', () => {
    const r = payoutRecordSchema.parse({
      ...CREATED,
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

  it('neutralizes a formula in service text: the name, the bank, the description, the wallet id', () => {
    const r = payoutRecordSchema.parse({
      ...LISTED,
      wallet_id: '@SUM(A1)',
      description: '-2+3+cmd',
      recipient: { transfer_type: 'bank', name: '=HYPERLINK("http://evil")', bank: '+cmd', account_number: '\t=1' },
    });
    const row = csvRow(payoutCsvValues(r));
    expect(row).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(row).toContain(",'@SUM(A1),");
    expect(row).toContain(",'+cmd,");
    expect(row).toContain(",'\t=1,");
    expect(row).toContain(",'-2+3+cmd,");
  });
});

describe('payoutRow', () => {
  it('a list row: time in UTC, the transaction and wallet ids, the amount exact, the status normalized', () => {
    expect(payoutRow(RECORD, makeStyle(false))).toEqual([
      '2026-04-02 15:30:04',
      'TXN-BOK-FF051A7F00A49EB6AF225D10EA',
      '5564222970',
      'John Doe',
      '1,000.00 SLE',
      'Successful',
    ]);
  });

  it('shows a list row with sanitized text', () => {
    const r = payoutRecordSchema.parse({ ...LISTED, wallet_id: '556\x1b[2J4222970', recipient: { name: 'Ami\x1b[2Jnata\n' } });
    expect(payoutRow(r, makeStyle(false))).toEqual(['2026-04-02 15:30:04', 'TXN-BOK-FF051A7F00A49EB6AF225D10EA', '5564222970', 'Aminata ', '1,000.00 SLE', 'Successful']);
  });

  it('a record without a wallet id (the look-up) leaves the cell empty', () => {
    const { wallet_id: _, ...lookedUp } = LISTED;
    expect(payoutRow(payoutRecordSchema.parse(lookedUp), makeStyle(false))[2]).toBe('');
  });
});

describe('renderPayoutCard', () => {
  it("the documented look-up: amounts exact, the service's total, the bank, the note and the provider reference", () => {
    const { wallet_id: _, ...lookedUp } = LISTED;
    expect(renderPayoutCard(payoutRecordSchema.parse(lookedUp), makeStyle(false))).toBe(
      [
        'Transaction    TXN-BOK-FF051A7F00A49EB6AF225D10EA',
        'Status         Successful',
        'Amount         1,000.00 SLE',
        'Fee            5.00 SLE',
        'Total debited  1,005.00 SLE',
        'Recipient      John Doe',
        'Type           bank',
        'Bank           ECOBANK',
        'Account        0127500182',
        'Note           Payment for services',
        'Provider ref   ORD-79A7C916A37B46BA',
        'Created        2026-04-02 15:30:04 UTC',
        '',
      ].join('\n'),
    );
  });

  it("without the service's total: amount + fee, exactly", () => {
    const out = renderPayoutCard(payoutRecordSchema.parse({ ...LISTED, amount: '0.10', fee: '0.20', total_amount: undefined }), makeStyle(false));
    expect(out).toContain('Total debited  0.30 SLE\n');
    expect(out).toContain('Wallet         5564222970\n');
  });
});
