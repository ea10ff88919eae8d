/**
 * A journal folder on a read-only file system (a real read-only bind mount, as root, as
 * test/unit/journal-gaps.test.ts mounts its tmpfs) before any batch was sent from it, so that
 * `journal/log` is not there yet: `payout batch` says the journal cannot be written, naming the
 * cause (EROFS), exit 2, nothing sent (before: exit 1, "the service refused", with only the
 * report saying "ENOENT: no such file or directory, mkdir journal/log": Node's recursive mkdir
 * names no other cause). Writable again, the same command pays each row once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';
import { batchRows, payoutPosts, tempWorkDir, toCsv, withOwnPayees, writeFile } from '../helpers/batch.js';
import { heldFor, loginInProcess } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const cleanups: Array<() => void> = [];
let dir: string;

beforeEach(async () => {
  const cfg = tempConfigDir();
  cleanups.push(() => cfg.cleanup());
  dir = cfg.dir;
  await loginInProcess(ctx.sb, dir);
});

afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** `folder` made read-only in place (a bind mount of itself, remounted read-only) until the returned undo. */
function readOnly(folder: string): () => void {
  execFileSync('mount', ['--bind', folder, folder]);
  execFileSync('mount', ['-o', 'remount,ro,bind', folder]);
  let mounted = true;
  const undo = () => {
    if (mounted) execFileSync('umount', [folder]);
    mounted = false;
  };
  cleanups.push(undo);
  return undo;
}

describe('payout batch with a read-only journal and no journal/log yet', () => {
  it('exit 2 naming the read-only file system, nothing sent; writable again, the same command pays each row once', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00');
    // The journal made by a single payout: no batch log folder yet.
    const single = await payctl(
      [
        'payout',
        'create',
        '--wallet',
        wallet,
        '--amount',
        '4.02',
        '--currency',
        'SLE',
        '--type',
        'bank',
        '--name',
        'RO0',
        '--provider',
        'ecobank',
        '--account',
        '00930',
        '--yes',
      ],
      { dir },
    );
    expect(single.code, single.stderr).toBe(0);
    const journal = join(dir, 'journal');
    expect(existsSync(join(journal, 'log'))).toBe(false);
    const work = tempWorkDir();
    cleanups.push(() => work.cleanup());
    const rows = withOwnPayees(batchRows(2, wallet, 'rob'), `rob-${wallet}`);
    const file = writeFile(join(work.dir, 'b.csv'), toCsv(rows));
    const writable = readOnly(journal);

    const from = ctx.sb.requests().length;
    const r = await payctl(['payout', 'batch', file, '--yes'], { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Cannot write the payout journal ${journal}: the file system is read-only (EROFS)`);
    expect(r.stderr).not.toContain('ENOENT');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);

    writable();
    const again = await payctl(['payout', 'batch', file, '--yes'], { dir });
    expect(again.code, again.stderr).toBe(0);
    for (const row of rows) expect(heldFor(ctx.sb, row.payout_id!)).toHaveLength(1);
  });
});
