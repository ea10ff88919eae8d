/**
 * Two terminals at once (issue 11): two `payout create` processes started together for
 * the same payout id (40 pairs), and two runs of one 200-row batch file (ids derived,
 * no payout_id column) started together. One config folder, as on one machine. Every
 * payout id must travel under exactly one Idempotency-Key, the service must never answer
 * DUPLICATE_PAYOUT_ID, the journal must keep the key the service holds, and a rerun must
 * report every paid row as accepted. The built binary against the in-process sandbox.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { startCli, stackLines, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import type { RecordedRequest } from '../../src/sandbox/server.js';
import { Journal } from '../../src/payouts/journal.js';
import { batchRows, fundDemoWallets, heldCounts, payoutPosts, postedPayoutId, readCsvReport, tempWorkDir, writeFile, type BatchRow } from '../helpers/batch.js';

const ctx = useSandbox();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let cfg: ReturnType<typeof tempConfigDir>;

beforeAll(async () => {
  cfg = tempConfigDir();
  await writeLoggedIn(ctx.sb, cfg.dir);
});

afterAll(() => cfg?.cleanup());

beforeEach(() => {
  ctx.sb.clearRequests();
});

afterEach(() => {
  ctx.sb.faults.clear();
});

interface JournalFile {
  payoutId: string;
  idempotencyKey: string;
  outcome?: { kind: string };
}

/** Every journal entry of the config folder, by payout id, as payctl reads them (a batch keeps its entries in its run's log). */
async function journalById(dir: string): Promise<Map<string, JournalFile>> {
  const out = new Map<string, JournalFile>();
  for await (const item of new Journal(dir).scan()) {
    if ('error' in item) throw item.error;
    out.set(item.entry.payoutId, item.entry);
  }
  return out;
}

/** payout id -> the set of Idempotency-Keys it was posted with. */
function keysById(posts: RecordedRequest[]): Map<string, Set<string>> {
  const keys = new Map<string, Set<string>>();
  for (const p of posts) {
    const id = postedPayoutId(p);
    const key = p.headers['idempotency-key'] ?? '(none)';
    if (!keys.has(id)) keys.set(id, new Set());
    keys.get(id)!.add(key);
  }
  return keys;
}

/** The one key each id was sent with, the one the sandbox holds, and the one the journal keeps, all equal. */
async function expectOneKeyEverywhere(sb: Sandbox, ids: string[]): Promise<void> {
  const keys = keysById(payoutPosts(sb));
  const journal = await journalById(cfg.dir);
  const held = new Map(sb.payouts().map((p) => [p.payout_id, p]));
  const twoKeys = ids.filter((id) => keys.get(id)?.size !== 1).map((id) => `${id}: ${[...(keys.get(id) ?? [])].join(', ') || 'never posted'}`);
  expect(twoKeys, 'payout ids posted under more (or fewer) than one key').toEqual([]);
  const problems: string[] = [];
  for (const id of ids) {
    const key = [...keys.get(id)!][0]!;
    if (!UUID.test(key)) problems.push(`${id}: key ${key} is not a UUID`);
    const p = held.get(id);
    if (p?.provider_response.idempotency_key !== key) problems.push(`${id}: the sandbox holds key ${String(p?.provider_response.idempotency_key)}, posted ${key}`);
    const e = journal.get(id);
    if (e?.idempotencyKey !== key) problems.push(`${id}: the journal keeps key ${String(e?.idempotencyKey)}, posted ${key}`);
    if (e?.outcome?.kind !== 'accepted') problems.push(`${id}: the journal outcome is ${String(e?.outcome?.kind)}`);
  }
  expect(problems).toEqual([]);
}

function expectCleanRun(name: string, r: Run): void {
  expect(r.stderr + r.stdout, name).not.toContain('DUPLICATE_PAYOUT_ID');
  expect(r.stderr, name).not.toContain('This is a bug');
  expect(stackLines(r.stderr), name).toEqual([]);
  expect(r.code, `${name}: ${r.stderr}`).toBe(0);
}

describe('two payout create processes for the same payout id', () => {
  it('40 pairs started together (4 pairs at a time): one key per id, one payout per id, both exit 0, no DUPLICATE_PAYOUT_ID', async () => {
    const sb = ctx.sb;
    const wallet = freshWallet(sb, '100000.00', 'SLE');
    const tag = randomUUID().slice(0, 8);
    const ids = Array.from({ length: 40 }, (_, i) => `cc-${tag}-${i + 1}`);
    const args = (id: string) => [
      'payout',
      'create',
      '--wallet',
      wallet,
      '--amount',
      '7.25',
      '--currency',
      'SLE',
      '--type',
      'wallet',
      '--name',
      'Ibrahim Koroma',
      '--provider',
      'orange_money',
      '--account',
      '076777888',
      '--phone',
      '+23276777888',
      '--note',
      'two terminals',
      '--payout-id',
      id,
      '--yes',
    ];

    const runs: Array<[string, Run]> = [];
    for (let w = 0; w < ids.length; w += 4) {
      const wave = ids.slice(w, w + 4);
      const started = wave.flatMap((id) => [0, 1].map((n) => ({ name: `${id} #${n}`, run: startCli(args(id), { dir: cfg.dir, timeoutMs: 25_000 }) })));
      for (const s of started) runs.push([s.name, await s.run.done]);
    }

    for (const [name, r] of runs) {
      expectCleanRun(name, r);
      expect(r.stderr, name).toMatch(/Payout cc-\S+ submitted\.|Already submitted: payout cc-\S+ was accepted earlier/);
    }
    // Every id was posted (by both processes, or by one while the other found it accepted).
    const posted = new Set(payoutPosts(sb).map(postedPayoutId));
    expect(ids.filter((id) => !posted.has(id))).toEqual([]);
    const counts = heldCounts(sb, ids);
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    await expectOneKeyEverywhere(sb, ids);
    // Both processes printed the same transaction for an id.
    for (const id of ids) {
      const trx = sb.payouts().find((p) => p.payout_id === id)!.transaction_id;
      for (const [name, r] of runs.filter(([n]) => n.startsWith(`${id} #`))) expect(r.stdout, name).toContain(trx);
    }
  });
});

describe('two payout create processes for the same payout, without --payout-id', () => {
  // Each gets a new id, so only the repeat guard stands between them and two payouts: checked
  // first without a lock, it let both through in 4 of 6 tries; checked again under the wallet's
  // lock just before journaling, the second finds the first's entry.
  it('8 pairs started together: one payout per pair, one run exits 0, the other is refused as a repeat (exit 2, nothing sent)', async () => {
    const sb = ctx.sb;
    const wallet = freshWallet(sb, '100000.00', 'SLE');
    const amounts = Array.from({ length: 8 }, (_, i) => `6.${String(i + 11)}`);
    const recipient = ['--type', 'wallet', '--name', 'Isatu Kargbo', '--provider', 'orange_money', '--account', '076777999', '--phone', '+23276777999'];
    const args = (amount: string) => ['payout', 'create', '--wallet', wallet, '--amount', amount, '--currency', 'SLE', ...recipient, '--yes'];
    for (let w = 0; w < amounts.length; w += 4) {
      const wave = amounts.slice(w, w + 4);
      const started = wave.map((amount) => [0, 1].map(() => startCli(args(amount), { dir: cfg.dir, timeoutMs: 25_000 })));
      for (const [i, pair] of started.entries()) {
        const runs = await Promise.all(pair.map((r) => r.done));
        const name = `${wave[i]} SLE`;
        for (const r of runs) expect(stackLines(r.stderr), name).toEqual([]);
        expect(runs.map((r) => r.code).sort(), `${name}: ${runs.map((r) => r.stderr).join(' | ')}`).toEqual([0, 2]);
        const refused = runs.find((r) => r.code === 2)!;
        expect(refused.stderr, name).toContain('This payout repeats');
        expect(refused.stderr, name).toContain('Nothing was sent.');
      }
    }
    const held = sb.payouts().filter((p) => p.wallet_id === wallet);
    expect(held.map((p) => p.amount_minor).sort()).toEqual(amounts.map((a) => BigInt(a.replace('.', ''))).sort());
  });
});

describe('first use of a config folder by several processes at once', () => {
  it('8 payout create processes on a fresh config folder, 6 times: every one exits 0, the journal key is made once and never read half-written', async () => {
    const sb = ctx.sb;
    const wallet = freshWallet(sb, '100000.00', 'SLE');
    const failures: string[] = [];
    for (let trial = 1; trial <= 6; trial++) {
      const fresh = tempConfigDir();
      try {
        await writeLoggedIn(sb, fresh.dir);
        const tag = randomUUID().slice(0, 8);
        const ids = Array.from({ length: 8 }, (_, i) => `first-${tag}-${i + 1}`);
        const started = ids.map((id) =>
          startCli(
            [
              'payout',
              'create',
              '--wallet',
              wallet,
              '--amount',
              '1.00',
              '--currency',
              'SLE',
              '--type',
              'wallet',
              '--name',
              'Mariama Bangura',
              '--provider',
              'orange_money',
              '--account',
              `0761${tag.slice(0, 5)}`,
              '--phone',
              '+23276100200',
              '--payout-id',
              id,
              '--yes',
            ],
            { dir: fresh.dir, timeoutMs: 25_000 },
          ),
        );
        const runs = await Promise.all(started.map((s) => s.done));
        runs.forEach((r, i) => {
          if (r.code !== 0) failures.push(`trial ${trial}, ${ids[i]}: exit ${r.code}: ${r.stderr.trim().split('\n').slice(0, 2).join(' / ')}`);
        });
        expect(readFileSync(join(fresh.dir, 'journal.key'), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
        // Exit 0 means paid exactly once; a process that failed must not have paid either.
        for (const [id, n] of heldCounts(sb, ids)) {
          const ok = runs[ids.indexOf(id)]!.code === 0;
          if (n !== (ok ? 1 : 0)) failures.push(`trial ${trial}, ${id}: exit ${runs[ids.indexOf(id)]!.code} but held ${n} times`);
        }
      } finally {
        fresh.cleanup();
      }
    }
    expect(failures).toEqual([]);
  });
});

/** CSV with no payout_id column: ids are derived from what each row pays. */
function csvWithoutIds(rows: BatchRow[]): string {
  const cols = Object.keys(rows[0]!).filter((c) => c !== 'payout_id');
  const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return [cols.join(','), ...rows.map((r) => cols.map((c) => cell(r[c] ?? '')).join(','))].join('\n') + '\n';
}

describe('two runs of one batch file at once', () => {
  it('200 rows, ids derived, two runs together (concurrency 4 each): 200 payouts, one key per id, then a third run finds all 200 accepted', async () => {
    const sb = ctx.sb;
    fundDemoWallets(sb);
    const sle = sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
    const work = tempWorkDir();
    try {
      const prefix = `twin-${randomUUID().slice(0, 8)}`;
      const rows = batchRows(200, sle, prefix);
      const file = writeFile(work.file('stipends.csv'), csvWithoutIds(rows));
      expect(readFileSync(file, 'utf8').split('\n')[0]).not.toContain('payout_id');
      const args = ['payout', 'batch', file, '--concurrency', '4', '--yes'];

      const a = startCli(args, { dir: cfg.dir, timeoutMs: 30_000 });
      const b = startCli(args, { dir: cfg.dir, timeoutMs: 30_000 });
      const [ra, rb] = await Promise.all([a.done, b.done]);
      for (const [name, r] of [
        ['first', ra],
        ['second', rb],
      ] as const) {
        expect(r.signal, name).toBeNull();
        expect(r.stderr + r.stdout, name).not.toContain('DUPLICATE_PAYOUT_ID');
        expect(r.stderr, name).not.toContain('This is a bug');
        expect(r.stderr, name).not.toMatch(/\brejected\b.*\brow\b|^\s+row \d+ \(/m);
      }

      const posts = payoutPosts(sb);
      const ids = [...new Set(posts.map(postedPayoutId))];
      expect(ids).toHaveLength(200);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // Only 201 (created or replayed) and 409 in progress: never a refusal.
      expect([...new Set(posts.map((p) => p.outcome))].filter((o) => o !== 201 && o !== 409)).toEqual([]);
      const mine = sb.payouts().filter((p) => (p.metadata as { batch?: string } | null)?.batch === prefix);
      expect(mine).toHaveLength(200);
      expect([...heldCounts(sb, ids)].filter(([, n]) => n !== 1)).toEqual([]);
      await expectOneKeyEverywhere(sb, ids);
      expect(ra.code, ra.stderr).toBe(0);
      expect(rb.code, rb.stderr).toBe(0);

      const from = sb.requests().length;
      const third = await startCli(args, { dir: cfg.dir, timeoutMs: 30_000 }).done;
      expect(third.stderr).toContain(`Nothing to send: every row of ${file} was accepted earlier`);
      expectCleanRun('third', third);
      expect(payoutPosts(sb, from)).toEqual([]);
      const report = readCsvReport(work.file('stipends.report.csv'));
      expect(report).toHaveLength(200);
      expect(report.filter((l) => l.outcome !== 'accepted').map((l) => `${l.row} ${l.outcome} ${l.code} ${l.message}`)).toEqual([]);
      expect(new Set(report.map((l) => l.payout_id))).toEqual(new Set(ids));
      expect(sb.payouts().filter((p) => (p.metadata as { batch?: string } | null)?.batch === prefix)).toHaveLength(200);
    } finally {
      work.cleanup();
    }
  });
});
