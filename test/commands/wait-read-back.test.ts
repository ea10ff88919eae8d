/**
 * What `--wait` makes of the reads after the create, on `payout create` and `payout get` alike,
 * in process against the in-process sandbox (through a rewriting proxy where the service is to
 * write something its own way):
 * - an account the look-up writes in another form (`4410001234` for `4410-0012-34` sent,
 *   `SL12ABCD0001` for `sl12abcd0001`) is the same account: the payout settles, exit 0;
 * - a later read that cannot be used (a page, a 404 after the payout was seen, a record of
 *   another amount) ends the wait with exit 5 (its settlement not known, and why), never 1,
 *   which --wait says for Failed;
 * - a read that hangs after Pending was seen ends at --wait-timeout, not after its retries.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { newKey, oneJson, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { payctl } from '../helpers/in-process.js';

const KEY = newKey();
const cfg = useConfigDir();
useHostileCleanups();

/** `payout create` flags for a bank payout of 10 SLE to `account`, with --yes. */
function bankArgs(walletId: string, payoutId: string, account = '0011223344'): string[] {
  const to = ['--type', 'bank', '--name', 'John Bangura', '--provider', 'ecobank', '--account', account];
  return ['payout', 'create', '--wallet', walletId, '--amount', '10', '--currency', 'SLE', ...to, '--payout-id', payoutId, '--yes'];
}

describe('an account the look-up writes in another form (a sandbox that settles in 300 ms)', () => {
  const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 300 });
  let wallet: string;
  beforeEach(() => {
    wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  });

  const forms = [
    ['4410-0012-34', '4410001234'],
    ['sl12abcd0001', 'SL12ABCD0001'],
  ] as const;

  /** A profile through a proxy that writes the account of every look-up as `answered`. */
  async function rewritten(account: string, answered: string): Promise<void> {
    const proxy = await sandboxProxy(ctx.sb);
    writeProfile(cfg.dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
    proxy.rewriteLookups((raw) => raw.split(`"account_number":"${account}"`).join(`"account_number":"${answered}"`));
  }

  it.each(forms)('sent %s, answered %s: create --wait exits 0 (Successful), not 5 ("a different payout")', async (account, answered) => {
    await rewritten(account, answered);
    const id = randomUUID();
    const c = await payctl([...bankArgs(wallet, id, account), '--wait', '--json'], { dir: cfg.dir });
    expect(c.code, c.stderr).toBe(0);
    expect(oneJson(c.stdout).data).toMatchObject({ status: 'successful', recipient: { account_number: answered } });
    expect(c.stderr).not.toContain('different payout');
  });

  it.each(forms)('sent %s, answered %s: payout get --wait exits 0 (Successful), not 1', async (account, answered) => {
    await rewritten(account, answered);
    const id = randomUUID();
    const c = await payctl(bankArgs(wallet, id, account), { dir: cfg.dir });
    expect(c.code, c.stderr).toBe(0);
    const g = await payctl(['payout', 'get', id, '--wait', '--json'], { dir: cfg.dir });
    expect(g.code, g.stderr).toBe(0);
    expect(oneJson(g.stdout).data).toMatchObject({ status: 'successful', recipient: { account_number: answered } });
  });

  it('an account that differs in more than its form (a leading zero dropped) is still another payout: get --wait refuses it', async () => {
    await rewritten('0011223344', '011223344');
    const id = randomUUID();
    expect((await payctl(bankArgs(wallet, id), { dir: cfg.dir })).code).toBe(0);
    const g = await payctl(['payout', 'get', id, '--wait'], { dir: cfg.dir });
    expect(g.stderr).toContain('answered about a different payout (account: sent 0011223344, answered 011223344)');
    expect(g.stdout).toBe('');
  });
});
