/**
 * The 24-hour rule and the age texts of a journaled payout (src/payouts/entry-age.ts): an entry
 * dated more than FUTURE_TOLERANCE_MS after the ledger's clock has no age payctl can tell, so the
 * rule holds it as an old one; a time to come is never said as sent "ago".
 */
import { describe, expect, it } from 'vitest';
import { FUTURE_TOLERANCE_MS, KEY_MEMORY_MS, keyMayBeForgotten, sentClause, sentShort, heldReason, span } from '../../src/payouts/entry-age.js';

const NOW = new Date('2026-11-28T12:00:00.000Z');
const at = (ms: number) => ({ createdAt: new Date(NOW.getTime() + ms).toISOString() });

describe('keyMayBeForgotten', () => {
  it('is false from a moment ahead (within the tolerance) to 24 hours ago, true before and beyond', () => {
    expect(keyMayBeForgotten(at(FUTURE_TOLERANCE_MS), NOW)).toBe(false);
    expect(keyMayBeForgotten(at(0), NOW)).toBe(false);
    expect(keyMayBeForgotten(at(-KEY_MEMORY_MS), NOW)).toBe(false);
    expect(keyMayBeForgotten(at(-KEY_MEMORY_MS - 1), NOW)).toBe(true);
    expect(keyMayBeForgotten(at(FUTURE_TOLERANCE_MS + 1), NOW)).toBe(true);
    expect(keyMayBeForgotten(at(2 * KEY_MEMORY_MS), NOW)).toBe(true);
    expect(keyMayBeForgotten({ createdAt: 'yesterday' }, NOW)).toBe(true);
  });
});

describe('the texts', () => {
  it('say how long ago for a past time, "dated in the future" for a time to come, even a moment ahead', () => {
    expect(sentClause(at(-25 * 3_600_000), NOW)).toBe('was first sent 25 h ago (2026-11-27 11:00:00 UTC)');
    expect(sentShort(at(-3 * KEY_MEMORY_MS), NOW)).toBe('first sent 3 days ago');
    expect(sentClause(at(2 * KEY_MEMORY_MS), NOW)).toBe('is dated in the future (2026-11-30 12:00:00 UTC, 2 days from now), so when it was first sent cannot be told,');
    expect(sentShort(at(30_000), NOW)).toBe('dated in the future (less than a minute from now)');
    expect(heldReason(at(-2 * KEY_MEMORY_MS), NOW)).toBe('its first attempt was more than 24 hours ago');
    expect(heldReason(at(3 * 3_600_000), NOW)).toBe(
      'it is dated in the future (2026-11-28 15:00:00 UTC, 3 hours from now), so when its first attempt was cannot be told',
    );
    expect(sentShort({ createdAt: 'yesterday' }, NOW)).toBe('dated at a time that cannot be read');
    expect([span(59_000), span(60_000), span(89 * 60_000), span(2 * 3_600_000), span(50 * 3_600_000)]).toEqual([
      'less than a minute',
      '1 minute',
      '89 minutes',
      '2 hours',
      '2 days',
    ]);
  });
});
