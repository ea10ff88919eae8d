/**
 * Time in the sandbox: every timestamp in a payload is ISO 8601 UTC with microseconds
 * and `Z` (docs/service.md). Internally times are whole microseconds since the epoch
 * (a safe integer until the year 2255), so ordering is exact.
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
