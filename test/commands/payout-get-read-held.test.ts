/**
 * A settled read of a payout held against what this config folder's journal read of it before
 * (commands/payout/read-held.ts), in process against the sandbox behind rewriting proxies
 * (probe 58, findings F4 and F3):
 * - read Failed by `payout get` (noted), then Successful: with and without --wait, and with
 *   --json, exit 4 (STATUS_UNKNOWN), saying when it was read Failed, that a retry may have paid
 *   the person twice, and the `payouts list` command that lists what may be that retry (run as
 *   printed, it lists the payout, narrowed to its wallet, as CSV naming the account: probe R62
 *   finding 5, before which it listed every wallet's payouts in a table without the account). Before: the journal's Failed became Successful, exit 0, no word;
 * - a transaction journaled under one base URL as read Successful, read Failed by its transaction
 *   id under a profile of another base URL (another front of the same service): exit 4 naming
 *   the base URL it was sent to and the profile that read it now, with and without --wait. Before:
 *   the card, exit 0; --wait exit 1 ("failed");
 * - the same transaction journaled there as read Failed, read Successful under the other profile:
 *   exit 4 with the command that lists what may be the retry.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { newKey, useConfigDir, writeProfiles } from '../helpers/e2e.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';

const KEY = newKey();
const cfg = useConfigDir();
useHostileCleanups();
const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 3_600_000 });

type Proxy = Awaited<ReturnType<typeof sandboxProxy>>;

/** The transaction id the sandbox gave payout `id`. */
const txnOf = (sb: Sandbox, id: string): string => sb.payouts().find((p) => p.payout_id === id)!.transaction_id;

/** Look-ups through `proxy` of the Pending payout answered with `word` as its status (the record's, in lower case) from now on. */
const answering = (proxy: Proxy, word: string) => proxy.rewriteLookups((raw) => raw.split('"status":"pending"').join(`"status":"${word}"`));

/**
 * Profiles `lie` and `lie3`, each through its own proxy of one sandbox (two base URLs of the same
 * service), and a bank payout of 12 SLE sent under `lie` without --wait (still Pending at the sandbox).
 */
async function sentPending(): Promise<{ id: string; txn: string; wallet: string; lie: Proxy; lie3: Proxy }> {
  const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  const lie = await sandboxProxy(ctx.sb);
  const lie3 = await sandboxProxy(ctx.sb);
  writeProfiles(cfg.dir, { lie: { baseUrl: lie.baseUrl, apiKey: KEY }, lie3: { baseUrl: lie3.baseUrl, apiKey: KEY } });
  const id = randomUUID();
  const to = ['--type', 'bank', '--name', 'Ibrahim Bangura', '--provider', 'rokel_commercial_bank', '--account', '4410001235'];
  const c = await payctl(['payout', 'create', '--profile', 'lie', '--wallet', wallet, '--amount', '12', '--currency', 'SLE', ...to, '--payout-id', id, '--yes'], {
    dir: cfg.dir,
  });
  expect(c.code, c.stderr).toBe(0);
  return { id, txn: txnOf(ctx.sb, id), wallet, lie, lie3 };
}

/** The same 12 SLE to the same account, sent under `lie` from another wallet (not the payout the check is about): its transaction id. */
async function sentFromAnotherWallet(): Promise<string> {
  const other = freshWallet(ctx.sb, '100000.00', 'SLE');
  const id = randomUUID();
  const to = ['--type', 'bank', '--name', 'Ibrahim Bangura', '--provider', 'rokel_commercial_bank', '--account', '4410001235'];
  const c = await payctl(['payout', 'create', '--profile', 'lie', '--wallet', other, '--amount', '12', '--currency', 'SLE', ...to, '--payout-id', id, '--yes'], {
    dir: cfg.dir,
  });
  expect(c.code, c.stderr).toBe(0);
  return txnOf(ctx.sb, id);
}

/** The `payctl payouts list ...` line a hint printed, as arguments (its values need no quoting). */
function printedList(stderr: string): string[] {
  const line = /payctl payouts list [^\n]*/.exec(stderr)?.[0];
  expect(line, stderr).toBeDefined();
  return line!.split(' ').slice(1);
}

describe('a payout read Failed, then Successful (probe 58, F4)', () => {
  for (const wait of [false, true]) {
    it(`payout get${wait ? ' --wait' : ''}: exit 4, when it was read Failed, paid twice, the payouts list that shows it`, async () => {
      const { id, txn, wallet, lie } = await sentPending();
      const elsewhere = await sentFromAnotherWallet();
      answering(lie, 'failed');
      const failed = await payctl(['payout', 'get', id, '--profile', 'lie', ...(wait ? ['--wait'] : [])], { dir: cfg.dir, clock: new TestClock() });
      expect(failed.code, failed.stderr).toBe(wait ? 1 : 0);
      expect(failed.stdout).toMatch(/Status\s+Failed/);
      answering(lie, 'successful');
      const r = await payctl(['payout', 'get', id, '--profile', 'lie', ...(wait ? ['--wait'] : [])], { dir: cfg.dir, clock: new TestClock() });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stdout).toMatch(/Status\s+Successful/);
      expect(r.stderr).toMatch(
        new RegExp(
          `Payout ${id} \\(transaction ${txn}\\) was read Failed \\(in this config folder's journal, at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\), now Successful`,
        ),
      );
      expect(r.stderr).toContain('the person may have been paid twice');
      expect(r.stderr).toContain('Check for payouts of 12.00 SLE from wallet');
      expect(r.stderr).toContain('to account 4410001235');
      expect(r.stderr).toContain("the CSV's amount and account_number columns tell which paid that person");
      const list = await payctl(printedList(r.stderr), { dir: cfg.dir });
      expect(list.code, list.stderr).toBe(0);
      // Narrowed to the payout's wallet: the same payee paid from another wallet is not listed; the CSV names the account.
      const [header, ...rows] = list.stdout.trim().split('\n');
      expect(header).toContain('account_number');
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row).toContain(wallet);
      expect(rows.find((row) => row.includes(txn))).toContain('4410001235');
      expect(list.stdout).not.toContain(elsewhere);
      // Said once: the journal now holds Successful (the repeat guard counts it paid).
      const h = await payctl(['history', '--json'], { dir: cfg.dir });
      expect(h.stdout).toMatch(/"payout_status":\s*"Successful"/);
    });
  }

  it('--json: exit 4, code STATUS_UNKNOWN, the check in its hint', async () => {
    const { id, wallet, lie } = await sentPending();
    answering(lie, 'failed');
    expect((await payctl(['payout', 'get', id, '--profile', 'lie'], { dir: cfg.dir })).code).toBe(0);
    answering(lie, 'successful');
    const r = await payctl(['--json', 'payout', 'get', id, '--profile', 'lie'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(4);
    const err = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
    expect(err.code).toBe('STATUS_UNKNOWN');
    expect(err.message).toContain('was read Failed');
    expect(err.hint).toContain(`payctl payouts list --profile lie --wallet ${wallet} --currency SLE --from `);
    expect(err.hint).toMatch(/ --all --csv(\n|$)/);
  });
});

describe('a transaction read under another base URL of the same service (probe 58, F3)', () => {
  it('journaled Successful under lie, read Failed under lie3: exit 4 naming where it was sent, with and without --wait', async () => {
    const { id, txn, lie, lie3 } = await sentPending();
    answering(lie, 'successful');
    expect((await payctl(['payout', 'get', id, '--profile', 'lie'], { dir: cfg.dir })).code).toBe(0);
    answering(lie3, 'failed');
    for (const extra of [[], ['--wait']]) {
      const r = await payctl(['payout', 'get', txn, '--profile', 'lie3', ...extra], { dir: cfg.dir, clock: new TestClock() });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toContain(
        `Transaction ${txn} was read Successful (in this config folder's journal as payout ${id} for ${lie.baseUrl} (sent with profile lie)), now Failed`,
      );
      expect(r.stderr).toContain(`read now from ${lie3.baseUrl} with profile lie3: whether it was paid cannot be told.`);
      expect(r.stderr).not.toMatch(/\bfailed:/);
    }
  });

  it('journaled Failed under lie, read Successful under lie3: exit 4 with the check for a retry', async () => {
    const { id, txn, wallet, lie, lie3 } = await sentPending();
    answering(lie, 'failed');
    expect((await payctl(['payout', 'get', id, '--profile', 'lie'], { dir: cfg.dir })).code).toBe(0);
    answering(lie3, 'successful');
    const r = await payctl(['payout', 'get', txn, '--profile', 'lie3'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`Transaction ${txn} was read Failed (in this config folder's journal as payout ${id} for ${lie.baseUrl} (sent with profile lie)`);
    expect(r.stderr).toContain(`payctl payouts list --profile lie3 --wallet ${wallet} --currency SLE --from `);
  });
});
