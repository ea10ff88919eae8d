/**
 * The top-level commands, each from the spec beside its verb: program.ts builds the command
 * tree from this list.
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
import { ledgerSpec } from './ledger-spec.js';
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
  ledgerSpec,
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
