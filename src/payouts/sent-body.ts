/**
 * A journaled request body read back (docs/architecture.md, "Identity"): the batch-file fields it
 * sent, and what it pays as identity.ts says it (payoutFingerprint, and comparedFingerprint with
 * the account as compared), made again from the body by the same validation that made it. What
 * an entry pays is then known whatever the entry was journaled with: a batch row's fingerprint
 * holds its account as written, a single payout's the account as compared, and plan send of an
 * earlier version journaled none.
 */
import { parseAmount, plainAmount } from '../money/amount.js';
import { comparedFingerprint, payoutFingerprint, zeroKey } from './identity.js';
import type { JournalEntry } from './ledger/ledger.js';
import { validatePayout, type PayoutFields, type PayoutRequest } from './request.js';

/** A journaled request body as batch-file fields; undefined when it cannot be read. */
export function sentFields(body: string): { fields: Omit<Required<PayoutFields>, 'payoutId' | 'metadata'>; metadata: Record<string, unknown> | undefined } | undefined {
  let b: { currency?: unknown; walletId?: unknown; recipient?: { type?: unknown; accountDetails?: Record<string, unknown> }; metadata?: unknown };
  try {
    b = JSON.parse(body) as typeof b;
  } catch {
    return undefined;
  }
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  const literal = /^\{"amount":(-?\d+(?:\.\d+)?)[,}]/.exec(body)?.[1];
  const currency = s(b?.currency);
  if (literal === undefined || !currency) return undefined;
  const d = b.recipient?.accountDetails ?? {};
  return {
    fields: {
      walletId: s(b.walletId),
      amount: plainAmount(literal, currency),
      currency,
      type: s(b.recipient?.type),
      name: s(d.name),
      provider: s(d.provider),
      account: s(d.accountNumber),
      phone: s(d.phoneNumber),
      note: s(d.note),
    },
    metadata: b.metadata && typeof b.metadata === 'object' ? (b.metadata as Record<string, unknown>) : undefined,
  };
}

/** What a journaled body pays, as a request (its payout id aside: a placeholder); undefined when the body cannot be read. */
function paidByBody(body: string): PayoutRequest | undefined {
  const sent = sentFields(body);
  if (!sent) return undefined;
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(sent.metadata ?? {})) if (typeof v === 'string') metadata[k] = v;
  const v = validatePayout({ ...sent.fields, payoutId: 'fingerprint-of-body', metadata });
  return v.ok ? v.request : undefined;
}

/**
 * What a journaled body pays (identity.ts payoutFingerprint), for an entry journaled without its
 * fingerprint (plan send before this version): undefined when the body cannot be read.
 */
export function fingerprintOfBody(body: string): string | undefined {
  const r = paidByBody(body);
  return r && payoutFingerprint(r);
}

/**
 * What a journaled body pays with the account as compared (identity.ts comparedFingerprint):
 * equal for two payouts that pay all the same, the account written `0066-001-140` in one and
 * `0066001140` in the other (repeats.ts samePayoutsSent). Undefined when the body cannot be read.
 */
export function comparedFingerprintOfBody(body: string): string | undefined {
  const r = paidByBody(body);
  return r && comparedFingerprint(r);
}

/**
 * An entry's zero key (identity.ts zeroKey): as journaled, or for an entry journaled before zero
 * keys (29 November), made from its body (undefined when the body cannot be read). What a look-up
 * by zero key checks each entry it finds against, in every store: the key a marker or a column
 * names is only a lead. Bodies read are kept (an older journal's entries are asked again).
 */
export function entryZeroKey(e: Pick<JournalEntry, 'zeroKey' | 'body'>): string | undefined {
  if (e.zeroKey !== undefined) return e.zeroKey;
  let key = zeroKeysOfBodies.get(e.body);
  if (key === undefined) {
    key = zeroKeyOfBody(e.body) ?? '';
    if (zeroKeysOfBodies.size >= BODIES_KEPT) zeroKeysOfBodies.clear();
    zeroKeysOfBodies.set(e.body, key);
  }
  return key || undefined;
}

const zeroKeysOfBodies = new Map<string, string>();

/**
 * The zero key of what a body pays: its wallet, account, currency and amount only, not the body
 * validated again whole (paidByBody): a payout an older payctl sent to a provider, a name or a
 * phone today's rules would refuse is still found by the account it paid.
 */
function zeroKeyOfBody(body: string): string | undefined {
  const sent = sentFields(body);
  if (!sent) return undefined;
  const { walletId, account, currency, amount } = sent.fields;
  const parsed = parseAmount(amount, currency);
  return parsed.ok ? zeroKey({ walletId, account, currency, amountMinor: parsed.minor }) : undefined;
}
const BODIES_KEPT = 20_000;
