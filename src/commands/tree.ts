/**
 * The top-level commands, each from the spec beside its verb: program.ts builds the command
 * tree from this list.
 *
 * The build (scripts/build.mjs) also makes a bundle of its own for each top-level command
 * that is no group (`balances`, `status`, ...), with this module replaced by one that lists
 * that command alone and says SERVES = 'one': a run of `payctl balances` then loads, compiles
 * and runs none of the other commands' code; and one for the program's help, which lists
 * every command but holds none of their code (SERVES = 'help'). Such a bundle serves only
 * the words for which the whole tree would build just that (program.ts, reachOf and covers).
 */
import { loginSpec } from './login-spec.js';
import { logoutSpec } from './logout-spec.js';
import { statusSpec } from './status-spec.js';
import { balancesSpec } from './balances-spec.js';
import { payoutSpec } from './payout-spec.js';
import { payoutsSpec } from './payouts-spec.js';
import { summarySpec } from './summary-spec.js';
import { webhooksSpec } from './webhooks-spec.js';
import { configSpec } from './config-spec.js';
import { completeProfilesSpec, completionSpec } from './completion-spec.js';
import { sandboxSpec } from './sandbox-spec.js';
import { historySpec } from './history-spec.js';
import { planSpec } from './plan-spec.js';
import { keysSpec } from './keys-spec.js';
import { policySpec } from './policy-spec.js';
import type { CommandSpec, GroupSpec } from './spec.js';

/** The commands below the program, in the order help lists them. */
export const TREE: readonly (CommandSpec | GroupSpec)[] = [
  loginSpec,
  logoutSpec,
  statusSpec,
  balancesSpec,
  payoutSpec,
  payoutsSpec,
  historySpec,
  planSpec,
  keysSpec,
  policySpec,
  summarySpec,
  webhooksSpec,
  configSpec,
  completionSpec,
  completeProfilesSpec,
  sandboxSpec,
];

/**
 * What the bundle this module is built into can run: every command ('all', here); one
 * command's words ('one'); or the program's help alone, the commands' code left out ('help').
 */
export const SERVES: 'all' | 'one' | 'help' = 'all';
