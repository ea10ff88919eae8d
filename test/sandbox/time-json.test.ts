/** The sandbox's microsecond clock and its exact JSON writer. */
import { describe, expect, it, vi } from 'vitest';
import { JsonNumber, jsonEqual, money, toJson } from '../../src/sandbox/json.js';
import { isoFromMicros, nowMicros } from '../../src/sandbox/time.js';

describe('sandbox time', () => {
  it('writes microseconds and Z', () => {
    expect(isoFromMicros(Date.UTC(2026, 10, 21, 10, 15, 30, 123) * 1000 + 456)).toBe('2026-11-21T10:15:30.123456Z');
    expect(isoFromMicros(Date.UTC(2026, 0, 1) * 1000)).toBe('2026-01-01T00:00:00.000000Z');
  });

  it('gives strictly increasing microseconds', () => {
    const a = nowMicros();
    const b = nowMicros();
    expect(b).toBeGreaterThan(a);
    expect(Math.abs(a / 1000 - Date.now())).toBeLessThan(1000);
  });

  it('follows a clock put back instead of staying ahead of it (later payouts would settle late)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 5000);
      const ahead = nowMicros();
      vi.useRealTimers();
      const back = nowMicros();
      expect(ahead - back).toBeGreaterThan(4_000_000);
      expect(Math.abs(back / 1000 - Date.now())).toBeLessThan(100);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('exact JSON', () => {
  it('writes money literals from digits', () => {
    expect(toJson({ a: money(125000075n, 2), b: money(150050n, 2), c: money(0n, 2), d: money(1500n, 0) })).toBe('{"a":1250000.75,"b":1500.5,"c":0,"d":1500}');
    expect(toJson({ big: money(9876543210987654321n, 2) })).toBe('{"big":98765432109876543.21}');
  });

  it('writes everything else as JSON.stringify does, leaving out undefined', () => {
    const value = { s: 'a"b\n', n: 1.5, t: true, z: null, u: undefined, arr: [1, undefined, 'x'], nested: { k: [] } };
    expect(toJson(value)).toBe(JSON.stringify(value));
  });

  it('refuses an invalid literal and a bare bigint', () => {
    expect(() => new JsonNumber('1e5')).toThrow(RangeError);
    expect(() => toJson({ x: 5n })).toThrow(TypeError);
  });

  it('compares parsed JSON deeply, ignoring key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: null }, { a: 0 })).toBe(false);
  });
});
