/**
 * Helpers for the `payout batch` end-to-end tests: batch files (CSV with a header row,
 * or JSON lines) written into a temp folder, the report read back, and what the
 * sandbox holds for a file's payout ids.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import type { RecordedRequest, Sandbox } from '../../src/sandbox/server.js';
import { BIN, cliEnv } from './cli.js';
import { payctl as payctlInProcess } from './in-process.js';

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit. */
  ms: number;
}

/** Starts the built payctl with PAYCTL_CONFIG_DIR=dir, stdin a pipe (never a terminal); `done` resolves at exit. */
export function startPayctl(args: string[], opts: { dir: string; input?: string; timeoutMs?: number }): { child: ChildProcessWithoutNullStreams; done: Promise<Run> } {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(opts.dir), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 25_000);
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
  child.stdin.on('error', () => {});
  // A child that exits without reading its input (a refusal, `sh -c chmod`) closes the pipe: EPIPE here is no failure.
  child.stdin.on('error', () => {});
  child.stdin.end(opts.input ?? '');
  return { child, done };
}

export function payctl(args: string[], opts: { dir: string; input?: string; timeoutMs?: number }): Promise<Run> {
  return startPayctl(args, opts).done;
}

/**
 * `payctl login --api-key-stdin --base-url <sandbox>`, checked. In process (payctl's main): a
 * login that sets up a test needs no process of its own, even in the spawned-binary tier.
 */
export async function loginCli(sb: Sandbox, dir: string): Promise<void> {
  const r = await payctlInProcess(['login', '--api-key-stdin', '--base-url', sb.baseUrl], { dir, input: sb.apiKey + '\n' });
  expect(r.stderr).toContain('Logged in');
  expect(r.code).toBe(0);
}

/** Minor units with two digits, as the report writes amounts of SLE ("0.20"). */
export function twoDigits(minor: bigint): string {
  const s = minor.toString().padStart(3, '0');
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

export const BATCH_COLUMNS = ['payout_id', 'wallet_id', 'amount', 'currency', 'type', 'name', 'provider', 'account_number', 'phone_number', 'note'] as const;

export type BatchRow = Record<string, string>;

/**
 * `n` valid wallet payouts from `walletId`, amounts from 10.01 upwards (every row a
 * different amount), payout ids `<prefix>-001` ... Spreadsheet row of rows[i]: i + 2.
 */
export function batchRows(n: number, walletId: string, prefix: string, currency = 'SLE'): BatchRow[] {
  return Array.from({ length: n }, (_, i) => {
    const k = i + 1;
    return {
      payout_id: `${prefix}-${String(k).padStart(3, '0')}`,
      wallet_id: walletId,
      amount: `${10 + k}.${String(k % 100).padStart(2, '0')}`,
      currency,
      type: 'wallet',
      name: `Recipient ${k}, "Jr."`,
      provider: 'orange_money',
      account_number: `0761${String(k).padStart(5, '0')}`,
      phone_number: `+232761${String(k).padStart(5, '0')}`,
      note: `stipend ${k}`,
      'metadata.batch': prefix,
    };
  });
}

/**
 * The rows with recipients of their own: account and phone numbers made from `tag` (the same tag,
 * the same numbers). batchRows pays the same accounts the same amounts whatever its prefix, and
 * a run without --batch-id is compared with every batch of the last day (changed-rows.ts): a
 * test's rows that are not meant as another test's payouts, changed, must not pay what they paid.
 */
export function withOwnPayees<T extends BatchRow>(rows: T[], tag: string): T[] {
  const base = Number.parseInt(createHash('sha256').update(tag).digest('hex').slice(0, 8), 16) % 9_000_000;
  return rows.map((r, i) => {
    const n = String(1_000_000 + ((base + i) % 9_000_000)).padStart(7, '0');
    return { ...r, account_number: `07${n}`, ...(r.phone_number ? { phone_number: `+2327${n}` } : {}) };
  });
}

/** The exact total of the rows' amounts, in minor units (two digits). */
export function totalMinor(rows: BatchRow[]): bigint {
  return rows.reduce((s, r) => s + BigInt(r.amount!.replace('.', '')), 0n);
}

function csvCell(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** CSV text with a header row (the union of the rows' keys, columns first). */
export function toCsv(rows: BatchRow[]): string {
  const cols: string[] = [...BATCH_COLUMNS];
  for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k)) cols.push(k);
  return [cols.map(csvCell).join(','), ...rows.map((r) => cols.map((c) => csvCell(r[c] ?? '')).join(','))].join('\r\n') + '\r\n';
}

/** JSON lines; `metadata.<key>` columns become a `metadata` object. */
export function toJsonl(rows: BatchRow[]): string {
  return (
    rows
      .map((r) => {
        const obj: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(r)) {
          if (k.startsWith('metadata.')) ((obj.metadata ??= {}) as Record<string, string>)[k.slice(9)] = v;
          else obj[k] = v;
        }
        return JSON.stringify(obj);
      })
      .join('\n') + '\n'
  );
}

/** A temp folder for batch files and reports; removed by cleanup. */
export function tempWorkDir(): { dir: string; file(name: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-batch-'));
  return { dir, file: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeFile(path: string, text: string): string {
  writeFileSync(path, text);
  return path;
}

export interface ReportLine {
  row: string;
  payout_id: string;
  outcome: string;
  code: string;
  message: string;
  transaction_id: string;
  fee: string;
  earlier_run: string;
  batch_id: string;
}

/** The CSV report: checks the header row and returns one record per line. */
export function readCsvReport(path: string): ReportLine[] {
  const text = readFileSync(path, 'utf8');
  expect(text.split(/\r?\n/)[0]).toBe('row,payout_id,outcome,code,message,transaction_id,fee,earlier_run,batch_id');
  return parse<ReportLine>(text, { columns: true, skip_empty_lines: true });
}

/** The JSON-lines report: one object per line. */
export function readJsonlReport(path: string): Array<Record<string, unknown>> {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function payoutPosts(sb: Sandbox, from = 0): RecordedRequest[] {
  return sb
    .requests()
    .slice(from)
    .filter((r) => r.method === 'POST' && r.path === '/v2/payout');
}

/** The payout id a recorded POST /payout carried. */
export function postedPayoutId(r: RecordedRequest): string {
  return (JSON.parse(r.body) as { payoutId: string }).payoutId;
}

/** How many payouts the sandbox holds for each of `ids` (every id present, 0 when none). */
export function heldCounts(sb: Sandbox, ids: string[]): Map<string, number> {
  const want = new Set(ids);
  const counts = new Map(ids.map((id) => [id, 0]));
  for (const p of sb.payouts()) if (want.has(p.payout_id)) counts.set(p.payout_id, counts.get(p.payout_id)! + 1);
  return counts;
}

/** Exactly one payout in the sandbox for every id, and none for any other id with `prefix`. */
export function expectExactlyOncePerId(sb: Sandbox, ids: string[], prefix: string): void {
  const counts = heldCounts(sb, ids);
  const notOnce = [...counts].filter(([, n]) => n !== 1);
  expect(notOnce, 'payout ids not held exactly once').toEqual([]);
  const withPrefix = sb.payouts().filter((p) => p.payout_id.startsWith(`${prefix}-`));
  expect(withPrefix).toHaveLength(ids.length);
}

/**
 * A batch sent through a rate limit: the sandbox answered some POSTs 429 and still took every
 * row exactly once; each 429'd row came back with the same key; the senders paused together on
 * Retry-After instead of hammering the limit (far fewer 429s than rows).
 */
export function expectEveryRowOnceThrough429s(sb: Sandbox, ids: string[], prefix: string): void {
  const posts = payoutPosts(sb);
  const limited = posts.filter((p) => p.outcome === 429);
  expect(limited.length).toBeGreaterThan(0);
  expect(posts.filter((p) => p.outcome === 201)).toHaveLength(ids.length);
  expect(posts.every((p) => p.outcome === 201 || p.outcome === 429)).toBe(true);
  expectExactlyOncePerId(sb, ids, prefix);
  for (const p of limited) {
    const id = postedPayoutId(p);
    const ok = posts.find((x) => x.outcome === 201 && postedPayoutId(x) === id)!;
    expect(ok.headers['idempotency-key']).toBe(p.headers['idempotency-key']);
  }
  expect(limited.length).toBeLessThan(ids.length);
}

/** Demo wallets get a large balance (same wallet ids), so batches are never refused for money. */
export function fundDemoWallets(sb: Sandbox, balance = '900000000'): void {
  for (const w of sb.wallets()) sb.setWallet({ wallet_id: w.wallet_id, wallet_name: w.wallet_name, currency: w.currency, balance });
}

/** No Node.js process warning (like MaxListenersExceededWarning) leaked onto stderr. */
export function expectNoNodeWarnings(stderr: string): void {
  expect(stderr).not.toMatch(/\(node:\d+\)|Warning: Possible|MaxListeners/);
}
