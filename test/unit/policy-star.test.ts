/**
 * The policy's "*" rule stands for any other currency (README, "Four eyes"): "5000" is 5000 of
 * the currency it is applied to, in that currency's own minor units. It was read once with two
 * decimals for every currency, so under "*" limits a 60,000 JPY payout passed a 5,000 maximum
 * (100 times too high for JPY) and 200 KWD needed the approval set from 1,000 (ten times too
 * low). And amounts written as JSON numbers are read from their text.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requiredApprovals, currencyTotals } from '../../src/plans/approvals.js';
import { limitProblems } from '../../src/plans/limits.js';
import { examinePolicy, type Policy } from '../../src/plans/policy.js';
import { Journal } from '../../src/payouts/journal.js';
import { validatePayout, type PayoutRequest } from '../../src/payouts/request.js';

const NOW = new Date('2026-11-25T10:00:00.000Z');
const BASE = 'http://127.0.0.1:4010/v2';
const dir = () => mkdtempSync(join(tmpdir(), 'payctl-star-'));

/** Two approvers (the example policy's keys), so that tiers asking up to 2 approvals can be met. */
const MEMBERS =
  '"members":{"Ibrahim Sesay":{"keys":["ed25519:4hc3JXkuYlAc6rEZQpvMt5rJ24RgbJBBi1ZW+MdqzSI="],"roles":["approver"]},' +
  '"Aminata Kamara":{"keys":["ed25519:bsTou1Aub7EwzSz1okl3iKAf9bC/0yM0LcoQokdaNko="],"roles":["approver"]}},';

function policy(text: string): Policy {
  const file = join(dir(), 'policy.json');
  writeFileSync(file, text.replace(/^\{/, `{${MEMBERS}`));
  const r = examinePolicy(file);
  if (!r.policy) throw new Error(r.problems.join('; '));
  return r.policy;
}

let n = 0;
function request(amount: string, currency: string): PayoutRequest {
  const r = validatePayout({ payoutId: `po-${++n}`, walletId: 'wal_1', amount, currency, type: 'bank', name: 'Taro Yamada', provider: 'mufg', account: '1234567' });
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.request;
}

const limits = (p: Policy, ...requests: PayoutRequest[]) => limitProblems(p, requests, new Journal(dir()), BASE, NOW);

const STAR = '{"approvals":{"*":[{"from":"1000","required":1}]},"max_per_payout":{"*":"5000"},"daily_total":{"*":"10000"}}';

describe('"*" amounts in the currency they are applied to', () => {
  it('JPY (no decimals): 60,000 is over a "*" maximum of 5,000 and over a daily total of 10,000; 5,000 is not', async () => {
    const p = policy(STAR);
    const over = await limits(p, request('60000', 'JPY'));
    expect(over).toEqual([
      'payout po-1: 60,000 JPY is over the per-payout maximum of 5,000 JPY (policy max_per_payout.*)',
      expect.stringContaining('over the daily total of 10,000 JPY (policy daily_total.*'),
    ]);
    expect(await limits(p, request('5000', 'JPY'))).toEqual([]);
  });

  it('JPY and KWD reach the "*" approval tier at 1,000 of their own units, not 100,000 JPY or 1 KWD', () => {
    const p = policy(STAR);
    expect(requiredApprovals(p, currencyTotals([request('999', 'JPY')])).required).toBe(0);
    expect(requiredApprovals(p, currencyTotals([request('1000', 'JPY')])).required).toBe(1);
    expect(requiredApprovals(p, currencyTotals([request('200.000', 'KWD')])).required).toBe(0);
    expect(requiredApprovals(p, currencyTotals([request('999.999', 'KWD')])).required).toBe(0);
    expect(requiredApprovals(p, currencyTotals([request('1000.000', 'KWD')])).required).toBe(1);
    expect(requiredApprovals(p, currencyTotals([request('1000.00', 'SLE')])).required).toBe(1);
  });

  it('a "*" amount between two units of a currency: "from" rounds up, "over" and limits round down', async () => {
    const p = policy('{"approvals":{"*":[{"from":"1000.5","required":1},{"over":"2000.5","required":2}]},"max_per_payout":{"*":"3000.5"}}');
    expect(requiredApprovals(p, currencyTotals([request('1000', 'JPY')])).required).toBe(0);
    expect(requiredApprovals(p, currencyTotals([request('1001', 'JPY')])).required).toBe(1);
    expect(requiredApprovals(p, currencyTotals([request('2000', 'JPY')])).required).toBe(1);
    expect(requiredApprovals(p, currencyTotals([request('2001', 'JPY')])).required).toBe(2);
    expect(await limits(p, request('3000', 'JPY'))).toEqual([]);
    expect(await limits(p, request('3001', 'JPY'))).toEqual(['payout po-' + n + ': 3,001 JPY is over the per-payout maximum of 3,000 JPY (policy max_per_payout.*)']);
  });

  it('a currency of its own keeps its own rule', async () => {
    const p = policy('{"max_per_payout":{"*":"5000","JPY":"100000"}}');
    expect(await limits(p, request('60000', 'JPY'))).toEqual([]);
  });
});

describe('amounts written as JSON numbers', () => {
  it('are read from their text: 2500.4999999999999 is refused (not 2500.50), a 20-digit one keeps its digits', () => {
    const file = join(dir(), 'policy.json');
    writeFileSync(file, '{"max_per_payout":{"SLE":2500.4999999999999}}');
    expect(examinePolicy(file).problems).toEqual(['max_per_payout.SLE: "2500.4999999999999" is not an amount in SLE']);
    const p = policy('{"max_per_payout":{"SLE":12345678901234567890}}');
    expect(p.maxPerPayout.get('SLE')).toBe(1234567890123456789000n);
    expect(policy('{"max_per_payout":{"SLE":2500.5}}').maxPerPayout.get('SLE')).toBe(250050n);
  });
});
