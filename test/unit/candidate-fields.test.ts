/**
 * What makes a record of the payout list a candidate for a payout whose answer was lost
 * (payouts/candidate-fields.ts), and what `--made-by` may record as that payout: an account the
 * service writes with spaces or dashes is the same account, but one without its leading zeros
 * is another; a record naming another wallet or payout id is another payout; a record with no
 * account or no readable creation time is listed but cannot be checked, so never recorded.
 */
import { describe, expect, it } from 'vitest';
import { askedOf, candidateProblems, judgeCandidate } from '../../src/payouts/candidate-fields.js';
import type { JournalEntry } from '../../src/payouts/journal.js';
import { payoutRecordSchema, type PayoutRecord } from '../../src/service/schemas.js';

const createdAt = '2026-11-27T10:00:00.000Z';
const body = JSON.stringify({
  payoutId: 'lost-1',
  walletId: '6643665465',
  amount: 250,
  currency: 'SLE',
  recipient: { type: 'bank', accountDetails: { name: 'Ibrahim Koroma', provider: 'ecobank', accountNumber: '0011223344', note: 'Nov stipend' } },
});
const entry = { payoutId: 'lost-1', body, createdAt } as JournalEntry;

/** The payout's own record, as the documented list gives it, with `change` applied. */
function record(change: Partial<PayoutRecord> & { account?: string | undefined } = {}): PayoutRecord {
  const { account, ...rest } = change;
  return {
    transaction_id: 'TXN-BOK-E04B77C45863CAC88385850791',
    amount: '250.00',
    currency: 'SLE',
    status: 'Pending',
    note: 'Nov stipend',
    created_at: '2026-11-27T10:00:02.000000Z',
    recipient: { name: 'Ibrahim Koroma', accountNumber: 'account' in change ? account : '0011223344' },
    ...rest,
  };
}

const judge = (r: PayoutRecord) => judgeCandidate(r, entry, askedOf(body));

/** The payout's record as the documented list sends it, before the schema reads it. */
const wire = () => ({
  transaction_id: 'TXN-BOK-E04B77C45863CAC88385850791',
  amount: '250.00',
  currency: 'SLE',
  status: 'pending',
  description: 'Nov stipend',
  created_at: '2026-11-27 10:00:02',
  recipient: { transfer_type: 'bank', account_number: '0011223344', name: 'Ibrahim Koroma', bank: 'ECOBANK' },
});

describe('judgeCandidate', () => {
  it('the payout as sent: a candidate, nothing odd', () => {
    expect(judge(record())).toEqual({ problems: [], why: undefined, marks: [], differences: [], unchecked: [] });
    expect(candidateProblems(record(), entry)).toEqual([]);
  });

  it('an account written with spaces and a dash is the same account: a mark; --made-by takes it', () => {
    const j = judge(record({ account: '0011 2233-44' }));
    expect(j.problems).toEqual([]);
    expect(j.marks).toEqual(['account written "0011 2233-44"']);
    expect(candidateProblems(record({ account: '0011 2233-44' }), entry)).toEqual([]);
  });

  it('an account without its leading zeros is another account: left out, and --made-by refuses it', () => {
    const j = judge(record({ account: '11223344' }));
    expect(j.why).toBe('account');
    expect(candidateProblems(record({ account: '11223344' }), entry)).toEqual(['account 11223344, sent 0011223344']);
  });

  it('an account written with other separators, or with an invisible character, is another account', () => {
    for (const account of ['0011_223344', '0011.223344', '0011\u200b223344']) expect(judge(record({ account })).why, account).toBe('account');
  });

  it('another provider or recipient type is another account; another name is said, for a person to judge', () => {
    const other = record({ recipient: { name: 'Ibrahim Koroma', accountNumber: '0011223344', provider: 'orange_money' } });
    expect(judge(other).problems).toEqual(['provider orange_money, sent ecobank']);
    // The look-up's way of writing it (bank "ECOBANK", transfer type "bank") is the same.
    expect(judge(record({ recipient: { name: 'IBRAHIM  KOROMA', accountNumber: '0011223344', bank: 'ECOBANK', type: 'bank' } }))).toMatchObject({
      problems: [],
      marks: [],
    });
    expect(judge(record({ recipient: { name: 'Ibrahim Koroma', accountNumber: '0011223344', type: 'wallet' } })).problems).toEqual(['recipient type wallet, sent bank']);
    expect(judge(record({ recipient: { name: 'Someone Else', accountNumber: '0011223344' } })).marks).toEqual(['name "Someone Else", sent "Ibrahim Koroma"']);
  });

  it('a record naming its payout id or wallet the way the create body does (payoutId, walletId) is read so', () => {
    const parsed = payoutRecordSchema.parse({ ...wire(), payoutId: 'pay-OTHER', walletId: 9999999999 });
    expect(judge(parsed).problems).toEqual(['wallet 9999999999, sent 6643665465', 'payout id pay-OTHER, sent lost-1']);
  });

  it('another wallet or another payout id: another payout, whatever else matches', () => {
    expect(judge(record({ wallet_id: '9715401083' })).problems).toEqual(['wallet 9715401083, sent 6643665465']);
    expect(judge(record({ wallet_id: '9715401083' })).why).toBe('other payout');
    expect(judge(record({ payout_id: 'lost-2' })).problems).toEqual(['payout id lost-2, sent lost-1']);
    expect(judge(record({ wallet_id: '6643665465', payout_id: 'lost-1' })).problems).toEqual([]);
  });

  it('no account, or no readable creation time: listed as unchecked, and --made-by refuses it', () => {
    const none = judge(record({ account: undefined }));
    expect(none).toMatchObject({ problems: [], why: undefined, unchecked: ['no account given'] });
    expect(candidateProblems(record({ account: undefined }), entry)).toEqual(['no account given: payctl cannot check that it is this payout']);
    const odd = judge(record({ created_at: '28/11/2026 10:15' }));
    expect(odd.unchecked).toEqual(['creation time not readable: "28/11/2026 10:15"']);
    expect(candidateProblems(record({ created_at: undefined }), entry)).toEqual(['no creation time given: payctl cannot check that it is this payout']);
  });
});

describe('judged for a search that decides "not made" (hardFacts): amount and currency only', () => {
  const hard = (r: PayoutRecord) => judgeCandidate(r, entry, askedOf(body), { hardFacts: true });

  it('a record of any time, its note, provider or type written otherwise: could be it, said as marks', () => {
    const early = record({ created_at: '2026-11-20T09:45:10.000000Z' });
    // Created 7 days before the first attempt: listed, marked that the clock that dated the entry may have been off (probe 70-T).
    expect(judge(early)).toMatchObject({ problems: [], why: undefined });
    expect(judge(early).marks).toEqual([
      'created 2026-11-20 09:45:10 UTC, 7 days before the first attempt (2026-11-27 10:00:00 UTC) by the clock that dated it: that clock may have been off',
    ]);
    expect(judge(record({ created_at: '2026-11-27T09:56:00.000000Z' })).marks).toEqual([]);
    expect(hard(early)).toMatchObject({ problems: [], why: undefined, marks: [] });
    const noted = hard(record({ note: 'Nov-stipend, paid' }));
    expect(noted).toMatchObject({ problems: [], why: undefined, marks: ['note "Nov-stipend, paid", sent "Nov stipend"'] });
    expect(judge(record({ note: 'Nov-stipend, paid' })).why).toBe('note');
    const other = hard(record({ recipient: { name: 'Ibrahim Koroma', accountNumber: '0011223344', provider: 'AFRIMONEY', type: 'wallet' } }));
    expect(other.problems).toEqual([]);
    expect(other.marks).toEqual(['provider AFRIMONEY, sent ecobank', 'recipient type wallet, sent bank']);
  });

  it('another amount or currency: not it', () => {
    expect(hard(record({ amount: '250.01' })).why).toBe('currency or amount');
    expect(hard(record({ currency: 'USD' })).why).toBe('currency or amount');
    expect(hard(record({ amount: '250.011' })).why).toBe('currency or amount');
    expect(hard(record({ amount: 7.0000001 })).why).toBe('currency or amount');
  });

  it('another account (masked, a country code, other digits), wallet or payout id: could be it, a mark (probe 52-J: "******3344" and a placeholder id hid the payout, paid twice)', () => {
    for (const account of ['0011223345', '******3344', 'XXXXXX3344', '+23276123456']) {
      const j = hard(record({ account }));
      expect(j.why, account).toBeUndefined();
      expect(j.marks.join(' '), account).toContain('account');
    }
    for (const r of [record({ wallet_id: '1111111111' }), record({ payout_id: 'lost-2' }), record({ payout_id: ' lost-2 ' })]) expect(hard(r).why).toBeUndefined();
    // The search a person chooses from still tells them apart.
    expect(judgeCandidate(record({ account: '0011223345' }), entry, askedOf(body)).why).toBe('account');
    expect(judgeCandidate(record({ payout_id: 'lost-2' }), entry, askedOf(body)).why).toBe('other payout');
  });

  it('a payout id or wallet blank, or written in other case or with spaces: could be it, a mark (before: "another payout", so "not made")', () => {
    for (const payout_id of ['', '  ', 'LOST-1', ' lost-1 ']) {
      const j = hard(record({ payout_id }));
      expect(j, JSON.stringify(payout_id)).toMatchObject({ problems: [], why: undefined });
      expect(j.marks).toEqual([payout_id.trim() ? `payout id written "${payout_id}"` : `payout id blank ("${payout_id}")`]);
    }
    expect(hard(record({ wallet_id: '' }))).toMatchObject({ problems: [], why: undefined, marks: ['wallet blank ("")'] });
    expect(hard(record({ wallet_id: ' 6643665465 ' })).why).toBeUndefined();
    // Read from the wire as the schema reads it: `payoutId: ""` too.
    expect(hard(payoutRecordSchema.parse({ ...wire(), payoutId: '' })).why).toBeUndefined();
    expect(hard(payoutRecordSchema.parse({ ...wire(), payout_id: 'LOST-1', wallet_id: '' })).why).toBeUndefined();
    // A search for a person to choose from still takes them for another payout.
    expect(judge(record({ payout_id: '' })).why).toBe('other payout');
  });

  it('an account written another way (leading zeros dropped, dots, a plus sign): could be it, a mark (before: "another account")', () => {
    for (const account of ['11223344', '001.122.3344', '+0011223344', '0011/2233/44']) {
      const j = hard(record({ account }));
      expect(j, account).toMatchObject({ problems: [], why: undefined, marks: [`account written "${account}"`] });
    }
    // As the choosing search compares it, unchanged: another account.
    expect(judge(record({ account: '11223344' })).why).toBe('account');
  });

  it('an amount payctl cannot read exactly (digits past the currency\'s, within a minor unit): unchecked, never "another amount"', () => {
    for (const amount of ['250.0000000001', 250.0000000001, '249.9999999']) {
      const j = hard(record({ amount }));
      expect(j, String(amount)).toMatchObject({ problems: [], why: undefined, unchecked: [`amount not read exactly: ${String(amount)}`] });
    }
    expect(hard(record({ amount: '250.000' })).unchecked).toEqual([]);
  });
});
