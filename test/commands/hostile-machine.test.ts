/**
 * A hostile machine and a service that never stops: what another local user can plant
 * (a symlink at the report's path, a journal entry claiming "accepted", a config folder
 * of theirs that anyone can write to), and answers that would make payctl loop or crash
 * (pages that repeat forever, JSON nested 10,000 deep). Each is refused or reported;
 * nothing is overwritten, nothing skipped, nothing sent. In process (payctl's main with
 * in-memory streams, the sandbox and the hostile services over real HTTP).
 */
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { stackLines, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { batchRows, fundDemoWallets, payoutPosts, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';
import { loginInProcess } from '../helpers/batch-fixtures.js';
import { JournalMac } from '../../src/payouts/ledger/mac.js';
import { payoutArgs } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();
let cfg: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;
let sle: string;

beforeEach(async () => {
  cfg = tempConfigDir();
  work = tempWorkDir();
  fundDemoWallets(ctx.sb);
  sle = ctx.sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
  await loginInProcess(ctx.sb, cfg.dir);
  ctx.sb.clearRequests();
});

afterEach(() => {
  cfg.cleanup();
  work.cleanup();
});

function noBug(r: { stderr: string }): void {
  expect(r.stderr).not.toContain('This is a bug');
  expect(stackLines(r.stderr)).toEqual([]);
}

/** The journal file of a payout, as payctl files it (loopback names are one service). */
function journalFile(payoutId: string): string {
  const base = ctx.sb.baseUrl.replace('//127.0.0.1:', '//localhost:');
  return join(cfg.dir, 'journal', `${createHash('sha256').update(`${base}\n${payoutId}`).digest('hex').slice(0, 32)}.json`);
}

describe('planted files', () => {
  it('a symlink planted at the report path: refused before sending, its target untouched', async () => {
    const victim = writeFile(work.file('victim.txt'), 'precious\n');
    symlinkSync(victim, work.file('r.csv'));
    const file = writeFile(work.file('pay.csv'), toCsv(batchRows(3, sle, `sym-${Date.now()}`)));
    const r = await payctl(['payout', 'batch', file, '--report', work.file('r.csv'), '--yes'], { dir: cfg.dir });
    expect(r.stderr).toContain('Cannot write the report. Nothing was sent.');
    expect(r.stderr).toContain('is a symbolic link');
    expect(r.code).toBe(2);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    noBug(r);
  });

  it('a journal entry claiming "accepted" for a row never paid: reported as damaged, the row neither skipped nor sent', async () => {
    const rows = batchRows(3, sle, `plant-${Date.now()}`);
    const file = writeFile(work.file('plant.csv'), toCsv(rows));
    // Another user (or a script) writes an entry for row 3's payout id: no HMAC, no key to make one.
    // The journal's key is there (made by an earlier run): without it, any signed entry stops payctl
    // before the entry is read (the key is not made again while entries signed with one are there).
    mkdirSync(join(cfg.dir, 'journal'), { recursive: true, mode: 0o700 });
    new JournalMac(cfg.dir, join(cfg.dir, 'journal')).ready();
    const planted = journalFile(rows[2]!.payout_id!);
    const content = JSON.stringify({
      version: 2,
      payoutId: rows[2]!.payout_id,
      baseUrl: ctx.sb.baseUrl,
      idempotencyKey: '0b5c9d1e-1f2a-4b3c-8d4e-5f6a7b8c9d0e',
      body: '{}',
      createdAt: new Date().toISOString(),
      outcome: { kind: 'accepted', status: 201, transactionId: 'TXN-BOK-FA4EFA4EFA4EFA4EFA4EFA4EFA', replayed: false, at: new Date().toISOString() },
      mac: 'f'.repeat(64),
    });
    writeFileSync(planted, content, { mode: 0o600 });
    const r = await payctl(['payout', 'batch', file, '--yes'], { dir: cfg.dir });
    expect(r.stderr).toContain(`The payout journal entry ${planted} (payout ${rows[2]!.payout_id}) was not written by payctl in this config folder or was changed since`);
    expect(r.code).toBe(2);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(readFileSync(planted, 'utf8')).toBe(content);
    noBug(r);
  });

  it('a journal entry edited after it was written (outcome turned into "accepted"): reported, not acted on', async () => {
    const rows = batchRows(2, sle, `edit-${Date.now()}`);
    const file = writeFile(work.file('edit.csv'), toCsv(rows));
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 503, times: Infinity });
    // The sandbox answers 503 at once: the back-off between attempts is the clock's alone.
    const clock = new TestClock();
    const first = await payctl(['payout', 'batch', file, '--yes'], { dir: cfg.dir, clock });
    expect(first.code, first.stderr).toBe(4);
    // Both rows were tried 5 times (4 waits each) before their outcome became unknown.
    expect(payoutPosts(ctx.sb).map((p) => p.outcome)).toEqual(Array(10).fill(503));
    expect(clock.waits).toHaveLength(8);
    ctx.sb.faults.clear();
    const f = journalFile(rows[0]!.payout_id!);
    // A batch keeps its entries in its run's log; the per-payout name is a claim on it.
    const claim = JSON.parse(readFileSync(f, 'utf8')) as { payctl_journal_claim?: number; log?: string };
    expect(claim.payctl_journal_claim).toBe(1);
    const accepted = { kind: 'accepted', status: 201, transactionId: 'TXN-BOK-FA4EFA4EFA4EFA4EFA4EFA4EFA', replayed: false, at: new Date().toISOString() };
    const logFile = join(cfg.dir, 'journal', 'log', claim.log!);
    const original = readFileSync(logFile, 'utf8');
    const name = f.split('/').pop()!;
    writeFileSync(
      logFile,
      original
        .split('\n')
        .map((line) => {
          if (!line) return line;
          const l = JSON.parse(line) as { name: string; entry: Record<string, unknown> };
          return l.name === name ? JSON.stringify({ ...l, entry: { ...l.entry, outcome: accepted } }) : line;
        })
        .join('\n'),
    );
    const from = payoutPosts(ctx.sb).length;
    const r = await payctl(['payout', 'batch', file, '--yes'], { dir: cfg.dir });
    expect(r.stderr).toContain('its checksum does not match');
    expect(r.code).toBe(2);
    expect(payoutPosts(ctx.sb).length).toBe(from);
    noBug(r);

    // The claim itself edited (an outcome added beside it): refused too.
    writeFileSync(logFile, original);
    writeFileSync(f, JSON.stringify({ ...claim, outcome: accepted }));
    const again = await payctl(['payout', 'batch', file, '--yes'], { dir: cfg.dir });
    expect(again.stderr).toContain('was not written by payctl in this config folder or was changed since');
    expect(again.code).toBe(2);
    expect(payoutPosts(ctx.sb).length).toBe(from);
    noBug(again);
  });

  it('a journal folder that is a symlink to a folder anyone can write: refused, nothing written there', async () => {
    const open = work.file('open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    symlinkSync(open, join(cfg.dir, 'journal'));
    const r = await payctl(
      ['payout', 'create', '--wallet', sle, '--amount', '1.00', '--currency', 'SLE', '--type', 'bank', '--name', 'A', '--provider', 'uba', '--account', '1', '--yes'],
      { dir: cfg.dir },
    );
    expect(r.stderr).toContain(`Refusing to use the payout journal folder ${join(cfg.dir, 'journal')}: it is a symbolic link. Nothing was sent.`);
    expect(r.code).toBe(2);
    expect(readdirSync(open)).toEqual([]);
    expect(payoutPosts(ctx.sb)).toEqual([]);
  });

  it('a file where the journal folder goes: refused, and the printed way out (move it) works as printed; never "chmod 700" (probe 49-F)', async () => {
    const journal = join(cfg.dir, 'journal');
    writeFileSync(journal, 'not a folder', { mode: 0o600 });
    // A file moved there before is kept: the printed name is a free one (probe 51-H: mv overwrote it).
    writeFileSync(`${journal}.moved`, 'moved before', { mode: 0o600 });
    const r = await payctl(payoutArgs(sle, `file-${Date.now()}`), { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Refusing to use the payout journal folder ${journal}: it is not a folder. Nothing was sent.`);
    expect(r.stderr).not.toContain('chmod');
    const mv = /\(mv -n (\S+) (\S+)\)/.exec(r.stderr);
    expect(mv, r.stderr).not.toBeNull();
    expect([mv![1], mv![2]]).toEqual([journal, `${journal}.moved-2`]);
    renameSync(mv![1]!, mv![2]!);
    const again = await payctl(payoutArgs(sle, `file-${Date.now()}-2`), { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(`${journal}.moved-2`, 'utf8')).toBe('not a folder');
    expect(readFileSync(`${journal}.moved`, 'utf8')).toBe('moved before');
    noBug(r);
  });

  it.each(['index', 'days', 'log'])('a journal folder of its own whose %s folder is a symlink to a folder elsewhere: refused, nothing written there', async (sub) => {
    // A journal as payout create leaves it (an entry, its markers), then its folder linked away.
    const first = await payctl(payoutArgs(sle, `sub-${sub}-${Date.now()}`), { dir: cfg.dir });
    expect(first.code, first.stderr).toBe(0);
    const elsewhere = work.file(`elsewhere-${sub}`);
    mkdirSync(elsewhere, { mode: 0o700 });
    const link = join(cfg.dir, 'journal', sub);
    rmSync(link, { recursive: true, force: true });
    symlinkSync(elsewhere, link);
    ctx.sb.clearRequests();
    const r = await payctl(payoutArgs(sle, `sub-${sub}-${Date.now()}-2`), { dir: cfg.dir });
    expect(r.stderr).toContain(`Refusing to use the payout journal ${sub} folder ${link}: it is a symbolic link. Nothing was sent.`);
    expect(r.code).toBe(2);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    noBug(r);
  });

  it("a wallet's day-marker folder inside days/ that is a symlink to a folder elsewhere: refused, nothing written there, nothing sent", async () => {
    const first = await payctl(payoutArgs(sle, `day-${Date.now()}`), { dir: cfg.dir });
    expect(first.code, first.stderr).toBe(0);
    const days = join(cfg.dir, 'journal', 'days');
    const base = readdirSync(days).find((n) => !n.endsWith('complete'))!;
    const elsewhere = work.file('elsewhere-day');
    mkdirSync(elsewhere, { mode: 0o700 });
    rmSync(join(days, base), { recursive: true, force: true });
    symlinkSync(elsewhere, join(days, base));
    ctx.sb.clearRequests();
    const r = await payctl(payoutArgs(sle, `day-${Date.now()}-2`), { dir: cfg.dir });
    expect(r.stderr).toContain(
      `Refusing to use the payout journal's folder ${join(days, base)}: it is a symbolic link, and payctl does not write through it. Nothing was sent.`,
    );
    expect(r.code).toBe(2);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    noBug(r);
  });

  it('a config folder owned by another user and writable by all: refused (the default folder), nothing read from it', async () => {
    const xdg = work.file('xdg');
    const folder = join(xdg, 'payctl');
    mkdirSync(folder, { recursive: true });
    const profile = await writeLoggedIn(ctx.sb, folder);
    expect(profile.apiKey).toBeTruthy();
    chmodSync(join(folder, 'config.json'), 0o666);
    chownSync(folder, 12345, 12345);
    chmodSync(folder, 0o777);
    ctx.sb.clearRequests();
    const r = await payctl(['balances'], { dir: cfg.dir, env: { PAYCTL_CONFIG_DIR: undefined, XDG_CONFIG_HOME: xdg } });
    expect(r.stderr).toContain(`Refusing to use the config folder ${folder}: it is owned by another user (uid 12345). Nothing was sent.`);
    expect(r.code).toBe(2);
    expect(ctx.sb.requests()).toEqual([]);
    // Named explicitly it is the user's choice, but not while every user can write to it.
    const open = await payctl(['balances', '--json'], { dir: folder });
    expect(open.code).toBe(2);
    expect(open.stderr).toContain(`Refusing to use the config folder ${folder}: every user can write to it (mode 777)`);
    expect(ctx.sb.requests()).toEqual([]);
    // Another user's folder, closed to others, with a private config file: used as chosen.
    chmodSync(folder, 0o755);
    chmodSync(join(folder, 'config.json'), 0o600);
    const ok = await payctl(['balances', '--json'], { dir: folder });
    expect(ok.code, ok.stderr).toBe(0);
  });
});

describe('services that never stop', () => {
  let server: Server;
  let base: string;
  let requests = 0;
  let mode: 'repeat' | 'empty' | 'again' | 'deep' = 'repeat';
  const DEEP_TXN = 'TXN-BOK-DEE9DEE9DEE9DEE9DEE9DEE9DE';

  beforeAll(async () => {
    const record = (i: number) => ({ transaction_id: `TXN-BOK-${String(i).padStart(26, '0')}`, payout_id: `p-${i}`, amount: 1, currency: 'SLE', status: 'Pending' });
    server = createServer((req, res) => {
      requests++;
      res.setHeader('content-type', 'application/json');
      const env = (data: unknown) => JSON.stringify({ status: 'Successful', message: 'ok', timestamp: '2026-11-21T10:15:30.123456Z', data });
      if (mode === 'repeat') res.end(env({ items: Array.from({ length: 100 }, (_, i) => record(i)), has_more: true }));
      else if (mode === 'empty') res.end(env({ items: [], has_more: true }));
      else if (mode === 'again') {
        // A Laravel paginator that answers every page as page 1 of 2, with other records each time.
        const at = requests * 100;
        const next = `${base}/payout/list?page=2`;
        res.end(
          env({
            current_page: 1,
            data: Array.from({ length: 100 }, (_, i) => record(at + i)),
            first_page_url: `${base}/payout/list?page=1`,
            from: 1,
            last_page: 2,
            last_page_url: next,
            links: [],
            next_page_url: next,
            path: `${base}/payout/list`,
            per_page: 100,
            prev_page_url: null,
            to: 100,
            total: 200,
          }),
        );
      } else {
        let md = '"x"';
        for (let i = 0; i < 10_000; i++) md = `{"a":${md}}`;
        res.end(
          `{"status":"Successful","message":"ok","timestamp":"2026-11-21T10:15:30.123456Z","data":{"transaction_id":"${DEEP_TXN}","amount":1,"currency":"SLE","metadata":${md}}}`,
        );
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v2`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const hostile = (args: string[]): Promise<Run> => payctl([...args, '--base-url', base], { dir: cfg.dir, env: { PAYCTL_API_KEY: 'sk_hostile_machine_0001' } });

  it.each([
    ['repeat', 'page 2 repeats the page before it (100 payouts read before)'],
    ['empty', 'page 1 is empty but the service says there are more (0 payouts read before)'],
    ['again', 'the service sent page 1 again (100 payouts read before)'],
  ] as const)('--all against a service whose pages %s forever stops with an error', async (m, what) => {
    mode = m;
    requests = 0;
    for (const extra of [[], ['--json'], ['--csv']]) {
      const r = await hostile(['payouts', 'list', '--all', ...extra]);
      expect(r.stderr).toContain(`Stopped following pages: ${what}.`);
      expect(r.code).toBe(1);
      noBug(r);
    }
    expect(requests).toBeLessThanOrEqual(9);
  });

  it('a record nested 10,000 levels deep: a clear error, not a stack overflow', async () => {
    mode = 'deep';
    for (const extra of [[], ['--json']]) {
      const r = await hostile(['payout', 'get', DEEP_TXN, ...extra]);
      expect(r.stderr).toContain('with JSON nested more than 64 levels deep; payctl does not read it.');
      expect(r.code).toBe(1);
      noBug(r);
    }
  });
});
