/**
 * `payctl plan approve <plan>`: an approver reads the plan and signs its hash with their key,
 * name and the time. The signature covers the hash, and the hash covers every byte that
 * will be sent: a plan changed afterwards no longer carries this approval. A plan file gets
 * the approval added to it; a plan of the shared ledger named by hash (source.ts) gets it
 * stored there, once per approver key, its signature checked first. A plan file whose plan the
 * shared ledger holds too gets it in both: the file, and the ledger (so that `plan send <hash>`
 * counts it as well as `plan send <file>`, which reads the ledger's approvals beside the file's).
 * The approver is named (the question, the success line) as the policy names their key, a key
 * file that calls itself otherwise said in a warning; without a policy, by the key file's name.
 *
 * With a policy in the profile, it is refused before anything is signed when the plan's
 * maker is not a maker the policy lists, when this key is not an approver's, or when this
 * person made the plan with another of their keys (README "Four eyes"): plan send would not
 * count such an approval. And when a payout of the plan is over the policy's max_per_payout:
 * plan send refuses it whatever approvals it carries, and an approval gathered for a payout
 * the policy forbids would count, unreviewed, the day the limit were raised. A plan file that
 * already carries an approval of its own that does not count (under the policy; without one, a
 * fingerprint not its key's or a signature that does not hold) is not signed either: plan send
 * refuses such a plan whatever else it carries, and no command takes an approval out of a plan.
 * An approval the shared ledger keeps that does not count stops nothing (plans/approvals.ts): it
 * is left out; one under this key's fingerprint that does not hold (someone wrote it there with a
 * garbage signature) is not "your approval": this one is stored in its place (PlanStore.approve). Without any policy (none in the profile, none the team's in the shared ledger) an
 * approval is signed and stored as asked: nothing here can tell whether it counts, and the policy
 * of whoever sends the plan judges it; one that does not count there is left out. Only people are
 * counted then, by the names their keys give: an approval whose name is that of one the plan
 * carries already, by another key (the same approver on a second machine), is said to repeat it,
 * and the count stays (plan send leaves out an approval that repeats a person who counts). A
 * profile named that does not exist is refused without offering a login: approving needs none.
 * A plan file that is a symbolic link is refused, naming its target (approve-file.ts).
 */
import { write, type Deps } from '../../deps.js';
import { CancelledError, CliError, RefusedError, UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { UnknownProfile, unknownProfileNoLogin } from '../../config/known-profiles.js';
import { requireSigningKey, type SigningKey } from '../../plans/keys.js';
import { planTimeProblem, type Plan, type ReadPayout } from '../../plans/plan.js';
import { approvalHolds, signApproval, type Approval } from '../../plans/signatures.js';
import { addApprovalToFile, refuseLinkedPlan } from './approve-file.js';
import { formatAmount } from '../../money/amount.js';
import { makeStyle } from '../../output/style.js';
import { wrapSegments, wrapText } from '../../output/table.js';
import { plural, text } from '../../output/text.js';
import { yesRequired } from '../../output/prompter.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import { approvalLines, counting, notCountedHint, payoutLines, personName, planHead } from './common.js';
import { effectivePolicy } from '../policy/effective.js';
import { loadPlan, type LoadedPlan } from './source.js';
import { brokenApprovals, checkApprovals, makerOf, overMaximum, type Policy } from '../../plans/policy.js';

export interface PlanApproveOptions {
  plan: string;
  yes?: boolean;
}

export async function run(opts: PlanApproveOptions, deps: Deps): Promise<number> {
  try {
    return await approve(opts, deps);
  } catch (err) {
    // A profile that does not exist: never "log in to create it", approving needs no API key.
    if (err instanceof UnknownProfile)
      throw unknownProfileNoLogin(err, 'Approving needs no login: only your signing key, and the policy of the profile it runs with, if that names one.');
    throw err;
  }
}

async function approve(opts: PlanApproveOptions, deps: Deps): Promise<number> {
  const loaded = await loadPlan(opts.plan, deps, ['plan', 'approve']);
  const { plan, payouts } = loaded;
  if (!loaded.store) refuseLinkedPlan(opts.plan, 'approve', (t) => commandLine(invocationOf(deps.globals, deps.env), ['plan', 'approve'], [fileOperand(t)]));
  const key = requireSigningKey(configDir(deps.env));
  refuseOwnOrAgain(plan, key, loaded.alsoStored?.approvals);
  const timeProblem = planTimeProblem(plan, deps.clock.now());
  if (timeProblem) throw new UsageError(`Cannot approve the plan ${loaded.label}: ${timeProblem}. Nothing was signed.`, [], 'Have its maker make a new plan.');
  const policy = await effectivePolicy(deps);
  if (policy) {
    refuseUnderPolicy(loaded, policy, key);
    refuseOverMaximum(loaded.label, policy, payouts);
  }
  refuseNotCounted(loaded, policy, deps);
  const repeats = policy ? undefined : sameNameBefore(plan, key);
  const as = approverName(policy, key);
  // Said last before the question (a long plan's screen would scroll it away), or before signing.
  if (!opts.yes) await confirmApproval(loaded, deps, { plan, payouts }, policy, as);
  else if (as.otherName) deps.log.warn(as.otherName);
  const signedAt = deps.clock.now().toISOString();
  const approval = signApproval(key, plan.hash, signedAt);
  let carried: Approval[];
  if (loaded.store) carried = await storeApproval(loaded, approval);
  else {
    carried = await addApprovalToFile(opts.plan, plan.hash, approval, { signal: deps.signal, pid: deps.host.pid });
    if (loaded.alsoStored) carried = [...carried, ...(await alsoStore(loaded, approval, deps))];
  }
  await reportApproved(loaded.ref, deps, plan.hash, counting({ ...plan, approvals: carried }, policy), { key, as, signedAt, repeats });
  return 0;
}

/**
 * Who approves, for people: under a policy, the member it gives this key (plan show and plan send
 * count the approval as theirs), with `otherName`, the warning to give, when the key file calls
 * itself otherwise (an edited file, a key made with another --name; letter case and spaces
 * aside); without one, the key file's name. The approval itself carries the key file's name: it
 * is signed, and the policy goes by the key.
 */
function approverName(policy: Policy | undefined, key: SigningKey): { name: string; counted: boolean; otherName?: string } {
  const member = policy?.byKey.get(key.fingerprint);
  if (!policy || !member) return { name: key.name, counted: false };
  if (personName(member.name) === personName(key.name)) return { name: member.name, counted: true };
  return {
    name: member.name,
    counted: true,
    otherName: `Your key file names you ${text(key.name)}; the policy ${text(policy.file)} counts this key (${key.fingerprint}) as ${text(member.name)}, and so does this approval.`,
  };
}

/**
 * Without a policy, the approval the plan carries already (that holds, not the maker's key) under
 * this key's name, by another key: the same person signing again from another machine, whose
 * second approval plan send leaves out (plans/approvals.ts). Undefined when there is none.
 */
function sameNameBefore(plan: Plan, key: SigningKey): Approval | undefined {
  const me = personName(key.name);
  return plan.approvals.find(
    (a) => a.fingerprint !== key.fingerprint && a.fingerprint !== plan.maker.fingerprint && personName(a.name) === me && approvalHolds(plan.hash, a),
  );
}

/**
 * An approval stored in the shared ledger, its signature checked first (a key that cannot
 * sign what it claims stores nothing); returns the approvals the plan now carries there.
 * A second approval with the same key (another terminal, a moment ago) is refused.
 */
async function storeApproval(loaded: LoadedPlan, approval: Approval): Promise<Approval[]> {
  const store = loaded.store!;
  if (!approvalHolds(loaded.plan.hash, approval))
    throw new RefusedError(`Your signing key did not make a valid signature of the plan ${loaded.plan.hash}. Nothing was changed.`);
  if (!(await store.approve(loaded.plan.hash, approval)))
    throw new RefusedError(`This plan already carries your approval (${approval.fingerprint}) in the shared ledger. Nothing was changed.`);
  return (await store.get(loaded.plan.hash))?.approvals ?? [...loaded.plan.approvals, approval];
}

/**
 * A plan file's approval stored in the shared ledger too, which holds the plan; returns the
 * approvals the ledger holds that the file does not (one of this key that did not hold is
 * replaced by this one, now in the file). A failure there is said, not fatal: the approval is in
 * the file, which plan send reads.
 */
async function alsoStore(loaded: LoadedPlan, approval: Approval, deps: Deps): Promise<Approval[]> {
  const { store, approvals } = loaded.alsoStored!;
  try {
    await store.approve(loaded.plan.hash, approval); // false: this key's approval is there already
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    deps.log.warn(`Your approval is in ${loaded.label} but not in the team's shared ledger (${err.message}): plan send ${loaded.plan.hash} does not count it.`);
  }
  return approvals.filter((a) => a.fingerprint !== approval.fingerprint);
}

/** The maker never approves their own plan, and a key approves a plan once (in the file or, for a file, the shared ledger: `storedOnly`). */
function refuseOwnOrAgain(plan: Plan, key: SigningKey, storedOnly: Approval[] = []): void {
  if (key.fingerprint === plan.maker.fingerprint) {
    throw new UsageError(
      `You made this plan (key ${key.fingerprint}); its maker cannot approve it. Nothing was changed.`,
      [],
      'Ask another approver to run payctl plan approve on it.',
    );
  }
  // Only one that holds is yours: one under your fingerprint that does not (written in the shared
  // ledger outside payctl) is nobody's, and the ledger takes yours in its place (PlanStore.approve).
  if (plan.approvals.some((a) => a.fingerprint === key.fingerprint && approvalHolds(plan.hash, a))) {
    const where = storedOnly.some((a) => a.fingerprint === key.fingerprint) ? " in the team's shared ledger, which plan send of the file reads too" : '';
    throw new RefusedError(`This plan already carries your approval (${key.fingerprint})${where}. Nothing was changed.`);
  }
}

/**
 * Under a policy, refused before anything is signed when plan send would not count it: a plan
 * whose maker the policy does not list, a key that is not an approver's, the maker with another
 * of their keys, or a person who approved already.
 */
function refuseUnderPolicy(loaded: LoadedPlan, policy: Policy, key: SigningKey): void {
  const { plan, label: path } = loaded;
  const made = makerOf(plan, policy);
  if (made.problem) throw new RefusedError(`Cannot approve the plan ${path}: ${made.problem}. Nothing was changed.`);
  const me = policy.byKey.get(key.fingerprint);
  if (!me || !me.roles.has('approver')) {
    throw new UsageError(
      `Cannot approve the plan ${path}: your key ${key.fingerprint} is not an approver's in the policy ${policy.file}. Nothing was changed.`,
      [],
      'Give your public key (payctl keys show) to whoever keeps the policy file.',
    );
  }
  if (me === made.member) {
    throw new UsageError(
      `You (${me.name}) made this plan, with another of your keys (${plan.maker.fingerprint}); its maker cannot approve it, whatever key they sign with. Nothing was changed.`,
      [],
      'Ask another approver to run payctl plan approve on it.',
    );
  }
  if (checkApprovals(plan, policy, loaded.ownApprovals).valid.some((v) => v.name === me.name)) {
    throw new RefusedError(`This plan already carries an approval by ${me.name} (with another of their keys); each person counts once. Nothing was changed.`);
  }
}

/** A plan with a payout over the policy's max_per_payout is not signed: no approval makes plan send take it. */
function refuseOverMaximum(label: string, policy: Policy, payouts: ReadPayout[]): void {
  const over = overMaximum(
    policy,
    payouts.map((p) => p.request),
  );
  if (over.length === 0) return;
  throw new RefusedError(
    `Cannot approve the plan ${label}: it breaks the policy ${policy.file}, and plan send refuses it whatever approvals it carries. Nothing was signed.`,
    over,
    'Have its maker make a plan within the policy (or have the policy changed first).',
  );
}

/**
 * A plan file that carries an approval of its own that does not count is not signed: plan send
 * refuses it whatever else it carries, and approvals are only ever added to a file, so no
 * signature could make it sendable. Under a policy, as it judges them; without one, those that
 * hold under none. Approvals the shared ledger keeps never stop a plan (checkApprovals).
 */
function refuseNotCounted(loaded: LoadedPlan, policy: Policy | undefined, deps: Deps): void {
  const refused = policy ? checkApprovals(loaded.plan, policy, loaded.ownApprovals).refused : brokenApprovals(loaded.plan, loaded.ownApprovals);
  if (refused.length === 0) return;
  throw new RefusedError(
    `Cannot approve the plan ${loaded.label}: it carries ${plural(refused.length, 'approval that does', 'approvals that do')} not count, and plan send refuses a plan that carries any, whatever else it carries. Nothing was signed.`,
    refused,
    notCountedHint(loaded, deps, 'approve'),
  );
}

/** Without --yes: the plan shown on stderr and an explicit yes asked (refused without a terminal). */
async function confirmApproval(
  loaded: LoadedPlan,
  deps: Deps,
  read: { plan: Plan; payouts: ReadPayout[] },
  policy: Policy | undefined,
  as: { name: string; otherName?: string },
): Promise<void> {
  const { plan, payouts } = read;
  if (!deps.io.interactive) {
    const cause = yesRequired(deps.globals).replace(/:.*/, '');
    throw new UsageError(
      `${cause}: a plan is approved only by an explicit yes. Nothing was changed.`,
      [],
      `Review it first: ${commandLine(invocationOf(deps.globals, deps.env), ['plan', 'show'], [loaded.ref])}`,
    );
  }
  const st = makeStyle(deps.io.stderrColor);
  // On stderr, fitted to it when it is a terminal (long lines go on below, indented; nothing cut).
  const width = deps.io.stderrColumns;
  deps.log.block(
    planHead(plan, loaded.label, st, policy, width) +
      '\n' +
      payoutLines(payouts, width) +
      plan.totals
        .map(
          (t) => wrapSegments([`  Total ${formatAmount(t.total, t.currency)} ${t.currency}`, `from ${text(t.wallet_id)} (${plural(t.count, 'payout')})`], width) + '\n',
        )
        .join('') +
      'Approvals so far\n' +
      approvalLines(plan, policy && checkApprovals(plan, policy, loaded.ownApprovals), st, width),
  );
  if (as.otherName) deps.log.warn(as.otherName);
  const ok = await (await deps.prompter()).confirm({ message: `Approve this plan as ${text(as.name)}?`, default: false });
  if (!ok) throw new CancelledError('Nothing was signed.');
}

/**
 * What was signed: one JSON line with --json, else a line for people, naming the approver as
 * approverName does (`--json`: `approved_by` the key file's name, and under a policy
 * `counted_as` the member it counts as). An approval that repeats
 * a person (`repeats`: their earlier approval, by another key) never claims to add one: a
 * warning says so, and how many people's approvals the plan carries (`--json`: `repeat_of`).
 */
async function reportApproved(
  ref: string,
  deps: Deps,
  hash: string,
  approvals: number,
  signed: { key: SigningKey; as: { name: string; counted: boolean }; signedAt: string; repeats: Approval | undefined },
): Promise<void> {
  const { key, as, signedAt, repeats } = signed;
  const columns = deps.io.stderrColumns;
  if (deps.globals.json) {
    const repeatOf = repeats && { name: repeats.name, fingerprint: repeats.fingerprint };
    await write(
      deps.io.stdout,
      JSON.stringify({
        plan: ref,
        hash,
        approved_by: key.name,
        ...(as.counted ? { counted_as: as.name } : {}),
        fingerprint: key.fingerprint,
        signed_at: signedAt,
        approvals,
        ...(repeatOf ? { repeat_of: repeatOf } : {}),
      }) + '\n',
    );
  } else
    deps.log.success(
      // After "✓ ", fitted to a terminal (the hash alone is 71 columns).
      wrapText(
        `Approved plan ${hash} as ${text(as.name)} (${key.fingerprint})${repeats ? '' : `; it now carries ${plural(approvals, 'approval')}`}.`,
        columns === undefined ? undefined : columns - 2,
      ).replace(/\n/g, '\n  '),
    );
  if (repeats)
    deps.log.warn(
      `This approval repeats a person who approved already: ${text(repeats.name)} signed the plan with another key (${repeats.fingerprint}), and each person counts once, whatever keys they sign with (plan send leaves this one out). It carries approvals by ${plural(approvals, 'person', 'people')}.`,
    );
}
