/**
 * What `payout batch` shows a person on stderr: the plan before anything is sent (count
 * and exact total per wallet against its balance, with warnings, the grand total per
 * currency and what is known of fees), and the result after (counts of each outcome, the
 * report's path, the first rejected rows named by recipient). `payout batch status` lists
 * its Failed rows the same way (renderFailedRows).
 */
import { formatAmount, minorToDecimal } from '../money/amount.js';
import type { PlanGroup } from '../payouts/batch-plan.js';
import type { RowOutcome } from '../payouts/batch.js';
import { renderTable, wrapText } from './table.js';
import { text } from './text.js';
import type { Style } from './style.js';

function amount(minor: bigint, g: PlanGroup): string {
  return formatAmount(minorToDecimal(minor, g.digits), g.currency);
}

/** The grand total of one currency, over every wallet that pays in it. */
export interface CurrencyTotal {
  currency: string;
  digits: number;
  count: number;
  wallets: number;
  totalMinor: bigint;
}

/** Totals per currency of a batch plan, exact (minor units of one currency are added), in first-seen order (the plan's JSON, payouts/batch-plan.ts, uses them too). */
export function currencyTotals(groups: PlanGroup[]): CurrencyTotal[] {
  const out = new Map<string, CurrencyTotal>();
  for (const g of groups) {
    const t = out.get(g.currency) ?? { currency: g.currency, digits: g.digits, count: 0, wallets: 0, totalMinor: 0n };
    t.count += g.count;
    t.wallets++;
    t.totalMinor += g.totalMinor;
    out.set(g.currency, t);
  }
  return [...out.values()];
}

/**
 * The plan: a table of wallets, then warnings and a note. `width`: the terminal's columns
 * (the table is fitted to them, long names cut with …, and the prose is wrapped to them);
 * undefined off a terminal, where nothing is cut.
 */
export function renderPlan(groups: PlanGroup[], style: Style, width?: number): string {
  const rows = groups.map((g) => [
    text(g.walletId),
    text(g.walletName ?? ''),
    g.currency,
    String(g.count),
    amount(g.totalMinor, g),
    g.balanceMinor === undefined ? '?' : amount(g.balanceMinor, g),
    g.balanceMinor === undefined ? '?' : g.short ? style.red(amount(g.balanceMinor - g.totalMinor, g)) : amount(g.balanceMinor - g.totalMinor, g),
  ]);
  let out = renderTable(
    [
      { header: 'WALLET' }, // an id, never cut: a person copies it into --wallet (cards when it cannot fit)
      { header: 'NAME', minWidth: 8 },
      { header: 'CURRENCY' },
      { header: 'PAYOUTS', align: 'right' },
      { header: 'TOTAL', align: 'right' },
      { header: 'BALANCE', align: 'right' },
      { header: 'AFTER (before fees)', align: 'right' },
    ],
    rows,
    style,
    { width },
  );
  for (const g of groups) {
    if (g.short) {
      out +=
        wrapText(
          `${style.yellow('Warning:')} wallet ${text(g.walletId)} would go short: it holds ${amount(g.balanceMinor!, g)} ${g.currency} but the payouts total ${amount(g.totalMinor, g)} ${g.currency} before fees.`,
          width,
        ) + '\n';
    } else if (g.missingWallet) {
      out += wrapText(`${style.yellow('Warning:')} wallet ${text(g.walletId)} is not among your wallets; the service will refuse its payouts.`, width) + '\n';
    } else if (g.currencyMismatch) {
      out += wrapText(`${style.yellow('Warning:')} wallet ${text(g.walletId)} does not hold ${g.currency}; the service will refuse its payouts.`, width) + '\n';
    }
  }
  for (const t of currencyTotals(groups)) {
    const payouts = `${t.count.toLocaleString('en-US')} ${t.count === 1 ? 'payout' : 'payouts'}`;
    const wallets = t.wallets > 1 ? ` from ${t.wallets} wallets` : '';
    out += wrapText(`Total ${t.currency}: ${formatAmount(minorToDecimal(t.totalMinor, t.digits), t.currency)} in ${payouts}${wallets}, before fees.`, width) + '\n';
  }
  // The service's documentation gives no fee rule (docs/service.md): no estimate is made up.
  out += style.dim(wrapText(FEES_LINE, width)) + '\n';
  return out;
}

/** What the plan says of fees: the documented service charges them, and says nothing of how much. */
export const FEES_LINE = "Fees: charged by the service per payout, not known before sending; each accepted payout's fee is in the report.";

export interface BatchResult {
  accepted: number;
  replayed: number;
  rejected: number;
  unknown: number;
  not_sent: number;
  already_accepted: number;
  /** Null when it could not be written (said after the result). */
  report: string | null;
}

/** A row that did not pay, as a person recognises it: whom it was for and how much, and why. */
export interface FailedRow {
  row: string | number;
  /** The payout id: shown only when the row's recipient is not known. */
  payoutId: string;
  name?: string | undefined;
  provider?: string | undefined;
  account?: string | undefined;
  /** Formatted with its currency's digits and separators ("1,500.50"). */
  amount?: string | undefined;
  currency?: string | undefined;
  reason: string;
}

/**
 * Failed rows, each as `row 4: Ngozi Adeyemi (uba 0123456789), 1,500.00 NGN` and its reason
 * on the next line, indented. `width`: the terminal's columns, every line wrapped to fit them
 * (nothing cut); undefined off a terminal, one line each.
 */
export function renderFailedRows(rows: readonly FailedRow[], width?: number): string {
  const fit = (s: string, indent: string) =>
    (width === undefined ? s : wrapText(s, Math.max(1, width - indent.length)))
      .split('\n')
      .map((l) => indent + l)
      .join('\n') + '\n';
  let out = '';
  for (const r of rows) {
    const whom = r.name
      ? `${text(r.name)}${r.provider || r.account ? ` (${[r.provider, r.account].filter(Boolean).map(text).join(' ')})` : ''}`
      : `payout ${text(r.payoutId)}`;
    const amount = r.amount ? `, ${text(r.amount)} ${text(r.currency ?? '')}`.trimEnd() : '';
    out += fit(`row ${text(r.row)}: ${whom}${amount}`, '  ');
    out += fit(r.reason, '    ');
  }
  return out;
}

/** A rejected row of `payout batch` as a FailedRow: its recipient from what it paid. */
export function rejectedRow(o: RowOutcome): FailedRow {
  const r = o.request;
  return {
    row: o.row,
    payoutId: o.payoutId,
    name: r?.name,
    provider: r?.provider,
    account: r?.account,
    amount: r ? formatAmount(r.amount, r.currency) : undefined,
    currency: r?.currency,
    reason: `${text(o.code ?? 'rejected')}: ${text(o.message ?? '')}`,
  };
}

/**
 * The result line, the report's path and the first 10 rejected rows, named by recipient, with
 * their reasons. `alreadyMade`: the rows the service already had (report.ts, isAlreadyMade).
 * `width`: the terminal's columns (the rows wrapped to them).
 */
export function renderBatchResult(r: BatchResult, outcomes: readonly RowOutcome[], alreadyMade: number, width?: number): string {
  let out =
    `${r.accepted} accepted` +
    (r.already_accepted ? ` (${r.already_accepted} in an earlier run)` : '') +
    `, ${r.replayed} already submitted, ${r.rejected} rejected, ${r.unknown} unknown` +
    (r.not_sent ? `, ${r.not_sent} not sent` : '') +
    '.\n';
  // Already submitted under another key (a lost journal, another config folder): said, never a failure.
  if (alreadyMade)
    out += `${alreadyMade} of them already made: the service already had their payout ids (sent before under other idempotency keys); nothing new was paid. The service cannot be asked what it holds under an id: a payout_id of the file used before for another payout reads the same, and that row was not paid.\n`;
  out += r.report === null ? 'Report: not written (below).\n' : `Report: ${r.report}\n`;
  const rejected = outcomes.filter((x) => x.outcome === 'rejected');
  if (rejected.length) {
    out += rejected.length > 10 ? `Rejected (the first 10 of ${r.rejected}; all are in the report):\n` : 'Rejected:\n';
    out += renderFailedRows(rejected.slice(0, 10).map(rejectedRow), width);
  }
  return out;
}
