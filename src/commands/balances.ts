/** `payctl balances [--currency C] [--wallet ID]`: wallet balances. */
import { write, type Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { formatAmount } from '../money/amount.js';
import { currencyFilter } from '../money/currencies.js';
import { text, utcTime } from '../output/text.js';
import { makeStyle } from '../output/style.js';

export interface BalancesOptions {
  currency?: string;
  wallet?: string;
}

export async function run(opts: BalancesOptions, deps: Deps): Promise<number> {
  const problems: string[] = [];
  const currency = currencyFilter(opts.currency, problems);
  if (problems.length) throw new UsageError(`${problems[0]}.`);
  const api = await deps.api();
  const { wallets, envelope, res } = await api.wallets();
  const filtered = wallets.filter((w) => (!currency || w.currency.toUpperCase() === currency) && (!opts.wallet || w.wallet_id === opts.wallet));
  if (deps.globals.json) {
    // The envelope as the service sent it; filtered only when a filter was given.
    const out =
      currency || opts.wallet ? JSON.stringify({ ...envelope, data: (envelope.data as unknown[]).filter((_, i) => filtered.includes(wallets[i]!)) }) : res.raw.trim();
    await write(deps.io.stdout, out + '\n');
    return 0;
  }
  if (filtered.length === 0) {
    deps.log.info(wallets.length === 0 ? 'No wallets.' : 'No wallets match the filter.');
    return 0;
  }
  const { renderTable } = await import('../output/table.js');
  const style = makeStyle(deps.io.color);
  const rows = filtered.map((w) => [text(w.wallet_id), text(w.wallet_name), text(w.currency), formatAmount(w.balance, w.currency), utcTime(w.updated_at)]);
  await write(
    deps.io.stdout,
    renderTable([{ header: 'WALLET' }, { header: 'NAME' }, { header: 'CURRENCY' }, { header: 'BALANCE', align: 'right' }, { header: 'UPDATED' }], rows, style),
  );
  return 0;
}
