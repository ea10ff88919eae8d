/**
 * `payctl payout batch` of a named batch's file run again without its --batch-id, after another
 * named batch paid the same payees the same amounts with another note (changed-rows.ts). The
 * rows pay exactly what the first batch paid: that is the repeat guard's refusal, naming the
 * first batch with the command that resumes it. Before, the rows were compared with the other
 * batch's (most recent) payouts, refused as that batch's rows with their notes changed, and told
 * to put the notes back to the other batch's: the wrong way, and no resume command. In process,
 * the sandbox over real HTTP.
 */
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { payoutPosts, toCsv, writeFile } from '../helpers/batch.js';
import { payrollRows, useBatchFolders } from '../helpers/batch-fixtures.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

describe('a named batch run again without --batch-id after another named batch paid its payees', () => {
  it('is refused naming the batch that paid every cell, with its resume command; nothing sent (before: refused against the other batch, "put the cells back")', async () => {
    const tag = `twonamed${Date.now()}`;
    const nov = payrollRows(2, setup.sleWallet, tag).map((r) => ({ ...r, note: 'nov' }));
    const dec = nov.map((r) => ({ ...r, note: 'dec' }));
    const novFile = writeFile(setup.work.file('pay.csv'), toCsv(nov));
    const decFile = writeFile(setup.work.file('pay2.csv'), toCsv(dec));
    for (const [file, id] of [
      [novFile, `${tag}-n1`],
      [decFile, `${tag}-n2`],
    ] as const) {
      const r = await payctl(['payout', 'batch', file, '--batch-id', id, '--yes'], { dir: setup.dir });
      expect(r.code, r.stderr).toBe(0);
    }
    const from = ctx.sb.requests().length;

    const again = await payctl(['payout', 'batch', novFile, '--yes'], { dir: setup.dir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`match payouts already sent in batch "${tag}-n1"`);
    expect(again.stderr).toContain(`--batch-id ${tag}-n1`);
    expect(again.stderr).not.toContain(`${tag}-n2`);
    expect(again.stderr).not.toMatch(/Put the cells back/);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});
