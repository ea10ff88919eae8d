/**
 * What a spreadsheet drops from digits (src/payouts/lost-digits.ts): which columns may have lost
 * leading zeros or a "+", the forms a row is looked up in, and how a restored form is said.
 */
import { describe, expect, it } from 'vitest';
import { DigitColumns, restoredForms, restoredProblem } from '../../src/payouts/lost-digits.js';
import { payoutFingerprint } from '../../src/payouts/identity.js';
import { validatePayout, type PayoutFields, type PayoutRequest } from '../../src/payouts/request.js';

function req(over: PayoutFields = {}): PayoutRequest {
  const r = validatePayout({ walletId: '6643665465', amount: '100', currency: 'SLE', type: 'bank', name: 'A', provider: 'ecobank', account: '12345678', ...over });
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.request;
}

function columns(...rows: PayoutRequest[]): ReturnType<DigitColumns['lost']> {
  const c = new DigitColumns();
  for (const r of rows) c.see(r);
  return c.lost();
}

describe('DigitColumns: which columns may have lost their leading characters', () => {
  it('a column of bare numbers may have; one where any row keeps a leading zero (or a phone its "+") was text', () => {
    expect(columns(req(), req({ account: '98765' }))).toEqual({ account: true, phone: false });
    expect(columns(req(), req({ account: '0098765' }))).toBeUndefined();
    const wallet = (account: string, phone: string) => req({ type: 'wallet', provider: 'orange_money', account, phone });
    expect(columns(wallet('76000001', '23276000001'))).toEqual({ account: true, phone: true });
    expect(columns(wallet('76000001', '+23276000001'))).toEqual({ account: true, phone: false });
    expect(columns(wallet('076000001', '23276000001'), wallet('76000002', '076000002'))).toBeUndefined();
    expect(columns(wallet('076000001', '23276000001'))).toEqual({ account: false, phone: true });
  });

  it('a text cell (a dash, a letter) keeping its zero says nothing of the digits-only cells beside it', () => {
    // Before, `0011-223-344` turned the check off for the column, and `99887766` (saved from 0099887766) was paid again.
    expect(columns(req({ account: '0011-223-344' }), req({ account: '99887766' }))).toEqual({ account: true, phone: false });
    expect(columns(req({ account: '0A12345' }), req({ account: '99887766' }))).toEqual({ account: true, phone: false });
  });

  it('accounts with letters or other characters are no numbers a spreadsheet rewrote', () => {
    expect(columns(req({ account: 'GB29NWBK60161331926819' }), req({ account: '1234-5678' }))).toBeUndefined();
    expect(columns(req({ account: 'AB12' }), req({ account: '5512' }))).toEqual({ account: true, phone: false });
  });
});

describe('restoredForms', () => {
  it('an account: any number of zeros back, up to 34 characters, each with what that payout pays', () => {
    const r = req();
    const forms = restoredForms(r, { account: true, phone: false });
    expect(forms.map((f) => f.account).slice(0, 3)).toEqual(['012345678', '0012345678', '00012345678']);
    expect(forms.map((f) => f.account)).toContain('000012345678');
    expect(forms.map((f) => f.account)).toContain('0000000012345678');
    expect(forms.at(-1)!.account).toBe('0'.repeat(26) + '12345678');
    expect(forms).toHaveLength(26);
    for (const f of forms) expect(f.fingerprint).toBe(payoutFingerprint(req({ account: f.account })));
    expect(new Set(forms.map((f) => f.fingerprint)).size).toBe(forms.length);
  });

  it('an account and a phone: every pairing but the row as it is', () => {
    const r = req({ type: 'wallet', provider: 'orange_money', account: '76000001', phone: '23276000001' });
    const forms = restoredForms(r, { account: true, phone: true });
    expect(forms).toHaveLength((34 - 8 + 1) * 3 - 1);
    expect(forms.map((f) => `${f.account} ${f.phone}`)).toContain('076000001 +23276000001');
    expect(forms.map((f) => `${f.account} ${f.phone}`)).toContain('76000001 023276000001');
    expect(forms.map((f) => `${f.account} ${f.phone}`)).not.toContain('76000001 23276000001');
    const both = forms.find((f) => f.account === '076000001' && f.phone === '+23276000001')!;
    expect(both.fingerprint).toBe(payoutFingerprint(req({ type: 'wallet', provider: 'orange_money', account: '076000001', phone: '+23276000001' })));
  });

  it('nothing for a column that kept its characters, or for a value that is not a bare number', () => {
    expect(restoredForms(req(), { account: false, phone: true })).toEqual([]);
    expect(restoredForms(req({ account: 'AB12' }), { account: true, phone: false })).toEqual([]);
    expect(restoredForms(req({ account: '012' }), { account: true, phone: false })).toEqual([]);
  });
});

describe('restoredProblem', () => {
  it('names the first column restored, then what was found', () => {
    const r = req({ type: 'wallet', provider: 'orange_money', account: '76000001', phone: '23276000001' });
    const forms = restoredForms(r, { account: true, phone: true });
    const both = restoredProblem(
      r,
      forms.find((f) => f.account === '076000001' && f.phone === '+23276000001')!,
      'when payout p1 paid the same',
    );
    expect(both).toMatchObject({ field: 'account_number', message: '76000001 was 076000001 and phone_number 23276000001 was +23276000001 when payout p1 paid the same' });
    expect(both.text).toBe('account_number 76000001 was 076000001 and phone_number 23276000001 was +23276000001 when payout p1 paid the same');
    const phone = restoredProblem(
      r,
      forms.find((f) => f.account === '76000001' && f.phone === '+23276000001')!,
      'when ...',
    );
    expect(phone.text).toBe('phone_number 23276000001 was +23276000001 when ...');
  });
});
