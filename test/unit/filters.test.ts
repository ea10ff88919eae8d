/** The filters of payouts list and summary (src/payouts/filters.ts): dates as the CLI takes them, and the test payctl applies to every listed record. */
import { describe, expect, it } from 'vitest';
import {
  hasFilter,
  instantNs,
  parseTimeBound,
  parseTimeRange,
  recordFilter,
  undated,
  undatedNote,
  walletless,
  walletlessNote,
  type ListFilter,
} from '../../src/payouts/filters.js';
import { normalizeStatus } from '../../src/service/schemas.js';

describe('parseTimeBound', () => {
  it('turns a date into the start or end of that UTC day, with microseconds', () => {
    expect(parseTimeBound('--from', '2026-11-01', false)).toEqual({ value: '2026-11-01T00:00:00.000000Z' });
    expect(parseTimeBound('--to', '2026-11-01', true)).toEqual({ value: '2026-11-01T23:59:59.999999999Z' });
    expect(parseTimeBound('--to', '2028-02-29', true)).toEqual({ value: '2028-02-29T23:59:59.999999999Z' });
  });

  it('--to a date keeps the whole day to the nanosecond: 23:59:59.9999995 is in it, midnight after is not', () => {
    const to = parseTimeBound('--to', '2026-11-30', true) as { value: string };
    const keep = recordFilter({ to: to.value }, normalizeStatus);
    expect(keep({ created_at: '2026-11-30T23:59:59.9999995Z' })).toBe(true);
    expect(keep({ created_at: '2026-11-30T23:59:59.999999999Z' })).toBe(true);
    expect(keep({ created_at: '2026-12-01T00:00:00Z' })).toBe(false);
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
      to: '2026-11-30T23:59:59.999999999Z',
    });
    expect(problems).toEqual([]);
  });

  it('accepts the same day as from and to', () => {
    const problems: string[] = [];
    expect(parseTimeRange({ from: '2026-11-01', to: '2026-11-01' }, problems)).toEqual({
      from: '2026-11-01T00:00:00.000000Z',
      to: '2026-11-01T23:59:59.999999999Z',
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

describe('recordFilter: the filters payctl applies to every listed record', () => {
  const keep = (f: ListFilter) => recordFilter(f, normalizeStatus);

  it('--status by the normalized word, in any case; a record without a status never matches', () => {
    const failed = keep({ status: 'Failed' });
    expect(['failed', 'FAILED', 'Rejected', 'reversed'].map((status) => failed({ status }))).toEqual([true, true, true, true]);
    expect(failed({ status: 'successful' })).toBe(false);
    expect(failed({})).toBe(false);
    expect(keep({ status: 'Pending' })({ status: 'processing' })).toBe(true);
  });

  it('--wallet exactly; a record that names no wallet never matches (and is told apart)', () => {
    const f: ListFilter = { walletId: '5553881136' };
    expect(keep(f)({ wallet_id: '5553881136' })).toBe(true);
    expect(keep(f)({ wallet_id: '55538811360' })).toBe(false);
    expect(keep(f)({})).toBe(false);
    expect(walletless(f, {})).toBe(true);
    expect(walletless(f, { wallet_id: 'other' })).toBe(false);
    expect(walletless({}, {})).toBe(false);
    expect(walletlessNote(1)).toBe("1 payout left out by --wallet: the service's record does not say which wallet paid it.");
  });

  it('--currency in any case', () => {
    expect(keep({ currency: 'SLE' })({ currency: 'sle' })).toBe(true);
    expect(keep({ currency: 'SLE' })({ currency: 'NGN' })).toBe(false);
  });

  it('--from and --to exactly, to the microsecond the service writes (a Date would cut it to the millisecond)', () => {
    const f = keep({ from: '2026-11-01T10:00:00.000500Z', to: '2026-11-01T10:00:00.000900Z' });
    expect(f({ created_at: '2026-11-01T10:00:00.000499Z' })).toBe(false);
    expect(f({ created_at: '2026-11-01T10:00:00.000500Z' })).toBe(true);
    expect(f({ created_at: '2026-11-01T10:00:00.000900Z' })).toBe(true);
    expect(f({ created_at: '2026-11-01T10:00:00.000901Z' })).toBe(false);
    // Offsets compared as instants; a record without a readable time never matches a period.
    expect(keep({ from: '2026-11-01T12:00:00+02:00' })({ created_at: '2026-11-01T10:00:00.000000Z' })).toBe(true);
    expect(keep({ from: '2026-11-01T12:00:00+02:00' })({ created_at: '2026-11-01T09:59:59.999999Z' })).toBe(false);
    expect(keep({ to: '2026-11-01T23:59:59.999999Z' })({ created_at: 'yesterday' })).toBe(false);
    expect(keep({ to: '2026-11-01T23:59:59.999999Z' })({})).toBe(false);
  });

  it('instantNs reads nanoseconds exactly and refuses what is not a timestamp', () => {
    expect(instantNs('1970-01-01T00:00:01.000000001Z')).toBe(1_000_000_001n);
    expect(instantNs('2026-11-01')).toBeUndefined();
    expect(instantNs(undefined)).toBeUndefined();
  });

  it('hasFilter: any condition at all', () => {
    expect(hasFilter({})).toBe(false);
    expect(hasFilter({ to: '2026-11-01T00:00:00Z' })).toBe(true);
  });
});

describe("instantNs: a service's other spellings of an instant", () => {
  it('a date and time with a space and no zone is read in UTC (the documented zone); another offset as written', () => {
    expect(instantNs('2026-11-26 23:30:00')).toBe(instantNs('2026-11-26T23:30:00Z'));
    expect(instantNs('2026-11-26T23:30:00.5')).toBe(instantNs('2026-11-26T23:30:00.500Z'));
    expect(instantNs('2026-11-27T01:30:00+02:00')).toBe(instantNs('2026-11-26T23:30:00Z'));
    expect(instantNs('26/11/2026 10:00')).toBeUndefined();
  });

  it('undated: only with --from or --to, and only for a time it cannot read', () => {
    expect(undated({ from: '2026-11-26T00:00:00Z' }, { created_at: '26/11/2026 10:00' })).toBe(true);
    expect(undated({ from: '2026-11-26T00:00:00Z' }, { created_at: '2026-11-26 10:00:00' })).toBe(false);
    expect(undated({}, { created_at: 'nonsense' })).toBe(false);
    expect(undatedNote(2)).toBe("2 payouts left out by --from/--to: the service's records give no creation time payctl can read (created_at).");
  });
});
