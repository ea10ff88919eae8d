/**
 * What a run without --batch-id says when the check made while it sends (src/payouts/paid-meanwhile.ts)
 * finds a row another run journaled (probe A53, finding 1): said by that run's entry as it is
 * now, with its age, and advice that resolves the stop. Before, every case was "began paying at
 * the same time ... two versions of one payroll were being sent at once", of a run that had
 * finished minutes before too, and the same file run again stopped the same way.
 */
import { describe, expect, it } from 'vitest';
import { PaidMeanwhile } from '../../src/payouts/paid-meanwhile.js';
import type { JournalEntry } from '../../src/payouts/journal.js';

const now = new Date('2026-11-28T22:00:00.000Z');
const other = (outcome: JournalEntry['outcome']): JournalEntry =>
  ({
    payoutId: 'ca38',
    createdAt: '2026-11-28T21:53:00.000Z',
    batch: { id: 'default', file: '/work/pay.csv', row: 2 },
    ...(outcome ? { outcome } : {}),
  }) as JournalEntry;
const reconcile = 'payctl history reconcile';

describe('PaidMeanwhile: the other run as its entry is now', () => {
  it('a run that finished and paid: said paid, with when, and to take the row out (never "at the same time")', () => {
    const e = new PaidMeanwhile(
      2,
      other({ kind: 'accepted', status: 201, transactionId: 'TXN-BOK-1', fee: undefined, replayed: false, at: '2026-11-28T21:53:01.000Z' }),
      now,
    );
    expect(e.message).toBe(
      'Row 2 pays what batch "default" of /work/pay.csv paid (its row 2, journaled 7 minutes ago (2026-11-28 21:53 UTC), accepted): this row repeats a payout made.',
    );
    expect(e.message).not.toMatch(/same time|at once/);
    expect(e.advice(reconcile)).toContain('If row 2 is that payment, take it out of this file');
  });

  it('a row journaled with no outcome yet: that run may still be sending it, or was killed; settle, then run again', () => {
    const e = new PaidMeanwhile(3, other(undefined), now);
    expect(e.message).toBe(
      'Row 3 pays what batch "default" of /work/pay.csv journaled too (its row 2, journaled 7 minutes ago (2026-11-28 21:53 UTC), no outcome recorded yet): that run may still be sending it, or was killed.',
    );
    expect(e.advice(reconcile)).toContain(`Once that run has ended, settle what it left unknown with ${reconcile}; then run again the file you mean to pay.`);
  });

  it('an unknown outcome: may have paid', () => {
    const e = new PaidMeanwhile(2, other({ kind: 'unknown', reason: 'timeout', at: '2026-11-28T21:53:01.000Z' }), now);
    expect(e.message).toContain('may have paid (its row 2, journaled 7 minutes ago (2026-11-28 21:53 UTC), outcome unknown)');
  });
});
