/**
 * `payout get`'s exit codes a script can trust (probe 53-H, findings 2 and 5), in process
 * against the sandbox behind a rewriting proxy:
 * - a look-up answered with a record that is not the payout asked for (another amount, another
 *   transaction id), or one that cannot be used at all (a 404, a 500 after the retries, a page),
 *   is a status not read: exit 5, code STATUS_NOT_READ, with `--wait` (never 1, which --wait
 *   says for Failed, as payout create --wait says it) and, for another payout's record or one
 *   payctl does not understand (an amount "7.02 ", probe 54-H), without;
 * - a payout the journal has as read Successful that a look-up without --wait now reads Failed:
 *   the contradiction said on stderr in the words --wait uses, exit 4 (STATUS_UNKNOWN), never a
 *   plain Failed with exit 0;
 * - one read Successful that now reads Pending or a word payctl does not know (probe 54-H,
 *   finding 6): the same, with and without --wait, in the words payout batch status uses;
 * - under --wait, that contradiction said at the first read that shows it: no wait on the clock,
 *   not polled through --wait-timeout, the same stdout and stderr as without --wait;
 * - an id not looked up (probe 54-H, finding 5: a mis-pasted id, one copied with a trailing comma
 *   or full stop): with --wait exit 2, never 1 (Failed), code NOT_FOUND; 1 without; no stray line
 *   with the code alone.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { newKey, oneJson, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { sandboxProxy, useHostileCleanups, type Proxy } from '../helpers/hostile.js';
import { payctl } from '../helpers/in-process.js';
import { printed } from '../helpers/printed.js';
import { TestClock } from '../helpers/clock.js';

const KEY = newKey();
const cfg = useConfigDir();
useHostileCleanups();

/** The transaction id the sandbox gave payout `id`. */
const txnOf = (sb: Sandbox, id: string): string => sb.payouts().find((p) => p.payout_id === id)!.transaction_id;

/** `payout create` flags for a bank payout of 7.02 SLE, with --yes. */
function bankArgs(walletId: string, payoutId: string): string[] {
  const to = ['--type', 'bank', '--name', 'Ada Obi', '--provider', 'ecobank', '--account', '0011223399'];
  return ['payout', 'create', '--wallet', walletId, '--amount', '7.02', '--currency', 'SLE', ...to, '--payout-id', payoutId, '--yes'];
}

/** The JSON error document, the last line of stderr under --json. */
const errorOf = (stderr: string) => (JSON.parse(stderr.trim().split('\n').at(-1)!) as { error: { code: string | null; message: string; hint: string } }).error;

describe('a look-up that is not an answer about the payout asked for (a sandbox that settles in an hour)', () => {
  const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 3_600_000 });
  let proxy: Proxy;
  let wallet: string;
  beforeEach(async () => {
    wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    proxy = await sandboxProxy(ctx.sb);
    writeProfile(cfg.dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
  });

  /** Payout `id`, sent and accepted; its look-ups answered for 8.00 instead of 7.02 from now on. */
  async function answeredFor800(id: string): Promise<string> {
    const c = await payctl(bankArgs(wallet, id), { dir: cfg.dir });
    expect(c.code, c.stderr).toBe(0);
    proxy.rewriteLookups((raw) => raw.split('"7.02"').join('"8.00"'));
    return txnOf(ctx.sb, id);
  }

  it('create --wait and its printed follow-up get --wait agree: exit 5 STATUS_NOT_READ, never 1, the amounts named', async () => {
    const id = randomUUID();
    proxy.rewriteLookups((raw) => raw.split('"7.02"').join('"8.00"'));
    const c = await payctl([...bankArgs(wallet, id), '--wait', '--wait-timeout', '3'], { dir: cfg.dir, clock: new TestClock() });
    expect(c.code, c.stderr).toBe(5);
    expect(c.stderr).toContain('answered about a different payout (amount: sent 7.02, answered 8.00)');
    const txn = txnOf(ctx.sb, id);
    const follow = printed(c.stderr, 'payout get');
    expect(follow).toEqual(['payout', 'get', txn, '--wait']);
    for (const args of [follow, ['payout', 'get', id, '--wait'], ['--json', ...follow]]) {
      const r = await payctl(args, { dir: cfg.dir, clock: new TestClock() });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stdout).toBe('');
      if (args[0] === '--json') {
        expect(errorOf(r.stderr)).toMatchObject({ code: 'STATUS_NOT_READ' });
        expect(errorOf(r.stderr).message).toContain('the service answered about a different payout (amount: sent 7.02, answered 8.00)');
      } else {
        expect(r.stderr).toContain('the service answered about a different payout (amount: sent 7.02, answered 8.00)');
        expect(r.stderr).toContain(`Check it again with: payctl payout get ${txn} --wait`);
        expect(r.stderr).toContain('Check the profile');
      }
    }
  });

  it('without --wait: another payout’s record is not this one’s status either: exit 5 STATUS_NOT_READ, nothing on stdout', async () => {
    const id = randomUUID();
    const txn = await answeredFor800(id);
    for (const extra of [[], ['--json']]) {
      const r = await payctl([...extra, 'payout', 'get', txn], { dir: cfg.dir });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('answered about a different payout (amount: sent 7.02, answered 8.00)');
      if (extra.length) expect(errorOf(r.stderr).code).toBe('STATUS_NOT_READ');
      else expect(r.stderr).toContain(`Check it again with: payctl payout get ${txn}\n`);
    }
    // The command printed runs as printed, and says the same.
    const r = await payctl(['payout', 'get', txn], { dir: cfg.dir });
    const again = await payctl(printed(r.stderr, 'payout get'), { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(5);
  });

  it('without --wait: a record payctl does not understand (amount "7.02 ") is a status not read too: exit 5 STATUS_NOT_READ, as --wait', async () => {
    const id = randomUUID();
    const c = await payctl(bankArgs(wallet, id), { dir: cfg.dir });
    expect(c.code, c.stderr).toBe(0);
    const txn = txnOf(ctx.sb, id);
    proxy.rewriteLookups((raw) => raw.split('"7.02"').join('"7.02 "'));
    for (const extra of [[], ['--wait']]) {
      for (const json of [[], ['--json']]) {
        const r = await payctl([...json, 'payout', 'get', txn, ...extra], { dir: cfg.dir, clock: new TestClock() });
        expect(r.code, `${extra.join('')}: ${r.stderr}`).toBe(5);
        expect(r.stdout).toBe('');
        if (json.length) expect(errorOf(r.stderr).code).toBe('STATUS_NOT_READ');
        else expect(r.stderr).toContain('The service sent a payout that payctl does not understand');
      }
    }
  });

  it('get --wait of a record naming another transaction, a 404, a 500 after retries or a page: exit 5 STATUS_NOT_READ, never 1', async () => {
    const id = randomUUID();
    const c = await payctl(bankArgs(wallet, id), { dir: cfg.dir });
    expect(c.code, c.stderr).toBe(0);
    const txn = txnOf(ctx.sb, id);
    const other = `TXN-BOK-${'F'.repeat(26)}`;
    const answers: Array<[string, (raw: string) => string, string]> = [
      ['another transaction', (raw) => raw.split(txn).join(other), `the service answered about a different payout: ${other}`],
      ['a page', () => '<html>maintenance</html>', 'a body that is not JSON'],
      ['no record', () => JSON.stringify({ status: 'Successful', message: 'ok', data: { hello: 1 }, timestamp: '2026-11-27T10:00:00Z' }), 'does not understand'],
    ];
    for (const [what, rewrite, said] of answers) {
      proxy.rewriteLookups(rewrite);
      const r = await payctl(['payout', 'get', id, '--wait'], { dir: cfg.dir, clock: new TestClock() });
      expect(r.code, `${what}: ${r.stderr}`).toBe(5);
      expect(r.stderr, what).toContain(said);
      expect(r.stderr, what).toContain(`Check it again with: payctl payout get ${txn} --wait`);
    }
    proxy.rewriteLookups((raw) => raw);
    for (const [status, times] of [
      [404, 1],
      [500, Infinity],
    ] as const) {
      ctx.sb.faults.add({ method: 'GET', path: `/v2/payout/${txn}`, kind: 'status', status, times });
      const r = await payctl(['--json', 'payout', 'get', id, '--wait'], { dir: cfg.dir, clock: new TestClock() });
      ctx.sb.faults.clear();
      expect(r.code, `${status}: ${r.stderr}`).toBe(5);
      expect(errorOf(r.stderr)).toMatchObject({ code: 'STATUS_NOT_READ' });
      expect(errorOf(r.stderr).message).toContain(`HTTP ${status}`);
    }
  });
});

/** A payout sent with --wait through a proxy that can rewrite look-ups, read Successful (the journal has it so): its ids and the proxy. */
async function readSuccessful(sb: Sandbox): Promise<{ id: string; txn: string; proxy: Awaited<ReturnType<typeof sandboxProxy>> }> {
  const wallet = freshWallet(sb, '100000.00', 'SLE');
  const proxy = await sandboxProxy(sb);
  writeProfile(cfg.dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
  const id = randomUUID();
  const c = await payctl([...bankArgs(wallet, id), '--wait'], { dir: cfg.dir });
  expect(c.code, c.stderr).toBe(0);
  return { id, txn: txnOf(sb, id), proxy };
}

describe('a payout read Successful that a look-up now reads Failed (a sandbox that settles in 300 ms)', () => {
  const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 300 });
  it('get without --wait says the contradiction in --wait’s words and exits 4 (STATUS_UNKNOWN), the card on stdout', async () => {
    const { id, txn, proxy } = await readSuccessful(ctx.sb);
    proxy.rewriteLookups((raw) => raw.split('"status":"successful"').join('"status":"failed"'));
    const said = `Payout ${id} (transaction ${txn}) was read Successful (in this config folder's journal), now Failed: whether it was paid cannot be told.`;
    const waited = await payctl(['payout', 'get', txn, '--wait'], { dir: cfg.dir });
    expect(waited.code, waited.stderr).toBe(4);
    expect(waited.stderr).toContain(said);
    for (const ref of [txn, id]) {
      const r = await payctl(['payout', 'get', ref], { dir: cfg.dir });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stdout).toMatch(/Status\s+Failed/);
      expect(r.stderr).toContain(said);
      expect(r.stderr).toContain(`Check it again with: payctl payout get ${txn} --wait`);
    }
    const j = await payctl(['--json', 'payout', 'get', txn], { dir: cfg.dir });
    expect(j.code, j.stderr).toBe(4);
    expect(oneJson(j.stdout).data).toMatchObject({ status: 'failed' });
    expect(errorOf(j.stderr)).toMatchObject({ code: 'STATUS_UNKNOWN' });
    // The journal keeps Successful: history does not turn it Failed.
    const h = await payctl(['history', '--json'], { dir: cfg.dir });
    expect(h.stdout).not.toMatch(/"payout_status":\s*"Failed"/i);
  });
});

describe('a payout read Successful that a look-up now reads Pending or an odd word (probe 54-H, finding 6)', () => {
  const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 300 });
  it('get, with and without --wait, says the contradiction as batch status does: exit 4 STATUS_UNKNOWN, never 0 nor 5', async () => {
    const { id, txn, proxy } = await readSuccessful(ctx.sb);
    for (const [word, now] of [
      ['pending', 'Pending'],
      ['done', '"done"'],
    ]) {
      proxy.rewriteLookups((raw) => raw.split('"status":"successful"').join(`"status":"${word}"`));
      const said = `Payout ${id} (transaction ${txn}) was read Successful (in this config folder's journal), now ${now}: whether it was paid cannot be told.`;
      for (const extra of [[], ['--wait', '--wait-timeout', '2']]) {
        const r = await payctl(['payout', 'get', txn, ...extra], { dir: cfg.dir, clock: new TestClock() });
        expect(r.code, `${word} ${extra.join(' ')}: ${r.stderr}`).toBe(4);
        expect(r.stderr).toContain(said);
        expect(r.stderr).toContain(`Check it again with: payctl payout get ${txn} --wait`);
        const j = await payctl(['--json', 'payout', 'get', id, ...extra], { dir: cfg.dir, clock: new TestClock() });
        expect(j.code, j.stderr).toBe(4);
        expect(errorOf(j.stderr)).toMatchObject({ code: 'STATUS_UNKNOWN' });
      }
    }
    // The journal keeps Successful.
    const h = await payctl(['history', '--json'], { dir: cfg.dir });
    expect(h.stdout).toMatch(/"payout_status":\s*"Successful"/i);
  });
});

describe('a contradiction seen under --wait (a sandbox that settles in 300 ms)', () => {
  const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 300 });
  it('get --wait exits 4 at the first read that contradicts, never waiting for --wait-timeout, in the words of get without --wait', async () => {
    const { txn, proxy } = await readSuccessful(ctx.sb);
    proxy.rewriteLookups((raw) => raw.split('"status":"successful"').join('"status":"pending"'));
    const plain = await payctl(['payout', 'get', txn], { dir: cfg.dir, clock: new TestClock() });
    expect(plain.code, plain.stderr).toBe(4);
    for (const extra of [[], ['--wait-timeout', '3600']]) {
      const clock = new TestClock();
      const r = await payctl(['payout', 'get', txn, '--wait', ...extra], { dir: cfg.dir, clock });
      expect(r.code, r.stderr).toBe(4);
      // Not one wait: the first read said it, and nothing was polled after it.
      expect(clock.waits, extra.join(' ')).toEqual([]);
      expect(r.stderr).toBe(plain.stderr);
      expect(r.stdout).toBe(plain.stdout);
    }
  });
});

describe('an id payout get does not look up (probe 54-H, finding 5; a sandbox that settles in 300 ms)', () => {
  const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 300 });
  it('--wait exits 2 (never 1, which --wait says for Failed), code NOT_FOUND, nothing asked; without --wait 1; no stray code line', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    const id = `w-${randomUUID().slice(0, 8)}`;
    const c = await payctl([...bankArgs(wallet, id), '--wait'], { dir: cfg.dir });
    expect(c.code, c.stderr).toBe(0);
    const txn = txnOf(ctx.sb, id);
    const before = ctx.sb.requests().length;
    for (const typed of [`${txn},`, `${id}.`, 'no-such-thing']) {
      const w = await payctl(['payout', 'get', typed, '--wait'], { dir: cfg.dir, clock: new TestClock() });
      expect(w.code, `${typed}: ${w.stderr}`).toBe(2);
      expect(w.stdout).toBe('');
      expect(w.stderr).toContain('Nothing was asked of the service.');
      expect(w.stderr).not.toMatch(/^\s*NOT_FOUND\s*$/m);
      const j = await payctl(['--json', 'payout', 'get', typed, '--wait'], { dir: cfg.dir, clock: new TestClock() });
      expect(j.code, j.stderr).toBe(2);
      expect(errorOf(j.stderr).code).toBe('NOT_FOUND');
      const plain = await payctl(['payout', 'get', typed], { dir: cfg.dir });
      expect(plain.code, plain.stderr).toBe(1);
      expect(plain.stderr).not.toMatch(/^\s*NOT_FOUND\s*$/m);
    }
    expect(ctx.sb.requests().length).toBe(before);
  });
});
