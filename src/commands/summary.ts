/**
 * `payctl summary`, in two forms (docs/service.md "Summary"):
 *
 * - no filter: the service's own summary, `POST /payout/summary` with the body `{}`: counts by
 *   status and by type with bar charts, and `total_sent` shown as the service's figure (it has
 *   no currency). `--json` prints the envelope as the service sent it. One verdict for text,
 *   `--json` and `--csv`: a documented figure that cannot be read (`total_sent: 1e400`) is named
 *   in a warning and the rest shown (exit 0); `data` that is no object is refused (exit 1).
 * - any filter (`--from`, `--to`, `--wallet`, `--currency`): the service documents none for its
 *   summary, so payctl computes one from the whole list (`GET /payout/list`, every page, the
 *   filters applied by payctl), exactly, per currency and status, and says so. `--json` prints
 *   that computed document, marked `"computed": true`.
 *
 * `--csv` writes either form as rows (the service's figures, or one row per currency and status).
 */
import { write, type Deps } from '../deps.js';
import { ApiError, UsageError } from '../errors.js';
import { normalizeStatus, parseOrThrow, recordStatus, summarySchema } from '../service/schemas.js';
import { hasFilter, parseTimeRange, recordFilter, undated, undatedNote, walletFilter, walletless, walletlessNote, type ListFilter } from '../payouts/filters.js';
import { currencyFilter } from '../money/currencies.js';
import { makeStyle } from '../output/style.js';
import { LiveLine } from '../output/progress.js';
import { differingCopyText, listPages, MAX_PER_PAGE, repeatNotes, type DifferingCopy } from './payouts/pages.js';
import type { SummaryFilters } from '../output/summary.js';
import { sanitizeInline } from '../output/sanitize.js';
import { parseNumbersAsWritten } from '../service/exact-json.js';
import { commandLine, invocationOf } from '../config/command-line.js';

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
  const wallet = walletFilter(opts.wallet, problems);
  if (opts.csv && deps.globals.json) problems.push('--csv and --json cannot be used together');
  if (problems.length) throw new UsageError('Invalid options for summary.', problems);
  const filter: ListFilter = { ...range };
  if (wallet !== undefined) filter.walletId = wallet;
  if (currency !== undefined) filter.currency = currency;

  const api = await deps.api();
  if (hasFilter(filter)) return computed(filter, opts, deps);

  // The summary is a read: safe to retry although it is a POST. The documented body is {}.
  const { res } = await api.callEnvelope('payoutsSummary', { body: '{}', retry: true });
  // Figures in an object are read one by one (unknown ones shown as sent); anything else (a list,
  // a word, nothing) is no summary: an answer not understood in every output mode, never printed.
  // Read with each number as the service wrote it (the envelope is checked): a count of 1e30 is shown "1e30", not "1e+30".
  const raw = (parseNumbersAsWritten(res.raw) as { data?: unknown }).data;
  // (parseOrThrow throws for anything but an object.)
  const data = isObject(raw) ? raw : parseOrThrow(summarySchema, raw, 'a summary', res.requestId);
  const out = await import('../output/service-summary.js');
  // A figure that cannot be read is said so, the same in every output mode; the others are shown.
  const unread = out.unreadFigures(data);
  if (unread.length) deps.log.warn(`The service's summary has figures payctl cannot read: ${unread.join('; ')}.`);
  const doubtful = out.doubtfulFigures(data);
  if (doubtful.length) deps.log.warn(`The service's summary is not as docs/service.md describes it: ${doubtful.join('; ')}.`);
  if (deps.globals.json) await write(deps.io.stdout, res.raw.trim() + '\n');
  else if (opts.csv) await write(deps.io.stdout, out.serviceSummaryCsv(data));
  else await write(deps.io.stdout, out.renderServiceSummary(data, makeStyle(deps.io.color), deps.io.stdoutColumns));
  return 0;
}

/**
 * A payout listed twice with another amount, currency or status: which copy counts would decide
 * the totals, so none is picked; the list is unreadable (exit 1), as a list that pages without
 * progress is (probe 70-S, finding 6: the first copy was counted, the other dropped unsaid).
 */
function contradicts(differing: DifferingCopy[], listAll: string): ApiError {
  const said = differing.slice(0, 3).map(differingCopyText).join('; ');
  const more = differing.length > 3 ? `; and ${differing.length - 3} more` : '';
  return new ApiError(`The list of payouts contradicts itself: ${said}${more}. A summary would depend on which copy is counted.`, {
    hint: `Payouts that settle, or are made, while the list is read can do this (a batch running): compute the summary again when that is done. \`${listAll}\` lists the first copies and names each payout whose copies differ.`,
  });
}

/**
 * `payctl payouts list ... --all` with this run's filters and environment (profile, base URL,
 * time limit: commandLine): the same payouts, as printed for a person to run.
 */
function listAllCommand(opts: SummaryOptions, deps: Deps): string {
  const given: Array<[string, string | undefined]> = [
    ['--wallet', opts.wallet],
    ['--currency', opts.currency],
    ['--from', opts.from],
    ['--to', opts.to],
  ];
  const filters = given.flatMap(([flag, value]) => (value === undefined ? [] : [flag, value]));
  return commandLine(invocationOf(deps.globals, deps.env), ['payouts', 'list'], [...filters, '--all']);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The summary computed from every page of the list, with the filters applied here. */
async function computed(filter: ListFilter, opts: SummaryOptions, deps: Deps): Promise<number> {
  const api = await deps.api();
  const out = await import('../output/summary.js');
  const tally = new out.SummaryTally();
  const keep = recordFilter(filter, normalizeStatus);
  // A progress line at a terminal only (stderr); a pipe or a file gets nothing.
  const progress = new LiveLine(deps.io.stderr, deps.io.stderrIsTTY && !deps.globals.json, () => deps.io.stderrColumns);
  let left = 0;
  let timeless = 0;
  let shifted = 0;
  let repeated = 0;
  // Amounts with more decimal places than their currency (payout.ts digitsWarning): summed exactly, as written, and said.
  const beyond: string[] = [];
  try {
    for await (const page of listPages(api, {
      startPage: 1,
      perPage: MAX_PER_PAGE,
      prefetch: true,
      onForeignLink: (link) =>
        deps.log.warn(`The service's next-page link points at another origin (${sanitizeInline(link)}); payctl asked ${api.baseUrl} for the next page number instead.`),
    })) {
      shifted += page.shifted;
      repeated += page.repeated;
      if (page.differing.length) throw contradicts(page.differing, listAllCommand(opts, deps));
      for (const [i, r] of page.records.entries()) {
        tally.listed++;
        if (keep(r)) {
          tally.add(r, recordStatus(r));
          const odd = out.digitsOf(r, page.items[i]);
          if (odd) beyond.push(odd);
        } else if (walletless(filter, r)) left++;
        else if (undated(filter, r)) timeless++;
      }
      progress.set(`Reading payouts: page ${page.number}, ${tally.listed} read, ${tally.payouts} match`);
    }
  } finally {
    progress.clear();
  }
  for (const w of beyond.slice(0, 10)) deps.log.warn(w);
  if (beyond.length > 10) deps.log.warn(`${beyond.length - 10} more payouts counted have amounts with more decimal places than their currency.`);
  if (beyond.length)
    deps.log.warn(
      `The totals include ${beyond.length === 1 ? 'that amount' : 'those amounts'} as the service wrote ${beyond.length === 1 ? 'it' : 'them'}, not rounded.`,
    );
  if (left > 0) deps.log.warn(walletlessNote(left));
  if (timeless > 0) deps.log.warn(undatedNote(timeless));
  for (const note of repeatNotes(shifted, repeated)) deps.log.info(`Note: ${note}`);
  const filters: SummaryFilters = {};
  if (filter.from !== undefined) filters.from = filter.from;
  if (filter.to !== undefined) filters.to = filter.to;
  if (opts.wallet !== undefined) filters.wallet = opts.wallet;
  if (filter.currency !== undefined) filters.currency = filter.currency;
  const summary = tally.result(filters);
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify(summary) + '\n');
  else if (opts.csv) {
    await write(deps.io.stdout, out.summaryCsv(summary));
    deps.log.info(out.computedLabel(summary));
  } else await write(deps.io.stdout, out.renderComputedSummary(summary, makeStyle(deps.io.color), deps.io.stdoutColumns));
  return 0;
}
