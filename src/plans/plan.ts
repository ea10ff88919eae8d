/**
 * A payout plan (four eyes): payouts written down instead of sent, to be reviewed, signed
 * by approvers and then sent exactly as written. A plan holds the profile's base URL, the
 * batch id, every payout's exact request body and idempotency key, the totals per wallet
 * and currency, who made it (the maker's public key) and when, and `hash`: the SHA-256 of
 * the canonical form (canonical.ts) of all of that. The maker signs the hash; each
 * approval is a signature over the hash with the approver's name and time (both made and
 * checked in signatures.ts). Any byte changed in what will be sent changes the hash, so no
 * signature made before still holds. A plan is a file, or a row of a shared ledger found by its
 * hash (storedPlan): either is checked whole the same way before it is used.
 */
import { readRegular, RefusedFile } from '../config/regular-file.js';
import { jsonFault } from '../config/json-fault.js';
import { batchFileKind } from '../payouts/batch-columns.js';
import { RefusedError, UsageError } from '../errors.js';
import { minorToDecimal } from '../money/amount.js';
import { sha256 } from '../payouts/identity.js';
import { journalBase } from '../payouts/journal.js';
import { isUuid, payoutBody, validatePayout, type PayoutRequest } from '../payouts/request.js';
import { canonicalJson, CanonicalError } from './canonical.js';
import type { PlanStore, StoredPlan } from '../payouts/ledger/ledger.js';
import type { SigningKey } from './keys.js';
import { fingerprintHolds, makerSignature, makerSignatureHolds, type Approval } from './signatures.js';

export type { Approval } from './signatures.js';
export { approvalMessage, makerMessage } from './signatures.js';

export const PLAN_FORMAT = 1;
/** A plan older than this is refused by `plan send`: what was reviewed a week ago may no longer be meant. */
export const PLAN_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Why a plan's creation time refuses it at `now` (plan send, and plan approve, which would else
 * sign a plan dated ahead that becomes sendable months after it was approved), or undefined:
 * not a time, more than 7 days old, or more than 5 minutes in the future.
 */
export function planTimeProblem(plan: Pick<Plan, 'created_at'>, now: Date): string | undefined {
  const made = Date.parse(plan.created_at);
  if (!Number.isFinite(made)) return `its creation time "${plan.created_at}" is not a time`;
  if (now.getTime() - made > PLAN_MAX_AGE_MS) return `it was made on ${plan.created_at}, more than 7 days ago`;
  if (made - now.getTime() > 5 * 60_000) return `it was made on ${plan.created_at}, in the future`;
  return undefined;
}

/** Why plan send refuses a plan for where or when it was made, and what to do. */
export interface PlanProblem {
  text: string;
  hint?: string;
}

/**
 * Why plan send refuses a plan sent to `baseUrl` at `now` for where or when it was made: made
 * for another service, then its time (planTimeProblem). Plan send refuses by the first; policy
 * check and plan show say them all. `baseUrl` undefined: the service is not known (not judged).
 */
export function placeAndTimeProblems(plan: Pick<Plan, 'base_url' | 'created_at'>, baseUrl: string | undefined, now: Date): PlanProblem[] {
  const problems: PlanProblem[] = [];
  if (baseUrl !== undefined && !samePlace(plan.base_url, baseUrl)) problems.push({ text: `it was made for ${plan.base_url}, and this profile sends to ${baseUrl}` });
  const time = planTimeProblem(plan, now);
  if (time) problems.push({ text: time, ...(time.endsWith('ago') ? { hint: 'Make a new plan and have it approved again.' } : {}) });
  return problems;
}

/** Plans are read whole; larger files are refused before they are parsed. */
const MAX_PLAN_BYTES = 64 * 1024 * 1024;

export interface PlanPayout {
  /** The row of the batch file it came from (1-based, after the header), when it came from one. */
  row?: number;
  payout_id: string;
  idempotency_key: string;
  /** The exact body of POST /payout, byte for byte. */
  body: string;
}

export interface PlanTotal {
  wallet_id: string;
  currency: string;
  count: number;
  /** Exact, with the currency's digits ("1500.50"). */
  total: string;
}

/** What the hash covers: everything in a plan but the hash and the signatures. */
export interface PlanContent {
  payctl_plan: number;
  base_url: string;
  batch_id: string | null;
  source: string;
  created_at: string;
  maker: { name: string; public_key: string; fingerprint: string };
  payouts: PlanPayout[];
  totals: PlanTotal[];
}

export interface Plan extends PlanContent {
  /** `sha256:<hex>` of the canonical form of the content. */
  hash: string;
  /** The maker's Ed25519 signature of makerMessage(hash), base64. */
  maker_signature: string;
  approvals: Approval[];
}

/** One payout of a plan, read back from its body. */
export interface ReadPayout extends PlanPayout {
  request: PayoutRequest;
}

export function contentOf(p: PlanContent): PlanContent {
  return {
    payctl_plan: p.payctl_plan,
    base_url: p.base_url,
    batch_id: p.batch_id,
    source: p.source,
    created_at: p.created_at,
    maker: { name: p.maker.name, public_key: p.maker.public_key, fingerprint: p.maker.fingerprint },
    payouts: p.payouts.map((x) => ({ ...(x.row !== undefined ? { row: x.row } : {}), payout_id: x.payout_id, idempotency_key: x.idempotency_key, body: x.body })),
    totals: p.totals.map((t) => ({ wallet_id: t.wallet_id, currency: t.currency, count: t.count, total: t.total })),
  };
}

/** `sha256:<hex>` over the canonical form of the plan's content (every byte that will be sent, and who and where). */
export function planHash(p: PlanContent): string {
  return `sha256:${sha256(canonicalJson(contentOf(p)))}`;
}

/** Totals per wallet and currency, in first-seen order, exact. */
export function planTotals(requests: PayoutRequest[]): PlanTotal[] {
  const groups = new Map<string, { wallet_id: string; currency: string; count: number; minor: bigint; digits: number }>();
  for (const r of requests) {
    const key = `${r.walletId}\n${r.currency}`;
    const g = groups.get(key) ?? { wallet_id: r.walletId, currency: r.currency, count: 0, minor: 0n, digits: r.digits };
    g.count++;
    g.minor += r.amountMinor;
    groups.set(key, g);
  }
  return [...groups.values()].map((g) => ({ wallet_id: g.wallet_id, currency: g.currency, count: g.count, total: minorToDecimal(g.minor, g.digits) }));
}

/** A new plan, signed by its maker. */
export function makePlan(opts: {
  baseUrl: string;
  batchId: string | null;
  source: string;
  now: Date;
  maker: SigningKey;
  payouts: Array<{ row?: number; request: PayoutRequest; idempotencyKey: string }>;
}): Plan {
  const content: PlanContent = {
    payctl_plan: PLAN_FORMAT,
    base_url: opts.baseUrl,
    batch_id: opts.batchId,
    source: opts.source,
    created_at: opts.now.toISOString(),
    maker: { name: opts.maker.name, public_key: opts.maker.publicKey, fingerprint: opts.maker.fingerprint },
    payouts: opts.payouts.map((p) => ({
      ...(p.row !== undefined ? { row: p.row } : {}),
      payout_id: p.request.payoutId,
      idempotency_key: p.idempotencyKey,
      body: payoutBody(p.request),
    })),
    totals: planTotals(opts.payouts.map((p) => p.request)),
  };
  const hash = planHash(content);
  return { ...content, hash, maker_signature: makerSignature(opts.maker, hash), approvals: [] };
}

/** The plan as a file: two-space JSON, a newline at the end. */
export function planText(p: Plan): string {
  return JSON.stringify({ ...contentOf(p), hash: p.hash, maker_signature: p.maker_signature, approvals: p.approvals }, null, 2) + '\n';
}

/** The payout a body describes, checked to be exactly what payctl would send for it. */
function readBody(p: PlanPayout, where: string): PayoutRequest {
  let b: {
    payoutId?: unknown;
    walletId?: unknown;
    currency?: unknown;
    recipient?: { type?: unknown; accountDetails?: Record<string, unknown> };
    metadata?: unknown;
  };
  try {
    b = JSON.parse(p.body) as typeof b;
  } catch {
    throw new RefusedError(`${where}: its body is not JSON. Nothing was sent.`);
  }
  if (!isObject(b)) throw new RefusedError(`${where}: its body is not a JSON object. Nothing was sent.`);
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const ad = b.recipient?.accountDetails ?? {};
  const metadata = b.metadata && typeof b.metadata === 'object' && !Array.isArray(b.metadata) ? (b.metadata as Record<string, string>) : undefined;
  const v = validatePayout({
    payoutId: str(b.payoutId),
    walletId: str(b.walletId),
    amount: /"amount":(-?[0-9.]+)[,}]/.exec(p.body)?.[1],
    currency: str(b.currency),
    type: str(b.recipient?.type),
    name: str(ad.name),
    provider: str(ad.provider),
    account: str(ad.accountNumber),
    phone: str(ad.phoneNumber),
    note: str(ad.note),
    ...(metadata ? { metadata } : {}),
  });
  if (!v.ok) throw new RefusedError(`${where}: its body is not a valid payout. Nothing was sent.`, v.problems);
  if (payoutBody(v.request) !== p.body) throw new RefusedError(`${where}: its body is not in the form payctl writes (changed by hand?). Nothing was sent.`);
  if (v.request.payoutId !== p.payout_id) throw new RefusedError(`${where}: payout_id ${p.payout_id} differs from the body's ${v.request.payoutId}. Nothing was sent.`);
  return v.request;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A plan file's JSON: a regular file of at most MAX_PLAN_BYTES; any problem a usage error. */
function readPlanJson(path: string): unknown {
  let text: string;
  try {
    // One descriptor, never blocking: a pipe or a device named as the plan is refused, never read.
    const bytes = readRegular(path, MAX_PLAN_BYTES, { what: 'plan', follow: true });
    if (!bytes) throw new Error('no such file');
    text = bytes.toString('utf8');
  } catch (err) {
    throw new UsageError(`Cannot read the plan ${path}: ${err instanceof RefusedFile ? `it ${err.why}` : (err as Error).message}.`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text) as unknown;
  } catch (err) {
    const kind = batchFileKind(text);
    if (kind) throw new BatchFileGiven(path, kind);
    throw new RefusedError(`${path} is not a payctl plan: ${jsonFault(err, text, { quote: true })}.`);
  }
  const kind = isObject(raw) && !('payctl_plan' in raw) ? batchFileKind(text) : undefined;
  if (kind) throw new BatchFileGiven(path, kind);
  return raw;
}

/**
 * A batch file given where a plan was asked (plan send z7.csv): refused as what it is, never as
 * JSON at fault. Its `file` is named in the plan create that makes it a plan (source.ts readPlanFile).
 */
export class BatchFileGiven extends RefusedError {
  constructor(
    readonly file: string,
    kind: string,
  ) {
    super(`${file} is a batch file (${kind}), not a payctl plan. Nothing was sent.`);
  }
}

/** A plan's payouts, each checked to hold payout_id, a UUID idempotency_key and body. */
function payoutsOf(list: unknown[], bad: (why: string) => UsageError): PlanPayout[] {
  return list.map((x: unknown, i: number) => {
    if (!isObject(x) || typeof x.payout_id !== 'string' || typeof x.idempotency_key !== 'string' || typeof x.body !== 'string') {
      throw bad(`payout ${i + 1} must hold payout_id, idempotency_key and body`);
    }
    if (x.row !== undefined && !Number.isSafeInteger(x.row)) throw bad(`payout ${i + 1}: row must be a whole number`);
    if (!isUuid(x.idempotency_key)) throw bad(`payout ${i + 1}: idempotency_key must be a UUID`);
    return { ...(x.row !== undefined ? { row: x.row as number } : {}), payout_id: x.payout_id, idempotency_key: x.idempotency_key, body: x.body };
  });
}

/** The plan a file's JSON holds, checked for its shape and the maker's fingerprint (not yet its hash or signatures). */
function planOf(raw: unknown, bad: (why: string) => UsageError): Plan {
  if (!isObject(raw) || raw.payctl_plan !== PLAN_FORMAT) throw bad(`payctl_plan must be ${PLAN_FORMAT}`);
  for (const k of ['base_url', 'source', 'created_at', 'hash', 'maker_signature'] as const) if (typeof raw[k] !== 'string') throw bad(`${k} must be a string`);
  if (raw.batch_id !== null && typeof raw.batch_id !== 'string') throw bad('batch_id must be a string or null');
  const m = raw.maker;
  if (!isObject(m) || typeof m.name !== 'string' || typeof m.public_key !== 'string' || typeof m.fingerprint !== 'string')
    throw bad('maker must hold name, public_key and fingerprint');
  const maker = { name: m.name, public_key: m.public_key, fingerprint: m.fingerprint };
  if (!fingerprintHolds(maker)) throw bad("the maker's fingerprint is not that of the maker's public key");
  if (!Array.isArray(raw.payouts) || raw.payouts.length === 0) throw bad('it holds no payouts');
  // Each checked before anything reads it (contentOf, for the hash): a null one crashed every plan command.
  if (!Array.isArray(raw.totals) || !raw.totals.every(isObject)) throw bad('totals must be a list of objects');
  raw.totals.forEach((t: Record<string, unknown>, i) => {
    // A count that is a number but no whole one is said by the canonical form (canonical.ts), as any such number.
    if (typeof t.wallet_id !== 'string' || typeof t.currency !== 'string' || typeof t.count !== 'number' || typeof t.total !== 'string')
      throw bad(`total ${i + 1} must hold wallet_id, currency, count and total`);
  });
  if (!Array.isArray(raw.approvals)) throw bad('approvals must be a list');
  const payouts = payoutsOf(raw.payouts, bad);
  const approvals = (raw.approvals as unknown[]).map((a, i) => {
    if (!isObject(a) || !['name', 'public_key', 'fingerprint', 'signed_at', 'signature'].every((k) => typeof a[k] === 'string')) {
      throw bad(`approval ${i + 1} must hold name, public_key, fingerprint, signed_at and signature`);
    }
    return a as unknown as Approval;
  });
  return {
    payctl_plan: PLAN_FORMAT,
    base_url: raw.base_url as string,
    batch_id: raw.batch_id,
    source: raw.source as string,
    created_at: raw.created_at as string,
    maker,
    payouts,
    totals: raw.totals as unknown as PlanTotal[],
    hash: raw.hash as string,
    maker_signature: raw.maker_signature as string,
    approvals,
  };
}

/**
 * Reads a plan file and checks that it is whole: its shape, its hash against its content,
 * the maker's signature, every body (a valid payout, in payctl's exact form), unique payout
 * ids, and the totals against the bodies. Approvals are checked against a policy separately
 * (approvals.ts). Any problem is a usage error: nothing is sent.
 */
export function readPlan(path: string): { plan: Plan; payouts: ReadPayout[] } {
  return wholePlan(readPlanJson(path), path, `${path} is not a valid payctl plan`);
}

/**
 * A plan kept in a shared ledger (ledger.ts StoredPlan), checked exactly as a file is
 * (readPlan): the row's content against the hash asked for, the maker's signature, every
 * body. Messages name it by its hash.
 */
export function storedPlan(stored: StoredPlan): { plan: Plan; payouts: ReadPayout[] } {
  const why = `The plan ${stored.hash} in the shared ledger is not a valid payctl plan`;
  let content: unknown;
  try {
    content = JSON.parse(stored.content);
  } catch {
    throw new RefusedError(`${why}: its content is not JSON. Nothing was sent.`);
  }
  if (!isObject(content)) throw new RefusedError(`${why}: its content is not a plan. Nothing was sent.`);
  return wholePlan({ ...content, hash: stored.hash, maker_signature: stored.makerSignature, approvals: stored.approvals }, stored.hash, why);
}

/** What a shared ledger keeps of a plan (ledger.ts PlanStore.put): its content as canonical JSON, hash, maker and signature. */
export function planToStore(plan: Plan): Parameters<PlanStore['put']>[0] {
  return {
    hash: plan.hash,
    content: canonicalJson(contentOf(plan)),
    makerSignature: plan.maker_signature,
    maker: { name: plan.maker.name, fingerprint: plan.maker.fingerprint },
    createdAt: plan.created_at,
  };
}

/** A plan's JSON checked whole (readPlan); `where` names it in messages, `why` starts them. */
function wholePlan(raw: unknown, where: string, why: string): { plan: Plan; payouts: ReadPayout[] } {
  const bad = (reason: string) => new RefusedError(`${why}: ${reason}. Nothing was sent.`);
  const plan = planOf(raw, bad);
  let hash: string;
  try {
    hash = planHash(plan);
  } catch (err) {
    if (err instanceof CanonicalError) throw bad(err.message);
    throw err;
  }
  if (hash !== plan.hash) throw bad(`its content does not match its hash (it was changed after it was made): ${hash}, not ${plan.hash}`);
  if (!makerSignatureHolds(plan)) throw bad("the maker's signature does not match the plan");
  const seen = new Set<string>();
  const read = plan.payouts.map((p, i) => {
    if (seen.has(p.payout_id)) throw bad(`payout id ${p.payout_id} appears twice`);
    seen.add(p.payout_id);
    return { ...p, request: readBody(p, `${where}: payout ${i + 1} (${p.payout_id})`) };
  });
  const want = canonicalJson(planTotals(read.map((r) => r.request)));
  if (canonicalJson(plan.totals) !== want) throw bad('its totals do not match its payouts');
  return { plan, payouts: read };
}

/** The base URL a plan is for, compared as the journal compares them (127.0.0.1 is localhost). */
export function samePlace(a: string, b: string): boolean {
  return journalBase(a) === journalBase(b);
}
