/**
 * A journal that cannot be written because of a file-size limit (`ulimit -f 0`: the write fails
 * with EFBIG), with the built binary (a limit is a process's): `payout create` says it as a full
 * disk is said, naming the journal, exit 2, nothing sent (before: "Cannot write: EFBIG: file too
 * large, write.", exit 1, "the service refused"), and leaves no `.tmp` file behind (before: a
 * 0-byte `<entry>.json.<uuid>.tmp` a failure, which nothing removed).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runUnprivileged, tempConfigDir } from '../helpers/cli.js';
import { payctl as payctlInProcess } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payoutPosts } from '../helpers/batch.js';

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  const r = await payctlInProcess(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir, input: ctx.sb.apiKey + '\n' });
  expect(r.code, r.stderr).toBe(0);
});

afterEach(() => cleanup());

function createArgs(wallet: string, amount: string, payoutId: string): string[] {
  return ['payout', 'create', '--wallet', wallet, '--amount', amount, '--currency', 'SLE', '--type', 'bank', '--name', 'CG1', '--provider', 'ecobank'].concat([
    '--account',
    '00981',
    '--payout-id',
    payoutId,
    '--yes',
  ]);
}

describe('payout create under a file-size limit of 0 (ulimit -f 0)', () => {
  it('exit 2 naming the journal and the limit, nothing sent, no temp file left; --json says the same', async () => {
    const wallet = freshWallet(ctx.sb, '100.00');
    // The journal made (folder and key) by a payout sent before the limit.
    const first = await payctlInProcess(createArgs(wallet, '2.00', 'cg-0'), { dir });
    expect(first.code, first.stderr).toBe(0);
    const journal = join(dir, 'journal');
    const limited = (args: string[]) => runUnprivileged(['sh', '-c', 'ulimit -f 0; exec "$0" "$@"', process.execPath, BIN, ...args], { env: cliEnv(dir) });

    const from = ctx.sb.requests().length;
    const r = await limited(createArgs(wallet, '2.01', 'cg-1'));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Cannot write the payout journal ${journal}: the file is larger than may be written here (a file-size limit: ulimit -f`);
    expect(r.stderr).toContain('(EFBIG). Nothing was sent for payout cg-1.');
    expect(r.stderr).toContain('Raise the file-size limit (ulimit -f) or free some space');
    expect(readdirSync(journal).filter((n) => n.endsWith('.tmp'))).toEqual([]);

    const j = await limited(['--json', ...createArgs(wallet, '2.01', 'cg-1')]);
    expect(j.code, j.stderr).toBe(2);
    expect(j.stderr).toContain('(EFBIG)');
    expect(readdirSync(journal).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
  });
});
