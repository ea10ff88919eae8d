/**
 * The providers payctl knows, by recipient type, and the "did you mean" for a provider
 * close to one of them (payouts/request.ts): compared normalized and without underscores,
 * one edit allowed for names of 5 to 8 letters and two for longer ones, none for shorter,
 * or a known name with words left out, its first word kept (`zenith`, `rokel bank`). A
 * known provider, or one close to none, gets none.
 */
import { describe, expect, it } from 'vitest';
import { KNOWN_PROVIDERS, PROVIDERS, providerSuggestion, providersFor } from '../../src/payouts/providers.js';
import { OPTION_HINTS } from '../../src/completion/values.js';

describe('the providers payctl knows, by recipient type', () => {
  it('wallet recipients get wallet providers, bank recipients banks; no name is in both', () => {
    expect(PROVIDERS.wallet).toEqual(expect.arrayContaining(['afrimoney', 'orange_money', 'qmoney']));
    expect(PROVIDERS.bank).toEqual(expect.arrayContaining(['ecobank', 'skybank', 'uba']));
    expect(PROVIDERS.wallet.filter((p) => PROVIDERS.bank.includes(p))).toEqual([]);
    expect(KNOWN_PROVIDERS).toEqual([...PROVIDERS.wallet, ...PROVIDERS.bank]);
  });

  it.each([
    ['wallet', PROVIDERS.wallet],
    [' Wallet ', PROVIDERS.wallet],
    ['bank', PROVIDERS.bank],
    ['BANK', PROVIDERS.bank],
    [undefined, KNOWN_PROVIDERS],
    ['cash', KNOWN_PROVIDERS],
  ])('providersFor(%j)', (type, expected) => {
    expect(providersFor(type)).toEqual(expected);
  });

  it('shell completion offers the same list (one list, one home)', () => {
    expect(OPTION_HINTS['payout create --provider']).toEqual({ kind: 'words', words: KNOWN_PROVIDERS });
  });
});

describe('providerSuggestion', () => {
  it.each([
    ['orang money', 'orange_money'],
    ['orang_money', 'orange_money'],
    ['orangemoney', 'orange_money'],
    ['Orange-Moneyy', 'orange_money'],
    ['oragne money', 'orange_money'],
    ['orange', 'orange_money'],
    ['afrimony', 'afrimoney'],
    ['afri money', 'afrimoney'],
    ['q-mony', 'qmoney'],
    ['ecobnak', 'ecobank'],
    ['Eco Bank', 'ecobank'],
    ['skybnk', 'skybank'],
    ['u.b.a', 'uba'],
    ['zenith', 'zenith_bank'],
    ['gt bank', 'gtbank'],
    ['rokel bank', 'rokel_commercial_bank'],
    ['Rokel_Bank', 'rokel_commercial_bank'],
    ['rokel commercial', 'rokel_commercial_bank'],
    ['rokel', 'rokel_commercial_bank'],
    ['access', 'access_bank'],
  ])('%j -> %s', (typed, expected) => {
    expect(providerSuggestion(typed)).toBe(expected);
  });

  it.each(['orange_money', 'Orange Money', 'uba', 'ECOBANK', 'afrimoney'])('a known provider (%j) gets no suggestion', (typed) => {
    expect(providerSuggestion(typed)).toBeUndefined();
  });

  it.each(['mtn', 'ubs', 'vodafone_cash', 'or', 'bank', '---', ''])('one close to none (%j) gets none', (typed) => {
    expect(providerSuggestion(typed)).toBeUndefined();
  });

  it.each(['commercial_bank', 'commercial bank', 'bank_rokel', 'rokel_money', 'orange_bank', 'zenith_mobile_bank', 'access_money'])(
    'words of a known name without its first word, or with a word it does not have (%j), get none',
    (typed) => {
      expect(providerSuggestion(typed)).toBeUndefined();
    },
  );

  it('the same for any recipient type: a close name is a slip whatever its type', () => {
    expect(providerSuggestion('orang money', 'bank')).toBe('orange_money');
    expect(providerSuggestion('ecobnak', 'wallet')).toBe('ecobank');
  });

  it('hostile input: a huge name is answered at once, with no suggestion', () => {
    const started = Date.now();
    expect(providerSuggestion('orange_money'.repeat(100_000))).toBeUndefined();
    expect(providerSuggestion('a'.repeat(64))).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(500);
  });
});
