/** `payctl balances [--currency C] [--wallet ID] [--csv]`: wallet balances. */
import { write, type Deps } from '../deps.js';
import { ApiError, UsageError } from '../errors.js';
import type { Wallet } from '../service/schemas.js';
import { formatAmount, plainAmount } from '../money/amount.js';
import { currencyFilter } from '../money/currencies.js';
import { walletFilter } from '../payouts/filters.js';
import { csvRow } from '../output/csv.js';
import { commandLine, invocationOf } from '../config/command-line.js';
import { text, utcTime } from '../output/text.js';
import { makeStyle } from '../output/style.js';
import type { Column } from '../output/table.js';
import { DIGITS_KEPT, digitsPhrase } from '../output/payout.js';

export interface BalancesOptions {
  currency?: string;
  wallet?: string;
  csv?: boolean;
}

export const BALANCES_CSV_HEADER = ['wallet_id', 'wallet_name', 'currency', 'balance', 'updated_at'];

/** One wallet's CSV values: the balance exact, with the currency's digits and no grouping ("1500.50"). */
export function walletCsvValues(w: Wallet): unknown[] {
  return [w.wallet_id, w.wallet_name, w.currency, plainAmount(w.balance, w.currency), w.updated_at];
}

/**
 * The table of wallets. At a terminal the name is cut with … first, then the update time is
 * left out; the wallet id (what --wallet takes), the currency and the balance are never cut.
 */
const BALANCES_COLUMNS: Column[] = [
  { header: 'WALLET' },
  { header: 'NAME', minWidth: 8 },
  { header: 'CURRENCY' },
  { header: 'BALANCE', align: 'right' },
  { header: 'UPDATED', giveWay: { step: 1 } },
];

export async function run(opts: BalancesOptions, deps: Deps): Promise<number> {
  const problems: string[] = [];
  const currency = currencyFilter(opts.currency, problems);
  const wallet = walletFilter(opts.wallet, problems);
  if (opts.csv && deps.globals.json) problems.push('--csv and --json cannot be used together');
  if (problems.length) throw new UsageError('Invalid options for balances.', problems);
  const api = await deps.api();
  const { wallets, envelope, res } = await api.wallets();
  // A wallet asked for by id that the service does not have is not found, not an empty match.
  if (wallet !== undefined && !wallets.some((w) => w.wallet_id === wallet)) {
    const list = commandLine(invocationOf(deps.globals, deps.env), ['balances']);
    throw new ApiError(`No wallet "${text(wallet)}": the service lists ${wallets.length} wallet${wallets.length === 1 ? '' : 's'}, none with this id.`, {
      code: 'NOT_FOUND',
      hint: `Run \`${list}\` to see the wallets and their ids.`,
    });
  }
  const filtered = wallets.filter((w) => (!currency || w.currency.toUpperCase() === currency) && (!wallet || w.wallet_id === wallet));
  // A balance with more decimal places than its currency has: shown as written, and said (payout.ts digitsPhrase), in every mode.
  const items = Array.isArray(envelope.data) ? (envelope.data as unknown[]) : [];
  for (const w of filtered) {
    const raw = items[wallets.indexOf(w)];
    const phrase = digitsPhrase([['balance', w.balance, raw !== null && typeof raw === 'object' ? (raw as { balance?: unknown }).balance : undefined]], w.currency);
    if (phrase) deps.log.warn(`The service's answer for wallet ${text(w.wallet_id)} gives ${phrase}: ${DIGITS_KEPT}`);
  }
  if (deps.globals.json) {
    // The envelope as the service sent it; filtered only when a filter was given.
    const out =
      currency || wallet ? JSON.stringify({ ...envelope, data: (envelope.data as unknown[]).filter((_, i) => filtered.includes(wallets[i]!)) }) : res.raw.trim();
    await write(deps.io.stdout, out + '\n');
    return 0;
  }
  if (opts.csv) {
    await write(deps.io.stdout, csvRow(BALANCES_CSV_HEADER) + filtered.map((w) => csvRow(walletCsvValues(w))).join(''));
    return 0;
  }
  if (filtered.length === 0) {
    deps.log.info(wallets.length === 0 ? 'No wallets.' : 'No wallets match the filter.');
    return 0;
  }
  const { renderTable } = await import('../output/table.js');
  const style = makeStyle(deps.io.color);
  const rows = filtered.map((w) => [text(w.wallet_id), text(w.wallet_name), text(w.currency), formatAmount(w.balance, w.currency), utcTime(w.updated_at)]);
  await write(deps.io.stdout, renderTable(BALANCES_COLUMNS, rows, style, { width: deps.io.stdoutColumns }));
  return 0;
}
