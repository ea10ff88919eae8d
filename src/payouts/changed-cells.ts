/**
 * The cells of a payout body, and how a row differs from the payout journaled for it
 * (changed-rows.ts, and the conflicts of a payout_id sent with other details: batch-load.ts,
 * plan create): by column, in the file's column order, a cell that differs only in Unicode
 * normalization said as such.
 */
import { COLUMN_LABELS } from './batch-columns.js';
import type { JournalEntry } from './journal.js';
import { payoutBody, type PayoutRequest } from './request.js';
import { formatAmount } from '../money/amount.js';
import { text } from '../output/text.js';

function show(v: string | undefined): string {
  return v === undefined ? '(empty)' : JSON.stringify(v);
}

/**
 * Whether a cell differs from the one sent only in Unicode normalization: "José" written with
 * é (U+00E9, NFC) or with e and U+0301 (NFD), as a Mac may save it. The two look alike, so "was"
 * would show the same text twice; the payout's identity stays the bytes it was sent with, as
 * the journaled body the service received holds them.
 */
export function onlyNormalization(c: Change): boolean {
  return c.now !== undefined && c.then !== undefined && c.now !== c.then && c.now.normalize('NFC') === c.then.normalize('NFC');
}

/** The Unicode normalization a text is in: NFC, NFD, or neither (both forms mixed). */
function normalForm(v: string): string {
  return v === v.normalize('NFC') ? 'NFC' : v === v.normalize('NFD') ? 'NFD' : 'mixed NFC and NFD';
}

/** How a cell changed: `"now" was "then"`, or that it differs only in Unicode normalization. */
export function describeChange(c: Change): string {
  if (!onlyNormalization(c)) return `${show(c.now)} was ${show(c.then)}`;
  return `${show(c.now)} differs only in Unicode normalization (${normalForm(c.now!)} now, ${normalForm(c.then!)} when sent: as when a file is re-saved on a Mac)`;
}

export interface Change {
  column: string;
  now: string | undefined;
  then: string | undefined;
}

/**
 * Why a row whose payout_id was sent before with another body is refused (payout batch, plan
 * create): other details; when the two bodies differ only in Unicode normalization, which
 * cells, that cause and what to do, as the cells would otherwise look the same as sent.
 */
export function sentWithOtherDetails(earlier: JournalEntry, now: PayoutRequest, body: string): string {
  const said = 'was already sent with other details';
  if (earlier.body === body || earlier.body.normalize('NFC') !== body.normalize('NFC')) return said;
  const cells = differences(earlier, now).map((c) => `${c.column} ${describeChange(c)}`);
  return `${said}: ${cells.length ? text(cells.join(', ')) : 'they differ only in Unicode normalization'}; save the file with its letters composed (NFC), as sent`;
}

/** The cells in which the row differs from the payout's journaled body, by column, in the file's column order. */
export function differences(sent: JournalEntry, now: PayoutRequest): Change[] {
  return bodyDifferences(sent.body, payoutBody(now));
}

/** The cells in which body `now` differs from body `was` (two payouts' journaled bodies), by column, in the file's column order. */
export function bodyDifferences(was: string, now: string): Change[] {
  const then = readBody(was);
  const mine = readBody(now);
  const out: Change[] = [];
  const cells: Array<[string, (b: BodyCells) => string | undefined]> = [
    [COLUMN_LABELS.walletId, (b) => b.walletId],
    // Found by its repeat key, the account is the same as compared: as written, it may differ.
    [COLUMN_LABELS.account, (b) => b.account],
    [COLUMN_LABELS.amount, (b) => (b.amount !== undefined && b.currency !== undefined ? formatAmount(b.amount, b.currency) : b.amount)],
    [COLUMN_LABELS.type, (b) => b.type],
    [COLUMN_LABELS.name, (b) => b.name],
    [COLUMN_LABELS.provider, (b) => b.provider],
    [COLUMN_LABELS.phone, (b) => b.phone],
    [COLUMN_LABELS.note, (b) => b.note],
  ];
  for (const [column, cell] of cells) if (cell(then) !== cell(mine)) out.push({ column, now: cell(mine), then: cell(then) });
  for (const key of [...new Set([...Object.keys(mine.metadata), ...Object.keys(then.metadata)])].sort()) {
    if (mine.metadata[key] !== then.metadata[key]) out.push({ column: `metadata.${key}`, now: mine.metadata[key], then: then.metadata[key] });
  }
  return out;
}

export interface BodyCells {
  /** The amount as the body writes it (its JSON number's text: "1200.00"). */
  amount?: string;
  walletId?: string;
  account?: string;
  currency?: string;
  type?: string;
  name?: string;
  provider?: string;
  phone?: string;
  note?: string;
  metadata: Record<string, string>;
}

/** The cells of a payout body (a body that cannot be read has none). */
export function readBody(body: string): BodyCells {
  try {
    const b = JSON.parse(body) as {
      recipient?: { type?: unknown; accountDetails?: Record<string, unknown> };
      metadata?: Record<string, unknown>;
    };
    const d = b.recipient?.accountDetails ?? {};
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(b.metadata ?? {})) if (typeof v === 'string') metadata[k] = v;
    const amount = /^\{"amount":(-?[0-9.]+),/.exec(body)?.[1];
    const cells = { amount, walletId: str((b as { walletId?: unknown }).walletId), account: str(d.accountNumber), currency: str((b as { currency?: unknown }).currency) };
    return { ...cells, type: str(b.recipient?.type), name: str(d.name), provider: str(d.provider), phone: str(d.phoneNumber), note: str(d.note), metadata };
  } catch {
    return { metadata: {} };
  }
}
