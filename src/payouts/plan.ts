/**
 * The plan of a batch, shown before anything is sent: count and exact total per
 * source wallet and currency, against the live balances, flagging wallets that would
 * go short. Fees are charged by the service and only known once a payout is accepted.
 */
import type { Wallet } from '../api/schemas.js';
import { formatAmount, minorToDecimal } from '../money/amount.js';
import { balanceMinor } from './interactive.js';
import type { PayoutRequest } from './request.js';
import { renderTable } from '../output/table.js';
import { text } from '../output/text.js';
import type { Style } from '../output/style.js';

export interface PlanGroup {
  walletId: string;
  walletName: string | undefined;
  currency: string;
  digits: number;
  count: number;
  totalMinor: bigint;
  balanceMinor: bigint | undefined;
  /** The wallet's currency differs from the rows' (the service will refuse them). */
  currencyMismatch: boolean;
  short: boolean;
  missingWallet: boolean;
}

/** Totals per wallet and currency, one payout at a time (a batch is streamed, not held). */
export class PlanBuilder {
  readonly #wallets: Map<string, Wallet>;
  readonly #groups = new Map<string, PlanGroup>();

  constructor(wallets: Wallet[]) {
    this.#wallets = new Map(wallets.map((w) => [w.wallet_id, w]));
  }

  add(r: PayoutRequest): void {
    const key = `${r.walletId}\n${r.currency}`;
    let g = this.#groups.get(key);
    if (!g) {
      const w = this.#wallets.get(r.walletId);
      g = {
        walletId: r.walletId,
        walletName: w?.wallet_name,
        currency: r.currency,
        digits: r.digits,
        count: 0,
        totalMinor: 0n,
        balanceMinor: w && w.currency.toUpperCase() === r.currency ? balanceMinor(w) : undefined,
        currencyMismatch: !!w && w.currency.toUpperCase() !== r.currency,
        short: false,
        missingWallet: !w,
      };
      this.#groups.set(key, g);
    }
    g.count++;
    g.totalMinor += r.amountMinor;
  }

  /** In first-seen order. */
  groups(): PlanGroup[] {
    for (const g of this.#groups.values()) g.short = g.balanceMinor !== undefined && g.totalMinor > g.balanceMinor;
    return [...this.#groups.values()];
  }
}

export function computePlan(requests: PayoutRequest[], wallets: Wallet[]): PlanGroup[] {
  const b = new PlanBuilder(wallets);
  for (const r of requests) b.add(r);
  return b.groups();
}

function amount(minor: bigint, g: PlanGroup): string {
  return formatAmount(minorToDecimal(minor, g.digits), g.currency);
}

export function renderPlan(groups: PlanGroup[], style: Style): string {
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
      { header: 'WALLET' },
      { header: 'NAME' },
      { header: 'CURRENCY' },
      { header: 'PAYOUTS', align: 'right' },
      { header: 'TOTAL', align: 'right' },
      { header: 'BALANCE', align: 'right' },
      { header: 'AFTER (before fees)', align: 'right' },
    ],
    rows,
    style,
  );
  for (const g of groups) {
    if (g.short) {
      out += `${style.yellow('Warning:')} wallet ${text(g.walletId)} would go short: it holds ${amount(g.balanceMinor!, g)} ${g.currency} but the payouts total ${amount(g.totalMinor, g)} ${g.currency} before fees.\n`;
    } else if (g.missingWallet) {
      out += `${style.yellow('Warning:')} wallet ${text(g.walletId)} is not among your wallets; the service will refuse its payouts.\n`;
    } else if (g.currencyMismatch) {
      out += `${style.yellow('Warning:')} wallet ${text(g.walletId)} does not hold ${g.currency}; the service will refuse its payouts.\n`;
    }
  }
  out += style.dim('Fees are charged by the service per payout and are shown in the report.') + '\n';
  return out;
}

export function planJson(groups: PlanGroup[]) {
  return groups.map((g) => ({
    wallet_id: g.walletId,
    currency: g.currency,
    count: g.count,
    total: minorToDecimal(g.totalMinor, g.digits),
    balance: g.balanceMinor === undefined ? null : minorToDecimal(g.balanceMinor, g.digits),
    short: g.short,
  }));
}
