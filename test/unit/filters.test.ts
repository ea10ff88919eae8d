import { describe, expect, it } from 'vitest';
import { parseTimeBound, parseTimeRange } from '../../src/payouts/filters.js';

describe('parseTimeBound', () => {
  it('turns a date into the start or end of that UTC day, with microseconds', () => {
    expect(parseTimeBound('--from', '2026-11-01', false)).toEqual({ value: '2026-11-01T00:00:00.000000Z' });
    expect(parseTimeBound('--to', '2026-11-01', true)).toEqual({ value: '2026-11-01T23:59:59.999999Z' });
    expect(parseTimeBound('--to', '2028-02-29', true)).toEqual({ value: '2028-02-29T23:59:59.999999Z' });
  });

  it.each(['2026-11-01T10:00:00Z', '2026-11-01T10:00Z', '2026-11-01T10:00:00.123456Z', '2026-11-01T10:00:00+05:30', '2026-11-01T10:00:00-01:00'])(
    'accepts the ISO timestamp %s as it is',
    (value) => {
      expect(parseTimeBound('--from', value, false)).toEqual({ value });
      expect(parseTimeBound('--to', value, true)).toEqual({ value });
    },
  );

  it.each(['2026-02-30', '2026-02-29', '2026-13-01', '2026-00-10', '2026-04-31', '2026-11-00'])('rejects the impossible date %s', (value) => {
    expect(parseTimeBound('--from', value, false)).toEqual({ problem: `--from: "${value}" is not a real date` });
  });

  it.each(['', 'yesterday', '2026/11/01', '01-11-2026', '2026-11-1', '2026-11-01 10:00:00', '2026-11-01T10:00:00', '1793527200', ' 2026-11-01'])(
    'rejects %j',
    (value) => {
      expect(parseTimeBound('--to', value, true)).toEqual({
        problem: `--to: "${value}" is not a date (2026-11-01) or an ISO timestamp (2026-11-01T10:00:00Z)`,
      });
    },
  );

  // Regression (src/payouts/filters.ts, fixed): the ISO branch only asks Date.parse, which rolls
  // impossible days over (2026-02-30T.. becomes 2 March), so they are sent to the service
  // as typed. A bare date 2026-02-30 is refused; the same day with a time must be too.
  it.each(['2026-02-30T10:00:00Z', '2026-02-29T00:00:00Z', '2026-04-31T12:00:00+01:00'])('rejects the impossible day in %s', (value) => {
    const r = parseTimeBound('--from', value, false);
    expect('problem' in r).toBe(true);
  });
});

describe('parseTimeRange', () => {
  it('parses both bounds without problems', () => {
    const problems: string[] = [];
    expect(parseTimeRange({ from: '2026-11-01', to: '2026-11-30' }, problems)).toEqual({
      from: '2026-11-01T00:00:00.000000Z',
      to: '2026-11-30T23:59:59.999999Z',
    });
    expect(problems).toEqual([]);
  });

  it('accepts the same day as from and to', () => {
    const problems: string[] = [];
    expect(parseTimeRange({ from: '2026-11-01', to: '2026-11-01' }, problems)).toEqual({
      from: '2026-11-01T00:00:00.000000Z',
      to: '2026-11-01T23:59:59.999999Z',
    });
    expect(problems).toEqual([]);
  });

  it('leaves out absent bounds', () => {
    const problems: string[] = [];
    expect(parseTimeRange({}, problems)).toEqual({});
    expect(parseTimeRange({ to: '2026-11-01T10:00:00Z' }, problems)).toEqual({ to: '2026-11-01T10:00:00Z' });
    expect(problems).toEqual([]);
  });

  it('rejects from later than to', () => {
    const problems: string[] = [];
    parseTimeRange({ from: '2026-11-02', to: '2026-11-01' }, problems);
    expect(problems).toEqual(['--from is later than --to']);
  });

  it('compares instants, not strings, across offsets', () => {
    const problems: string[] = [];
    // 10:00+05:30 is 04:30Z, which is before 05:00Z.
    parseTimeRange({ from: '2026-11-01T10:00:00+05:30', to: '2026-11-01T05:00:00Z' }, problems);
    expect(problems).toEqual([]);
    parseTimeRange({ from: '2026-11-01T06:00:00Z', to: '2026-11-01T10:00:00+05:30' }, problems);
    expect(problems).toEqual(['--from is later than --to']);
  });

  it('lists every problem at once, keeping the existing ones', () => {
    const problems = ['earlier problem'];
    expect(parseTimeRange({ from: 'garbage', to: '2026-02-30' }, problems)).toEqual({});
    expect(problems).toEqual([
      'earlier problem',
      '--from: "garbage" is not a date (2026-11-01) or an ISO timestamp (2026-11-01T10:00:00Z)',
      '--to: "2026-02-30" is not a real date',
    ]);
  });
});
