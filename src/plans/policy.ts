/**
 * A team's spending policy (four eyes), a JSON file named in the profile (`payctl config set
 * policy <path>`):
 *
 *   {
 *     "approvers": { "Aminata Kamara": "ed25519:…", "Ibrahim Sesay": "ed25519:…" },
 *     "approvals": { "SLE": [ { "from": "1000", "required": 1 }, { "over": "100000", "required": 2 } ] },
 *     "max_per_payout": { "SLE": "250000" },
 *     "daily_total": { "SLE": "500000" }
 *   }
 *
 * Approvals are required by the total a plan (or a batch, or one payout) moves in each
 * currency: a tier applies from its amount (`from`, inclusive) or above it (`over`); the most
 * demanding tier that applies wins, and none means none needed. `"*"` stands for every
 * currency not named. `max_per_payout` caps one payout; `daily_total` caps what one wallet
 * sends in one currency in one UTC day, counted from this machine's journal (payouts accepted
 * or of unknown outcome, under this base URL) plus what is about to be sent.
 *
 * This is enforced by payctl on the machine that sends: it makes sure that what was reviewed
 * is exactly what is sent, not that nobody can call the service without payctl.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { decimalToMinor, formatAmount, minorToDecimal } from '../money/amount.js';
import { isKnownCurrency, minorDigits } from '../money/currencies.js';
import type { Journal } from '../payouts/journal.js';
import { journalBase } from '../payouts/journal.js';
import type { PayoutRequest } from '../payouts/request.js';
import { fingerprintOf, verifyText } from './keys.js';
import { approvalMessage, type Plan } from './plan.js';

export interface Tier {
  /** Minor units; the tier applies to totals >= from (inclusive) or > over. */
  minor: bigint;
  inclusive: boolean;
  required: number;
  /** As written, for messages ("from 1000", "over 100000"). */
  label: string;
}

export interface Policy {
  file: string;
  /** Approvers by fingerprint. */
  approvers: Map<string, { name: string; publicKey: string }>;
  approvals: Map<string, Tier[]>;
  maxPerPayout: Map<string, bigint>;
  dailyTotal: Map<string, bigint>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function digitsOf(currency: string): number {
  return minorDigits(currency) ?? 2;
}

/** Reads and checks a policy file; every problem listed at once (exit 2). */
export function loadPolicy(file: string): Policy {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `Cannot read the policy ${file}: ${code === 'ENOENT' ? 'no such file' : err instanceof SyntaxError ? 'it is not JSON' : (err as Error).message}. Nothing was sent.`,
      'Fix the file, or see the policy in force with: payctl config get policy',
    );
  }
  const problems: string[] = [];
  const policy: Policy = { file, approvers: new Map(), approvals: new Map(), maxPerPayout: new Map(), dailyTotal: new Map() };
  if (!isObject(raw)) problems.push('it must be a JSON object');
  else {
    for (const k of Object.keys(raw)) if (!['approvers', 'approvals', 'max_per_payout', 'daily_total'].includes(k)) problems.push(`unknown field "${k}"`);
    const currencyKey = (where: string, c: string): string | undefined => {
      if (c === '*' || isKnownCurrency(c.toUpperCase())) return c === '*' ? c : c.toUpperCase();
      problems.push(`${where}: "${c}" is not a currency code (or "*")`);
      return undefined;
    };
    const amount = (where: string, c: string, v: unknown): bigint | undefined => {
      if (typeof v !== 'string' && typeof v !== 'number') {
        problems.push(`${where} must be an amount as a string ("1000.00")`);
        return undefined;
      }
      try {
        const minor = decimalToMinor(String(v), c === '*' ? 2 : digitsOf(c));
        if (minor < 0n) throw new RangeError('negative');
        return minor;
      } catch {
        problems.push(`${where}: "${String(v)}" is not an amount in ${c === '*' ? 'that currency' : c}`);
        return undefined;
      }
    };
    if (raw.approvers !== undefined) {
      if (!isObject(raw.approvers)) problems.push('approvers must map names to public keys ("ed25519:…")');
      else
        for (const [name, key] of Object.entries(raw.approvers)) {
          const fp = typeof key === 'string' ? fingerprintOf(key) : undefined;
          if (!fp) problems.push(`approvers.${name}: not a public key as payctl keys show prints it ("ed25519:…")`);
          else if (policy.approvers.has(fp)) problems.push(`approvers.${name}: the same key as approvers.${policy.approvers.get(fp)!.name}`);
          else policy.approvers.set(fp, { name, publicKey: (key as string).trim() });
        }
    }
    if (raw.approvals !== undefined) {
      if (!isObject(raw.approvals)) problems.push('approvals must map currencies to lists of tiers');
      else
        for (const [c, tiers] of Object.entries(raw.approvals)) {
          const cur = currencyKey('approvals', c);
          if (!cur) continue;
          if (!Array.isArray(tiers)) {
            problems.push(`approvals.${c} must be a list of tiers ({ "from": "1000", "required": 1 })`);
            continue;
          }
          const list: Tier[] = [];
          tiers.forEach((t: unknown, i) => {
            const where = `approvals.${c}[${i}]`;
            if (!isObject(t) || (t.from === undefined) === (t.over === undefined)) return void problems.push(`${where} needs one of "from" or "over", and "required"`);
            if (!Number.isInteger(t.required) || (t.required as number) < 0 || (t.required as number) > 10)
              return void problems.push(`${where}.required must be a whole number from 0 to 10`);
            const inclusive = t.from !== undefined;
            const minor = amount(`${where}.${inclusive ? 'from' : 'over'}`, cur, inclusive ? t.from : t.over);
            if (minor !== undefined)
              list.push({ minor, inclusive, required: t.required as number, label: `${inclusive ? 'from' : 'over'} ${String(inclusive ? t.from : t.over)}` });
          });
          policy.approvals.set(cur, list);
        }
    }
    for (const [field, map] of [
      ['max_per_payout', policy.maxPerPayout],
      ['daily_total', policy.dailyTotal],
    ] as const) {
      const v = raw[field];
      if (v === undefined) continue;
      if (!isObject(v)) {
        problems.push(`${field} must map currencies to amounts`);
        continue;
      }
      for (const [c, a] of Object.entries(v)) {
        const cur = currencyKey(field, c);
        const minor = cur === undefined ? undefined : amount(`${field}.${c}`, cur, a);
        if (cur !== undefined && minor !== undefined) map.set(cur, minor);
      }
    }
    const needed = [...policy.approvals.values()].flat().reduce((m, t) => Math.max(m, t.required), 0);
    if (needed > policy.approvers.size) problems.push(`a tier requires ${needed} approvals but only ${policy.approvers.size} approver(s) are listed`);
  }
  if (problems.length) throw new ConfigError(`The policy ${file} is not valid. Nothing was sent.\n  ${problems.join('\n  ')}`);
  return policy;
}

function forCurrency<T>(map: Map<string, T>, currency: string): T | undefined {
  return map.get(currency) ?? map.get('*');
}

/** A total as a person reads it: "1,500.50 SLE". */
function shown(minor: bigint, currency: string): string {
  return `${formatAmount(minorToDecimal(minor, digitsOf(currency)), currency)} ${currency}`;
}

export interface Requirement {
  /** Approvals needed (the most any currency's total needs). */
  required: number;
  /** Why, per currency that needs any: "2 approvals: the SLE total 150,000.00 SLE is over 100000". */
  reasons: string[];
}

/** The approvals needed for payouts whose totals per currency are these. */
export function requiredApprovals(policy: Policy, totals: Map<string, bigint>): Requirement {
  let required = 0;
  const reasons: string[] = [];
  for (const [currency, total] of totals) {
    const tiers = forCurrency(policy.approvals, currency) ?? [];
    let tier: Tier | undefined;
    for (const t of tiers) if ((t.inclusive ? total >= t.minor : total > t.minor) && (!tier || t.required > tier.required)) tier = t;
    if (!tier || tier.required === 0) continue;
    required = Math.max(required, tier.required);
    reasons.push(
      `${tier.required} approval${tier.required === 1 ? '' : 's'}: the ${currency} total ${shown(total, currency)} is ${tier.label} (policy approvals.${policy.approvals.has(currency) ? currency : '*'})`,
    );
  }
  return { required, reasons };
}

/** Totals per currency in minor units. */
export function currencyTotals(requests: PayoutRequest[]): Map<string, bigint> {
  const m = new Map<string, bigint>();
  for (const r of requests) m.set(r.currency, (m.get(r.currency) ?? 0n) + r.amountMinor);
  return m;
}

/** The start of the UTC day of `now`. */
function dayStart(now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
}

/**
 * What this machine's journal says was sent today (UTC) under this base URL, per wallet and
 * currency, in minor units: payouts accepted or of unknown outcome (they may have been paid),
 * leaving out the payout ids in `exclude` (those about to be sent: counted with them).
 */
export function sentToday(journal: Journal, baseUrl: string, now: Date, exclude: Set<string>): Map<string, bigint> {
  const since = dayStart(now);
  const base = journalBase(baseUrl);
  const out = new Map<string, bigint>();
  for (const item of journal.scan()) {
    if ('error' in item) continue;
    const e = item.entry;
    if (exclude.has(e.payoutId) || journalBase(e.baseUrl) !== base || Date.parse(e.createdAt) < since) continue;
    const kind = e.outcome?.kind;
    if (kind === 'rejected' || kind === 'not-made') continue;
    try {
      const b = JSON.parse(e.body) as { walletId?: unknown; currency?: unknown };
      const amount = /"amount":(-?[0-9.]+)[,}]/.exec(e.body)?.[1];
      if (typeof b.walletId !== 'string' || typeof b.currency !== 'string' || amount === undefined) continue;
      const key = `${b.walletId}\n${b.currency}`;
      out.set(key, (out.get(key) ?? 0n) + decimalToMinor(amount, digitsOf(b.currency)));
    } catch {
      // an entry payctl cannot read says nothing about amounts
    }
  }
  return out;
}

/** Breaches of the limits (max per payout, daily total per wallet and currency), each naming its rule. */
export function limitProblems(policy: Policy, requests: PayoutRequest[], journal: Journal, baseUrl: string, now: Date): string[] {
  const problems: string[] = [];
  for (const r of requests) {
    const max = forCurrency(policy.maxPerPayout, r.currency);
    if (max !== undefined && r.amountMinor > max) {
      problems.push(
        `payout ${r.payoutId}: ${shown(r.amountMinor, r.currency)} is over the per-payout maximum of ${shown(max, r.currency)} (policy max_per_payout.${policy.maxPerPayout.has(r.currency) ? r.currency : '*'})`,
      );
    }
  }
  if (policy.dailyTotal.size === 0) return problems;
  const today = sentToday(journal, baseUrl, now, new Set(requests.map((r) => r.payoutId)));
  const adding = new Map<string, { walletId: string; currency: string; minor: bigint }>();
  for (const r of requests) {
    const key = `${r.walletId}\n${r.currency}`;
    const g = adding.get(key) ?? { walletId: r.walletId, currency: r.currency, minor: 0n };
    g.minor += r.amountMinor;
    adding.set(key, g);
  }
  for (const [key, g] of adding) {
    const limit = forCurrency(policy.dailyTotal, g.currency);
    if (limit === undefined) continue;
    const before = today.get(key) ?? 0n;
    if (before + g.minor > limit) {
      problems.push(
        `wallet ${g.walletId}: ${shown(g.minor, g.currency)} more today would make ${shown(before + g.minor, g.currency)}, over the daily total of ${shown(limit, g.currency)} (policy daily_total.${policy.dailyTotal.has(g.currency) ? g.currency : '*'}; ${shown(before, g.currency)} already sent today from this machine)`,
      );
    }
  }
  return problems;
}

export interface ApprovalCheck {
  /** Approvals that count: valid signatures by distinct listed approvers who are not the maker. */
  valid: Array<{ name: string; fingerprint: string; signedAt: string }>;
  /** Approvals that do not count, each with why. */
  refused: string[];
}

/** Which approvals of a plan count under a policy, and why the others do not. */
export function checkApprovals(plan: Plan, policy: Policy): ApprovalCheck {
  const valid: ApprovalCheck['valid'] = [];
  const refused: string[] = [];
  const seen = new Set<string>();
  plan.approvals.forEach((a, i) => {
    const who = `approval ${i + 1} (${a.name}, ${a.fingerprint})`;
    const fp = fingerprintOf(a.public_key);
    if (!fp || fp !== a.fingerprint) return void refused.push(`${who}: its fingerprint is not that of its public key`);
    if (!verifyText(a.public_key, approvalMessage(plan.hash, a), a.signature)) return void refused.push(`${who}: the signature does not match this plan`);
    if (fp === plan.maker.fingerprint) return void refused.push(`${who}: made with the maker's own key; the maker cannot approve their own plan`);
    const listed = policy.approvers.get(fp);
    if (!listed) return void refused.push(`${who}: the key is not an approver in the policy ${policy.file}`);
    if (seen.has(fp)) return void refused.push(`${who}: ${listed.name} approved already; each approver counts once`);
    seen.add(fp);
    valid.push({ name: listed.name, fingerprint: fp, signedAt: a.signed_at });
  });
  return { valid, refused };
}

/** The policy named in a profile (`payctl config set policy <path>`), read and checked; undefined when none is set. */
export function policyOf(profile: { policy?: string } | undefined): Policy | undefined {
  return profile?.policy ? loadPolicy(profile.policy) : undefined;
}
