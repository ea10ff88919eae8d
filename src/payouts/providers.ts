/**
 * The bank and wallet providers payctl knows (docs/service.md: the list is open, any other is
 * sent as typed), by recipient type, and the "did you mean" for a name close to one of them.
 */
import type { RecipientType } from '../service/payout-rules.js';
import { editDistance } from '../words.js';

/**
 * The providers payctl knows, by recipient type: what the interactive flow offers (a
 * wallet recipient is offered wallets, a bank recipient banks) and what completion
 * completes. The list is open (docs/service.md): any other provider is sent as typed, with a
 * "did you mean" when it is close to one of these (providerSuggestion).
 */
export const PROVIDERS: Readonly<Record<RecipientType, readonly string[]>> = {
  wallet: ['afrimoney', 'orange_money', 'qmoney', 'opay', 'palmpay'],
  bank: ['ecobank', 'skybank', 'uba', 'rokel_commercial_bank', 'access_bank', 'gtbank', 'zenith_bank'],
};

/** Every provider payctl knows, wallets first. */
export const KNOWN_PROVIDERS: readonly string[] = [...PROVIDERS.wallet, ...PROVIDERS.bank];

/** The providers for a recipient type as given ("Wallet", "bank"); all of them when the type is missing or not one. */
export function providersFor(type: string | undefined): readonly string[] {
  const t = type?.trim().toLowerCase();
  return t === 'bank' || t === 'wallet' ? PROVIDERS[t] : KNOWN_PROVIDERS;
}

/** "Orange Money" -> "orange_money": lowercase, runs of other characters as one underscore. */
export function normalizeProvider(p: string): string {
  return p
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * The known provider that `provider` is most likely a slip for, or undefined when it is
 * known itself or close to none. Compared normalized and without underscores
 * (`orangemoney`, `Orange-Money`, `orang money` -> orange_money), allowing one edit for
 * names of 5 to 8 letters and two for longer ones (none for shorter: `uba`), or as a known
 * name with words left out, its first word kept (`zenith` -> zenith_bank, `rokel bank` ->
 * rokel_commercial_bank). On a tie the recipient type's providers come first.
 */
export function providerSuggestion(provider: string, type?: string): string | undefined {
  const p = normalizeProvider(provider);
  // Longer than any provider name by far: no provider, and no work spent on it.
  if (!p || p.length > 64 || KNOWN_PROVIDERS.includes(p)) return undefined;
  const typed = p.replace(/_/g, '');
  const preferred = providersFor(type);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const known of [...preferred, ...KNOWN_PROVIDERS.filter((k) => !preferred.includes(k))]) {
    const squashed = known.replace(/_/g, '');
    const limit = squashed.length <= 4 ? 0 : squashed.length <= 8 ? 1 : 2;
    const d = wordsLeftOut(p, known) ? 0 : editDistance(typed, squashed, limit);
    if (d <= limit && d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}

/** Whether `p` is `known` with words left out and its first word kept (`rokel_bank`, `zenith`); never a bare `bank`. */
function wordsLeftOut(p: string, known: string): boolean {
  const typed = p.split('_');
  const words = known.split('_');
  if (p.length < 3 || typed.length >= words.length || typed[0] !== words[0]) return false;
  let kept = 0;
  for (const word of words) if (word === typed[kept]) kept++;
  return kept === typed.length;
}
