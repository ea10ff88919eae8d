/**
 * The policy file read and checked (its format is policy.ts's opening comment; the README's
 * example is docs/examples/policy.json): its members by name with their keys and roles (and
 * the `makers` / `approvers` shorthands, merged by name), its approval tiers per currency and
 * its limits. Every problem is listed at once; a tier no plan could meet (more approvals than
 * there are approvers besides a maker) is one, with the fix (docs/architecture.md, "Where
 * each rule lives": the spending policy and approvals needed). Also the policy's terms that
 * approvals.ts and limits.ts share: a currency's rule ("*" for the others), amounts as a
 * person reads them.
 */
import { readRegular, RefusedFile } from '../config/regular-file.js';
import { ConfigError } from '../errors.js';
import { decimalFromNumber, decimalToMinor, formatAmount, minorToDecimal } from '../money/amount.js';
import { parseServiceJson } from '../service/exact-json.js';
import { isKnownCurrency, minorDigits } from '../money/currencies.js';
import { fingerprintOf } from './keys.js';
import { keyTwice } from '../config/json-scan.js';
import { textFault } from '../config/json-fault.js';

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

/** The minor digits of a currency (2 when the table does not know it). */
export function digitsOf(currency: string): number {
  return minorDigits(currency) ?? 2;
}

/**
 * The `"*"` rule's amounts in minor units at this many decimals (the most any currency has,
 * CLF's 4): "1000" stands for 1000 of whatever currency it is applied to (1000 JPY, 1000.000
 * KWD), so it is turned into that currency's minor units where it is used, never read once
 * with two decimals for all (which made a "*" limit of 5000 allow 500,000 JPY).
 */
export const STAR_DIGITS = 4;

/** A `"*"` amount in `currency`'s minor units, rounded up (`up`) or down where it falls between two. */
function fromStar(minor: bigint, currency: string, up: boolean): bigint {
  const f = 10n ** BigInt(STAR_DIGITS - digitsOf(currency));
  const q = minor / f;
  return up && q * f !== minor ? q + 1n : q;
}

/**
 * A currency's own limit (max_per_payout, daily_total), else the `"*"` one in its minor units:
 * rounded down, since a limit is broken by any amount over it.
 */
export function limitFor(map: Map<string, bigint>, currency: string): bigint | undefined {
  const own = map.get(currency);
  if (own !== undefined) return own;
  const star = map.get('*');
  return star === undefined ? undefined : fromStar(star, currency, false);
}

/**
 * A currency's own approval tiers, else the `"*"` ones in its minor units: a "from" amount
 * rounded up (a total reaches it), an "over" amount down (a total passes it).
 */
export function tiersFor(map: Map<string, Tier[]>, currency: string): Tier[] | undefined {
  const own = map.get(currency);
  if (own !== undefined) return own;
  return map.get('*')?.map((t) => ({ ...t, minor: fromStar(t.minor, currency, t.inclusive) }));
}

/** A total as a person reads it: "1,500.50 SLE". */
export function shown(minor: bigint, currency: string): string {
  return `${formatAmount(minorToDecimal(minor, digitsOf(currency)), currency)} ${currency}`;
}

/** "1 approval", "2 approvals". */
export const approvalsWord = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;

/** A name as compared for sameness: one person is not two because of case or spaces. */
function nameKey(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

const ROLES: readonly Role[] = ['maker', 'approver'];
const FIELDS = ['$comment', 'members', 'makers', 'approvers', 'approvals', 'max_per_payout', 'daily_total'];

/** A policy being read: what is read so far, and every problem found. */
interface Reading {
  policy: Policy;
  problems: string[];
  /** Each person's name as first written, by nameKey. */
  spelled: Map<string, string>;
}

/** Adds a person's keys and roles, merging by name. */
function addMember(r: Reading, where: string, name: string, keys: unknown, roles: Role[]): void {
  const { policy, problems } = r;
  const who = name.trim();
  if (!who || /[\p{Cc}]/u.test(who) || who.length > 100) return void problems.push(`${where}: a name must be 1 to 100 characters without control characters`);
  const first = r.spelled.get(nameKey(who));
  if (first !== undefined && first !== who)
    return void problems.push(`${where}: "${who}" is written "${first}" elsewhere; write one person's name the same way everywhere`);
  r.spelled.set(nameKey(who), who);
  const list = typeof keys === 'string' ? [keys] : keys;
  if (!Array.isArray(list) || list.length === 0)
    return void problems.push(`${where}: give the person's public key(s) as payctl keys show prints them ("ed25519:…", or a list of them)`);
  const m = policy.members.get(who) ?? { name: who, publicKeys: [], fingerprints: [], roles: new Set<Role>() };
  for (const role of roles) m.roles.add(role);
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
}

/** The people: `members` (keys and roles), then the `makers` and `approvers` shorthands; then the approvers' keys. */
function readPeople(r: Reading, raw: Record<string, unknown>): void {
  if (raw.members !== undefined) {
    if (!isObject(raw.members)) r.problems.push('members must map names to { "keys": ["ed25519:…"], "roles": ["maker", "approver"] }');
    else
      for (const [name, m] of Object.entries(raw.members)) {
        const where = `members.${name}`;
        if (!isObject(m)) {
          r.problems.push(`${where} must be { "keys": ["ed25519:…"], "roles": ["maker", "approver"] }`);
          continue;
        }
        for (const k of Object.keys(m)) if (k !== 'keys' && k !== 'roles') r.problems.push(`${where}: unknown field "${k}" (known: keys, roles)`);
        const roles = m.roles;
        if (!Array.isArray(roles) || roles.length === 0 || !roles.every((x) => ROLES.includes(x as Role))) {
          r.problems.push(`${where}.roles must list "maker", "approver" or both`);
          continue;
        }
        addMember(r, `${where}.keys`, name, m.keys, roles as Role[]);
      }
  }
  for (const [field, role] of [
    ['makers', 'maker'],
    ['approvers', 'approver'],
  ] as const) {
    const v = raw[field];
    if (v === undefined) continue;
    if (!isObject(v)) r.problems.push(`${field} must map names to public keys ("ed25519:…", or a list of them)`);
    else for (const [name, keys] of Object.entries(v)) addMember(r, `${field}.${name}`, name, keys, [role]);
  }
  for (const m of r.policy.members.values())
    if (m.roles.has('approver')) m.fingerprints.forEach((fp, i) => r.policy.approvers.set(fp, { name: m.name, publicKey: m.publicKeys[i]! }));
}

/** A currency code as the policy keys it (upper case, or "*"); undefined (a problem) when it is none. */
function currencyKey(r: Reading, where: string, c: string): string | undefined {
  if (c === '*' || isKnownCurrency(c.toUpperCase())) return c === '*' ? c : c.toUpperCase();
  r.problems.push(`${where}: "${c}" is not a currency code (or "*")`);
  return undefined;
}

/**
 * An amount of a currency in minor units (`"*"`: at STAR_DIGITS); undefined (a problem) when it
 * is not one. A JSON number is read from its text (parsePolicyJson keeps a number a double
 * would change as its digits), so 2500.4999999999999 is refused, never taken as 2500.50.
 */
function amountOf(r: Reading, where: string, c: string, v: unknown): bigint | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') {
    r.problems.push(`${where} must be an amount as a string ("1000.00")`);
    return undefined;
  }
  try {
    const minor = decimalToMinor(typeof v === 'number' ? decimalFromNumber(v) : v, c === '*' ? STAR_DIGITS : digitsOf(c));
    if (minor < 0n) throw new RangeError('negative');
    return minor;
  } catch {
    r.problems.push(`${where}: "${String(v)}" is not an amount in ${c === '*' ? 'that currency' : c}`);
    return undefined;
  }
}

/** One currency's approval tiers, each `{ "from" | "over": amount, "required": n }`. */
function tiersOf(r: Reading, c: string, cur: string, tiers: unknown[]): Tier[] {
  const list: Tier[] = [];
  tiers.forEach((t: unknown, i) => {
    const where = `approvals.${c}[${i}]`;
    if (!isObject(t) || (t.from === undefined) === (t.over === undefined)) return void r.problems.push(`${where} needs one of "from" or "over", and "required"`);
    if (!Number.isInteger(t.required) || (t.required as number) < 0 || (t.required as number) > 10)
      return void r.problems.push(`${where}.required must be a whole number from 0 to 10`);
    const inclusive = t.from !== undefined;
    const minor = amountOf(r, `${where}.${inclusive ? 'from' : 'over'}`, cur, inclusive ? t.from : t.over);
    if (minor !== undefined)
      list.push({ minor, inclusive, required: t.required as number, label: `${inclusive ? 'from' : 'over'} ${String(inclusive ? t.from : t.over)}` });
  });
  return list;
}

/** The approval tiers per currency, then the limits (max_per_payout, daily_total). */
function readRules(r: Reading, raw: Record<string, unknown>): void {
  if (raw.approvals !== undefined) {
    if (!isObject(raw.approvals)) r.problems.push('approvals must map currencies to lists of tiers');
    else
      for (const [c, tiers] of Object.entries(raw.approvals)) {
        const cur = currencyKey(r, 'approvals', c);
        if (!cur) continue;
        if (!Array.isArray(tiers)) {
          r.problems.push(`approvals.${c} must be a list of tiers ({ "from": "1000", "required": 1 })`);
          continue;
        }
        r.policy.approvals.set(cur, tiersOf(r, c, cur, tiers));
      }
  }
  for (const [field, map] of [
    ['max_per_payout', r.policy.maxPerPayout],
    ['daily_total', r.policy.dailyTotal],
  ] as const) {
    const v = raw[field];
    if (v === undefined) continue;
    if (!isObject(v)) {
      r.problems.push(`${field} must map currencies to amounts`);
      continue;
    }
    for (const [c, a] of Object.entries(v)) {
      const cur = currencyKey(r, field, c);
      const minor = cur === undefined ? undefined : amountOf(r, `${field}.${c}`, cur, a);
      if (cur !== undefined && minor !== undefined) map.set(cur, minor);
    }
  }
}

/** The most a policy file is read: a policy of every currency and member is a few kilobytes. */
const MAX_POLICY_BYTES = 1024 * 1024;

/**
 * A policy file's text; throws an Error whose message says why not (a sentence's end: "no such
 * file", "it is a named pipe (FIFO), not a regular file"). Never blocks on a pipe or reads a
 * device without end (`config set policy` on a FIFO hung, deaf to SIGTERM; /dev/zero took 3 GB).
 */
export function readPolicyText(file: string): string {
  let bytes: Buffer | undefined;
  try {
    bytes = readRegular(file, MAX_POLICY_BYTES, { what: 'policy file', follow: true });
  } catch (err) {
    if (err instanceof RefusedFile) throw new Error(`it ${err.why}`);
    throw err;
  }
  if (!bytes) throw new Error('no such file');
  return bytes.toString('utf8');
}

/**
 * Why a policy file's text is not JSON: the line, column and character of the fault (json-fault.ts;
 * a policy holds no secret). A byte order mark before it is passed over, as the policy is read.
 */
export function policyJsonFault(text: string): string {
  return `it is ${textFault(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, { quote: true }) ?? 'not valid JSON'}`;
}

/** A policy file read and checked: the policy, or why it cannot be one (`unreadable`, or every problem). */
export function examinePolicy(file: string): { policy: Policy; problems: [] } | { policy?: undefined; unreadable?: string; problems: string[] } {
  let raw: unknown;
  let text = '';
  try {
    text = readPolicyText(file);
    // Numbers kept as written when a double would change them (exact-json.ts): amounts are exact.
    raw = parseServiceJson(text);
  } catch (err) {
    const why = err instanceof SyntaxError ? policyJsonFault(text) : (err as Error).message;
    return { unreadable: why, problems: [why] };
  }
  const twice = keyTwice(text);
  if (twice) return { problems: [twice] };
  return examinePolicyValue(raw, file);
}

/**
 * A policy already parsed (a file's JSON, or the content of the team's policy in a shared
 * ledger), checked; `file` is how messages name it.
 */
export function examinePolicyValue(raw: unknown, file: string): { policy: Policy; problems: [] } | { policy?: undefined; problems: string[] } {
  const policy: Policy = { file, members: new Map(), byKey: new Map(), approvers: new Map(), approvals: new Map(), maxPerPayout: new Map(), dailyTotal: new Map() };
  const r: Reading = { policy, problems: [], spelled: new Map() };
  if (!isObject(raw)) r.problems.push('it must be a JSON object');
  else {
    for (const k of Object.keys(raw)) if (!FIELDS.includes(k)) r.problems.push(`unknown field "${k}" (known: ${FIELDS.join(', ')})`);
    readPeople(r, raw);
    readRules(r, raw);
    r.problems.push(...unmeetableTiers(policy));
  }
  return r.problems.length ? { problems: r.problems } : { policy, problems: [] };
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

/**
 * Reads and checks a policy file; every problem listed at once (exit 2). `seeIt`: the command
 * that shows the profile's policy setting, as printed for the run (with its profile).
 */
export function loadPolicy(file: string, seeIt = 'payctl config get policy'): Policy {
  const r = examinePolicy(file);
  if (r.policy) return r.policy;
  if (r.unreadable !== undefined)
    throw new ConfigError(`Cannot read the policy ${file}: ${r.unreadable}. Nothing was sent.`, `Fix the file, or see the policy in force with: ${seeIt}`);
  throw new ConfigError(`The policy ${file} is not valid. Nothing was sent.\n  ${r.problems.join('\n  ')}`);
}

/** The policy named in a profile (`payctl config set policy <path>`), read and checked; undefined when none is set. `seeIt`: as loadPolicy's. */
export function policyOf(profile: { policy?: string } | undefined, seeIt?: string): Policy | undefined {
  return profile?.policy ? loadPolicy(profile.policy, seeIt) : undefined;
}
