/**
 * What `payout batch` shows a person on stderr: the plan before anything is sent (count
 * and exact total per wallet against its balance, with warnings), and the result after
 * (counts of each outcome, the report's path, the first rejected rows).
 */
import { formatAmount, minorToDecimal } from '../money/amount.js';
import type { PlanGroup } from '../payouts/plan.js';
import type { RowOutcome } from '../payouts/batch.js';
import { isAlreadyMade } from '../payouts/report.js';
import { renderTable, wrapText } from './table.js';
import { text } from './text.js';
import type { Style } from './style.js';

function amount(minor: bigint, g: PlanGroup): string {
  return formatAmount(minorToDecimal(minor, g.digits), g.currency);
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
      { header: 'WALLET', minWidth: 12 },
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
  out += style.dim(wrapText('Fees are charged by the service per payout and are shown in the report.', width)) + '\n';
  return out;
}

export interface BatchResult {
  accepted: number;
  replayed: number;
  rejected: number;
  unknown: number;
  not_sent: number;
  already_accepted: number;
  report: string;
}

/** The result line, the report's path and the first 10 rejected rows with their reasons. */
export function renderBatchResult(r: BatchResult, outcomes: readonly RowOutcome[]): string {
  let out =
    `${r.accepted} accepted` +
    (r.already_accepted ? ` (${r.already_accepted} in an earlier run)` : '') +
    `, ${r.replayed} already submitted, ${r.rejected} rejected, ${r.unknown} unknown` +
    (r.not_sent ? `, ${r.not_sent} not sent` : '') +
    '.\n';
  // Already submitted under another key (a lost journal, another config folder): said, never a failure.
  const made = outcomes.filter(isAlreadyMade).length;
  if (made) out += `${made} of them already made: the service already had their payout ids (sent before under other idempotency keys); nothing new was paid.\n`;
  out += `Report: ${r.report}\n`;
  for (const o of outcomes.filter((x) => x.outcome === 'rejected').slice(0, 10)) {
    out += `  row ${o.row} (${o.payoutId}): ${text(o.code ?? 'rejected')}: ${text(o.message ?? '')}\n`;
  }
  return out;
}
