/**
 * `payout create` whose balances read (before anything is journaled or sent) fails, in process
 * against the sandbox over real HTTP: the error says that this run sent nothing. A pasted "Retry
 * safely" of a payout whose earlier attempt's outcome is unknown also says that it still is,
 * with the `history reconcile` command (exit 4, its payout id in --json), which then resolves
 * it; a new payout says "Nothing was sent" and journals nothing (exit 4, a network failure).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts } from '../helpers/batch.js';
import { journalOf } from '../helpers/hostile.js';
import { heldFor, loginInProcess, payoutArgs } from '../helpers/payout-fixtures.js';
import { shellSplit } from '../helpers/pty.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
  ctx.sb.faults.clear();
  ctx.sb.clearRequests();
});
afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

/** Every balances read closed before an answer (retried, then given up). */
const balancesFail = () => ctx.sb.faults.add({ kind: 'reset-before-commit', method: 'GET', path: '/v2/wallets/balances', times: Infinity });

/** The command printed after `label` (on its line or the next), as argv without `payctl`. */
function printed(stderr: string, label: string): string[] {
  const lines = stderr.split('\n');
  const at = lines.findIndex((l) => l.includes(label));
  expect(at, stderr).toBeGreaterThanOrEqual(0);
  const line = [lines[at]!, lines[at + 1] ?? ''].find((l) => l.includes('payctl '))!;
  return shellSplit(line.slice(line.indexOf('payctl '))).slice(1);
}

describe('payout create: a balances read that fails before sending says nothing was sent', () => {
  it('a pasted "Retry safely" of a payout of unknown outcome: this run sent nothing, the outcome still unknown, the reconcile command (exit 4)', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00', 'SLE');
    const id = randomUUID();
    ctx.sb.faults.add({ kind: 'reset-before-commit', method: 'POST', path: '/v2/payout', times: Infinity });
    const first = await payctl(payoutArgs(walletId, id), { dir, clock: new TestClock() });
    expect(first.code, first.stderr).toBe(4);
    const retry = printed(first.stderr, 'Retry safely');
    expect(retry).toContain('--idempotency-key');
    ctx.sb.faults.clear();

    balancesFail();
    const posts = payoutPosts(ctx.sb).length;
    const r = await payctl(retry, { dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(4);
    expect(payoutPosts(ctx.sb)).toHaveLength(posts);
    expect(r.stderr).toMatch(
      new RegExp(
        `^Error: The connection to 127\\.0\\.0\\.1:\\d+ was closed before an answer arrived.*\\. This run sent nothing \\(the payout request did not leave\\), and the outcome of payout ${id} is still unknown from its earlier attempt: it may or may not have been made\\.\n`,
      ),
    );
    expect(printed(r.stderr, 'Find out what became of it')).toEqual(['history', 'reconcile', '--payout-id', id]);
    expect(journalOf(dir, id)[0]!.outcome).toMatchObject({ kind: 'unknown' });

    const j = await payctl([...retry, '--json'], { dir, clock: new TestClock() });
    expect(j.code, j.stderr).toBe(4);
    const error = (JSON.parse(j.stderr) as { error: { message: string; payout_id: string; hint: string } }).error;
    expect(error.payout_id).toBe(id);
    expect(error.message).toContain('This run sent nothing (the payout request did not leave)');
    expect(error.hint).toContain(`payctl history reconcile --payout-id ${id}`);
    expect(payoutPosts(ctx.sb)).toHaveLength(posts);

    // The printed reconcile, once the service answers: the payout made once.
    ctx.sb.faults.clear();
    const rec = await payctl(printed(r.stderr, 'Find out what became of it'), { dir });
    expect(rec.code, rec.stderr).toBe(0);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  });

  it('a new payout: "Nothing was sent", nothing journaled, no payout id in --json (exit 4, a network failure)', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00', 'SLE');
    const id = randomUUID();
    balancesFail();
    for (const json of [false, true]) {
      const r = await payctl([...payoutArgs(walletId, id), ...(json ? ['--json'] : [])], { dir, clock: new TestClock() });
      expect(r.code, r.stderr).toBe(4);
      if (json) {
        const error = (JSON.parse(r.stderr) as { error: Record<string, unknown> }).error;
        expect(error.message).toMatch(/\. Nothing was sent \(the payout request did not leave\)\.$/);
        expect(error.payout_id).toBeUndefined();
      } else {
        expect(r.stderr).toMatch(/^Error: The connection to .+\. Nothing was sent \(the payout request did not leave\)\.\n/);
        expect(r.stderr).not.toMatch(/unknown|may or may not/i);
      }
    }
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(existsSync(join(dir, 'journal')) ? journalOf(dir, id) : []).toEqual([]);
  });
});
