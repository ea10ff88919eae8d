/**
 * The summary's output (src/output/summary.ts): bars in integer arithmetic, the service's
 * summary (counts, total_sent as its figure), and the summary payctl computes (SummaryTally:
 * exact sums per currency and status, never across currencies).
 */
import { describe, expect, it } from 'vitest';
import { SummaryTally, bar, computedLabel, renderComputedSummary, renderServiceSummary, serviceSummaryCsv, summaryCsv } from '../../src/output/summary.js';
import { payoutRecordSchema, recordStatus, summarySchema, type PayoutRecord } from '../../src/service/schemas.js';
import { makeStyle } from '../../src/output/style.js';
import { countValue } from '../../src/output/service-summary.js';

const plain = makeStyle(false);
const record = (data: Record<string, unknown>): PayoutRecord => payoutRecordSchema.parse({ currency: 'SLE', ...data });
function tally(records: Array<Record<string, unknown>>): SummaryTally {
  const t = new SummaryTally();
  for (const d of records) {
    const r = record(d);
    t.listed++;
    t.add(r, recordStatus(r));
  }
  return t;
}
describe('bar', () => {
  it('draws width * value / max cells, rounded, in integer arithmetic', () => {
    expect(bar(10n, 10n)).toBe('█'.repeat(24));
    expect(bar(5n, 10n)).toBe('█'.repeat(12));
    expect(bar(1n, 3n)).toBe('█'.repeat(8));
    expect(bar(2n, 3n)).toBe('█'.repeat(16));
    expect(bar(1n, 3n, 10)).toBe('█'.repeat(3)); // 3.33
    expect(bar(2n, 3n, 10)).toBe('█'.repeat(7)); // 6.67
    expect(bar(50000n, 150050n)).toBe('█'.repeat(8)); // 7.997
  });

  it('is exact for amounts beyond float precision', () => {
    const max = 10n ** 30n;
    expect(bar(max / 2n, max)).toBe('█'.repeat(12));
    expect(bar(max - 1n, max)).toBe('█'.repeat(24));
  });

  it('shows at least one cell for any positive value', () => {
    expect(bar(1n, 1_000_000n)).toBe('█');
  });

  it('draws nothing for zero, negative values or a zero maximum', () => {
    expect(bar(0n, 10n)).toBe('');
    expect(bar(-5n, 10n)).toBe('');
    expect(bar(5n, 0n)).toBe('');
  });
});

describe('countValue: a count read exactly as the service wrote it', () => {
  it.each([
    [38, 38n],
    ['38', 38n],
    ['1e30', 10n ** 30n],
    ['1.50e1', 15n],
    ['36.0', 36n],
    ['0.0', 0n],
    ['5E1', 50n],
  ])('%j is %s', (v, n) => expect(countValue(v)).toBe(n));
  it.each([-1, 1.5, 1e30, '1.5', '-1', 'two', '1e-5', '1e1000', null, true])('%j is no count', (v) => expect(countValue(v)).toBeUndefined());
});

describe('renderServiceSummary', () => {
  it('the documented example: total, counts by status and type with bars, total_sent without a currency', () => {
    const out = renderServiceSummary(
      summarySchema.parse({ total_transfers: 38, successful: 2, pending: 36, failed: 0, total_sent: 7281.78, wallet_transfers: 5, bank_transfers: 33 }),
      plain,
    );
    expect(out).toBe(
      [
        'Summary from the service (every payout; POST /payout/summary)',
        '',
        'Total transfers  38',
        '',
        '  STATUS      COUNT',
        `  Successful      2  ${'█'.repeat(1)}`,
        `  Pending        36  ${'█'.repeat(24)}`,
        '  Failed          0',
        '',
        '  TYPE    COUNT',
        `  Wallet      5  ${'█'.repeat(4)}`,
        `  Bank       33  ${'█'.repeat(24)}`,
        '',
        "Total sent (service's figure, no currency): 7281.78",
        '',
      ].join('\n'),
    );
  });

  it('total_sent exactly as sent: a grouped string comes out plain, digits never added or lost', () => {
    expect(renderServiceSummary(summarySchema.parse({ total_sent: '1,234,567.125' }), plain)).toContain(': 1234567.125\n');
    expect(renderServiceSummary(summarySchema.parse({ total_sent: 10 }), plain)).toContain(': 10\n');
  });

  it('an answer with none of the documented figures says so and shows what came', () => {
    const out = renderServiceSummary(summarySchema.parse({ currencies: [{ currency: 'SLE' }] }), plain);
    expect(out).toContain("The service's summary has none of the documented figures.");
    expect(out).toContain('Other figures from the service, as sent:\n  currencies:\n    0:\n      currency: SLE\n');
  });

  it('as CSV: one row per figure', () => {
    expect(serviceSummaryCsv(summarySchema.parse({ total_transfers: 38, total_sent: '7,281.78', note: '=cmd' }))).toBe(
      "figure,value\r\ntotal_transfers,38\r\ntotal_sent,7281.78\r\nnote,'=cmd\r\n",
    );
  });
});

describe('SummaryTally and the computed summary', () => {
  it('adds exactly per currency and status (grouped strings, numbers, more decimals than the currency has), never across currencies', () => {
    const t = tally([
      { transaction_id: 'a', amount: '1,000.10', fee: '5.00', status: 'successful' },
      { transaction_id: 'b', amount: 0.2, fee: 0.01, status: 'Successful' },
      { transaction_id: 'c', amount: '0.005', status: 'PENDING' },
      { transaction_id: 'd', amount: '999999999999999.99', currency: 'ngn', status: 'failed' },
      { transaction_id: 'e', amount: '0.01', currency: 'NGN', status: 'weird' },
    ]);
    const c = t.result({ currency: 'SLE' });
    expect(c.payouts).toBe(5);
    expect(c.currencies).toEqual([
      {
        currency: 'NGN',
        count: 2,
        amount: '1000000000000000.00',
        fee: null,
        statuses: { Failed: { count: 1, amount: '999999999999999.99' }, weird: { count: 1, amount: '0.01' } },
      },
      {
        currency: 'SLE',
        count: 3,
        amount: '1000.305',
        fee: '5.01',
        statuses: { Successful: { count: 2, amount: '1000.30' }, Pending: { count: 1, amount: '0.005' } },
      },
    ]);
  });

  it('is labelled as computed, from how many payouts, with the filters in words', () => {
    const c = tally([{ transaction_id: 'a', amount: '1500.50', fee: '15.01', status: 'successful' }]).result({
      currency: 'SLE',
      wallet: '5553881136',
      from: '2026-11-01T00:00:00.000000Z',
      to: '2026-11-30T23:59:59.999999Z',
    });
    expect(computedLabel(c)).toBe('Computed by payctl from 1 payout (of 1 listed): currency SLE, wallet 5553881136, from 2026-11-01 to 2026-11-30.');
    expect(renderComputedSummary(c, plain)).toBe(
      [
        'Computed by payctl from 1 payout (of 1 listed): currency SLE, wallet 5553881136, from 2026-11-01 to 2026-11-30.',
        '',
        'SLE  1 payout  1,500.50 SLE  fees 15.01 SLE',
        '',
        '  STATUS      COUNT        AMOUNT',
        `  Successful      1  1,500.50 SLE  ${'█'.repeat(24)}`,
        '',
      ].join('\n'),
    );
    expect(summaryCsv(c)).toBe('currency,status,count,amount\r\nSLE,Successful,1,1500.50\r\n');
  });

  it('bars compare amounts on one scale when an amount has extra decimals', () => {
    const c = tally([
      { transaction_id: 'a', amount: 5, status: 'successful' },
      { transaction_id: 'b', amount: '1.005', status: 'pending' },
    ]).result({ currency: 'SLE' });
    const lines = renderComputedSummary(c, plain).split('\n');
    const cells = (status: string) => lines.find((l) => l.includes(status))!.match(/█*$/)![0].length;
    expect(cells('Successful')).toBe(24);
    expect(cells('Pending')).toBe(5); // 1.005 / 5 * 24 = 4.8
  });

  it('no payout matched: the label alone', () => {
    expect(renderComputedSummary(new SummaryTally().result({ currency: 'JPY' }), plain)).toBe('Computed by payctl from 0 payouts (of 0 listed): currency JPY.\n');
  });
});
