/**
 * zod schemas for every response, with contract.md's tolerated variants handled here,
 * once: token field names and expiry forms; list arrays directly in `data` or under
 * items / payouts / results; error bodies in every listed form. Unknown extra fields
 * pass through; a missing required field becomes a clear ApiError naming it.
 *
 * Only the envelope and the wallets are built when the module loads; every other schema is
 * built when first used (z.lazy, which parses exactly as the schema it builds): a run parses
 * one or two kinds of answer, and building them all was about 1 ms of `balances --json`.
 */
import * as z from 'zod/mini';
import '../zod.js';
import { ApiError, type FieldError } from '../errors.js';

const opt = z.optional;

/** A money amount as the service sends it: a JSON number, or a numeric string. */
export const money = z.union([z.number(), z.string().check(z.regex(/^-?\d+(\.\d+)?$/, 'expected a decimal amount'))]);
export type Money = z.infer<typeof money>;

export const envelopeSchema = z.looseObject({
  status: opt(z.string()),
  message: opt(z.string()),
  data: z.unknown(),
  timestamp: opt(z.string()),
});
export type Envelope = z.infer<typeof envelopeSchema>;

export interface TokenData {
  token: string;
  expiresInSeconds: number | undefined;
  expiresAt: Date | undefined;
}

export const tokenSchema = z.lazy(() => {
  const seconds = z.pipe(
    z.union([z.number(), z.string().check(z.regex(/^\d+(\.\d+)?$/))]),
    z.transform((v) => Number(v)),
  );
  const instant = z.union([z.string(), z.number()]);
  return z.pipe(
    z.looseObject({
      access_token: opt(z.string().check(z.minLength(1))),
      accessToken: opt(z.string().check(z.minLength(1))),
      token: opt(z.string().check(z.minLength(1))),
      expires_in: opt(seconds),
      expiresIn: opt(seconds),
      expires_at: opt(instant),
      expiresAt: opt(instant),
    }),
    z.transform((d, ctx): TokenData => {
      const token = d.access_token ?? d.accessToken ?? d.token;
      if (!token) {
        ctx.issues.push({ code: 'custom', message: 'no access_token, accessToken or token field', path: ['access_token'], input: d });
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
          ctx.issues.push({ code: 'custom', message: `expiry "${at}" is not a time`, path: ['expires_at'], input: at });
          return z.NEVER;
        }
        expiresAt = date;
      }
      return { token, expiresInSeconds, expiresAt };
    }),
  );
});

export const walletSchema = z.looseObject({
  wallet_id: z.string(),
  wallet_name: z._default(z.string(), ''),
  currency: z.string(),
  balance: money,
  updated_at: opt(z.string()),
});
export type Wallet = z.infer<typeof walletSchema>;
export const walletsSchema = z.array(walletSchema);

export const providerResponseSchema = z.lazy(() =>
  z.looseObject({
    status: opt(z.string()),
    beneficiary: opt(z.string()),
    provider: opt(z.string()),
    orderId: opt(z.string()),
    idempotency_key: opt(z.string()),
  }),
);

/** The `data` of POST /payout. */
export const payoutTransactionSchema = z.lazy(() =>
  z.looseObject({
    transaction_id: z.string(),
    amount: money,
    fee: opt(money),
    currency: z.string(),
    payout_id: opt(z.string()),
    /** Not in the contract's answer, but checked against the wallet sent when a service adds it. */
    wallet_id: opt(z.string()),
    created_at: opt(z.string()),
    provider_response: opt(providerResponseSchema),
  }),
);
export type PayoutTransaction = z.infer<typeof payoutTransactionSchema>;

/** A payout record (get, list). */
export const payoutRecordSchema = z.lazy(() => {
  const accountDetailsSchema = z.looseObject({
    name: opt(z.string()),
    provider: opt(z.string()),
    accountNumber: opt(z.string()),
    phoneNumber: opt(z.nullable(z.string())),
    note: opt(z.nullable(z.string())),
  });
  return z.looseObject({
    transaction_id: opt(z.string()),
    payout_id: opt(z.string()),
    wallet_id: opt(z.string()),
    amount: money,
    fee: opt(z.nullable(money)),
    currency: z.string(),
    status: opt(z.string()),
    failure_reason: opt(z.nullable(z.string())),
    recipient: opt(z.looseObject({ type: opt(z.string()), accountDetails: opt(accountDetailsSchema) })),
    provider_response: opt(providerResponseSchema),
    metadata: opt(z.nullable(z.record(z.string(), z.unknown()))),
    created_at: opt(z.string()),
    updated_at: opt(z.string()),
  });
});
export type PayoutRecord = z.infer<typeof payoutRecordSchema>;

/** The status of a record: top-level `status`, else the provider's. */
export function recordStatus(r: PayoutRecord): string {
  return r.status ?? r.provider_response?.status ?? '';
}

export interface PayoutPage {
  items: unknown[];
  hasMore: boolean | undefined;
  total: number | undefined;
}

/** A list page: the array directly in `data`, or under items / payouts / results. */
export const payoutPageSchema = z.lazy(() =>
  z.pipe(
    z.union([
      z.array(z.unknown()),
      z.looseObject({
        items: opt(z.array(z.unknown())),
        payouts: opt(z.array(z.unknown())),
        results: opt(z.array(z.unknown())),
        total: opt(z.number()),
        page: opt(z.number()),
        has_more: opt(z.boolean()),
      }),
    ]),
    z.transform((d, ctx): PayoutPage => {
      if (Array.isArray(d)) return { items: d, hasMore: undefined, total: undefined };
      const items = d.items ?? d.payouts ?? d.results;
      if (!items) {
        ctx.issues.push({ code: 'custom', message: 'no list of payouts (expected data to be an array, or data.items)', input: d });
        return z.NEVER;
      }
      return { items, hasMore: d.has_more, total: d.total };
    }),
  ),
);

export const summarySchema = z.lazy(() => {
  const statusTotals = z.looseObject({ count: z.number(), amount: money });
  return z.looseObject({
    from: opt(z.nullable(z.string())),
    to: opt(z.nullable(z.string())),
    currencies: z.array(
      z.looseObject({
        currency: z.string(),
        count: z.number(),
        amount: money,
        fee: opt(money),
        statuses: z._default(z.record(z.string(), statusTotals), {}),
      }),
    ),
  });
});
export type Summary = z.infer<typeof summarySchema>;

/** Validates `value` or throws an ApiError naming the first bad field. */
export function parseOrThrow<S extends z.ZodMiniType>(schema: S, value: unknown, what: string, requestId?: string): z.output<S> {
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

/**
 * Every tolerated error body: contract.md's `{ status: "Failed", message, code, errors }`, `error` as a
 * string or object, and RFC 9457 problem details (`type`, `title`, numeric `status`, `detail`, `errors`).
 */
export const errorBodySchema = z.lazy(() => {
  const errorsList = z.array(
    z.union([
      // contract.md's { field, message }; RFC 9457's extension members often use { pointer, detail }.
      z.looseObject({ field: opt(z.string()), path: opt(z.string()), pointer: opt(z.string()), message: opt(z.string()), detail: opt(z.string()) }),
      z.string(),
    ]),
  );
  const errorsMap = z.record(z.string(), z.union([z.array(z.string()), z.string()]));
  return z.looseObject({
    status: opt(z.union([z.string(), z.number()])),
    message: opt(z.string()),
    code: opt(z.string()),
    title: opt(z.string()),
    detail: opt(z.string()),
    errors: opt(z.union([errorsList, errorsMap])),
    error: opt(z.union([z.string(), z.looseObject({ message: opt(z.string()), code: opt(z.string()) })])),
  });
});

export interface ParsedError {
  message: string | undefined;
  code: string | undefined;
  errors: FieldError[];
}

/** Deeper JSON than this is refused: nothing in the contract nests past a few levels, and a 10,000-deep answer overflowed the stack. */
export const MAX_JSON_DEPTH = 64;

/** True when arrays and objects in this JSON text nest deeper than `limit` (one linear pass; strings skipped). */
export function tooDeep(json: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string, escapes included.
      for (i++; i < json.length && json.charCodeAt(i) !== 0x22; i++) if (json.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Reads an error body in any tolerated form; `undefined` when it is not JSON of that shape. */
export function parseErrorBody(raw: string): ParsedError | undefined {
  let json: unknown;
  try {
    if (tooDeep(raw)) return undefined;
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
      else errors.push({ field: e.field ?? e.path ?? pointerField(e.pointer) ?? '', message: e.message ?? e.detail ?? 'invalid' });
    }
  } else if (b.errors) {
    for (const [field, msgs] of Object.entries(b.errors)) {
      for (const m of Array.isArray(msgs) ? msgs : [msgs]) errors.push({ field, message: m });
    }
  }
  const nested = typeof b.error === 'object' ? b.error : undefined;
  return {
    message: b.message ?? problemText(b.title, b.detail) ?? (typeof b.error === 'string' ? b.error : nested?.message),
    code: b.code ?? nested?.code,
    errors,
  };
}

/** A problem's text: its detail, after its title when the detail does not already say it. */
function problemText(title: string | undefined, detail: string | undefined): string | undefined {
  if (!detail) return title || undefined;
  return title && !detail.toLowerCase().includes(title.toLowerCase()) ? `${title}: ${detail}` : detail;
}

/** A JSON Pointer (RFC 6901) to a body field as a field path: `/recipient/accountDetails/name` -> `recipient.accountDetails.name`. */
function pointerField(pointer: string | undefined): string | undefined {
  if (pointer === undefined) return undefined;
  const path = pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  return path.length ? path.join('.') : undefined;
}
