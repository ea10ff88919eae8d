/**
 * The interactive payout flow: the source wallet picked from live balances, then the
 * recipient, then the amount (validated as typed, warned when above the balance) and
 * a note. Only fields not given as flags are asked; validation is the same as flags'.
 */
import type { Wallet } from '../service/schemas.js';
import type { Log } from '../output/io.js';
import { UsageError } from '../errors.js';
import { balanceMinor, formatAmount, parseAmount } from '../money/amount.js';
import type { Prompter } from '../output/prompter.js';
import { text } from '../output/text.js';
import { FIELD_NAMES, validatePayout, type PayoutFields } from './request.js';
import { normalizeProvider, providerSuggestion, providersFor } from './providers.js';

export function walletLabel(w: Wallet): string {
  return `${text(w.wallet_name) || text(w.wallet_id)} (${text(w.wallet_id)}) · ${formatAmount(w.balance, w.currency)} ${text(w.currency)}`;
}

/** A field's problem under the flag validation, as a prompt's validate() answer. */
function checkField(field: keyof PayoutFields, base: PayoutFields): (value: string) => true | string {
  return (value) => {
    const r = validatePayout({ ...base, [field]: value }, FIELD_NAMES);
    if (r.ok) return true;
    const mine = r.problems.find((p) => p.startsWith(`${field} `) || p.startsWith(`${field}:`));
    return mine
      ? mine
          .slice(field.length)
          .replace(/^:? ?/, '')
          .replace(/^is required.*/, 'Required.')
      : true;
  };
}

/**
 * A provider close to a known one, asked about at a terminal: "Did you mean orange_money?"
 * (default yes). The answer is the provider to send: the known one, or the one typed (the
 * list is open). A known provider, or one close to none, is returned as it is, unasked.
 */
export async function confirmProvider(provider: string, type: string | undefined, prompter: Prompter): Promise<string> {
  const suggestion = providerSuggestion(provider, type);
  if (!suggestion) return provider;
  const yes = await prompter.confirm({ message: `Provider "${text(provider)}" is not one payctl knows. Did you mean ${suggestion}?`, default: true });
  return yes ? suggestion : provider;
}

export async function promptPayout(fields: PayoutFields, prompter: Prompter, wallets: Wallet[], log: Log): Promise<PayoutFields> {
  const f: PayoutFields = { ...fields };
  let wallet = wallets.find((w) => w.wallet_id === f.walletId);
  if (!f.walletId) {
    const choices = wallets
      .filter((w) => !f.currency || w.currency.toUpperCase() === f.currency.toUpperCase())
      .map((w) => ({ name: walletLabel(w), value: w.wallet_id }));
    if (choices.length === 0) {
      throw new UsageError(
        `No wallet${f.currency ? ` in ${f.currency.toUpperCase()}` : ''} to pay from. Nothing was sent.`,
        [],
        'See your wallets with: payctl balances',
      );
    }
    f.walletId = await prompter.select({ message: 'Pay from which wallet?', choices });
    wallet = wallets.find((w) => w.wallet_id === f.walletId);
  }
  if (!f.currency && wallet) f.currency = wallet.currency;
  // A --wallet that is none of the key's wallets: nothing could be sent from it, and with no
  // currency the amount prompt could take no answer at all. Said before anything is asked.
  if (!wallet) {
    throw new UsageError(`No wallet "${text(f.walletId)}" among this key's wallets. Nothing was sent.`, [], 'See your wallets with: payctl balances');
  }
  if (!f.type) {
    f.type = await prompter.select({
      message: 'Recipient type',
      choices: [
        { name: 'Mobile-money wallet', value: 'wallet' },
        { name: 'Bank account', value: 'bank' },
      ],
    });
  }
  if (!f.name) f.name = await prompter.input({ message: "Recipient's full name", validate: checkField('name', f) });
  if (!f.provider) {
    // A wallet recipient is offered wallet providers, a bank recipient banks.
    f.provider = normalizeProvider(
      await prompter.suggest({
        message: 'Provider (type to search, or enter another)',
        suggestions: [...providersFor(f.type)],
        normalize: normalizeProvider,
        validate: checkField('provider', f),
      }),
    );
    f.provider = await confirmProvider(f.provider, f.type, prompter);
  }
  if (!f.account) f.account = await prompter.input({ message: 'Account number', validate: checkField('account', f) });
  if (!f.phone && f.type === 'wallet') {
    f.phone = await prompter.input({ message: 'Phone number (e.g. +23276123456)', validate: checkField('phone', f) });
  }
  if (!f.amount) {
    const currency = (f.currency ?? '').toUpperCase();
    f.amount = await prompter.input({
      message: `Amount in ${currency}`,
      validate: (v) => {
        const r = parseAmount(v.trim(), currency);
        return r.ok ? true : r.problem;
      },
    });
    f.amount = f.amount.trim();
    const parsed = parseAmount(f.amount, currency);
    const balance = wallet ? balanceMinor(wallet.balance, wallet.currency) : undefined;
    if (parsed.ok && wallet && balance !== undefined && parsed.minor > balance) {
      log.warn(
        `${formatAmount(f.amount, currency)} ${currency} is more than the wallet's balance of ${formatAmount(wallet.balance, wallet.currency)} ${currency}; the service will refuse it unless funds arrive.`,
      );
    }
  }
  if (f.note === undefined) {
    const note = await prompter.input({ message: 'Note or payment reference (optional)', required: false });
    if (note.trim()) f.note = note.trim();
  }
  return f;
}
