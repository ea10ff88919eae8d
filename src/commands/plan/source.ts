/**
 * Where `plan show|approve|send` read a plan: a plan file, as always, or a plan kept in the
 * team's shared ledger, named by its hash (`sha256:<hex>`, its hex alone, or a prefix of at
 * least 12 hex digits that only one stored plan starts with, as git takes commits). An argument
 * that names an existing file is always the file. Either way the plan is checked whole before
 * it is used (plans/plan.ts); with a hash and a local ledger the command stops (exit 2) saying
 * that plans by hash need a shared ledger, and how to set one.
 */
import { existsSync } from 'node:fs';
import type { Deps } from '../../deps.js';
import { RefusedError, UsageError } from '../../errors.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import type { Ledger, PlanStore } from '../../payouts/ledger/ledger.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { readPlan, storedPlan, type Plan, type ReadPayout } from '../../plans/plan.js';

/** A hash as typed: `sha256:` optional, 12 to 64 hex digits. */
const HASH_ARG = /^(?:sha256:)?([0-9a-fA-F]{12,64})$/;

/** A plan read for a command, and where it came from. */
export interface LoadedPlan {
  plan: Plan;
  payouts: ReadPayout[];
  /** What to type to name it again: the path as given, or the plan's full hash. */
  ref: string;
  /** How people are told where it is: the path, or its hash in the shared ledger. */
  label: string;
  /** The shared ledger's plans, when it came from there (approvals are stored there). */
  store?: PlanStore;
}

/** The hex digits of an argument that names a plan by hash (lower case); undefined for a file. */
export function hashArgument(arg: string): string | undefined {
  const m = HASH_ARG.exec(arg);
  if (!m || existsSync(arg)) return undefined;
  return m[1]!.toLowerCase();
}

/** The plan a command is given: a plan file, or a plan of the shared ledger by hash. */
export async function loadPlan(arg: string, deps: Deps): Promise<LoadedPlan> {
  const hex = hashArgument(arg);
  if (hex === undefined) return { ...readPlan(arg), ref: fileOperand(arg), label: arg };
  const store = sharedPlans(await openLedger(deps), arg, deps);
  const hash = await oneHash(store, hex, arg);
  const stored = await store.get(hash);
  if (!stored) throw new RefusedError(`No plan ${hash} in the team's shared ledger (it was there a moment ago). Nothing was sent or changed.`);
  return { ...storedPlan(stored), ref: hash, label: `${hash} (in the team's shared ledger)`, store };
}

/** The shared ledger's plans; with the local journal, a usage error saying how to set a shared one. */
function sharedPlans(ledger: Ledger, arg: string, deps: Deps): PlanStore {
  if (ledger.plans) return ledger.plans;
  throw new UsageError(
    `Cannot find the plan ${arg}: it is not a file, and plans by hash need a shared ledger (this profile's ledger is the local journal of this machine). Nothing was sent or changed.`,
    [],
    `Give the plan file, or point the profile at the team's ledger (the URL on standard input):\n  ${commandLine(invocationOf(deps.globals, deps.env), ['config', 'set', 'ledger'], ['--stdin'])}`,
  );
}

/** The one stored plan whose hash starts with these digits; none, or more than one, is a usage error. */
async function oneHash(store: PlanStore, hex: string, arg: string): Promise<string> {
  const found = await store.matching(`sha256:${hex}`, 5);
  if (found.length === 1) return found[0]!;
  if (found.length === 0) {
    throw new UsageError(
      `No plan in the team's shared ledger has a hash starting with ${hex} (${arg} is not a file either). Nothing was sent or changed.`,
      [],
      'Copy the hash plan create printed (sha256:...), or at least its first 12 digits.',
    );
  }
  throw new UsageError(
    `${arg} is the start of the hash of more than one plan in the team's shared ledger. Nothing was sent or changed.`,
    found.map((h) => `${h}`),
    'Give more of the hash (or all of it).',
  );
}
