/**
 * Loading a batch before anything is sent: the file read and every row validated (all
 * problems at once, with row numbers), each row given its identity (identity.ts), and
 * each row looked up in the journal: accepted in an earlier run of this batch (skipped),
 * sent before with other details (a conflict), or the same payout under another id
 * (another batch, or a single payout) that a person should hear about before it is
 * paid again. Identical rows of one file are grouped for the duplicate guard.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Wallet } from '../api/schemas.js';
import { UsageError } from '../errors.js';
import { COLUMN_LABELS, decodeBatchFile, parseBatchFile, type FileFormat } from './batch-file.js';
import { derivedPayoutId, identicalGroups, payoutFingerprint } from './identity.js';
import type { Journal, JournalEntry } from './journal.js';
import { payoutBody, validatePayout, type PayoutRequest } from './request.js';

export interface LoadedRow {
  row: number;
  request: PayoutRequest;
  body: string;
  fingerprint: string;
  /** The file gives no payout_id: the id is derived from the payout and the batch id. */
  derivedId: boolean;
  /** This payout id's journal entry, from an earlier run. */
  earlier?: JournalEntry;
  /** Entries of the same payout under other ids (other batches, single payouts), not rejected. */
  matches: JournalEntry[];
}

export interface BatchLoad {
  /** Absolute path of the file. */
  file: string;
  format: FileFormat;
  batchId: string;
  rows: LoadedRow[];
  /** Groups of identical rows (two or more), in file order. */
  duplicates: LoadedRow[][];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Reads and validates every row; throws a UsageError listing every problem (nothing sent). */
export async function readBatch(path: string, batchId: string): Promise<Omit<BatchLoad, 'rows' | 'duplicates'> & { rows: Array<Omit<LoadedRow, 'earlier' | 'matches'> & { legacyId?: string }> }> {
  let bytes: Buffer;
  try {
    // Only a regular file: /dev/zero or a FIFO would never end.
    const st = statSync(path);
    if (st.isDirectory()) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
    if (!st.isFile()) throw new UsageError(`Cannot read ${path}: it is not a regular file (a device, pipe or socket). Nothing was sent.`, [], 'Save the payouts to a file and give its path.');
    bytes = readFileSync(path);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (err as Error).message}.`);
  }
  const decoded = decodeBatchFile(bytes);
  if ('problem' in decoded) throw new UsageError(`${path}: ${decoded.problem}. Nothing was sent.`);
  const parsed = await parseBatchFile(path, decoded.text);
  const problems = [...parsed.problems];
  const rows: Array<Omit<LoadedRow, 'earlier' | 'matches'> & { legacyId?: string }> = [];
  const seenId = new Map<string, number>();
  const occurrences = new Map<string, number>();
  for (const r of parsed.rows) {
    const v = validatePayout(r.fields, COLUMN_LABELS);
    if (!v.ok) {
      for (const p of v.problems) problems.push(`row ${r.row}: ${p}`);
      continue;
    }
    const fingerprint = payoutFingerprint(v.request);
    let request = v.request;
    if (r.derivedId) {
      const n = occurrences.get(fingerprint) ?? 0;
      occurrences.set(fingerprint, n + 1);
      request = { ...request, payoutId: derivedPayoutId(batchId, fingerprint, n) };
    }
    const first = seenId.get(request.payoutId);
    if (first !== undefined) problems.push(`row ${r.row}: payout_id "${request.payoutId}" is also used on row ${first}`);
    else seenId.set(request.payoutId, r.row);
    rows.push({ row: r.row, request, body: payoutBody(request), fingerprint, derivedId: r.derivedId, ...(r.legacyId ? { legacyId: r.legacyId } : {}) });
  }
  if (problems.length) {
    throw new UsageError(`${path}: ${plural(problems.length, 'problem')}. Nothing was sent.`, problems, 'Fix the rows above and run the same command again.');
  }
  return { file: resolve(path), format: parsed.format, batchId, rows };
}

/**
 * Looks every row up in the journal of `baseUrl`. Throws a UsageError (nothing sent) when
 * a row's payout id was sent before with other details.
 */
export function lookUpBatch(read: Awaited<ReturnType<typeof readBatch>>, journal: Journal, baseUrl: string, shownAs: string): BatchLoad {
  const conflicts: string[] = [];
  const ids = new Set(read.rows.map((r) => r.request.payoutId));
  const rows: LoadedRow[] = read.rows.map(({ legacyId, ...r }) => {
    let row: LoadedRow = { ...r, matches: [] };
    let earlier = journal.get(baseUrl, r.request.payoutId);
    if (!earlier && legacyId && !ids.has(legacyId)) {
      // Sent by payctl 0.1 under an id made from the file name and row: resume it under that id.
      const legacy = journal.get(baseUrl, legacyId);
      const legacyRequest = { ...r.request, payoutId: legacyId };
      const legacyBody = payoutBody(legacyRequest);
      if (legacy && !journal.conflict(legacy, legacyBody)) {
        earlier = legacy;
        ids.add(legacyId);
        row = { ...row, request: legacyRequest, body: legacyBody };
      }
    }
    if (earlier) {
      if (journal.conflict(earlier, row.body)) conflicts.push(`row ${r.row}: payout_id "${r.request.payoutId}" was already sent with other details`);
      row.earlier = earlier;
    }
    return row;
  });
  if (conflicts.length) throw new UsageError(`${shownAs}: ${plural(conflicts.length, 'row')} conflict with earlier payouts. Nothing was sent.`, conflicts);
  for (const row of rows) {
    if (row.earlier?.outcome?.kind === 'accepted') continue;
    row.matches = journal
      .find(baseUrl, 'fingerprint', row.fingerprint)
      .filter((e) => !ids.has(e.payoutId) && e.outcome?.kind !== 'rejected');
  }
  return { ...read, rows, duplicates: identicalGroups(rows, (r) => r.fingerprint) };
}

/** Rows whose wallet is not one of the profile's, or holds another currency: problems like any bad row. */
export function walletProblems(rows: LoadedRow[], wallets: Wallet[], balancesCommand = 'payctl balances'): string[] {
  const problems: string[] = [];
  for (const { row, request: r } of rows) {
    const w = wallets.find((x) => x.wallet_id === r.walletId);
    if (!w) problems.push(`row ${row}: wallet_id "${r.walletId}" is not one of your wallets (see ${balancesCommand})`);
    else if (w.currency.toUpperCase() !== r.currency) problems.push(`row ${row}: wallet ${r.walletId} holds ${w.currency.toUpperCase()}, not ${r.currency}`);
  }
  return problems;
}

/** Where earlier payouts came from, for the plan: one line per batch run or kind of payout. */
export interface EarlierRun {
  /** A batch run (with its id), a batch sent by payctl 0.1 (no id), or single payouts. */
  kind: 'batch' | 'legacy batch' | 'single';
  batchId: string | undefined;
  file: string | undefined;
  rows: number;
  first: string;
  last: string;
}

/** Entries grouped by the batch run that sent them (id and file), oldest first. */
export function earlierRuns(entries: JournalEntry[]): EarlierRun[] {
  const runs = new Map<string, EarlierRun>();
  for (const e of entries) {
    const at = e.outcome?.at ?? e.createdAt;
    const kind = e.batch ? 'batch' : e.payoutId.startsWith('batch-') ? 'legacy batch' : 'single';
    const key = `${kind}\n${e.batch?.id ?? ''}\n${e.batch?.file ?? ''}`;
    const run = runs.get(key);
    if (!run) runs.set(key, { kind, batchId: e.batch?.id, file: e.batch?.file, rows: 1, first: at, last: at });
    else {
      run.rows++;
      if (at < run.first) run.first = at;
      if (at > run.last) run.last = at;
    }
  }
  return [...runs.values()].sort((a, b) => a.first.localeCompare(b.first));
}

/** "2026-11-22 20:10 UTC" */
export function shortTime(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
}

export function describeRun(r: EarlierRun): string {
  const when = r.first.slice(0, 16) === r.last.slice(0, 16) ? `on ${shortTime(r.first)}` : `between ${shortTime(r.first)} and ${shortTime(r.last)}`;
  if (r.kind === 'legacy batch') return `in a batch sent by an earlier payctl ${when}`;
  if (r.kind === 'single') return `as single payouts (payout create) ${when}`;
  return `in batch "${r.batchId}"${r.file ? ` from ${r.file}` : ''} ${when}`;
}
