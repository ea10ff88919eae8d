/**
 * `payctl payout create` never pays twice when the process is killed with SIGKILL
 * mid-request: the built binary against the in-process sandbox. The other faults (a
 * dropped connection after the commit, 5xx, 429 and 409 in progress, hangs until retries
 * run out) are tested in process in test/commands/payout-create-faults.test.ts.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, tempConfigDir, type CliResult } from '../helpers/cli.js';
import { payctl as payctlInProcess } from '../helpers/in-process.js';
import { eventually, freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payoutPosts } from '../helpers/batch.js';
import { balanceMinor, expectOneKeyOneBody, heldFor, payoutArgs, UUID } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  // The login that sets the test up needs no process of its own.
  const r = await payctlInProcess(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir, input: ctx.sb.apiKey + '\n' });
  expect(r.code, r.stderr).toBe(0);
  ctx.sb.clearRequests();
});

afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

const run = (args: string[], timeoutMs?: number): Promise<CliResult> => runCli(args, { configDir: dir, timeoutMs });

describe('payout create under faults: never twice', () => {
  // SIGKILL to a real process; the other fault cases run in process: test/commands/payout-create-faults.test.ts.
  it('killed with SIGKILL while the sandbox holds the request, then the same command again: one payout, same key', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '10000.00', 'SLE');
    const payoutId = `killed-${randomUUID()}`;
    const args = payoutArgs(walletId, payoutId);
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 2500 });

    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
    try {
      await eventually(() => payoutPosts(sb).length === 1, 10_000);
      child.kill('SIGKILL');
      const end = await exited;
      expect(end.signal).toBe('SIGKILL');
      expect(stdout).toBe('');
    } finally {
      child.kill('SIGKILL');
    }
    // The sandbox finishes the request the dead client sent: committed, answer stored.
    const held = await eventually(() => heldFor(sb, payoutId).length === 1 && heldFor(sb, payoutId), 5000);
    const key = payoutPosts(sb)[0]!.headers['idempotency-key']!;
    expect(key).toMatch(UUID);
    expect(held[0]!.provider_response.idempotency_key).toBe(key);

    const again = await run(args);
    expect(again.stderr).toContain(`Payout ${payoutId} was journaled before: resending it with the same idempotency key.`);
    expect(again.stderr).toMatch(/Already submitted/);
    expect(again.code, again.stderr).toBe(0);

    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(2);
    expect(posts[1]!.outcome).toBe(201);
    expectOneKeyOneBody(posts);
    expect(heldFor(sb, payoutId)).toHaveLength(1);
    expect(balanceMinor(sb, walletId)).toBe(1000000n - 150050n - 1501n);
    expect(again.stdout).toMatch(new RegExp(`^Transaction\\s+${held[0]!.transaction_id}$`, 'm'));
  });
});
