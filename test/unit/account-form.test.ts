/**
 * identity.ts accountForm: whether an account a service wrote can be the account sent, the rule
 * `history reconcile --made-by` records a payout by (and its search that decides says records by).
 */
import { describe, expect, it } from 'vitest';
import { accountForm, maskedWords } from '../../src/payouts/identity.js';

describe('accountForm', () => {
  it('the same as compared: same', () => {
    expect(accountForm('0011 2233-44', '0011223344')).toBe('same');
  });

  it('masked with its visible digits where sent: masked, only partly checked (said by maskedWords)', () => {
    for (const [written, sent] of [
      ['******3344', '0011223344'],
      ['**3344', '0011223344'],
      ['00****3344', '0011223344'],
      ['\u2022\u2022\u2022\u20223344', '0011223344'],
    ]) {
      expect(accountForm(written!, sent!), `${written} for ${sent}`).toBe('masked');
    }
    expect(maskedWords('**3344', '**3344')).toBe('account shown masked (**3344): only its last 4 characters could be checked');
    expect(maskedWords('00****3344', '00****3344')).toBe('account shown masked (00****3344): only its first 2 characters and last 4 characters could be checked');
  });

  it('written another way: leading zeros dropped, dots, a country code', () => {
    for (const [written, sent] of [
      ['11223344', '0011223344'],
      ['001.122.3344', '0011223344'],
      ['+23276123456', '076123456'],
      ['23276123456', '076123456'],
      ['0023276123456', '76123456'],
    ]) {
      expect(accountForm(written!, sent!), `${written} for ${sent}`).toBe('form');
    }
  });

  it('another account: other digits, a mask whose visible digits differ or show too little, a long prefix', () => {
    for (const [written, sent] of [
      ['999', '0011223344'],
      ['0011223345', '0011223344'],
      ['******3345', '0011223344'],
      ['*********4', '0011223344'],
      ['**********', '0011223344'],
      ['23276123456', '76123456'],
      ['+2327612345', '076123456'],
      ['+232176123456', '76123456'],
    ]) {
      expect(accountForm(written!, sent!), `${written} for ${sent}`).toBe('other');
    }
  });
});
