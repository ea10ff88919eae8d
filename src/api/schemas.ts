/**
 * zod schemas for every response, with contract.md's tolerated variants handled here,
 * once: token field names and expiry forms; list arrays directly in `data` or under
 * items / payouts / results; error bodies in every listed form. Unknown extra fields
 * pass through; a missing required field becomes a clear ApiError naming it.
 */
import { z } from 'zod';
import { ApiError, type FieldError } from '../errors.js';

/** A money amount as the service sends it: a JSON number, or a numeric string. */
export const money = z.union([z.number().finite(), z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal amount')]);
export type Money = z.infer<typeof money>;

export const envelopeSchema = z.looseObject({
  status: z.string().optional(),
  message: z.string().optional(),
  data: z.unknown(),
  timestamp: z.string().optional(),
});
export type Envelope = z.infer<typeof envelopeSchema>;

const seconds = z.union([z.number().finite(), z.string().regex(/^\d+(\.\d+)?$/)]).transform(Number);
const instant = z.union([z.string(), z.number().finite()]);

export const tokenSchema = z
  .looseObject({
    access_token: z.string().min(1).optional(),
    accessToken: z.string().min(1).optional(),
    token: z.string().min(1).optional(),
    expires_in: seconds.optional(),
    expiresIn: seconds.optional(),
    expires_at: instant.optional(),
    expiresAt: instant.optional(),
  })
  .transform((d, ctx) => {
    const token = d.access_token ?? d.accessToken ?? d.token;
    if (!token) {
      ctx.addIssue({ code: 'custom', message: 'no access_token, accessToken or token field', path: ['access_token'] });
      return z.NEVER;
    }
    const expiresIn = d.expires_in ?? d.expiresIn;
    const at = d.expires_at ?? d.expiresAt;
    let expiresAt: Date | undefined;
    let expiresInSeconds: number | undefined;
    if (expiresIn !== undefined) expiresInSeconds = expiresIn;
    else if (at !== undefined) {
      // A number is unix seconds (or milliseconds when too large to be seconds).
      const date = typeof at === 'number' ? new Date(at > 1e11 ? at : at * 1000) : new Date(at);
      if (Number.isNaN(date.getTime())) {
        ctx.addIssue({ code: 'custom', message: `expiry "${at}" is not a time`, path: ['expires_at'] });
        return z.NEVER;
      }
      expiresAt = date;
    }
    return { token, expiresInSeconds, expiresAt };
  });
export type TokenData = z.infer<typeof tokenSchema>;

export const walletSchema = z.looseObject({
  wallet_id: z.string(),
  wallet_name: z.string().default(''),
  currency: z.string(),
  balance: money,
  updated_at: z.string().optional(),
});
export type Wallet = z.infer<typeof walletSchema>;
export const walletsSchema = z.array(walletSchema);

const accountDetailsSchema = z.looseObject({
  name: z.string().optional(),
  provider: z.string().optional(),
  accountNumber: z.string().optional(),
  phoneNumber: z.string().nullable().optional(),
  note: z.string().nullable().optional(),
});

export const providerResponseSchema = z.looseObject({
  status: z.string().optional(),
  beneficiary: z.string().optional(),
  provider: z.string().optional(),
  orderId: z.string().optional(),
  idempotency_key: z.string().optional(),
});

/** The `data` of POST /payout. */
export const payoutTransactionSchema = z.looseObject({
  transaction_id: z.string(),
  amount: money,
  fee: money.optional(),
  currency: z.string(),
  payout_id: z.string().optional(),
  created_at: z.string().optional(),
  provider_response: providerResponseSchema.optional(),
});
export type PayoutTransaction = z.infer<typeof payoutTransactionSchema>;

/** A payout record (get, list). */
export const payoutRecordSchema = z.looseObject({
  transaction_id: z.string().optional(),
  payout_id: z.string().optional(),
  wallet_id: z.string().optional(),
  amount: money,
  fee: money.optional().nullable(),
  currency: z.string(),
  status: z.string().optional(),
  failure_reason: z.string().nullable().optional(),
  recipient: z.looseObject({ type: z.string().optional(), accountDetails: accountDetailsSchema.optional() }).optional(),
  provider_response: providerResponseSchema.optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});
export type PayoutRecord = z.infer<typeof payoutRecordSchema>;

/** The status of a record: top-level `status`, else the provider's. */
export function recordStatus(r: PayoutRecord): string {
  return r.status ?? r.provider_response?.status ?? '';
}

/** A list page: the array directly in `data`, or under items / payouts / results. */
export const payoutPageSchema = z
  .union([
    z.array(z.unknown()),
    z.looseObject({
      items: z.array(z.unknown()).optional(),
      payouts: z.array(z.unknown()).optional(),
      results: z.array(z.unknown()).optional(),
      total: z.number().optional(),
      page: z.number().optional(),
      has_more: z.boolean().optional(),
    }),
  ])
  .transform((d, ctx) => {
    if (Array.isArray(d)) return { items: d, hasMore: undefined as boolean | undefined, total: undefined as number | undefined };
    const items = d.items ?? d.payouts ?? d.results;
    if (!items) {
      ctx.addIssue({ code: 'custom', message: 'no list of payouts (expected data to be an array, or data.items)' });
      return z.NEVER;
    }
    return { items, hasMore: d.has_more, total: d.total };
  });

const statusTotals = z.looseObject({ count: z.number(), amount: money });
export const summarySchema = z.looseObject({
  from: z.string().nullable().optional(),
  to: z.string().nullable().optional(),
  currencies: z.array(
    z.looseObject({
      currency: z.string(),
      count: z.number(),
      amount: money,
      fee: money.optional(),
      statuses: z.record(z.string(), statusTotals).default({}),
    }),
  ),
});
export type Summary = z.infer<typeof summarySchema>;

/** Validates `value` or throws an ApiError naming the first bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, requestId?: string): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.length ? issue.path.join('.') : '(top level)';
  throw new ApiError(`The service sent ${what} that payctl does not understand: ${path}: ${issue.message}.`, {
    requestId,
    hint: 'If the service changed, a route override or a newer payctl may be needed. Run with --verbose to see the response.',
  });
}

// ---- error bodies --------------------------------------------------------

const errorsList = z.array(
  z.union([
    z.looseObject({ field: z.string().optional(), path: z.string().optional(), message: z.string().optional() }),
    z.string(),
  ]),
);
const errorsMap = z.record(z.string(), z.union([z.array(z.string()), z.string()]));

export const errorBodySchema = z.looseObject({
  status: z.string().optional(),
  message: z.string().optional(),
  code: z.string().optional(),
  errors: z.union([errorsList, errorsMap]).optional(),
  error: z.union([z.string(), z.looseObject({ message: z.string().optional(), code: z.string().optional() })]).optional(),
});

export interface ParsedError {
  message: string | undefined;
  code: string | undefined;
  errors: FieldError[];
}

/** Reads an error body in any tolerated form; `undefined` when it is not JSON of that shape. */
export function parseErrorBody(raw: string): ParsedError | undefined {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const r = errorBodySchema.safeParse(json);
  if (!r.success) return undefined;
  const b = r.data;
  const errors: FieldError[] = [];
  if (Array.isArray(b.errors)) {
    for (const e of b.errors) {
      if (typeof e === 'string') errors.push({ field: '', message: e });
      else errors.push({ field: e.field ?? e.path ?? '', message: e.message ?? 'invalid' });
    }
  } else if (b.errors) {
    for (const [field, msgs] of Object.entries(b.errors)) {
      for (const m of Array.isArray(msgs) ? msgs : [msgs]) errors.push({ field, message: m });
    }
  }
  const nested = typeof b.error === 'object' ? b.error : undefined;
  return {
    message: b.message ?? (typeof b.error === 'string' ? b.error : nested?.message),
    code: b.code ?? nested?.code,
    errors,
  };
}
