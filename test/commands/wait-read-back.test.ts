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
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { newKey, oneJson, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';

const KEY = newKey();
const cfg = useConfigDir();
useHostileCleanups();

/** The transaction id the sandbox gave payout `id`. */
const txnOf = (sb: Sandbox, id: string): string => sb.payouts().find((p) => p.payout_id === id)!.transaction_id;

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

describe('a later read that cannot be used (a sandbox that settles in an hour; TestClock)', () => {
  const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 3_600_000 });
  let wallet: string;
  beforeEach(() => {
    wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  });
  afterEach(() => ctx.sb.faults.clear());

  /** Look-ups the proxy has answered since the last arm(). */
  let lookups = 0;

  /** A profile through a proxy whose look-ups after the first (of each run) come back as `rewrite` makes them. */
  async function laterReads(rewrite: (raw: string) => string): Promise<void> {
    const proxy = await sandboxProxy(ctx.sb);
    writeProfile(cfg.dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
    proxy.rewriteLookups((raw) => (++lookups > 1 ? rewrite(raw) : raw));
  }

  /** The second look-up from now is answered 404 by the sandbox. */
  function later404(): void {
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout/', kind: 'delay', delayMs: 0, times: 1 });
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout/', kind: 'status', status: 404, body: JSON.stringify({ message: 'Transfer not found' }), times: 1 });
  }

  /** What, how it is set up before the payout is made (the journal's base URL is the profile's), how it is armed before each run, and why the wait ends. */
  const answers: Array<[string, () => Promise<void>, () => void, string]> = [
    ['a 200 HTML page', () => laterReads(() => '<html><body>502 upstream</body></html>'), () => (lookups = 0), 'HTTP 200 with a body that is not JSON: "<html>'],
    ['a 404', async () => {}, later404, 'Transfer not found (HTTP 404 NOT_FOUND)'],
    [
      'a record of another amount',
      () => laterReads((raw) => raw.replace('"amount":"10.00"', '"amount":"100.00"')),
      () => (lookups = 0),
      'amount: sent 10.00, answered 100.00',
    ],
  ];

  it.each(answers)(
    'payout get --wait, Pending and then %s: exit 5 (not known), never 1; why on stderr, the last record seen on stdout',
    async (_what, setUp, arm, why) => {
      await setUp();
      const id = randomUUID();
      expect((await payctl(bankArgs(wallet, id), { dir: cfg.dir })).code).toBe(0);
      const txn = txnOf(ctx.sb, id);
      arm();
      const clock = new TestClock();
      const r = await payctl(['payout', 'get', txn, '--wait', '--wait-timeout', '30'], { dir: cfg.dir, clock });
      expect(r.code, r.stderr).toBe(5);
      expect(clock.waits).toEqual([1000]);
      expect(r.stderr).toContain(`Error: Payout ${id} (transaction ${txn}) was last seen Pending, and a read after 1 s of waiting could not be used: `);
      expect(r.stderr).toContain(why);
      expect(r.stderr).toContain('Whether it settled is not known; it was not sent again and may still settle.');
      expect(r.stderr).toContain(`Check it with: payctl payout get ${txn} --wait`);
      expect(r.stdout).toMatch(/Status\s+Pending/);
      // --json: the last envelope seen on stdout, STATUS_NOT_READ on stderr.
      arm();
      const j = await payctl(['payout', 'get', txn, '--wait', '--wait-timeout', '30', '--json'], { dir: cfg.dir, clock: new TestClock() });
      expect(j.code, j.stderr).toBe(5);
      expect(oneJson(j.stdout).data).toMatchObject({ transaction_id: txn, status: 'pending' });
      expect(JSON.parse(j.stderr)).toMatchObject({ error: { code: 'STATUS_NOT_READ', payout_id: id } });
      expect(ctx.sb.payouts().filter((p) => p.payout_id === id)).toHaveLength(1);
    },
  );

  it('create --wait, Pending and then a 404: exit 5 by the same rule, its follow-up command printed', async () => {
    const id = randomUUID();
    // The wait's first look-up passes; the second is answered 404.
    later404();
    const r = await payctl([...bankArgs(wallet, id), '--wait'], { dir: cfg.dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(5);
    const txn = txnOf(ctx.sb, id);
    expect(r.stderr).toContain(`Payout ${id} (transaction ${txn}) was last seen Pending, and a read after 1 s of waiting could not be used: `);
    expect(r.stderr).toContain(`Check it with: payctl payout get ${txn} --wait`);
    expect(r.stdout.match(/Status/g)).toHaveLength(1);
  });
});

describe('a read that hangs after Pending was seen (real clock; a sandbox that settles in an hour)', () => {
  const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 3_600_000 });
  afterEach(() => ctx.sb.faults.clear());

  it('get --wait --wait-timeout 3 --timeout 30 ends at the limit (exit 5), not after the read’s retries (about 61 s before)', { timeout: 120_000 }, async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    const id = randomUUID();
    expect((await payctl(bankArgs(freshWallet(ctx.sb, '100000.00', 'SLE'), id), { dir: cfg.dir })).code).toBe(0);
    // The first look-up answers Pending; every later one hangs.
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout/', kind: 'delay', delayMs: 0, times: 1 });
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout/', kind: 'hang', times: Infinity });
    const r = await payctl(['payout', 'get', id, '--wait', '--wait-timeout', '3', '--timeout', '30'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(5);
    // Nothing was read after the first look-up: not "still Pending", but when it was last read.
    expect(r.stderr).toContain('was last read Pending 0 s into the wait; every check after it failed until the limit');
    expect(r.stderr).toContain('(--wait-timeout 3; the last:');
    expect(r.stdout).toMatch(/Status\s+Pending/);
    // About 3 s; bounded well below one --timeout (30 s), let alone the read's retries.
    expect(r.ms).toBeLessThan(20_000);
  });
});
