/**
 * `payctl summary`: totals per currency and status, with a bar chart of amounts by
 * status (or `--csv`: one row per currency and status). Amounts are never added across currencies. A summary of another shape is
 * shown generically rather than failing.
 */
import { write, type Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { parseOrThrow, summarySchema } from '../api/schemas.js';
import { parseTimeRange } from '../payouts/filters.js';
import { currencyFilter } from '../money/currencies.js';
import { makeStyle } from '../output/style.js';
import { sanitizeInline } from '../output/sanitize.js';

export interface SummaryOptions {
  from?: string;
  to?: string;
  wallet?: string;
  currency?: string;
  csv?: boolean;
}

export async function run(opts: SummaryOptions, deps: Deps): Promise<number> {
  const problems: string[] = [];
  const range = parseTimeRange(opts, problems);
  const currency = currencyFilter(opts.currency, problems);
  if (opts.csv && deps.globals.json) problems.push('--csv and --json cannot be used together');
  if (problems.length) throw new UsageError('Invalid options for summary.', problems);

  const api = await deps.api();
  const body = JSON.stringify({ ...range, ...(opts.wallet ? { walletId: opts.wallet } : {}), ...(currency ? { currency } : {}) });
  // The summary is a read: safe to retry although it is a POST.
  const { envelope, res } = await api.callEnvelope('payoutsSummary', { body, retry: true });
  if (deps.globals.json) {
    await write(deps.io.stdout, res.raw.trim() + '\n');
    return 0;
  }
  if (opts.csv) {
    // A file needs the known shape: a summary of another shape is an error, not a guess.
    const { summaryCsv } = await import('../output/summary.js');
    await write(deps.io.stdout, summaryCsv(parseOrThrow(summarySchema, envelope.data, 'a summary', res.requestId)));
    return 0;
  }
  const style = makeStyle(deps.io.color);
  const parsed = summarySchema.safeParse(envelope.data);
  if (!parsed.success) {
    await write(deps.io.stdout, renderGeneric(envelope.data, ''));
    return 0;
  }
  const { renderSummary } = await import('../output/summary.js');
  await write(deps.io.stdout, renderSummary(parsed.data, style));
  return 0;
}

/** Any JSON as indented "key: value" lines, sanitized. */
function renderGeneric(value: unknown, indent: string): string {
  if (value === null || typeof value !== 'object') return `${indent}${sanitizeInline(String(value))}\n`;
  let out = '';
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && typeof v === 'object') out += `${indent}${sanitizeInline(k)}:\n` + renderGeneric(v, indent + '  ');
    else out += `${indent}${sanitizeInline(k)}: ${sanitizeInline(String(v))}\n`;
  }
  return out;
}
