/**
 * A plain `payout get` (no --wait) that reads a journaled payout Successful notes it in the
 * journal as --wait does (probe M57, F1), in process against the sandbox behind a rewriting proxy:
 * - read Successful by `payout get`, then Failed: `payout get --wait` (and without it) says the
 *   contradiction, exit 4 (STATUS_UNKNOWN), never 1 ("failed", which an operator may pay again);
 *   history keeps Successful. Before: the Successful read was not noted, and --wait exited 1;
 * - a payout this config folder's journal does not hold is not noted (no entry is made);
 * - a journal that cannot be written (a read-only bind mount, as root) fails nothing, with or
 *   without --wait: the card, exit 0, and stderr says that the Successful read was not noted and what that means.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { newKey, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { tempConfigDir } from '../helpers/cli.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';

const KEY = newKey();
const cfg = useConfigDir();
useHostileCleanups();
const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 3_600_000 });
const undo: Array<() => void> = [];
afterEach(() => {
  for (const u of undo.splice(0).reverse()) u();
});

/** The transaction id the sandbox gave payout `id`. */
const txnOf = (sb: Sandbox, id: string): string => sb.payouts().find((p) => p.payout_id === id)!.transaction_id;

/** A bank payout of 7.02 SLE sent without --wait through a proxy (still Pending at the sandbox): its ids and the proxy. */
async function sentPending(dir: string): Promise<{ id: string; txn: string; proxy: Awaited<ReturnType<typeof sandboxProxy>> }> {
  const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  const proxy = await sandboxProxy(ctx.sb);
  writeProfile(dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
  const id = randomUUID();
  const to = ['--type', 'bank', '--name', 'Ada Obi', '--provider', 'ecobank', '--account', '0011223399'];
  const c = await payctl(['payout', 'create', '--wallet', wallet, '--amount', '7.02', '--currency', 'SLE', ...to, '--payout-id', id, '--yes'], { dir });
  expect(c.code, c.stderr).toBe(0);
  return { id, txn: txnOf(ctx.sb, id), proxy };
}

/** Look-ups of the Pending payout answered with `word` as its status (the record's, in lower case) from now on. */
const answering = (proxy: Awaited<ReturnType<typeof sandboxProxy>>, word: string) =>
  proxy.rewriteLookups((raw) => raw.split('"status":"pending"').join(`"status":"${word}"`));

describe('payout get without --wait notes a settled read (probe M57, F1)', () => {
  it('read Successful by a plain get, then Failed: get --wait exits 4 (STATUS_UNKNOWN), never 1; history keeps Successful', async () => {
    const { id, txn, proxy } = await sentPending(cfg.dir);
    answering(proxy, 'successful');
    const seen = await payctl(['payout', 'get', id], { dir: cfg.dir });
    expect(seen.code, seen.stderr).toBe(0);
    expect(seen.stdout).toMatch(/Status\s+Successful/);
    expect(seen.stderr).toBe('');
    answering(proxy, 'failed');
    const said = `Payout ${id} (transaction ${txn}) was read Successful (in this config folder's journal), now Failed: whether it was paid cannot be told.`;
    const waited = await payctl(['payout', 'get', txn, '--wait'], { dir: cfg.dir, clock: new TestClock() });
    expect(waited.code, waited.stderr).toBe(4);
    expect(waited.stderr).toContain(said);
    const plain = await payctl(['--json', 'payout', 'get', txn], { dir: cfg.dir });
    expect(plain.code, plain.stderr).toBe(4);
    expect(JSON.parse(plain.stderr.trim().split('\n').at(-1)!).error.code).toBe('STATUS_UNKNOWN');
    const h = await payctl(['history', '--json'], { dir: cfg.dir });
    expect(h.stdout).toMatch(/"payout_status":\s*"Successful"/);
    expect(h.stdout).not.toMatch(/"payout_status":\s*"Failed"/);
  });

  it('a payout this config folder’s journal does not hold is read, not noted: no entry is made', async () => {
    const { txn, proxy } = await sentPending(cfg.dir);
    answering(proxy, 'successful');
    const other = tempConfigDir();
    undo.push(() => other.cleanup());
    writeProfile(other.dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
    const r = await payctl(['payout', 'get', txn], { dir: other.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Status\s+Successful/);
    const h = await payctl(['history', '--json'], { dir: other.dir });
    expect(h.stdout).not.toContain(txn);
  });

  it('a journal that cannot be written fails nothing: the card, exit 0, and stderr says the Successful read was not noted', async () => {
    const { id, proxy } = await sentPending(cfg.dir);
    answering(proxy, 'successful');
    const journal = join(cfg.dir, 'journal');
    execFileSync('mount', ['--bind', journal, journal]);
    undo.push(() => execFileSync('umount', [journal]));
    execFileSync('mount', ['-o', 'remount,ro,bind', journal]);
    for (const extra of [[], ['--wait']]) {
      const r = await payctl(['payout', 'get', id, ...extra], { dir: cfg.dir, clock: new TestClock() });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/Status\s+Successful/);
      expect(r.stderr).toContain(`Payout ${id} was read Successful, but the journal could not note it (the file system is read-only (EROFS))`);
      expect(r.stderr).toContain('a later read that says otherwise will not be held against it');
    }
  });
});
