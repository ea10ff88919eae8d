/**
 * Where `plan show|approve|send` read a plan: a plan file, as always, or a plan kept in the
 * team's shared ledger, named by its hash (`sha256:<hex>`, its hex alone, or a prefix of at
 * least 12 hex digits that only one stored plan starts with, as git takes commits). An argument
 * that names an existing file is always the file. Either way the plan is checked whole before
 * it is used (plans/plan.ts); with a hash and a local ledger the command stops (exit 2) saying
 * that plans by hash need a shared ledger, naming the run's profile and the command with each
 * other profile of this config folder that has one, and how to set one. A plan file whose plan the shared
 * ledger holds too (plan create stored it) gets the approvals stored there beside its own (an
 * approver who followed the printed `plan approve sha256:…` signed there only): each is an
 * approval over the same hash, checked where it counts (plans/approvals.ts) as the file's are;
 * one of them that does not count is left out, never a reason to refuse the plan (ownApprovals).
 * When the plan was made, for what was paid after it, is the earlier of its own time (its maker's
 * clock) and, when the shared ledger holds it, the time the ledger stored it; that stored time
 * alone when the maker's clock was behind by more than a few minutes (madeAt). A batch file named
 * instead of a plan is refused with the plan create that makes it one (readPlanFile).
 */
import { existsSync } from 'node:fs';
import type { Deps } from '../../deps.js';
import { RefusedError, UsageError } from '../../errors.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import type { Ledger, PlanStore } from '../../payouts/ledger/ledger.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { LOCAL_LEDGER } from '../../config/ledger-setting.js';
import { FUTURE_TOLERANCE_MS, span } from '../../payouts/entry-age.js';
import { utcTime } from '../../output/text.js';
import { planOutArgs } from './common.js';
import { BatchFileGiven, readPlan, storedPlan, type Approval, type Plan, type ReadPayout } from '../../plans/plan.js';

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
  /**
   * For a plan file whose plan the shared ledger holds too: its plans (plan approve stores an
   * approval there as well), and the approvals read from there that the file does not hold.
   */
  alsoStored?: { store: PlanStore; approvals: Approval[] };
  /** When the shared ledger stored the plan (the database's clock), when it holds it. */
  storedAt?: string;
  /**
   * How many of the plan's approvals, first, are the plan file's own: the rest are kept in the
   * shared ledger (none are the file's for a plan named by hash). checkApprovals refuses a plan
   * whose own approval does not count, and leaves out one the ledger keeps.
   */
  ownApprovals: number;
}

/** The hex digits of an argument that names a plan by hash (lower case); undefined for a file. */
export function hashArgument(arg: string): string | undefined {
  const m = HASH_ARG.exec(arg);
  if (!m || existsSync(arg)) return undefined;
  return m[1]!.toLowerCase();
}

/** The plan a command is given: a plan file, or a plan of the shared ledger by hash. */
export async function loadPlan(arg: string, deps: Deps, command: PlanCommand): Promise<LoadedPlan> {
  const hex = hashArgument(arg);
  if (hex === undefined) {
    const file = readPlanFile(arg, deps);
    return withStoredApprovals({ ...file, ref: fileOperand(arg), label: arg, ownApprovals: file.plan.approvals.length }, await openLedger(deps));
  }
  const store = sharedPlans(await openLedger(deps), arg, deps, command);
  const hash = await oneHash(store, hex, arg);
  const stored = await store.get(hash);
  if (!stored) throw new RefusedError(`No plan ${hash} in the team's shared ledger (it was there a moment ago). Nothing was sent or changed.`);
  return { ...storedPlan(stored), ref: hash, label: `${hash} (in the team's shared ledger)`, store, storedAt: stored.storedAt, ownApprovals: 0 };
}

/**
 * A plan file read whole (plans/plan.ts readPlan); a batch file given instead is refused with the
 * plan create that makes it a plan, as the run would type it (its profile, base URL, time limit).
 */
export function readPlanFile(path: string, deps: Deps): ReturnType<typeof readPlan> {
  try {
    return readPlan(path);
  } catch (err) {
    if (err instanceof BatchFileGiven)
      err.hint = `A batch file becomes a plan with plan create (then approved, and sent with plan send):\n  ${commandLine(invocationOf(deps.globals, deps.env), ['plan', 'create'], [fileOperand(path), '--batch-id', 'NAME', ...planOutArgs(path, 'NAME')])}`;
    throw err;
  }
}

/**
 * When a plan was made, for "paid after the plan was made" (plan send, plan show, policy check).
 * Its maker's clock dates it; the shared ledger, when it holds it, stored it a moment later by the
 * database's clock, the clock that dates the payouts it is compared with. The earliest of its own
 * time, that stored_at and the ledger's now: a maker's clock set ahead would otherwise date the
 * plan late, and a payout paid by hand just after the plan would look earlier than it (plan send
 * would pay it again). But a plan stored more than FUTURE_TOLERANCE_MS after its own time was
 * dated by a clock that was behind (makerBehind), not made that long before the ledger stored it:
 * it goes by stored_at (at most the ledger's now), else a payout paid by hand before the plan
 * would be taken for one after it and block the plan. A stored_at moved later in the database
 * could hide a payout paid after the plan; whoever can do that can already re-date or delete that
 * payout's own row (any key's signature verifies a row: ledger verify lists who signed), and the
 * payout is still listed to approvers as paid before. A plan file the shared ledger does not hold
 * (made with the local journal) has only its maker's time, the clock of that journal too.
 */
export async function madeAt(p: Dated, ledger: Pick<Ledger, 'now'>): Promise<Date> {
  const own = Date.parse(p.plan.created_at);
  const stored = p.storedAt === undefined ? NaN : Date.parse(p.storedAt);
  const times = [(await ledger.now()).getTime(), stored, ...(makerBehind(p) === undefined ? [own] : [])];
  return new Date(Math.min(...times.filter(Number.isFinite)));
}

/** A plan's own time and, when the shared ledger holds it, when the ledger stored it. */
type Dated = { plan: Pick<Plan, 'created_at'>; storedAt?: string | undefined };

/** How far (ms) its maker's clock was behind the ledger's, when the ledger stored the plan more than FUTURE_TOLERANCE_MS after its own time. */
export function makerBehind(p: Dated): number | undefined {
  const behind = p.storedAt === undefined ? NaN : Date.parse(p.storedAt) - Date.parse(p.plan.created_at);
  return behind > FUTURE_TOLERANCE_MS ? behind : undefined;
}

/** plan show's "Stored" line: when the shared ledger stored the plan, said when madeAt goes by it (its maker's clock was behind). */
export function storedLine(p: Dated): string | undefined {
  const behind = makerBehind(p);
  if (behind === undefined) return undefined;
  return `in the team's shared ledger at ${utcTime(p.storedAt)}: its maker's clock was ${span(behind)} behind the ledger's, so what was paid after the plan was made goes by this time`;
}

/**
 * For a refusal of payouts paid after the plan was made, the first of them paid at `firstPaid`
 * (ms, the ledger's clock): what its maker's clock has to do with it, when that payout was paid
 * before the ledger stored the plan and after the plan's own time, a second or more earlier
 * (within FUTURE_TOLERANCE_MS, which madeAt still goes by). Else undefined.
 */
export function makerClockNote(p: Dated, firstPaid: number): string | undefined {
  if (p.storedAt === undefined || makerBehind(p) !== undefined) return undefined;
  const [own, stored] = [Date.parse(p.plan.created_at), Date.parse(p.storedAt)];
  if (!(stored - own >= 1000 && firstPaid <= stored)) return undefined;
  return (
    `Its maker's clock was ${span(stored - own)} behind the shared ledger's: the plan says it was made at ${p.plan.created_at}, the ledger stored it at ${p.storedAt}, ` +
    "and what was paid in between may have been paid before the plan was made. If so, have its maker set the machine's clock right (NTP) and make the plan again."
  );
}

/**
 * A plan file with the approvals the shared ledger keeps for its hash added after its own: one
 * per key, the file's standing where both have one (so a key is never counted twice). With the
 * local journal, or a plan the shared ledger does not hold, the file as it is. Plan merge reads
 * the file it merged into through this too, to count its approvals as plan send will.
 */
export async function withStoredApprovals(loaded: LoadedPlan, ledger: Ledger): Promise<LoadedPlan> {
  const store = ledger.plans;
  const stored = store && (await store.get(loaded.plan.hash));
  if (!store || !stored) return loaded;
  const keys = new Set(loaded.plan.approvals.map((a) => a.fingerprint));
  const added: Approval[] = [];
  for (const a of stored.approvals) {
    if (keys.has(a.fingerprint)) continue;
    keys.add(a.fingerprint);
    added.push(a);
  }
  return {
    ...loaded,
    plan: { ...loaded.plan, approvals: [...loaded.plan.approvals, ...added] },
    alsoStored: { store, approvals: added },
    storedAt: stored.storedAt,
  };
}

/** The command a plan is loaded for, as its refusals print it: ['plan', 'approve'], ['policy', 'check']. */
export type PlanCommand = readonly [string, string];

/**
 * The shared ledger's plans; with the local journal, a usage error naming the run's profile and,
 * when other profiles of this config folder have a shared ledger (an approver's machine whose
 * team profile is not the default: the printed `plan approve sha256:…` carries no --profile), the
 * command with each, before how to set one.
 */
function sharedPlans(ledger: Ledger, arg: string, deps: Deps, command: PlanCommand): PlanStore {
  if (ledger.plans) return ledger.plans;
  const inv = invocationOf(deps.globals, deps.env);
  const name = deps.globals.profile;
  const others = profilesWithLedger(deps).filter((n) => n !== name);
  const runWith = others.map((n) => `  ${commandLine({ ...inv, profile: n }, [...command], [arg])}`);
  const setOne = `point profile "${name}" at the team's ledger (the URL on standard input):\n  ${commandLine(inv, ['config', 'set', 'ledger'], ['--stdin'])}`;
  throw new UsageError(
    `Cannot find the plan ${arg}: it is not a file, and plans by hash need a shared ledger (profile "${name}", which this run used, has none: its ledger is the local journal of this config folder). Nothing was sent or changed.`,
    [],
    others.length
      ? `${others.length === 1 ? `Profile "${others[0]!}" of this config folder has` : `Profiles ${others.map((n) => `"${n}"`).join(', ')} of this config folder have`} a shared ledger; run it with --profile NAME:\n${runWith.join('\n')}\nOr give the plan file, or ${setOne}`
      : `Give the plan file, or ${setOne}`,
  );
}

/** The profiles of this config folder whose ledger is a shared one (a PostgreSQL URL, not `local`). */
function profilesWithLedger(deps: Deps): string[] {
  try {
    const store = deps.config();
    return store.profileNames().filter((n) => {
      const ledger = store.getProfile(n, { readSecrets: false, mayBeNew: true })?.ledger?.trim();
      return ledger !== undefined && ledger !== '' && ledger !== LOCAL_LEDGER;
    });
  } catch {
    // A config file that cannot be read names none: the refusal says the rest.
    return [];
  }
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
