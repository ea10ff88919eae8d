/**
 * The flags of `payout create` that carry a payout's fields, in one table: the command's
 * options and help (create-spec.ts), the labels that name fields in problems ("--amount: ...")
 * and the printed retry command (retry-command.ts) are all made from it. Not in the spec
 * itself: create.ts reads the table, and the spec loads create.ts.
 */
import type { FieldName, Labels, PayoutFields } from '../../payouts/request.js';

export interface FieldFlag {
  field: FieldName;
  /** As commander takes it: `--amount <decimal>`. */
  flags: string;
  help: string;
}

export const FIELD_FLAGS: readonly FieldFlag[] = [
  { field: 'walletId', flags: '--wallet <id>', help: 'source wallet to debit' },
  { field: 'amount', flags: '--amount <decimal>', help: "amount as a plain decimal (e.g. 1500.50), at most the currency's minor digits" },
  { field: 'currency', flags: '--currency <code>', help: 'ISO 4217 currency code of the wallet (e.g. SLE)' },
  // Not commander's .choices(): it stops at the first bad flag, and a bad --type must be
  // listed with every other problem (validatePayout checks bank|wallet).
  { field: 'type', flags: '--type <type>', help: 'recipient type: bank or wallet' },
  { field: 'name', flags: '--name <text>', help: "recipient's full name" },
  { field: 'provider', flags: '--provider <name>', help: 'bank or wallet provider (e.g. orange_money, afrimoney, ecobank)' },
  { field: 'account', flags: '--account <number>', help: "recipient's account number" },
  { field: 'phone', flags: '--phone <number>', help: 'phone number (required for wallet recipients)' },
  { field: 'note', flags: '--note <text>', help: 'note or payment reference' },
  { field: 'metadata', flags: '--metadata <key=value>', help: 'metadata pair (repeatable)' },
  { field: 'payoutId', flags: '--payout-id <id>', help: 'your id for this payout (default: a new UUID); the same id again reuses its key' },
];

/** `--amount` of `--amount <decimal>`. */
export function flagOf(f: FieldFlag): string {
  return f.flags.split(' ')[0]!;
}

/** The option's name in commander's parsed options: `--payout-id` is `payoutId`. */
export function attributeOf(f: FieldFlag): string {
  return flagOf(f)
    .slice(2)
    .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** How problems name the fields of `payout create`: by their flags. */
export const FLAG_LABELS = Object.fromEntries(FIELD_FLAGS.map((f) => [f.field, flagOf(f)])) as Labels;

/** The payout's fields from the parsed options. */
export function fieldsFromOptions(o: Record<string, unknown>): PayoutFields {
  const fields: Record<string, unknown> = {};
  for (const f of FIELD_FLAGS) fields[f.field] = o[attributeOf(f)];
  fields.metadata ??= [];
  return fields;
}
