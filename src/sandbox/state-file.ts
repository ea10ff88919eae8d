/**
 * What a sandbox state file (`--state FILE`, persist.ts) must hold to be loaded: everything
 * persist.ts writes, checked whole when the sandbox starts, so a file edited or damaged by
 * hand is refused there (exit 2, naming the field) instead of answering 500 on a later request
 * (a wallet whose currency was null failed every `balances`). Amounts are minor-unit digit
 * strings, as written; `tokens` of a file from when the sandbox issued them is ignored.
 */
import * as z from 'zod/mini';
import '../zod.js';
import { minorDigits } from '../money/currencies.js';
import { RECIPIENT_TYPES } from '../service/payout-rules.js';
import { STATUSES } from './state.js';

const text = z.string();
const named = z.string().check(z.refine((v) => v.trim() !== '', 'expected a non-empty string'));
const digits = z.string().check(z.refine((v) => /^\d+$/.test(v), 'expected a whole number of minor units as a string of digits ("125000075")'));
const micros = z.int().check(z.nonnegative());
const currency = z.string().check(z.refine((v) => minorDigits(v) !== undefined && v === v.toUpperCase(), 'expected an ISO 4217 currency code payctl knows ("SLE")'));

const walletSchema = z.object({ id: named, name: named, currency, balance: digits, updatedUs: micros });

const payoutSchema = z.object({
  transactionId: named,
  payoutId: named,
  walletId: named,
  amount: digits,
  fee: digits,
  currency,
  status: z.enum(STATUSES),
  failureReason: z.nullable(text),
  recipient: z.object({
    type: z.enum(RECIPIENT_TYPES),
    accountDetails: z.object({ name: text, provider: text, accountNumber: text, phoneNumber: z.nullable(text), note: z.nullable(text) }),
  }),
  orderId: text,
  idempotencyKey: text,
  metadata: z.nullable(z.record(z.string(), z.unknown())),
  createdUs: micros,
  updatedUs: micros,
  autoSettle: z.boolean(),
});

const idempotencySchema = z.object({
  key: text,
  body: text,
  createdMs: z.number(),
  answer: z.object({ status: z.int(), body: text, contentType: z.optional(text) }),
});

export const stateFileSchema = z.object({
  version: z.number(),
  apiKey: text,
  wallets: z.array(walletSchema),
  payouts: z.array(payoutSchema),
  idempotency: z._default(z.array(idempotencySchema), []),
});
export type StateFileJson = z.infer<typeof stateFileSchema>;

/** Where an issue is, in words: `wallets[0].currency`, or "the file" at the top. */
function where(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || 'the file';
}

/** At most this many problems are named (a file wrong everywhere would name them all). */
const SHOWN = 3;

/** The file's JSON checked whole: its data, or what is wrong with it (a phrase naming each field). */
export function checkStateFile(raw: unknown): { ok: true; data: StateFileJson } | { ok: false; problem: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, problem: 'it holds no JSON object' };
  const r = stateFileSchema.safeParse(raw);
  if (r.success) {
    const dup = duplicate(r.data);
    return dup ? { ok: false, problem: dup } : { ok: true, data: r.data };
  }
  const issues = r.error.issues;
  const named = issues.slice(0, SHOWN).map((i) => `${where(i.path)}: ${i.message}`);
  if (issues.length > SHOWN) named.push(`and ${issues.length - SHOWN} more`);
  return { ok: false, problem: named.join('; ') };
}

/** An id that two wallets or two payouts share (the sandbox looks them up by it). */
function duplicate(data: StateFileJson): string | undefined {
  const twice = (list: string, field: string, ids: string[]): string | undefined => {
    const seen = new Set<string>();
    for (const [i, id] of ids.entries()) {
      if (seen.has(id)) return `${list}[${i}].${field}: "${id}" is there twice`;
      seen.add(id);
    }
    return undefined;
  };
  const { wallets, payouts } = data;
  return (
    twice(
      'wallets',
      'id',
      wallets.map((w) => w.id),
    ) ??
    twice(
      'payouts',
      'payoutId',
      payouts.map((p) => p.payoutId),
    ) ??
    twice(
      'payouts',
      'transactionId',
      payouts.map((p) => p.transactionId),
    )
  );
}
