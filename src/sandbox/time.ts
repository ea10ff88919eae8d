/**
 * Time in the sandbox: every timestamp in a payload is ISO 8601 UTC with microseconds
 * and `Z` (contract.md). Internally times are whole microseconds since the epoch
 * (a safe integer until the year 2255), so ordering and range filters are exact.
 */

let lastMicros = 0;

/**
 * The current time in microseconds, strictly increasing while the clock moves forward. A
 * clock set back by more than a millisecond (or a test's fake clock put back) is followed,
 * not outrun: staying ahead of it would date every later payout, and its settlement, late.
 */
export function nowMicros(): number {
  const ms = Date.now();
  const frac = Math.floor((performance.now() % 1) * 1000);
  let us = ms * 1000 + frac;
  if (us <= lastMicros && lastMicros - us < 1000) us = lastMicros + 1;
  lastMicros = us;
  return us;
}

/** 1763720130123456 -> "2025-11-21T10:15:30.123456Z". */
export function isoFromMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = us - ms * 1000;
  const base = new Date(ms).toISOString(); // "2025-11-21T10:15:30.123Z"
  return base.slice(0, 23) + String(micros).padStart(3, '0') + 'Z';
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})$/;

function validDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/**
 * A `from` / `to` bound as microseconds, inclusive on both ends. A date
 * (`2026-11-01`) means that UTC day: its first microsecond for `from`, its last for
 * `to`. A full timestamp needs a zone (`Z` or an offset) and is compared exactly
 * (digits beyond microseconds are dropped). Undefined when invalid.
 */
export function parseTimeBound(text: string, edge: 'from' | 'to'): number | undefined {
  const d = DATE_ONLY.exec(text);
  if (d) {
    const [y, m, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
    if (!validDate(y, m, day)) return undefined;
    const start = Date.UTC(y, m - 1, day) * 1000;
    return edge === 'from' ? start : start + 86_400_000_000 - 1;
  }
  const t = TIMESTAMP.exec(text);
  if (!t) return undefined;
  const [y, mo, day, h, mi, s] = [t[1], t[2], t[3], t[4], t[5], t[6] ?? '00'].map(Number) as [number, number, number, number, number, number];
  if (!validDate(y, mo, day) || h > 23 || mi > 59 || s > 59) return undefined;
  const zone = t[8]!;
  let offsetMin = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    const oh = Number(z[2]);
    const om = Number(z[3]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (z[1] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Date.UTC(y, mo - 1, day, h, mi, s) - offsetMin * 60_000;
  const fraction = (t[7] ?? '').padEnd(6, '0').slice(0, 6);
  const base = ms * 1000 + Number(fraction);
  return base;
}
