/** Answers and candidate records are matched to what was sent by amount value, not by how the amount is written. */
import { describe, expect, it } from 'vitest';
import { sameAmount } from '../../src/money/amount.js';
import { checkAnswer } from '../../src/payouts/lookup.js';
import { candidateProblems } from '../../src/payouts/candidate-fields.js';
import type { JournalEntry } from '../../src/payouts/ledger/ledger.js';
import type { PayoutRecord } from '../../src/service/schemas.js';

const body = JSON.stringify({
  payoutId: 'pid-2',
  walletId: '5553881136',
  amount: 10,
  currency: 'SLE',
  recipient: { type: 'bank', accountDetails: { name: 'John Doe', provider: 'ecobank', accountNumber: '0127500182', note: 'Payment' } },
});
const entry: JournalEntry = {
  version: 2,
  payoutId: 'pid-2',
  baseUrl: 'http://127.0.0.1:1/v2',
  idempotencyKey: '3f0c6a2e-8d1b-4c55-9a77-0e5b2f1d9c40',
  body,
  createdAt: '2026-11-26T10:00:00.000Z',
};
const record = (amount: string | number): PayoutRecord => ({
  transaction_id: 'TXN-BOK-2222222222222222222222222A',
  amount,
  currency: 'SLE',
  status: 'Successful',
  recipient: { accountNumber: '0127500182' },
  note: 'Payment',
  created_at: '2026-11-26T10:00:01.000000Z',
});

describe('sameAmount', () => {
  it.each([
    ['10.000', '10.00', true],
    ['10', '10.00', true],
    [10, '10.0000', true],
    ['1000.50', 1000.5, true],
    ['10.001', '10.00', false],
    ['10.01', '10.1', false],
    ['-10.00', '10.00', false],
    ['ten', '10.00', false],
  ] as const)('%j and %j: %s', (a, b, same) => {
    expect(sameAmount(a, b, 'SLE')).toBe(same);
  });
});

describe('an amount written with more decimals than the currency has is the same payout', () => {
  it('checkAnswer accepts "10.000" for 10 sent, refuses "10.001"', () => {
    expect(() => checkAnswer(entry, { currency: 'SLE', amount: '10.000' })).not.toThrow();
    expect(() => checkAnswer(entry, { currency: 'SLE', amount: '10.001' })).toThrow('amount: sent 10.00, answered 10.001');
  });

  it('a list record of "10.000" is a candidate for the entry; "10.10" is not', () => {
    expect(candidateProblems(record('10.000'), entry)).toEqual([]);
    expect(candidateProblems(record(10), entry)).toEqual([]);
    expect(candidateProblems(record('10.10'), entry)).toEqual(['amount 10.10, sent 10.00']);
  });
});

describe('an account written in another form is the same account (identity.ts comparedAccount)', () => {
  const sent = (account: string): Pick<JournalEntry, 'body'> => ({
    body: JSON.stringify({ ...JSON.parse(body), recipient: { type: 'bank', accountDetails: { name: 'John Doe', provider: 'ecobank', accountNumber: account } } }),
  });
  it.each([
    ['4410-0012-34', '4410001234'],
    ['4410001234', '4410 0012 34'],
    ['sl12abcd0001', 'SL12ABCD0001'],
  ])('checkAnswer takes %j sent as %j answered', (account, answered) => {
    expect(() => checkAnswer(sent(account), { recipient: { accountNumber: answered } })).not.toThrow();
  });
  it.each([
    ['0011223344', '11223344'],
    ['5500.1122', '55001122'],
    ['4410-0012-34', '4410001235'],
  ])('checkAnswer refuses %j sent as %j answered (leading zeros and other characters count)', (account, answered) => {
    expect(() => checkAnswer(sent(account), { recipient: { accountNumber: answered } })).toThrow(`account: sent ${account}, answered ${answered}`);
  });
});
