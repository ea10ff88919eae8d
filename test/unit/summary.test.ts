import { describe, expect, it } from 'vitest';
import { bar, renderSummary } from '../../src/output/summary.js';
import { summarySchema, type Summary } from '../../src/api/schemas.js';
import { makeStyle } from '../../src/output/style.js';

const plain = makeStyle(false);
const summary = (data: unknown): Summary => summarySchema.parse(data);

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

describe('renderSummary', () => {
  it('renders one block per currency, with a table of statuses and bars', () => {
    const out = renderSummary(
      summary({
        from: '2026-11-01T00:00:00.000000Z',
        to: '2026-11-30T23:59:59.999999Z',
        currencies: [
          {
            currency: 'SLE',
            count: 3,
            amount: 2000.5,
            fee: 20.01,
            statuses: { Successful: { count: 2, amount: 1500.5 }, Pending: { count: 1, amount: '500' } },
          },
          { currency: 'JPY', count: 1, amount: 1234567, statuses: { Failed: { count: 1, amount: 1234567 } } },
        ],
      }),
      plain,
    );
    expect(out).toBe(
      [
        'Payouts from 2026-11-01 to 2026-11-30',
        '',
        'SLE  3 payouts  2,000.50 SLE  fees 20.01 SLE',
        '',
        '  STATUS      COUNT        AMOUNT',
        `  Successful      2  1,500.50 SLE  ${'█'.repeat(24)}`,
        `  Pending         1    500.00 SLE  ${'█'.repeat(8)}`,
        '',
        'JPY  1 payout  1,234,567 JPY',
        '',
        '  STATUS  COUNT         AMOUNT',
        `  Failed      1  1,234,567 JPY  ${'█'.repeat(24)}`,
        '',
      ].join('\n'),
    );
  });

  it('never adds amounts across currencies', () => {
    const out = renderSummary(
      summary({
        currencies: [
          { currency: 'SLE', count: 1, amount: 1500.5, statuses: { Successful: { count: 1, amount: 1500.5 } } },
          { currency: 'NGN', count: 1, amount: 1500.5, statuses: { Successful: { count: 1, amount: 1500.5 } } },
        ],
      }),
      plain,
    );
    expect(out).not.toContain('3,001');
    expect(out).not.toMatch(/total/i);
    expect(out.match(/1,500\.50 SLE/g)).toHaveLength(2); // head + status row
    expect(out.match(/1,500\.50 NGN/g)).toHaveLength(2);
    expect(out.startsWith('SLE  1 payout  1,500.50 SLE\n')).toBe(true);
    expect(out).toContain('\nNGN  1 payout  1,500.50 NGN\n');
  });

  it('scales bars within each currency separately', () => {
    const out = renderSummary(
      summary({
        currencies: [
          { currency: 'SLE', count: 1, amount: 10, statuses: { Pending: { count: 1, amount: 10 } } },
          { currency: 'NGN', count: 1, amount: 1000000, statuses: { Pending: { count: 1, amount: 1000000 } } },
        ],
      }),
      plain,
    );
    const bars = out
      .split('\n')
      .filter((l) => l.includes('█'))
      .map((l) => l.match(/█+/)![0].length);
    expect(bars).toEqual([24, 24]);
  });

  it('says there are no payouts, with the period', () => {
    expect(renderSummary(summary({ currencies: [] }), plain)).toBe('No payouts.\n');
    expect(renderSummary(summary({ from: '2026-11-01T00:00:00.000000Z', to: null, currencies: [] }), plain)).toBe('No payouts from 2026-11-01.\n');
  });

  it('shows a currency without statuses as just its line', () => {
    expect(renderSummary(summary({ currencies: [{ currency: 'KWD', count: 0, amount: 0 }] }), plain)).toBe('KWD  0 payouts  0.000 KWD\n');
  });

  it('sanitizes text from the service', () => {
    const out = renderSummary(
      summary({
        from: '\x1b]0;evil\x07x',
        currencies: [{ currency: 'S\x1b[2JLE', count: 1, amount: 1, statuses: { 'Pen\u202Eding\n': { count: 1, amount: 1 } } }],
      }),
      plain,
    );
    expect(out).not.toMatch(/[\x1b\x07\u202e]/);
    expect(out).toContain('Payouts from x');
    expect(out).toContain('SLE  1 payout');
    expect(out).toContain('Pending');
  });

  // Regression (src/commands/summary.ts, fixed): minorOf() picks the scale per value
  // (max(currency digits, the value's own decimals)), so in one currency 5 becomes 500
  // (scale 2) and 1.005 becomes 1005 (scale 3): the bars compare numbers of different
  // scales and 1.005 is drawn longer than 5.
  it('bars compare amounts on one scale when the service sends extra decimals', () => {
    const out = renderSummary(
      summary({
        currencies: [{ currency: 'SLE', count: 2, amount: 6.005, statuses: { Successful: { count: 1, amount: 5 }, Pending: { count: 1, amount: 1.005 } } }],
      }),
      plain,
    );
    const lines = out.split('\n');
    const cells = (status: string) => lines.find((l) => l.includes(status))!.match(/█*$/)![0].length;
    expect(cells('Successful')).toBe(24);
    expect(cells('Pending')).toBe(5); // 1.005 / 5 * 24 = 4.8
  });
});
