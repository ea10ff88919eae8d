/**
 * `--wait` on `payout create` and `payout get`, in process against the in-process sandbox
 * over real HTTP. The sandbox settles a payout on real time (Successful after
 * settleAfterMs, Failed when the account ends in 0000), so the settling cases run on the
 * real clock with a sandbox that settles in 400 ms; the cases where the payout never
 * settles in time run on a TestClock against a sandbox that settles in an hour, so the
 * back-off (1 s doubling to 15 s, cut short at --wait-timeout) is checked, not waited.
 * The payout is read by its transaction id (GET /payout/{transactionId}, whose status is the
 * lower-case "successful"); messages name the payout id and its transaction id, and printed
 * commands the transaction id.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { direct, newKey, oneJson, sameButTimestamp, useConfigDir, writeProfile, writeProfiles } from '../helpers/e2e.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { stderrDocs } from '../helpers/stderr-json.js';
import { tempConfigDir } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { parse } from '../helpers/parse.js';
import { FAILURE_REASON } from '../../src/sandbox/settlement.js';

const KEY = newKey();
const cfg = useConfigDir();
useHostileCleanups();

/** `payout create` flags for a wallet payout of 10 SLE (an account ending in 0000 fails). */
function createArgs(walletId: string, payoutId: string, account = '076123456'): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    walletId,
    '--amount',
    '10',
    '--currency',
    'SLE',
    '--type',
    'wallet',
    '--name',
    'Aminata Kamara',
    '--provider',
    'orange_money',
    '--account',
    account,
    '--phone',
    '+23276123456',
    '--payout-id',
    payoutId,
    '--yes',
  ];
}

/** The sandbox's record of a payout id. */
const held = (sb: Sandbox, payoutId: string) => sb.payouts().find((p) => p.payout_id === payoutId);

/** The transaction id the sandbox gave payout `id`. */
const txnOf = (sb: Sandbox, id: string): string => held(sb, id)!.transaction_id;

/** How messages name a payout: its id and its transaction id (escaped for a RegExp). */
const named = (sb: Sandbox, id: string): string => `${id} \\(transaction ${txnOf(sb, id)}\\)`;
const namedText = (sb: Sandbox, id: string): string => `${id} (transaction ${txnOf(sb, id)})`;

/** The reads of payout `id` (by its transaction id) the sandbox received since request number `from`. */
function pollsOf(sb: Sandbox, id: string, from = 0): number {
  const txn = held(sb, id)?.transaction_id;
  return sb
    .requests()
    .slice(from)
    .filter((r) => r.method === 'GET' && r.path === `/v2/payout/${txn}`).length;
}

/** A command line as payctl printed it (plain words, no quoting needed here), without `payctl`. */
function argvOf(printed: string): string[] {
  const words = printed.trim().split(/\s+/);
  expect(words[0]).toBe('payctl');
  return words.slice(1);
}

describe('a sandbox that settles in 400 ms (real clock)', () => {
  const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 400 });
  let wallet: string;
  beforeEach(() => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  });
  afterEach(() => ctx.sb.faults.clear());

  it('create --wait: Successful, exit 0, the settled card on stdout (once), nothing extra on stderr off a terminal', async () => {
    const id = randomUUID();
    const from = ctx.sb.requests().length;
    const r = await payctl([...createArgs(wallet, id), '--wait'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    // Settled after the first 1 s step, or (on a loaded machine, the create taking 400 ms) at the first read.
    expect(r.stderr).toMatch(new RegExp(`^✓ Payout ${id} submitted\\.\\n✓ Payout ${named(ctx.sb, id)} is Successful(?: \\(after \\d+ s\\))?\\.\\n$`));
    expect(r.stdout).toMatch(/Status\s+Successful/);
    expect(r.stdout.match(/Status/g)).toHaveLength(1);
    expect(r.stdout).toContain(id);
    expect(held(ctx.sb, id)?.status).toBe('Successful');
    // Read at once (Pending), then after the first 1 s step (settled at 400 ms).
    const polls = pollsOf(ctx.sb, id, from);
    expect(polls === 2 ? r.stderr.includes('(after ') && r.ms >= 900 : polls === 1 && !r.stderr.includes('(after ')).toBe(true);
  });

  it('create --wait: Failed, exit 1, the failure reason on stderr and the card (with the reason) on stdout', async () => {
    const id = randomUUID();
    const r = await payctl([...createArgs(wallet, id, '0770000000'), '--wait'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe(`✓ Payout ${id} submitted.\nError: Payout ${namedText(ctx.sb, id)} failed: ${FAILURE_REASON}\n`);
    expect(r.stdout).toMatch(/Status\s+Failed/);
    expect(r.stdout).toContain(FAILURE_REASON);
    expect(held(ctx.sb, id)?.status).toBe('Failed');
    // What it became is noted in the journal: history says Failed, not only "accepted".
    const h = await payctl(['history', '--json'], { dir: cfg.dir });
    const line = (oneJson(h.stdout) as { data: Array<{ payout_id: string; outcome: string; payout_status: string | null }> }).data.find((l) => l.payout_id === id);
    expect(line).toMatchObject({ outcome: 'accepted', payout_status: 'Failed' });
  });

  it('create --wait --json: stdout holds only the final envelope, as the service sent it', async () => {
    const id = randomUUID();
    const r = await payctl([...createArgs(wallet, id), '--wait', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    const doc = oneJson(r.stdout);
    expect(doc.data.transaction_id).toBe(txnOf(ctx.sb, id));
    expect(doc.data.status).toBe('successful');
    // Byte for byte what a GET answers now (the envelope's own timestamp aside).
    const now = await direct(ctx.sb, 'GET', `/payout/${txnOf(ctx.sb, id)}`);
    expect(sameButTimestamp(r.stdout)).toBe(sameButTimestamp(now.raw));
  });

  it('create --wait --json on a payout that fails, off and at a terminal: stderr is the one JSON error, no "submitted" or live line (probe 70-S, 9)', async () => {
    for (const tty of [undefined, { stderr: true }]) {
      const id = randomUUID();
      const r = await payctl([...createArgs(wallet, id, '0770000000'), '--wait', '--json'], { dir: cfg.dir, ...(tty ? { tty } : {}) });
      expect(r.code, r.stderr).toBe(1);
      // Before: "✓ Payout … submitted.\n" (and at a terminal the live line) before the document.
      expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'PAYOUT_FAILED', payout_id: id } });
      expect(oneJson(r.stdout).data).toMatchObject({ transaction_id: txnOf(ctx.sb, id), status: 'failed' });
    }
    // Successful: the lines are said once the wait is over.
    const id = randomUUID();
    const ok = await payctl([...createArgs(wallet, id), '--wait', '--json'], { dir: cfg.dir });
    expect(ok.code, ok.stderr).toBe(0);
    // Under --json as JSON lines (src/output/log.ts), without the ✓ a person sees.
    expect(stderrDocs(ok.stderr)).toEqual([
      { notice: expect.stringMatching(new RegExp(`^Payout ${named(ctx.sb, id)} is Successful(?: \\(after \\d+ s\\))?\\.$`)) },
      { notice: `Payout ${id} submitted.` },
    ]);
  });

  it('get --wait --json on a payout that fails: exit 1, the Failed envelope on stdout, a JSON error on stderr', async () => {
    const id = randomUUID();
    const c = await payctl(createArgs(wallet, id, '0770000000'), { dir: cfg.dir });
    expect(c.code, c.stderr).toBe(0);
    const r = await payctl(['payout', 'get', id, '--wait', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(oneJson(r.stdout).data).toMatchObject({ transaction_id: txnOf(ctx.sb, id), status: 'failed', failure_reason: FAILURE_REASON });
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        message: `Payout ${namedText(ctx.sb, id)} failed: ${FAILURE_REASON}`,
        status: null,
        code: 'PAYOUT_FAILED',
        request_id: null,
        errors: [],
        hint: null,
        payout_id: id,
      },
    });
  });

  it('get --wait on a payout already settled answers at once: one read, no wait', async () => {
    const id = randomUUID();
    const c = await payctl(createArgs(wallet, id), { dir: cfg.dir });
    expect(c.code, c.stderr).toBe(0);
    await eventually(() => held(ctx.sb, id)?.status === 'Successful');
    const clock = new TestClock();
    const from = ctx.sb.requests().length;
    const r = await payctl(['payout', 'get', id, '--wait'], { dir: cfg.dir, clock });
    expect(r.code, r.stderr).toBe(0);
    expect(clock.waits).toEqual([]);
    expect(pollsOf(ctx.sb, id, from)).toBe(1);
    expect(r.stdout).toMatch(/Status\s+Successful/);
    expect(r.stderr).toBe(`✓ Payout ${namedText(ctx.sb, id)} is Successful.\n`);
  });

  it('at a terminal (stderr a TTY) a live line shows the status and the time, and is cleared at the end', async () => {
    const id = randomUUID();
    const r = await payctl([...createArgs(wallet, id), '--wait'], { dir: cfg.dir, tty: { stderr: true } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`\r\u001b[2KWaiting for payout ${namedText(ctx.sb, id)}: Pending (0 s)`);
    // Cleared before the outcome is printed on a line of its own.
    expect(r.stderr).toMatch(new RegExp(`\\r\\u001b\\[2K[^\\r\\n]*Payout ${named(ctx.sb, id)} is Successful \\(after [12] s\\)\\.\\n$`));
    expect(r.stderr.lastIndexOf('Waiting for payout')).toBeLessThan(r.stderr.lastIndexOf('\r\u001b[2K'));
    expect(r.stdout).not.toContain('Waiting');
  });

  it('off a terminal there is no live line', async () => {
    const id = randomUUID();
    const r = await payctl([...createArgs(wallet, id), '--wait'], { dir: cfg.dir, tty: { stdout: true } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Waiting');
    expect(r.stderr).not.toContain('\u001b[2K');
  });

  it('still Pending at the limit: exit 5, and the printed command, run as printed, waits for the same payout until it settles', async () => {
    const id = randomUUID();
    const r = await payctl([...createArgs(wallet, id), '--wait', '--wait-timeout', '0.1'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toMatch(/Status\s+Pending/);
    const hint = /^Keep waiting with: (payctl .*)$/m.exec(r.stderr);
    expect(hint, r.stderr).not.toBeNull();
    expect(hint![1]).toBe(`payctl payout get ${txnOf(ctx.sb, id)} --wait`);
    const again = await payctl(argvOf(hint![1]!), { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Status\s+Successful/);
    expect(again.stdout).toContain(id);
  });

  it('a status word payctl does not know ("done"): waited through, never taken as settled or still Pending; at the limit exit 4, the word named', async () => {
    const proxy = await sandboxProxy(ctx.sb);
    writeProfile(cfg.dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
    proxy.rewriteLookups((raw) => raw.replace(/"status":"(pending|successful|failed)"/, '"status":"done\\u001b[2J"'));
    const id = randomUUID();
    const r = await payctl([...createArgs(wallet, id), '--wait', '--wait-timeout', '1.5'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(4);
    // The word as sent, its escape sequence written out (never drawn, never dropped: "done" could be any word's look-alike).
    expect(r.stdout).toMatch(/Status\s+done\\u001b\[2J\n/);
    expect(r.stderr).toMatch(
      new RegExp(
        `Payout ${named(ctx.sb, id)} has the status "done\\\\u001b\\[2J", a word payctl does not know, after [12] s of waiting: whether it was paid cannot be told from it\\. It was not sent again\\.`,
      ),
    );
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).not.toMatch(/is Successful|still/);
    // Read at once, after 1 s and at the limit: waited through, as a word that may still change.
    expect(pollsOf(ctx.sb, id)).toBe(3);

    const get = await payctl(['payout', 'get', txnOf(ctx.sb, id), '--wait', '--wait-timeout', '0.1', '--json'], { dir: cfg.dir });
    expect(get.code, get.stderr).toBe(4);
    expect(JSON.parse(get.stdout).data.status).toBe('done\u001b[2J');
    expect(JSON.parse(get.stderr).error.code).toBe('STATUS_UNKNOWN');
  });

  it('create refused by the service (insufficient funds): exit 1 and no waiting', async () => {
    const poor = freshWallet(ctx.sb, '1.00', 'SLE');
    const id = randomUUID();
    const from = ctx.sb.requests().length;
    const r = await payctl([...createArgs(poor, id), '--wait'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('INSUFFICIENT_FUNDS');
    expect(pollsOf(ctx.sb, id, from)).toBe(0);
  });

  it('create --wait of a payout id the service already holds (made from another config folder under another key): exit 4, never 0, no waiting; once its record is chosen (--made-by), --wait follows it', async () => {
    const id = randomUUID();
    const other = tempConfigDir();
    try {
      writeProfile(other.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
      // The same payout under a key of its own (as a service that forgot the key sees it).
      expect((await payctl([...createArgs(wallet, id), '--idempotency-key', randomUUID()], { dir: other.dir })).code).toBe(0);
    } finally {
      other.cleanup();
    }
    const txn = txnOf(ctx.sb, id);
    // Another idempotency key: the service refuses the id as taken, and its payout list holds a record that could be it: not proof (it names no payout id).
    const from = ctx.sb.requests().length;
    const r = await payctl([...createArgs(wallet, id), '--wait'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('Already submitted');
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(pollsOf(ctx.sb, id, from)).toBe(0);
    expect(ctx.sb.payouts().filter((p) => p.payout_id === id)).toHaveLength(1);
    const made = /^ {2}(payctl history reconcile --payout-id \S+ --made-by \S+)$/m.exec(r.stderr)?.[1];
    expect(made, r.stderr).toBe(`payctl history reconcile --payout-id ${id} --made-by ${txn}`);
    const recorded = await payctl(argvOf(made!), { dir: cfg.dir });
    expect(recorded.code, recorded.stderr).toBe(0);
    // Recorded as made by it: create --wait reads that transaction back and follows it; nothing new paid.
    const followed = await payctl([...createArgs(wallet, id), '--wait'], { dir: cfg.dir });
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toMatch(/Status\s+Successful/);
    expect(ctx.sb.payouts().filter((p) => p.payout_id === id)).toHaveLength(1);
    const got = await payctl(['payout', 'get', id], { dir: cfg.dir });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain(txn);
  });

  it('create whose outcome is unknown: exit 4 and no waiting', async () => {
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
    const id = randomUUID();
    const from = ctx.sb.requests().length;
    const r = await payctl([...createArgs(wallet, id), '--wait'], { dir: cfg.dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('is unknown');
    expect(pollsOf(ctx.sb, id, from)).toBe(0);
  });
});

describe('a sandbox that settles in an hour (TestClock: the waits are recorded, not waited)', () => {
  const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 3_600_000 });
  let wallet: string;
  beforeEach(() => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  });
  afterEach(() => ctx.sb.faults.clear());

  /** A Pending payout made by payctl itself. */
  async function pending(): Promise<string> {
    const id = randomUUID();
    const c = await payctl(createArgs(wallet, id), { dir: cfg.dir });
    expect(c.code, c.stderr).toBe(0);
    return id;
  }

  it('create --wait --wait-timeout 2: exit 5 after waits of 1 s and 1 s (cut to the limit), with the command to keep waiting', async () => {
    const id = randomUUID();
    const clock = new TestClock();
    const from = ctx.sb.requests().length;
    const r = await payctl([...createArgs(wallet, id), '--wait', '--wait-timeout', '2'], { dir: cfg.dir, clock });
    expect(r.code, r.stderr).toBe(5);
    expect(clock.waits).toEqual([1000, 1000]);
    expect(pollsOf(ctx.sb, id, from)).toBe(3);
    const txn = txnOf(ctx.sb, id);
    expect(r.stderr).toBe(
      `✓ Payout ${id} submitted.\n` +
        `Error: Payout ${id} (transaction ${txn}) is still Pending after 2 s (--wait-timeout 2). It was accepted and may still settle.\n` +
        `Keep waiting with: payctl payout get ${txn} --wait\n`,
    );
    expect(r.stdout).toMatch(/Status\s+Pending/);
    // The printed command parses to a wait on the same payout.
    const p = await parse(...argvOf(`payctl payout get ${txn} --wait`));
    expect(p.path).toBe('payout get');
    expect(p.opts).toEqual({ id: txn, wait: true });
  });

  it('the printed command carries --profile and --timeout, and parses to a wait on the same payout', async () => {
    writeProfiles(cfg.dir, { staging: { baseUrl: ctx.sb.baseUrl, apiKey: KEY } });
    const id = randomUUID();
    const r = await payctl([...createArgs(wallet, id), '--profile', 'staging', '--timeout', '5', '--wait', '--wait-timeout', '1'], {
      dir: cfg.dir,
      clock: new TestClock(),
    });
    expect(r.code, r.stderr).toBe(5);
    const printed = /^Keep waiting with: (payctl .*)$/m.exec(r.stderr)![1]!;
    expect(printed).toBe(`payctl payout get ${txnOf(ctx.sb, id)} --profile staging --timeout 5 --wait`);
    const p = await parse(...argvOf(printed));
    expect(p.opts).toEqual({ id: txnOf(ctx.sb, id), wait: true });
    expect(p.globals()).toMatchObject({ profile: 'staging', timeoutMs: 5000 });
  });

  it('get --wait: the default limit of 600 s, checked after 1, 2, 4, 8 s and then every 15 s', async () => {
    const id = await pending();
    const clock = new TestClock();
    const r = await payctl(['payout', 'get', id, '--wait'], { dir: cfg.dir, clock });
    expect(r.code, r.stderr).toBe(5);
    expect(clock.waits).toEqual([1000, 2000, 4000, 8000, ...Array<number>(39).fill(15_000)]);
    expect(clock.waits.reduce((a, b) => a + b, 0)).toBe(600_000);
    expect(r.stderr).toContain(`Error: Payout ${namedText(ctx.sb, id)} is still Pending after 10 min (--wait-timeout 600).`);
  });

  it('get --wait --json at the limit: the last (Pending) envelope on stdout, STILL_PENDING on stderr', async () => {
    const id = await pending();
    const r = await payctl(['payout', 'get', id, '--wait', '--wait-timeout', '30', '--json'], { dir: cfg.dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(5);
    expect(oneJson(r.stdout).data).toMatchObject({ transaction_id: txnOf(ctx.sb, id), status: 'pending' });
    const err = JSON.parse(r.stderr) as { error: { code: string; message: string; hint: string } };
    expect(err.error.code).toBe('STILL_PENDING');
    expect(err.error.hint).toBe(`Keep waiting with: payctl payout get ${txnOf(ctx.sb, id)} --wait`);
  });

  it('Retry-After on a 429 while polling is honoured by the read (1 s, not the 125-250 ms back-off), then polling goes on', async () => {
    const id = await pending();
    // The first two reads pass; the third is answered 429 with Retry-After: 1, once.
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout', kind: 'delay', delayMs: 0, times: 2 });
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout', kind: 'status', status: 429 });
    const clock = new TestClock();
    const from = ctx.sb.requests().length;
    const r = await payctl(['payout', 'get', id, '--wait', '--wait-timeout', '10'], { dir: cfg.dir, clock });
    expect(r.code, r.stderr).toBe(5);
    // Checks at 0, 1 s, 3 s (429, read again 1 s later), 8 s, and at the limit, 10 s.
    expect(clock.waits).toEqual([1000, 2000, 1000, 4000, 2000]);
    expect(pollsOf(ctx.sb, id, from)).toBe(6);
  });

  it('a check still refused after the read’s retries (429 four times) does not end the wait', async () => {
    const id = await pending();
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout', kind: 'delay', delayMs: 0, times: 1 });
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout', kind: 'status', status: 429, times: 4 });
    const clock = new TestClock();
    const r = await payctl(['payout', 'get', id, '--wait', '--wait-timeout', '10'], { dir: cfg.dir, clock, tty: { stderr: true } });
    expect(r.code, r.stderr).toBe(5);
    // Check 1 at 0; check 2 at 1 s: 429, read again after 1, 1, 1 s (Retry-After), given up at 4 s;
    // check 3 at 6 s, and the last at the limit, 10 s.
    expect(clock.waits).toEqual([1000, 1000, 1000, 1000, 2000, 4000]);
    expect(r.stderr).toContain(`Waiting for payout ${namedText(ctx.sb, id)}: Pending (4 s; last check failed: HTTP 429)`);
  });

  it('every check after the first failing until the limit: exit 5 STATUS_NOT_READ, says when it was last read, never "still Pending after"', async () => {
    const id = await pending();
    for (const extra of [[], ['--json']]) {
      ctx.sb.faults.clear();
      ctx.sb.faults.add({ method: 'GET', path: '/v2/payout', kind: 'delay', delayMs: 0, times: 1 });
      ctx.sb.faults.add({ method: 'GET', path: '/v2/payout', kind: 'status', status: 503, times: 1000 });
      const clock = new TestClock();
      const r = await payctl([...extra, 'payout', 'get', id, '--wait', '--wait-timeout', '10'], { dir: cfg.dir, clock });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).not.toMatch(/still Pending/);
      if (extra.length) {
        const error = JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('{"error"'))!) as { error: { message: string; code: string } };
        expect(error.error.code).toBe('STATUS_NOT_READ');
        expect(error.error.message).toMatch(
          /was last read Pending 0 s into the wait; every check after it failed until the limit, 10 s \(--wait-timeout 10; the last: HTTP 503\)/,
        );
      } else {
        expect(r.stderr).toMatch(
          /was last read Pending 0 s into the wait; every check after it failed until the limit, 10 s \(--wait-timeout 10; the last: HTTP 503\)\. Whether it settled since is not known; it was not sent again\./,
        );
        expect(r.stderr).toMatch(/^Check it again with: payctl payout get \S+ --wait$/m);
      }
    }
  });

  it('a check that fails and a later one that reads: at the limit, still Pending as read', async () => {
    const id = await pending();
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout', kind: 'delay', delayMs: 0, times: 1 });
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout', kind: 'status', status: 503, times: 4 });
    const clock = new TestClock();
    const r = await payctl(['payout', 'get', id, '--wait', '--wait-timeout', '10'], { dir: cfg.dir, clock });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/is still Pending after 10 s \(--wait-timeout 10\)/);
  });

  it('create --wait whose first read back fails (404, a page): exit 5, never 1, and the create answer on stdout', async () => {
    for (const [status, body] of [
      [404, JSON.stringify({ message: 'Transfer not found' })],
      [404, '<html><body>Not Found</body></html>'],
      // The key refused between the create and the read: exit 3 said "nothing was sent" before.
      [401, JSON.stringify({ message: 'Unauthenticated.' })],
    ] as const) {
      ctx.sb.faults.add({ method: 'GET', path: '/v2/payout/', kind: 'status', status, body, times: 1 });
      const id = randomUUID();
      const r = await payctl([...createArgs(wallet, id), '--wait', '--json'], { dir: cfg.dir, clock: new TestClock() });
      // Exit 1 is --wait's Failed: a script would send the payout again.
      expect(r.code, r.stderr).toBe(5);
      const txn = txnOf(ctx.sb, id);
      expect(JSON.parse(r.stdout)).toMatchObject({ data: { transaction_id: txn } });
      const error = JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('{"error"'))!) as { error: { message: string; hint: string; code: string } };
      expect(error.error.message).toContain(`Payout ${id} was accepted (transaction ${txn}), but its status could not be read`);
      // Not STILL_PENDING: nothing said it was Pending; its status was not read.
      expect(error.error.code).toBe('STATUS_NOT_READ');
      // The printed command, run as printed, reads it.
      const hint = error.error.hint.split('\n').at(-1)!;
      const again = await payctl(argvOf(hint.slice(hint.indexOf('payctl'))).concat('--wait-timeout', '1'), { dir: cfg.dir, clock: new TestClock() });
      expect(again.code, again.stderr).toBe(5);
      expect(again.stderr).toContain('still Pending');
      expect(ctx.sb.payouts().filter((p) => p.payout_id === id)).toHaveLength(1);
    }
  });

  it('a first read that fails ends the wait with that error (unknown transaction: exit 5, its status not read, never 1; no waiting)', async () => {
    const clock = new TestClock();
    const r = await payctl(['payout', 'get', 'TXN-BOK-00000000000000000000000000', '--wait'], { dir: cfg.dir, clock });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('HTTP 404 NOT_FOUND');
    expect(clock.waits).toEqual([]);
    expect(r.stdout).toBe('');
    // Neither a transaction id nor a journaled payout id: nothing is asked; exit 2, never 1 (Failed).
    const from = ctx.sb.requests().length;
    const n = await payctl(['payout', 'get', 'no-such-payout', '--wait'], { dir: cfg.dir, clock });
    expect(n.code).toBe(2);
    expect(n.stderr).toContain('Nothing was asked of the service.');
    expect(ctx.sb.requests().length).toBe(from);
  });

  it('Ctrl-C while waiting: exit 130, says the payout was accepted and how to check it', async () => {
    const id = await pending();
    // The real clock: the run sits in its 1 s wait when Ctrl-C comes.
    const started = startPayctl(['payout', 'get', id, '--wait'], { dir: cfg.dir, tty: { stderr: true } });
    await eventually(() => started.stderr().includes(`Waiting for payout ${namedText(ctx.sb, id)}: Pending`), 2000, 5);
    started.interrupt();
    const r = await started.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.ms).toBeLessThan(900);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `Error: Interrupted: stopped waiting for payout ${namedText(ctx.sb, id)} (last seen: Pending). The payout was accepted; waiting does not change it.\n` +
        `Check it with:   payctl payout get ${txnOf(ctx.sb, id)}\n` +
        `Wait again with: payctl payout get ${txnOf(ctx.sb, id)} --wait\n`,
    );
  });

  it('--wait-timeout without --wait is a usage error: exit 2, nothing read', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['payout', 'get', 'po_1', '--wait-timeout', '5'], { dir: cfg.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: --wait-timeout needs --wait.');
    expect(ctx.sb.requests().length).toBe(from);
  });
});
