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
 * number) in one UTC day, counted from this config folder's journal plus what is at hand, so
 * splitting a payout in parts does not avoid approval (approvalsNeeded). A tier applies from
 * its amount (`from`, inclusive) or above it (`over`); the most demanding tier that applies
 * wins, and none means none needed. `"*"` stands for every currency not named.
 * `max_per_payout` caps one payout; `daily_total` caps what one wallet sends in one currency
 * in one UTC day, counted from this config folder's journal (payouts accepted or of unknown
 * outcome, under this base URL) plus what is about to be sent.
 *
 * This is enforced by payctl on the machine that sends: it makes sure that what was reviewed
 * is exactly what is sent, not that nobody can call the service without payctl.
 *
 * The parts, each in its room (docs/architecture.md, "Where each rule lives": the spending
 * policy and approvals needed): the file read and checked (policy-file.ts), what a set of
 * payouts needs and who approved a plan (approvals.ts), the limits (limits.ts), and what this
 * config folder's journal says was sent today (sent-today.ts). This module is how the rest of payctl
 * names them.
 */
export { examinePolicy, loadPolicy, policyOf, type Member, type Policy, type Role, type Tier } from './policy-file.js';
export {
  approvalsNeeded,
  brokenApproval,
  brokenApprovals,
  checkApprovals,
  currencyTotals,
  makerOf,
  requiredApprovals,
  type ApprovalCheck,
  type Requirement,
} from './approvals.js';
export { dailyTotalApplies, dailyTotalCaveat, limitProblems, limitsHint, overMaximum, uncountable, type LimitOptions } from './limits.js';
export { sentToday, sentTodayTo } from './sent-today.js';
