/**
 * What this config folder's journal says was sent today (UTC) under one base URL: payouts accepted or
 * of unknown outcome (they may have been paid), leaving out those at hand (counted with them by
 * the caller). Counted per wallet and currency (the daily total, limits.ts) and per recipient
 * account (splitting, approvals.ts) (docs/architecture.md, "Where each rule lives": the
 * spending policy and approvals needed; "Idempotency journal").
 */
import { CliError, ConfigError } from '../errors.js';
import { decimalToMinor } from '../money/amount.js';
import type { Ledger } from '../payouts/journal.js';
import { journalBase } from '../payouts/journal.js';
import { digitsOf } from './policy-file.js';

/**
 * One recipient account as splitting is counted: the wallet it is paid from, the currency,
 * the recipient's type and provider, and the account number spelled without spaces, dashes
 * or dots and in one case (076 123-456 is 076123456).
 */
export function recipientKey(walletId: string, currency: string, type: string, provider: string, account: string): string {
  return JSON.stringify([walletId, currency, type, provider.trim().toLowerCase(), account.replace(/[\s\-.]/g, '').toLowerCase()]);
}

/**
 * Where a day's count comes from, as its messages say it: "from this config folder (<path>)"
 * for the local journal, which counts only what that folder sent (another PAYCTL_CONFIG_DIR on
 * the same machine keeps its own); the shared ledger's own words otherwise.
 */
export function countedFrom(journal: Pick<Ledger, 'sentFrom' | 'folder'>): string {
  return journal.folder === undefined ? journal.sentFrom : `${journal.sentFrom} (${journal.folder})`;
}

/** The start of the UTC day of `now`. */
function dayStart(now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
}

interface TodaysEntry {
  walletId: string;
  currency: string;
  minor: bigint;
  body: string;
}

/**
 * The journal's payouts of today (UTC) under this base URL that may have been paid (accepted
 * or of unknown outcome), leaving out the payout ids in `exclude`, with wallet, currency and
 * amount read from their bodies.
 */
async function* todaysEntries(journal: Ledger, baseUrl: string, now: Date, exclude: Set<string>): AsyncGenerator<TodaysEntry> {
  const since = dayStart(now);
  const base = journalBase(baseUrl);
  for await (const item of journal.scanSince(baseUrl, new Date(since))) {
    // An entry that cannot be read or verified may be a payout of today: what it paid is not
    // known, so neither is the total. Refused (exit 2, naming it), never counted as nothing:
    // passed over, it let 120.00 out under a daily total of 100.00.
    if ('error' in item) {
      const hint = item.error instanceof CliError ? item.error.hint : undefined;
      throw new ConfigError(
        `The policy's daily limits cannot be counted: ${item.error.message.replace(/\.$/, '')}. Nothing was sent.`,
        hint ?? 'Move the entry out of the journal folder once you know what it paid, or restore it from a backup.',
      );
    }
    const e = item.entry;
    if (exclude.has(e.payoutId) || journalBase(e.baseUrl) !== base || Date.parse(e.createdAt) < since) continue;
    const kind = e.outcome?.kind;
    if (kind === 'rejected' || kind === 'not-made') continue;
    try {
      const b = JSON.parse(e.body) as { walletId?: unknown; currency?: unknown };
      const amount = /"amount":(-?[0-9.]+)[,}]/.exec(e.body)?.[1];
      if (typeof b.walletId !== 'string' || typeof b.currency !== 'string' || amount === undefined) continue;
      yield { walletId: b.walletId, currency: b.currency, minor: decimalToMinor(amount, digitsOf(b.currency)), body: e.body };
    } catch {
      // an entry payctl cannot read says nothing about amounts
    }
  }
}

/**
 * What this config folder's journal says was sent today (UTC) under this base URL, per wallet and
 * currency, in minor units: payouts accepted or of unknown outcome (they may have been paid),
 * leaving out the payout ids in `exclude` (those about to be sent: counted with them).
 */
export async function sentToday(journal: Ledger, baseUrl: string, now: Date, exclude: Set<string>): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for await (const e of todaysEntries(journal, baseUrl, now, exclude)) {
    const key = `${e.walletId}\n${e.currency}`;
    out.set(key, (out.get(key) ?? 0n) + e.minor);
  }
  return out;
}

/**
 * What this config folder's journal says was sent today (UTC) under this base URL from each wallet
 * to each recipient account (recipientKey), in minor units: payouts accepted or of unknown
 * outcome, leaving out the payout ids in `exclude` (those at hand: counted with them).
 */
export async function sentTodayTo(journal: Ledger, baseUrl: string, now: Date, exclude: Set<string>): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for await (const e of todaysEntries(journal, baseUrl, now, exclude)) {
    try {
      const b = JSON.parse(e.body) as { recipient?: { type?: unknown; accountDetails?: { provider?: unknown; accountNumber?: unknown } } };
      const ad = b.recipient?.accountDetails;
      if (typeof b.recipient?.type !== 'string' || typeof ad?.provider !== 'string' || typeof ad.accountNumber !== 'string') continue;
      const key = recipientKey(e.walletId, e.currency, b.recipient.type, ad.provider, ad.accountNumber);
      out.set(key, (out.get(key) ?? 0n) + e.minor);
    } catch {
      // an entry payctl cannot read says nothing about amounts
    }
  }
  return out;
}
