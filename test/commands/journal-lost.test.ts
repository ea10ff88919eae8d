/**
 * A lost journal cannot pay twice (issue 27), in process against the sandbox over HTTP: a
 * finished 300-row batch whose journal folder is deleted, or rerun from a second config folder,
 * sends every row again under the same derived Idempotency-Key, so the service replays its first
 * answers: no new payout, exit 0, every row reported as already submitted. A payout the service
 * holds under another key (an earlier payctl's random key) comes back as "already made", never
 * as refused. `history` warns of the entries this folder journaled that are gone.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';
import { loginInProcess } from '../helpers/batch-fixtures.js';
import { batchRows, fundDemoWallets, heldCounts, payoutPosts, readJsonlReport, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';
import { useSandbox } from '../helpers/sandbox.js';
import { Journal } from '../../src/payouts/journal.js';
import { expectNoCrash } from '../helpers/hostile.js';
import { payoutArgs } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();

let work: ReturnType<typeof tempWorkDir>;
let sle: string;

beforeAll(() => {
  fundDemoWallets(ctx.sb);
  sle = ctx.sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
});

beforeEach(() => {
  work = tempWorkDir();
});

afterEach(() => work.cleanup());

/**
 * A finished batch of `n` rows sent from config folder `dir`, its files in `folder` (exit 0,
 * each row held once): the batch file, the payout ids and the key each row was sent under.
 */
async function finishedBatch(n: number, dir: string, folder: string): Promise<{ file: string; ids: string[]; keys: Map<string, string> }> {
  const rows = batchRows(n, sle, `lost-${randomUUID().slice(0, 8)}`);
  const file = writeFile(join(folder, 'payouts.csv'), toCsv(rows));
  const from = ctx.sb.requests().length;
  const r = await payctl(['payout', 'batch', file, '--report', join(folder, 'first.jsonl'), '--yes'], { dir });
  expect(r.code, r.stderr).toBe(0);
  const ids = rows.map((x) => x.payout_id!);
  expect([...heldCounts(ctx.sb, ids).values()].every((c) => c === 1)).toBe(true);
  const keys = new Map(payoutPosts(ctx.sb, from).map((p) => [JSON.parse(p.body).payoutId as string, p.headers['idempotency-key']!]));
  return { file, ids, keys };
}

/** The rerun's report: every row already submitted, with its first transaction id. */
function expectAllAlreadySubmitted(report: string, ids: string[]): void {
  const lines = readJsonlReport(report);
  expect(lines).toHaveLength(ids.length);
  expect(lines.filter((l) => l.outcome !== 'replayed')).toEqual([]);
  const held = new Map(ctx.sb.payouts().map((p) => [p.payout_id, p.transaction_id]));
  for (const l of lines) expect(l.transaction_id).toBe(held.get(l.payout_id as string));
}

describe('a finished 300-row batch rerun without its journal', () => {
  // One finished batch for both reruns (it is the expensive part): each rerun is checked to make
  // no new payout, and the second folder's rerun leaves the first folder untouched, so neither
  // rerun changes what the other starts from, in either order.
  let first: ReturnType<typeof tempConfigDir>;
  let batchDir: ReturnType<typeof tempWorkDir>;
  let batch: Awaited<ReturnType<typeof finishedBatch>>;

  beforeAll(async () => {
    first = tempConfigDir();
    batchDir = tempWorkDir();
    await loginInProcess(ctx.sb, first.dir);
    batch = await finishedBatch(300, first.dir, batchDir.dir);
  }, 120_000);

  afterAll(() => {
    batchDir?.cleanup();
    first?.cleanup();
  });

  it('journal folder deleted: rerun sends the same keys, 0 new payouts, exit 0, all already submitted; history warns of 300 missing entries', async () => {
    const { file, ids, keys: firstKeys } = batch;
    const before = ctx.sb.payouts().length;
    rmSync(join(first.dir, 'journal'), { recursive: true, force: true });

    const h = await payctl(['history'], { dir: first.dir });
    expect(h.code, h.stderr).toBe(0);
    expect(h.stderr).toContain('300 journal entries recorded by this folder are missing');

    const from = ctx.sb.requests().length;
    const report = work.file('rerun.jsonl');
    const r = await payctl(['payout', 'batch', file, '--report', report, '--yes'], { dir: first.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('0 accepted, 300 already submitted, 0 rejected, 0 unknown');
    expect(ctx.sb.payouts().length).toBe(before);
    // Every row sent again under the key of its first run.
    const resent = payoutPosts(ctx.sb, from);
    expect(resent).toHaveLength(300);
    for (const p of resent) expect(p.headers['idempotency-key']).toBe(firstKeys.get(JSON.parse(p.body).payoutId as string));
    expectAllAlreadySubmitted(report, ids);
    // The journal holds them again, accepted with their transactions.
    const j = new Journal(first.dir);
    for (const id of ids) expect((await j.get(ctx.sb.baseUrl, id))?.outcome?.kind).toBe('accepted');
  }, 120_000);

  it('from a second config folder (another machine, a restored backup): 0 new payouts, exit 0, all already submitted', async () => {
    const { file, ids } = batch;
    const before = ctx.sb.payouts().length;
    const second = tempConfigDir();
    try {
      await loginInProcess(ctx.sb, second.dir);
      const report = work.file('second.jsonl');
      const r = await payctl(['payout', 'batch', file, '--report', report, '--yes'], { dir: second.dir });
      expect(r.code, r.stderr).toBe(0);
      expect(ctx.sb.payouts().length).toBe(before);
      expectAllAlreadySubmitted(report, ids);
    } finally {
      second.cleanup();
    }
  }, 120_000);
});

describe('a payout the service holds under another key', () => {
  let cfg: ReturnType<typeof tempConfigDir>;
  beforeEach(async () => {
    cfg = tempConfigDir();
    await loginInProcess(ctx.sb, cfg.dir);
  });
  afterEach(() => cfg.cleanup());

  it('journaled with a key of its own (as earlier payctl versions did), journal deleted, rerun: "already made", never refused, exit 0, counted as paid', async () => {
    const rows = batchRows(3, sle, `made-${randomUUID().slice(0, 8)}`);
    const file = writeFile(work.file('made.csv'), toCsv(rows));
    // Sent first as `payout create --idempotency-key <random>` would: under keys no derivation gives.
    for (const row of rows) {
      const args = ['payout', 'create', '--wallet', sle, '--amount', row.amount!, '--currency', 'SLE', '--type', 'wallet', '--name', row.name!];
      args.push('--provider', row.provider!, '--account', row.account_number!, '--phone', row.phone_number!, '--note', row.note!);
      args.push('--metadata', `batch=${row['metadata.batch']}`, '--payout-id', row.payout_id!, '--idempotency-key', randomUUID(), '--yes');
      const c = await payctl(args, { dir: cfg.dir });
      expect(c.code, c.stderr).toBe(0);
    }
    const ids = rows.map((x) => x.payout_id!);
    const before = ctx.sb.payouts().length;
    rmSync(join(cfg.dir, 'journal'), { recursive: true, force: true });

    const report = work.file('made.jsonl');
    const r = await payctl(['payout', 'batch', file, '--report', report, '--yes'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('0 accepted, 3 already submitted, 0 rejected, 0 unknown');
    // What payctl cannot check is said: the service is not asked what it holds under an id.
    expect(r.stderr).toContain('3 of them already made');
    expect(r.stderr).toContain('a payout_id of the file used before for another payout reads the same, and that row was not paid.');
    expect(ctx.sb.payouts().length).toBe(before);
    const lines = readJsonlReport(report);
    expect(lines.map((l) => l.outcome)).toEqual(['replayed', 'replayed', 'replayed']);
    for (const l of lines) expect(l.message).toMatch(/already made: the service already has payout id/);
    const j = new Journal(cfg.dir);
    for (const id of ids) expect((await j.get(ctx.sb.baseUrl, id))?.outcome).toMatchObject({ kind: 'accepted', alreadyMade: { code: 'DUPLICATE_PAYOUT_ID' } });
    // payout get of one: made, its status not readable (no transaction id): exit 5 STATUS_NOT_READ,
    // never 1 (which --wait says for Failed: a script may send it again) nor NOT_FOUND.
    const asked = ctx.sb.requests().length;
    for (const extra of [[], ['--wait'], ['--json'], ['--wait', '--json']]) {
      const g = await payctl(['payout', 'get', ids[0]!, ...extra], { dir: cfg.dir });
      expect(g.code, `${extra.join(' ')}: ${g.stderr}`).toBe(5);
      expect(g.stdout).toBe('');
      if (extra.includes('--json')) expect(JSON.parse(g.stderr).error).toMatchObject({ code: 'STATUS_NOT_READ', payout_id: ids[0] });
      else expect(g.stderr).toContain('so it was made before under another idempotency key, and its answer named no transaction: its status cannot be read.');
      expect(g.stderr).toContain('payctl payouts list --currency SLE --all');
    }
    expect(ctx.sb.requests().length).toBe(asked);
    // A second rerun skips them: accepted in an earlier run, nothing sent.
    const from = ctx.sb.requests().length;
    const again = await payctl(['payout', 'batch', file, '--report', work.file('again.jsonl'), '--yes'], { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
  }, 60_000);
});

describe('a journal whose key is lost', () => {
  let cfg: ReturnType<typeof tempConfigDir>;
  beforeEach(async () => {
    cfg = tempConfigDir();
    await loginInProcess(ctx.sb, cfg.dir);
  });
  afterEach(() => cfg.cleanup());

  it('journal.key deleted: payout create refused before sending (exit 2), no new key made; the printed command starts a new journal', async () => {
    const create = (id: string) => payoutArgs(sle, id, ['--payout-id', id, '--yes']);
    const first = `keyed-${randomUUID()}`;
    expect((await payctl(create(first), { dir: cfg.dir })).code).toBe(0);
    const key = join(cfg.dir, 'journal.key');
    rmSync(key);

    const from = ctx.sb.requests().length;
    const second = `keyless-${randomUUID()}`;
    const r = await payctl(create(second), { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`The journal key ${key} is missing, but the payout journal ${join(cfg.dir, 'journal')} holds 1 entry signed with it`);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    expect(existsSync(key)).toBe(false);
    expectNoCrash(r);

    const command = r.stderr
      .split('\n')
      .find((l) => l.trim().startsWith('mv '))!
      .trim();
    execFileSync('sh', ['-c', command]);
    const again = await payctl(create(second), { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(key)).toBe(true);
  });
});
