/**
 * A team's spending policy (four eyes), a JSON file named in the profile (`payctl config set
 * policy <path>`; the README's example is docs/examples/policy.json):
 *
 *   {
 *     "members": {
 *       "Mariama Kanu":   { "keys": ["ed25519:…"], "roles": ["maker"] },
 *       "Ibrahim Sesay":  { "keys": ["ed25519:…", "ed25519:…"], "roles": ["approver"] },
 *       "Aminata Kamara": { "keys": ["ed25519:…"], "roles": ["maker", "approver"] }
 *     },
 *     "approvals": { "SLE": [ { "from": "1000", "required": 1 }, { "over": "100000", "required": 2 } ] },
 *     "max_per_payout": { "SLE": "250000" },
 *     "daily_total": { "SLE": "500000" }
 *   }
 *
 * Members are people, by name: each with the public keys `payctl keys show` prints (one
 * person may have several: a laptop and an office machine) and their roles. A plan counts
 * only when its maker's key belongs to a member who is a maker; an approval counts only from
 * the key of a member who is an approver and is not the plan's maker, one vote per person
 * whatever keys they sign with. So a tier that asks N approvals needs N people other than
 * the maker. `"makers"` and `"approvers"` ({ "Name": "ed25519:…" or ["ed25519:…", …] }) are
 * shorthands for members with one role, merged with `members` by name; a name written two
 * ways (case, spaces) or a key listed for two people is refused. `"$comment"` (any text) is
 * for the people who keep the file and is not read.
 *
 * Approvals are required by the total a plan (or a batch, or one payout) moves in each
 * currency, and by what one wallet sends to one recipient account (its type, provider and
 * number) in one UTC day, counted from this machine's journal plus what is at hand, so
 * splitting a payout in parts does not avoid approval (approvalsNeeded). A tier applies from
 * its amount (`from`, inclusive) or above it (`over`); the most demanding tier that applies
 * wins, and none means none needed. `"*"` stands for every currency not named.
 * `max_per_payout` caps one payout; `daily_total` caps what one wallet sends in one currency
 * in one UTC day, counted from this machine's journal (payouts accepted or of unknown
 * outcome, under this base URL) plus what is about to be sent.
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

export type Role = 'maker' | 'approver';

/** A person the policy names. */
export interface Member {
  name: string;
  /** Public keys as written (`ed25519:…`), and their fingerprints, in the same order. */
  publicKeys: string[];
  fingerprints: string[];
  roles: Set<Role>;
}

export interface Policy {
  file: string;
  /** The people, by name. */
  members: Map<string, Member>;
  /** Every listed key's person, by fingerprint. */
  byKey: Map<string, Member>;
  /** Approvers' keys by fingerprint (one entry per key). */
  approvers: Map<string, { name: string; publicKey: string }>;
  approvals: Map<string, Tier[]>;
  maxPerPayout: Map<string, bigint>;
  dailyTotal: Map<string, bigint>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function digitsOf(currency: string): number {
  return minorDigits(currency) ?? 2;
}

/** A name as compared for sameness: one person is not two because of case or spaces. */
function nameKey(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

const ROLES: readonly Role[] = ['maker', 'approver'];
const FIELDS = ['$comment', 'members', 'makers', 'approvers', 'approvals', 'max_per_payout', 'daily_total'];

/** A policy file read and checked: the policy, or why it cannot be one (`unreadable`, or every problem). */
export function examinePolicy(file: string): { policy: Policy; problems: [] } | { policy?: undefined; unreadable?: string; problems: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : err instanceof SyntaxError ? `it is not JSON (${err.message})` : (err as Error).message;
    return { unreadable: why, problems: [why] };
  }
  const problems: string[] = [];
  const policy: Policy = { file, members: new Map(), byKey: new Map(), approvers: new Map(), approvals: new Map(), maxPerPayout: new Map(), dailyTotal: new Map() };
  if (!isObject(raw)) problems.push('it must be a JSON object');
  else {
    for (const k of Object.keys(raw)) if (!FIELDS.includes(k)) problems.push(`unknown field "${k}" (known: ${FIELDS.join(', ')})`);
    const spelled = new Map<string, string>();
    /** Adds a person's keys and roles, merging by name. */
    const addMember = (where: string, name: string, keys: unknown, roles: Role[]): void => {
      const who = name.trim();
      if (!who || /[\p{Cc}]/u.test(who) || who.length > 100) return void problems.push(`${where}: a name must be 1 to 100 characters without control characters`);
      const first = spelled.get(nameKey(who));
      if (first !== undefined && first !== who)
        return void problems.push(`${where}: "${who}" is written "${first}" elsewhere; write one person's name the same way everywhere`);
      spelled.set(nameKey(who), who);
      const list = typeof keys === 'string' ? [keys] : keys;
      if (!Array.isArray(list) || list.length === 0)
        return void problems.push(`${where}: give the person's public key(s) as payctl keys show prints them ("ed25519:…", or a list of them)`);
      const m = policy.members.get(who) ?? { name: who, publicKeys: [], fingerprints: [], roles: new Set<Role>() };
      for (const r of roles) m.roles.add(r);
      list.forEach((k: unknown, i) => {
        const fp = typeof k === 'string' ? fingerprintOf(k) : undefined;
        const at = list.length > 1 || typeof keys !== 'string' ? `${where}[${i}]` : where;
        if (!fp) return void problems.push(`${at}: not a public key as payctl keys show prints it ("ed25519:…")`);
        const owner = policy.byKey.get(fp);
        if (owner && owner !== m) return void problems.push(`${at}: the same key as ${owner.name}'s; a key belongs to one person`);
        if (owner) return;
        policy.byKey.set(fp, m);
        m.publicKeys.push((k as string).trim());
        m.fingerprints.push(fp);
      });
      // A person is listed once one of their keys is: one without a valid key counts for nothing.
      if (m.fingerprints.length) policy.members.set(who, m);
    };
    if (raw.members !== undefined) {
      if (!isObject(raw.members)) problems.push('members must map names to { "keys": ["ed25519:…"], "roles": ["maker", "approver"] }');
      else
        for (const [name, m] of Object.entries(raw.members)) {
          const where = `members.${name}`;
          if (!isObject(m)) {
            problems.push(`${where} must be { "keys": ["ed25519:…"], "roles": ["maker", "approver"] }`);
            continue;
          }
          for (const k of Object.keys(m)) if (k !== 'keys' && k !== 'roles') problems.push(`${where}: unknown field "${k}" (known: keys, roles)`);
          const roles = m.roles;
          if (!Array.isArray(roles) || roles.length === 0 || !roles.every((r) => ROLES.includes(r as Role))) {
            problems.push(`${where}.roles must list "maker", "approver" or both`);
            continue;
          }
          addMember(`${where}.keys`, name, m.keys, roles as Role[]);
        }
    }
    for (const [field, role] of [
      ['makers', 'maker'],
      ['approvers', 'approver'],
    ] as const) {
      const v = raw[field];
      if (v === undefined) continue;
      if (!isObject(v)) problems.push(`${field} must map names to public keys ("ed25519:…", or a list of them)`);
      else for (const [name, keys] of Object.entries(v)) addMember(`${field}.${name}`, name, keys, [role]);
    }
    for (const m of policy.members.values())
      if (m.roles.has('approver')) m.fingerprints.forEach((fp, i) => policy.approvers.set(fp, { name: m.name, publicKey: m.publicKeys[i]! }));
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
    problems.push(...unmeetableTiers(policy));
  }
  return problems.length ? { problems } : { policy, problems: [] };
}

/**
 * Tiers no plan could meet: N approvals need N approvers other than the maker, so each is
 * checked against the fewest approvers any listed maker (or, with no maker listed, anyone)
 * would have besides themselves.
 */
function unmeetableTiers(policy: Policy): string[] {
  const approvers = [...policy.members.values()].filter((m) => m.roles.has('approver'));
  const makers = [...policy.members.values()].filter((m) => m.roles.has('maker'));
  let fewest = approvers.length;
  let worst: Member | undefined;
  for (const m of makers) {
    const others = approvers.filter((a) => a !== m).length;
    if (others < fewest) [fewest, worst] = [others, m];
  }
  const out: string[] = [];
  for (const [cur, tiers] of policy.approvals)
    tiers.forEach((t, i) => {
      if (t.required <= fewest) return;
      const listed = approvers.length ? `: ${approvers.map((a) => a.name).join(', ')}` : '';
      const who = worst
        ? `a plan ${worst.name} makes can get only ${fewest} (the approvers are ${approvers.length}${listed}, and the maker cannot approve their own plan)`
        : `only ${approvers.length} approver${approvers.length === 1 ? ' is' : 's are'} listed${listed}`;
      out.push(
        `approvals.${cur}[${i}] (${t.label}) asks ${approvalsWord(t.required)}, but ${who}. List ${t.required - fewest} more approver${t.required - fewest === 1 ? '' : 's'} in "members" (roles ["approver"]) or "approvers", or lower its "required" to ${fewest}`,
      );
    });
  return out;
}

/** Reads and checks a policy file; every problem listed at once (exit 2). */
export function loadPolicy(file: string): Policy {
  const r = examinePolicy(file);
  if (r.policy) return r.policy;
  if (r.unreadable !== undefined)
    throw new ConfigError(
      `Cannot read the policy ${file}: ${r.unreadable}. Nothing was sent.`,
      'Fix the file, or see the policy in force with: payctl config get policy',
    );
  throw new ConfigError(`The policy ${file} is not valid. Nothing was sent.\n  ${r.problems.join('\n  ')}`);
}

function forCurrency<T>(map: Map<string, T>, currency: string): T | undefined {
  return map.get(currency) ?? map.get('*');
}

/** A total as a person reads it: "1,500.50 SLE". */
function shown(minor: bigint, currency: string): string {
  return `${formatAmount(minorToDecimal(minor, digitsOf(currency)), currency)} ${currency}`;
}

export interface Requirement {
  /** Approvals needed (the most any currency's total, or any recipient's day, needs). */
  required: number;
  /** Why, per currency or recipient that needs any: "2 approvals: the SLE total 150,000.00 SLE is over 100000". */
  reasons: string[];
}

/** The most demanding tier of a currency that a total reaches, if it asks any approval. */
function tierFor(policy: Policy, currency: string, total: bigint): Tier | undefined {
  let tier: Tier | undefined;
  for (const t of forCurrency(policy.approvals, currency) ?? [])
    if ((t.inclusive ? total >= t.minor : total > t.minor) && (!tier || t.required > tier.required)) tier = t;
  return tier && tier.required > 0 ? tier : undefined;
}

function ruleOf(policy: Policy, currency: string): string {
  return `policy approvals.${policy.approvals.has(currency) ? currency : '*'}`;
}

const approvalsWord = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;

/** The approvals needed for payouts whose totals per currency are these. */
export function requiredApprovals(policy: Policy, totals: Map<string, bigint>): Requirement {
  let required = 0;
  const reasons: string[] = [];
  for (const [currency, total] of totals) {
    const tier = tierFor(policy, currency, total);
    if (!tier) continue;
    required = Math.max(required, tier.required);
    reasons.push(`${approvalsWord(tier.required)}: the ${currency} total ${shown(total, currency)} is ${tier.label} (${ruleOf(policy, currency)})`);
  }
  return { required, reasons };
}

/**
 * One recipient account as splitting is counted: the wallet it is paid from, the currency,
 * the recipient's type and provider, and the account number spelled without spaces, dashes
 * or dots and in one case (076 123-456 is 076123456).
 */
function recipientKey(walletId: string, currency: string, type: string, provider: string, account: string): string {
  return JSON.stringify([walletId, currency, type, provider.trim().toLowerCase(), account.replace(/[\s\-.]/g, '').toLowerCase()]);
}

/**
 * What this machine's journal says was sent today (UTC) under this base URL from each wallet
 * to each recipient account (recipientKey), in minor units: payouts accepted or of unknown
 * outcome, leaving out the payout ids in `exclude` (those at hand: counted with them).
 */
export function sentTodayTo(journal: Journal, baseUrl: string, now: Date, exclude: Set<string>): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const e of todaysEntries(journal, baseUrl, now, exclude)) {
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

/**
 * The approvals payouts at hand need: the most demanding of the tiers their totals per
 * currency reach (requiredApprovals) and of those reached by what each wallet sends to each
 * recipient account today (UTC), counting this machine's journal (accepted or unknown
 * outcome, under this base URL) plus the payouts at hand. Five payouts of 999.99 to one
 * account on one day are counted as 4,999.95: splitting does not avoid approval.
 */
export function approvalsNeeded(policy: Policy, requests: PayoutRequest[], journal: Journal, baseUrl: string, now: Date): Requirement {
  const need = requiredApprovals(policy, currencyTotals(requests));
  if (policy.approvals.size === 0 || requests.length === 0) return need;
  const adding = new Map<string, { r: PayoutRequest; minor: bigint; count: number }>();
  for (const r of requests) {
    const key = recipientKey(r.walletId, r.currency, r.type, r.provider, r.account);
    const g = adding.get(key) ?? { r, minor: 0n, count: 0 };
    g.minor += r.amountMinor;
    g.count++;
    adding.set(key, g);
  }
  const before = sentTodayTo(journal, baseUrl, now, new Set(requests.map((r) => r.payoutId)));
  let required = need.required;
  const reasons = [...need.reasons];
  for (const [key, g] of adding) {
    const earlier = before.get(key);
    // Without earlier payouts, a recipient's sum is within its currency's total, judged above.
    if (!earlier) continue;
    const sum = earlier + g.minor;
    const tier = tierFor(policy, g.r.currency, sum);
    if (!tier) continue;
    required = Math.max(required, tier.required);
    const atHand = requests.length === 1 ? 'this payout' : g.count === 1 ? 'its payout here' : `its ${g.count} payouts here`;
    reasons.push(
      `${approvalsWord(tier.required)}: from wallet ${g.r.walletId} to account ${g.r.account} (${g.r.type}, ${g.r.provider}) today: ${shown(sum, g.r.currency)} with ${atHand} (${shown(earlier, g.r.currency)} sent earlier today from this machine), which is ${tier.label} (${ruleOf(policy, g.r.currency)}; payouts to one account in one UTC day are counted together)`,
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
function* todaysEntries(journal: Journal, baseUrl: string, now: Date, exclude: Set<string>): Generator<TodaysEntry> {
  const since = dayStart(now);
  const base = journalBase(baseUrl);
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
      yield { walletId: b.walletId, currency: b.currency, minor: decimalToMinor(amount, digitsOf(b.currency)), body: e.body };
    } catch {
      // an entry payctl cannot read says nothing about amounts
    }
  }
}

/**
 * What this machine's journal says was sent today (UTC) under this base URL, per wallet and
 * currency, in minor units: payouts accepted or of unknown outcome (they may have been paid),
 * leaving out the payout ids in `exclude` (those about to be sent: counted with them).
 */
export function sentToday(journal: Journal, baseUrl: string, now: Date, exclude: Set<string>): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const e of todaysEntries(journal, baseUrl, now, exclude)) {
    const key = `${e.walletId}\n${e.currency}`;
    out.set(key, (out.get(key) ?? 0n) + e.minor);
  }
  return out;
}

/**
 * What a daily total counted from a journal that lost entries cannot see: undefined when the
 * journal's index (journal.ts journalGaps) names none missing. Said with every daily-total
 * check, so a deleted or restored journal never passes for an empty day unnoticed.
 */
export function dailyTotalCaveat(policy: Policy, journal: Journal): string | undefined {
  if (policy.dailyTotal.size === 0) return undefined;
  const gaps = journal.journalGaps();
  if (!gaps || gaps.missing === 0) return undefined;
  return `the daily total is counted from this machine's journal, which has lost ${gaps.missing} entr${gaps.missing === 1 ? 'y' : 'ies'} it recorded (${gaps.payoutIds.join(', ')}${gaps.missing > gaps.payoutIds.length ? ', …' : ''}): what they sent today is not counted`;
}

/** Breaches of the limits (max per payout, daily total per wallet and currency), each naming its rule; `warn` is told what the count cannot see. */
export function limitProblems(policy: Policy, requests: PayoutRequest[], journal: Journal, baseUrl: string, now: Date, warn?: (line: string) => void): string[] {
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
  const caveat = dailyTotalCaveat(policy, journal);
  if (caveat) warn?.(`Policy ${policy.file}: ${caveat}.`);
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
        `wallet ${g.walletId}: ${shown(g.minor, g.currency)} more today would make ${shown(before + g.minor, g.currency)}, over the daily total of ${shown(limit, g.currency)} (policy daily_total.${policy.dailyTotal.has(g.currency) ? g.currency : '*'}; ${shown(before, g.currency)} already sent today from this machine${caveat ? `; ${caveat}` : ''})`,
      );
    }
  }
  return problems;
}

export interface ApprovalCheck {
  /** The plan's maker as the policy knows them (by the key that signed it); undefined when the key is not listed as a maker's. */
  maker: Member | undefined;
  /** Why the plan's maker does not count as one (unlisted key, or a person who is not a maker); undefined when they do. */
  makerProblem: string | undefined;
  /** Approvals that count: valid signatures by distinct listed approvers (people) who are not the maker. */
  valid: Array<{ name: string; fingerprint: string; signedAt: string }>;
  /** Approvals that do not count, each with why. */
  refused: string[];
}

/** Who made a plan under a policy: the member whose key signed it, if they are a maker, and otherwise why not. */
export function makerOf(plan: Plan, policy: Policy): { member: Member | undefined; problem: string | undefined } {
  const member = policy.byKey.get(plan.maker.fingerprint);
  if (!member)
    return {
      member: undefined,
      problem: `it was made with the key ${plan.maker.fingerprint} (calling itself "${plan.maker.name}"), which the policy ${policy.file} does not list; only a maker listed in the policy can make a plan`,
    };
  if (!member.roles.has('maker'))
    return { member: undefined, problem: `it was made by ${member.name} (key ${plan.maker.fingerprint}), who is not a maker in the policy ${policy.file}` };
  return { member, problem: undefined };
}

/**
 * Which approvals of a plan count under a policy, and why the others do not. An approval
 * counts when its signature is over this plan, its key belongs to a listed approver, that
 * person is not the plan's maker (by name, whatever key either signed with) and has not
 * approved already (one person, one vote).
 */
export function checkApprovals(plan: Plan, policy: Policy): ApprovalCheck {
  const valid: ApprovalCheck['valid'] = [];
  const refused: string[] = [];
  const seen = new Set<Member>();
  const made = makerOf(plan, policy);
  // The maker's person, even when not a maker: they still cannot approve their own plan.
  const makerPerson = policy.byKey.get(plan.maker.fingerprint);
  plan.approvals.forEach((a, i) => {
    const who = `approval ${i + 1} (${a.name}, ${a.fingerprint})`;
    const fp = fingerprintOf(a.public_key);
    if (!fp || fp !== a.fingerprint) return void refused.push(`${who}: its fingerprint is not that of its public key`);
    if (!verifyText(a.public_key, approvalMessage(plan.hash, a), a.signature)) return void refused.push(`${who}: the signature does not match this plan`);
    if (fp === plan.maker.fingerprint) return void refused.push(`${who}: made with the maker's own key; the maker cannot approve their own plan`);
    const person = policy.byKey.get(fp);
    if (!person || !person.roles.has('approver')) return void refused.push(`${who}: the key is not an approver in the policy ${policy.file}`);
    if (person === makerPerson)
      return void refused.push(
        `${who}: ${person.name} made this plan (with another of their keys); the maker cannot approve their own plan, whatever key they sign with`,
      );
    if (seen.has(person)) return void refused.push(`${who}: ${person.name} approved already; each person counts once, whatever keys they hold`);
    seen.add(person);
    valid.push({ name: person.name, fingerprint: fp, signedAt: a.signed_at });
  });
  return { maker: made.member, makerProblem: made.problem, valid, refused };
}

/** The policy named in a profile (`payctl config set policy <path>`), read and checked; undefined when none is set. */
export function policyOf(profile: { policy?: string } | undefined): Policy | undefined {
  return profile?.policy ? loadPolicy(profile.policy) : undefined;
}
