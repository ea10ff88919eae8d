/**
 * Whether a record of the payout list could be the payout of a journal entry whose answer was
 * lost (`history reconcile` past the service's key memory; docs/service.md "Unknown outcomes"):
 * the currency, the amount, the account, the note, the creation time (any, for an entry dated in
 * the future: its time says nothing of when it was sent), and the wallet and payout
 * id where the record gives them, each compared with what the entry sent. A record that differs
 * in one of them is not it (`problems`, and `why`: the first, counted in the one line that says
 * how many records were left out), except its creation time: a record created before the first
 * attempt by more than CLOCK_SKEW_MS is listed, marked that the clock that dated the entry may
 * have been off, and `--made-by` takes it (time alone never rules a record out: nothing vouches
 * for the clock that dated the entry at send time). A record the service writes oddly is not left out for it: an
 * account written with spaces or dashes (the same characters otherwise: leading zeros count), a
 * note in other case or spacing or none, is listed with `marks` saying what is odd, and
 * `--made-by` takes it. A record whose account or creation time is missing or unreadable is
 * listed too, but `unchecked`: payctl cannot tell it from another payout to another account, or
 * from last month's payout of the same amount, so `--made-by` refuses it and none is printed; so
 * is one whose transaction id is none payctl can name (schemas.ts isTransactionId: a placeholder,
 * a shell character), as `--made-by` would refuse the command printed for it.
 * For a search that decides "not made" (decide.ts), and `--made-by` for an entry it left unknown,
 * only the hard facts rule a record out (JudgeHow.hardFacts): its currency and amount (one not
 * read exactly is unchecked). Its account, time, note, name, provider, type, wallet and payout id
 * are not judged, only said (an account written another way, identity.ts accountForm: masked,
 * a country code, leading zeros dropped, as written otherwise; another, as another), except
 * that `--made-by` (JudgeHow.accountMustMatch) refuses another account whatever the search.
 */
import { compareAmount, plainAmount, sameAmount } from '../money/amount.js';
import { text, utcTime } from '../output/text.js';
import { isTransactionId, recordStatus, TRANSACTION_ID_FORM, type PayoutRecord } from '../service/schemas.js';
import { span } from './entry-age.js';
import { instantNs } from './filters.js';
import { accountForm, comparedAccount, maskedWords } from './identity.js';
import type { JournalEntry } from './journal.js';

/** What a journaled body asked for: payout id, currency, wallet, the amount literal and the recipient. */
export interface Asked {
  payoutId: string | undefined;
  currency: string | undefined;
  walletId: string | undefined;
  /** The amount as written in the body (a JSON number literal, never through a float). */
  amount: string | undefined;
  account: string | undefined;
  note: string | undefined;
  /** The recipient's type (wallet, bank), provider and name. */
  type: string | undefined;
  provider: string | undefined;
  name: string | undefined;
}

export function askedOf(body: string): Asked | undefined {
  let b: {
    payoutId?: unknown;
    currency?: unknown;
    walletId?: unknown;
    recipient?: { type?: unknown; accountDetails?: { accountNumber?: unknown; note?: unknown; provider?: unknown; name?: unknown } };
  };
  try {
    b = JSON.parse(body) as typeof b;
  } catch {
    return undefined;
  }
  if (!b || typeof b !== 'object') return undefined;
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const d = b.recipient?.accountDetails;
  return {
    payoutId: s(b.payoutId),
    currency: s(b.currency),
    walletId: s(b.walletId),
    amount: /"amount":(-?[0-9.eE+-]+)/.exec(body)?.[1],
    account: s(d?.accountNumber),
    note: s(d?.note) || undefined,
    type: s(b.recipient?.type),
    provider: s(d?.provider),
    name: s(d?.name),
  };
}

/**
 * A record created up to this long before the first attempt is a plain candidate, in the search
 * a person chooses from (history reconcile's, past the 24-hour rule): the service's clock and the
 * one that dated the entry may differ. One created earlier is still a candidate, marked that the
 * clock that dated the entry may have been off (a machine's clock fast when it sent: probe 70-T
 * found +20 minutes leaving the payout's own record out, "No payout at the service matches it",
 * and only `--resend` offered). Searches that decide "not made" have no time bound at all
 * (decide.ts): no clock is trusted for those.
 */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * How far before the first attempt the search a person chooses from reads the list (lookup.ts
 * findCandidates): a clock that dated the entry this far ahead still leaves the payout's record
 * among those read. Every record read that matches otherwise is listed, whatever its time.
 */
export const CLOCK_DOUBT_MS = 24 * 60 * 60 * 1000;

/**
 * The first attempt less `marginMs` (ns since the epoch): the earliest creation time of a plain
 * candidate (CLOCK_SKEW_MS), or where the search stops reading (CLOCK_DOUBT_MS); undefined when
 * the entry's time cannot be read.
 */
export function earliestCreatedNs(entry: Pick<JournalEntry, 'createdAt'>, marginMs = CLOCK_SKEW_MS): bigint | undefined {
  const t = Date.parse(entry.createdAt);
  return Number.isFinite(t) ? BigInt(Math.floor(t - marginMs)) * 1_000_000n : undefined;
}

/**
 * Whether the entry is marked as left unknown by a search that decides (decide.ts: a payout id
 * used before, a refused resend): a record of any time may be its payout, and a record is judged
 * on the hard facts only (JudgeHow.hardFacts), as that search judged the records it offered.
 */
export function searchesAnyTime(entry: Pick<JournalEntry, 'outcome'>): boolean {
  return entry.outcome?.kind === 'unknown' && entry.outcome.anyTime === true;
}

/** Why a record was left out, by the first field that differs. */
export type LeftOutReason = 'currency or amount' | 'account' | 'note' | 'other payout';

export interface Judgement {
  /** How the record differs from what was sent; [] when it could be the payout. */
  problems: string[];
  why: LeftOutReason | undefined;
  /** What the service wrote oddly in a record that could be the payout: `differences` and what differs in form or time only. */
  marks: string[];
  /** Of the marks, what differs otherwise than in form or time (a name, a provider, and for a search that decides, an account), not held against it. */
  differences: string[];
  /** What payctl cannot check in a record that could be the payout: it is listed, never recorded as made. */
  unchecked: string[];
}

/** A note or a name as compared: its words, in lower case. */
const noteKey = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
/** A provider or type as compared: letters and digits, lower case ("Orange Money" is orange_money). */
const wordKey = (s: string) => s.replace(/[^0-9A-Za-z]/g, '').toLowerCase();

/** How a record is judged (judgeCandidate). */
export interface JudgeHow {
  /** The entry's time says nothing of when it was sent (dated in the future: entry-age.ts ageUnknown): a record created before it is not left out for that. */
  anyTime?: boolean;
  /**
   * For a search that decides "not made" (decide.ts), and `--made-by` for an entry it left
   * unknown: only the hard facts rule a record out, its currency and its amount (by value; one
   * payctl cannot read exactly, money/amount.ts compareAmount, is unchecked). Everything else
   * that differs is a mark, never a reason to leave the record out: its time, note, name,
   * provider, type, account (masked `******3344`, written with a country code, or other digits:
   * a service may write it its own way) and the wallet or payout id it names. Three probe rounds
   * found a service writing each of these so that the payout's own record was ruled out, and
   * the payout was paid again.
   */
  hardFacts?: boolean;
  /**
   * `--made-by`: an account other than the one sent (identity.ts accountForm `other`: `999` for
   * `0011223344`) rules the record out even for hardFacts, where one written another way (masked,
   * a country code, leading zeros dropped) is a mark. A search that decides leaves a record it
   * cannot match in; recording it as the payout needs its account.
   */
  accountMustMatch?: boolean;
}

/** How `record` compares with what `entry` sent, `a` (its body read: lookup.ts askedOf; see the module comment and JudgeHow). */
export function judgeCandidate(record: PayoutRecord, entry: Pick<JournalEntry, 'createdAt'>, a: Asked | undefined, how: JudgeHow = {}): Judgement {
  if (!a?.currency || a.amount === undefined)
    return { problems: ['the journaled request cannot be read'], why: 'currency or amount', marks: [], differences: [], unchecked: [] };
  const problems: string[] = [];
  const marks: string[] = [];
  const unchecked: string[] = [];
  let why: LeftOutReason | undefined;
  const differs = (reason: LeftOutReason, problem: string) => {
    why ??= reason;
    problems.push(problem);
  };
  // Soft facts: another record for a search that chooses, only said for one that decides.
  // What differs otherwise than in form or time, not held against the record: said apart from the marks of form (`differences`).
  const differences: string[] = [];
  const noted = (difference: string) => {
    marks.push(difference);
    differences.push(difference);
  };
  const soft = (reason: LeftOutReason, problem: string) => (how.hardFacts ? noted(problem) : differs(reason, problem));
  // A currency that is no code (blank, `"   "`) says nothing of what was paid: never another currency.
  if (!/^[A-Za-z]{3}$/.test(record.currency.trim())) unchecked.push(`currency not read: ${text(JSON.stringify(record.currency))}`);
  else if (record.currency.toUpperCase() !== a.currency.toUpperCase()) differs('currency or amount', `currency ${text(record.currency)}, sent ${a.currency}`);
  else if (!sameAmount(record.amount, a.amount, a.currency)) {
    // For a search that decides, an amount payctl cannot read exactly is not another amount.
    if (how.hardFacts && compareAmount(record.amount, a.amount, a.currency) === undefined) unchecked.push(`amount not read exactly: ${text(String(record.amount))}`);
    else differs('currency or amount', `amount ${text(shownAmount(record.amount, a.currency))}, sent ${plainAmount(a.amount, a.currency)}`);
  }
  const account = record.recipient?.accountNumber;
  // For a search that decides, an account written another way (identity.ts accountForm: leading
  // zeros, other separators, a country code, masked) is the same account.
  const sameAccount = (got: string, sent: string) => (how.hardFacts ? accountForm(got, sent) !== 'other' : comparedAccount(got) === comparedAccount(sent));
  if (a.account !== undefined && account !== a.account) {
    if (account === undefined || account === '') unchecked.push('no account given');
    // A masked account is only partly checked (the mask hides its length too): said apart from what differs in form only.
    else if (how.hardFacts && accountForm(account, a.account) === 'masked') noted(maskedWords(account, text(account)));
    else if (sameAccount(account, a.account)) marks.push(`account written "${text(account)}"`);
    // `--made-by` records a payout as made only by a record paying its account, whatever search left it unknown.
    else if (how.accountMustMatch) differs('account', `account ${text(account)}, sent ${text(a.account)}`);
    // For one that decides, another account is no proof of another payout: only said.
    else soft('account', `account ${text(account)}, sent ${text(a.account)}`);
  }
  if (a.note !== undefined && record.note !== a.note) {
    if (!record.note) marks.push('no note given');
    else if (noteKey(record.note) === noteKey(a.note)) marks.push(`note written "${text(record.note)}"`);
    else soft('note', `note "${text(record.note)}", sent "${text(a.note)}"`);
  }
  const created = instantNs(record.created_at);
  if (created === undefined) unchecked.push(record.created_at ? `creation time not readable: "${text(record.created_at)}"` : 'no creation time given');
  else if (!how.anyTime && !how.hardFacts && created < (earliestCreatedNs(entry) ?? created)) {
    // Said, never a reason to leave it out: the clock that dated the entry may have been fast.
    const early = span(Date.parse(entry.createdAt) - Number(created / 1_000_000n));
    marks.push(
      `created ${utcTime(record.created_at)}, ${early} before the first attempt (${utcTime(entry.createdAt)}) by the clock that dated it: that clock may have been off`,
    );
  }
  // A transaction id payctl cannot name (a placeholder, a shell character, another form) gives `--made-by` nothing to take.
  const id = record.transaction_id;
  if (!id) unchecked.push('no transaction id given');
  else if (!isTransactionId(id)) unchecked.push(`transaction id "${text(id)}" is not one payctl can look up (${TRANSACTION_ID_FORM})`);
  // Another provider or type of account is another account, whatever its number.
  const r = record.recipient;
  const provider = r?.provider ?? r?.bank;
  if (provider && a.provider && wordKey(provider) !== wordKey(a.provider)) soft('account', `provider ${text(provider)}, sent ${text(a.provider)}`);
  if (r?.type && a.type && wordKey(r.type) !== wordKey(a.type)) soft('account', `recipient type ${text(r.type)}, sent ${text(a.type)}`);
  // A name the service writes otherwise is said, for a person to judge: names are written many ways.
  if (r?.name && a.name && noteKey(r.name) !== noteKey(a.name)) noted(`name "${text(r.name)}", sent "${text(a.name)}"`);
  // A record that names another wallet or another payout id is another payout, whatever else it matches.
  const named = (what: string, got: string | undefined, sent: string | undefined) => {
    if (got === undefined || sent === undefined || got === sent) return;
    const other = otherNamed(got, sent, how);
    if (other) differs('other payout', `${what} ${text(got)}, sent ${text(sent)}`);
    else marks.push(got.trim() ? `${what} written "${text(got)}"` : `${what} blank ("${text(got)}")`);
  };
  named('wallet', record.wallet_id, a.walletId);
  named('payout id', record.payout_id, a.payoutId);
  if (problems.length) return { problems, why, marks: [], differences: [], unchecked: [] };
  return { problems, why, marks, differences, unchecked };
}

/**
 * Whether a wallet or payout id a record names, `got`, is another than `sent`: any difference,
 * but never for a search that decides (hardFacts): there it is a mark (`""`, `RENT-DEC`, an id
 * the service made up), as a record that decides "not made" must be ruled out by its amount or
 * currency alone.
 */
function otherNamed(got: string, sent: string, how: JudgeHow): boolean {
  return how.hardFacts ? false : got !== sent;
}

/** An amount as a reason says it: plain, or as the service wrote it when it cannot be read. */
function shownAmount(amount: number | string, currency: string): string {
  try {
    return plainAmount(amount, currency);
  } catch {
    return String(amount);
  }
}

/**
 * Why the record cannot be recorded as the entry's payout (`--made-by`): how it differs from what
 * the entry sent (account, amount, currency, the note when there was one, wallet and payout id
 * where given), or what payctl cannot check in it; [] when it can,
 * odd formats included.
 */
export function refusals(j: Judgement): string[] {
  return [...j.problems, ...j.unchecked.map((u) => `${u}: payctl cannot check that it is this payout`)];
}

/** refusals of a record against an entry. */
export function candidateProblems(record: PayoutRecord, entry: Pick<JournalEntry, 'createdAt' | 'body'>): string[] {
  return refusals(judgeCandidate(record, entry, askedOf(entry.body)));
}

/** Each reason in words, in the order the line gives them. */
const REASON_WORDS: Record<LeftOutReason, string> = {
  'currency or amount': 'another currency or amount',
  account: 'another account',
  note: 'another note',
  'other payout': 'another wallet or payout id',
};

/** The one line that says how many records read were left out, and why (none: undefined). */
export function leftOutLine(leftOut: ReadonlyMap<LeftOutReason, number>): string | undefined {
  const n = [...leftOut.values()].reduce((s, k) => s + k, 0);
  if (n === 0) return undefined;
  const said = Object.entries(REASON_WORDS).flatMap(([k, words]) => (leftOut.get(k as LeftOutReason) ? [`${leftOut.get(k as LeftOutReason)} ${words}`] : []));
  return `${n} record${n === 1 ? '' : 's'} read left out as not this payout: ${said.join(', ')}.`;
}

/** One candidate on one line: transaction id, time, amount, recipient, status, note. */
export function candidateLine(r: PayoutRecord): string {
  const who = [r.recipient?.name, r.recipient?.accountNumber].filter(Boolean).map(text).join(', ');
  return [
    text(r.transaction_id ?? '(no transaction id)'),
    utcTime(r.created_at),
    `${plainAmount(r.amount, r.currency)} ${text(r.currency)}`,
    who,
    text(recordStatus(r) || 'status unknown'),
    r.note ? `"${text(r.note)}"` : '',
  ]
    .filter(Boolean)
    .join('  ');
}
