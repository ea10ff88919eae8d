/**
 * Why plan send would refuse a plan as it is now, beside its approvals and limits (which policy
 * check and plan show judge with plans/policy.ts, as plan send does): made for another service,
 * more than 7 days old or dated ahead (plans/plan.ts placeAndTimeProblems), and what the ledger
 * holds (send.ts ledgerRefusal: a payout sent before with other details or under another key,
 * or paid since the plan was made). The very checks plan send runs, not copies of them: what
 * policy check calls sendable, plan send sends.
 */
import type { Deps } from '../../deps.js';
import type { Ledger } from '../../payouts/journal.js';
import { placeAndTimeProblems, samePlace, type Plan, type ReadPayout } from '../../plans/plan.js';
import type { Style } from '../../output/style.js';
import { wrapSegments } from '../../output/table.js';
import { text } from '../../output/text.js';
import { ledgerRefusal } from './send.js';

/** One reason plan send refuses the plan, in its words: what, the payouts it names, and what to do. */
export interface SendRefusal {
  reason: string;
  details: string[];
  hint?: string;
}

/** The plan as plan send would read it, and where it would send it. */
export interface SendableInput {
  plan: Plan;
  payouts: ReadPayout[];
  /** The plan's file as given; undefined for a plan of the shared ledger named by its hash. */
  file: string | undefined;
  /** When the shared ledger stored the plan, when it holds it (source.ts madeAt). */
  storedAt?: string | undefined;
  /** The run's ledger; undefined when it could not be read (then only where and when are judged). */
  journal: Ledger | undefined;
  /** The profile's base URL; undefined when it is not known (the ledger is then read under the plan's). */
  baseUrl: string | undefined;
}

/**
 * Every reason plan send would refuse the plan now, but for its approvals and limits: where and
 * when it was made, then the ledger's (looked for only when the plan is for this service, and a
 * ledger was read).
 */
export async function sendRefusals(input: SendableInput, deps: Deps): Promise<SendRefusal[]> {
  const { plan, payouts, file, storedAt, journal, baseUrl } = input;
  const refusals: SendRefusal[] = placeAndTimeProblems(plan, baseUrl, deps.clock.now()).map((p) => ({
    reason: p.text,
    details: [],
    ...(p.hint ? { hint: p.hint } : {}),
  }));
  if (!journal || (baseUrl !== undefined && !samePlace(plan.base_url, baseUrl))) return refusals;
  const said = await ledgerRefusal({ plan, payouts, file, storedAt, journal, api: { baseUrl: baseUrl ?? plan.base_url } }, deps);
  if (said) refusals.push({ reason: said.message, details: said.problems, ...(said.hint ? { hint: said.hint } : {}) });
  return refusals;
}

/**
 * The refusals for people: "It cannot be sent:" and the reason, the payouts it names ("- "), and
 * what to do; at a terminal (`width`) each line fitted to it, continued lines indented.
 */
export function refusalLines(refusals: readonly SendRefusal[], st: Style, width?: number): string {
  let out = '';
  for (const r of refusals) {
    out += wrapSegments([st.red('It cannot be sent:'), `${text(r.reason)}.`], width) + '\n';
    for (const d of r.details) out += wrapSegments([`  - ${text(d)}`], width) + '\n';
    for (const h of r.hint?.split('\n') ?? []) out += wrapSegments([`  ${text(h)}`], width) + '\n';
  }
  return out;
}
