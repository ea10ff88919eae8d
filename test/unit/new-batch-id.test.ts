/**
 * The batch id payctl prints for paying a file again (src/commands/payout/batch-commands.ts
 * newBatchId): the file's name and the date, as a person reads and types it.
 */
import { describe, expect, it } from 'vitest';
import { newBatchId } from '../../src/commands/payout/batch-commands.js';

const NOW = new Date('2026-11-28T09:30:00Z');
const never = () => Promise.resolve(false);

describe('newBatchId', () => {
  it('names the file and the date, without separators left over from the name ("pay (1).csv" is pay-1-2026-11-28)', async () => {
    expect(await newBatchId('/home/finance/stipends.csv', 'default', NOW, new Set(), never)).toBe('stipends-2026-11-28');
    expect(await newBatchId('/home/finance/pay (1).csv', 'default', NOW, new Set(), never)).toBe('pay-1-2026-11-28');
    expect(await newBatchId('/home/finance/(copy) pay!!.csv', 'default', NOW, new Set(), never)).toBe('copy-pay-2026-11-28');
    expect(await newBatchId('/home/finance/((( ))).csv', 'default', NOW, new Set(), never)).toBe('batch-2026-11-28');
  });

  it('never the current id, one that paid these rows (as a slip leaves it), nor one the ledger sent', async () => {
    expect(await newBatchId('/w/pay.csv', 'pay-2026-11-28', NOW, new Set(), never)).toBe('pay-2026-11-28-2');
    expect(await newBatchId('/w/pay.csv', 'default', NOW, new Set(['PAY_2026_11_28']), never)).toBe('pay-2026-11-28-2');
    const sent = (id: string) => Promise.resolve(id === 'pay-2026-11-28' || id === 'pay-2026-11-28-2');
    expect(await newBatchId('/w/pay.csv', 'default', NOW, new Set(), sent)).toBe('pay-2026-11-28-3');
  });
});
