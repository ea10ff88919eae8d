/**
 * `payout create --wait` from the built binary, as the shell sees its exit codes (issue 13's
 * Done-when): 0 when the payout settles Successful, 1 with the failure reason when it settles
 * Failed (an account ending in 0000), 5 when it is still Pending at --wait-timeout. The rest
 * of --wait (back-off, Retry-After, the live line, Ctrl-C) is tested in process in
 * test/commands/payout-wait.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { newKey, payctl, useConfigDir, writeProfile } from '../helpers/e2e.js';

const KEY = newKey();
// Settles in an hour: every payout stays Pending for the whole test.
const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 3_600_000 });
// Settles in 300 ms: the first check after a second finds it settled.
const fast = useSandbox({ apiKey: KEY, settleAfterMs: 300 });
const cfg = useConfigDir();

beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));

const createArgs = (wallet: string, id: string, account: string) =>
  ['payout', 'create', '--wallet', wallet, '--amount', '10', '--currency', 'SLE', '--type', 'bank', '--name', 'Chinedu Okafor', '--provider', 'ecobank'].concat([
    '--account',
    account,
    '--payout-id',
    id,
    '--yes',
    '--wait',
  ]);

describe('0 and 1: settled while waiting', () => {
  it('payout create --wait exits 0 when the payout settles Successful', async () => {
    writeProfile(cfg.dir, { baseUrl: fast.sb.baseUrl, apiKey: KEY });
    const id = randomUUID();
    const r = await payctl(createArgs(freshWallet(fast.sb, '1000.00', 'SLE'), id, '0123456789'), { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Status\s+Successful/);
    // Named by its payout id and the transaction id it is read by.
    expect(r.stderr).toMatch(new RegExp(`Payout ${id} \\(transaction TXN-BOK-[0-9A-F]{26}\\) is Successful`));
  });

  it('payout create --wait exits 1 with the failure reason when the payout settles Failed', async () => {
    writeProfile(cfg.dir, { baseUrl: fast.sb.baseUrl, apiKey: KEY });
    const id = randomUUID();
    const r = await payctl(createArgs(freshWallet(fast.sb, '1000.00', 'SLE'), id, '1230000'), { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/Status\s+Failed/);
    expect(r.stderr).toMatch(
      new RegExp(`Error: Payout ${id} \\(transaction TXN-BOK-[0-9A-F]{26}\\) failed: Recipient account rejected by the provider \\(account not found\\)\\.`),
    );
  });
});

describe('5: still pending when --wait ran out of time', () => {
  it('payout create --wait --wait-timeout 1 exits 5 with the command to keep waiting', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const id = randomUUID();
    const r = await payctl(
      [
        'payout',
        'create',
        '--wallet',
        wallet,
        '--amount',
        '10',
        '--currency',
        'SLE',
        '--type',
        'bank',
        '--name',
        'Chinedu Okafor',
        '--provider',
        'ecobank',
        '--account',
        '0123456789',
        '--payout-id',
        id,
        '--yes',
        '--wait',
        '--wait-timeout',
        '1',
      ],
      { dir: cfg.dir },
    );
    expect(r.code, r.stderr).toBe(5);
    expect(r.signal).toBeNull();
    expect(r.stdout).toMatch(/Status\s+Pending/);
    const txn = /\(transaction (TXN-BOK-[0-9A-F]{26})\)/.exec(r.stderr)?.[1];
    expect(txn, r.stderr).toBeDefined();
    expect(r.stderr).toContain(`Error: Payout ${id} (transaction ${txn}) is still Pending after 1 s (--wait-timeout 1). It was accepted and may still settle.\n`);
    // The printed command names the transaction id: the service looks payouts up by it.
    expect(r.stderr).toContain(`Keep waiting with: payctl payout get ${txn} --wait\n`);
  });
});
