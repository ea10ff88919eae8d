/**
 * What the plan commands share: the policy of the profile in force, a plan written to a new
 * file (never over another) and the -o a printed plan create needs for one, and the lines a person reads before approving or sending: who
 * made the plan as the policy names them (a person by name, not just a key: README "Four
 * eyes"), every payout with every field it sends (its note and metadata too), and its
 * approvals, which count and why the others do not; what to do about a plan file that carries
 * an approval that does not count; the command an approver signs with, and how several
 * approvers put theirs on one file (in turn, or copies merged), and how many of a plan's
 * approvals count.
 */
import { constants, closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { formatAmount } from '../../money/amount.js';
import { fsFault } from '../../config/fs-fault.js';
import { type Plan, type ReadPayout } from '../../plans/plan.js';
import type { PayoutRequest } from '../../payouts/request.js';
import { checkApprovals, makerOf, policyOf, type ApprovalCheck, type Policy } from '../../plans/policy.js';
import { approvalHolds } from '../../plans/signatures.js';
import { planText } from '../../plans/plan.js';
import type { Style } from '../../output/style.js';
import { wrapSegments, wrapText } from '../../output/table.js';
import { text, utcTime } from '../../output/text.js';
import { commandLine, invocationOf, type Invocation } from '../../config/command-line.js';
import { freshReportPath, pathTaken } from '../../payouts/report.js';
import type { LoadedPlan } from './source.js';

/** `stipends.csv` -> `stipends.plan.json` beside it: where plan create writes the plan without -o. */
export function defaultPlanPath(file: string): string {
  return join(dirname(file), `${basename(file, extname(file))}.plan.json`);
}

/**
 * The -o a printed `plan create <file> --batch-id <batchId>` carries: the `out` given, if any;
 * when that file, or the default plan path, is taken, a free name beside it for that batch
 * (stipends.<batch>.plan.json, then .2., …): plan create never overwrites a file, and a command
 * printed without it was refused as run ("a file of that name exists").
 */
export function planOutArgs(file: string, batchId: string, out?: string): string[] {
  const target = resolve(out ?? defaultPlanPath(file));
  if (!pathTaken(target)) return out !== undefined ? ['-o', target] : [];
  return ['-o', freshReportPath(target, batchId, '.plan')];
}

/** The policy named in the profile in force, or undefined. */
export function profilePolicy(deps: Deps): Policy | undefined {
  const seeIt = commandLine(invocationOf(deps.globals, deps.env), ['config', 'get', 'policy']);
  return policyOf(deps.config().getProfile(deps.globals.profile, { readSecrets: false }), seeIt);
}

/**
 * Writes a new plan file: created exclusively, never following a symlink, never replacing a
 * file; one that cannot be written whole (a full disk) is removed. `flag`: the option that
 * names the file (`-o` for plan create, `--plan-out` for payout create), for the hint.
 */
export function writeNewPlan(path: string, plan: Plan, flag: '-o' | '--plan-out'): void {
  const refused = (why: string) => new UsageError(`Cannot write the plan ${path}: ${why}. Nothing was written.`, [], `Choose another name with ${flag}.`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (err) {
    throw refused((err as NodeJS.ErrnoException).code === 'EEXIST' ? 'a file of that name exists (a plan is never overwritten)' : fsFault(err));
  }
  try {
    writeSync(fd, planText(plan));
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(path);
    } catch {
      // already failing: the message says the plan was not written
    }
    throw refused(fsFault(err));
  }
  closeSync(fd);
}

/**
 * Who made a plan, for people: with a policy, the member its key belongs to (the name the
 * key calls itself is only a claim); without one, the key's own name and fingerprint.
 */
export function makerLine(plan: Plan, policy: Policy | undefined, st: Style): string {
  const at = `at ${utcTime(plan.created_at)}`;
  if (!policy) return `${text(plan.maker.name)} (${plan.maker.fingerprint}) ${at}`;
  const m = makerOf(plan, policy);
  if (m.member) return `${text(m.member.name)}, a maker in the policy (key ${plan.maker.fingerprint}) ${at}`;
  return `key ${plan.maker.fingerprint} calling itself "${text(plan.maker.name)}" ${at} ${st.red(`(${policy.byKey.has(plan.maker.fingerprint) ? 'not a maker' : 'not listed'} in the policy: it cannot be sent)`)}`;
}

/**
 * What to do about a plan file that carries an approval of its own that does not count (plan
 * approve and plan send refuse it; checkApprovals): no command takes an approval out of a file,
 * but its maker's copy as plan create wrote it carries none, and approvals the shared ledger keeps
 * that do not count are left out. When the ledger holds the plan, its hash names it without the
 * file's approvals.
 */
export function notCountedHint(loaded: Pick<LoadedPlan, 'plan' | 'alsoStored'>, deps: Deps, verb: 'approve' | 'send'): string {
  const copy =
    verb === 'approve'
      ? 'Get a clean copy of the plan file from its maker (as plan create wrote it) and have it approved again: no command takes an approval out of a plan.'
      : 'Get a clean copy of the plan file from its maker (as plan create wrote it) and send that, approved again if plan send asks: no command takes an approval out of a plan.';
  if (!loaded.alsoStored) return copy;
  return `${copy}\nOr ${verb} it by its hash, with the approvals the team's shared ledger keeps: ${commandLine(invocationOf(deps.globals, deps.env), ['plan', verb], [loaded.plan.hash])}`;
}

/**
 * The command another person signs the plan `ref` with (plan create's report, plan send's
 * refusal): an approver runs it on their own machine, with their own key, and the profile they
 * run it with gives the policy (and the shared ledger) it goes by. So it carries none of this
 * run's options: pasted there, the maker's `--profile sandbox` was refused as a profile that
 * does not exist. `where` says so beside it: for a plan named by hash, a profile that shares the
 * ledger; for a file, their copy of it.
 */
export function approverCommand(ref: string, byHash: boolean): { command: string; where: string } {
  return {
    command: commandLine({}, ['plan', 'approve'], [ref]),
    where: byHash
      ? 'on their own machine, with their own key and a profile that shares this ledger'
      : 'on their own machine, with their own key and profile, on their copy of the plan file',
  };
}

/**
 * When a plan file needs more than one approval: how approvers put theirs on one file (plan
 * create's report, plan send's refusal). Each signing a copy of their own left files of one
 * approval each that plan send refused, and no command combined them: so in turn, the file passed
 * on after signing, or copies combined with plan merge, printed for the run that prints it (its
 * profile's policy judges the approvals merged), `<copy>...` for the person to put in.
 */
export function inTurnAdvice(ref: string, required: number, inv: Invocation): string | undefined {
  if (required < 2) return undefined;
  const head = commandLine({}, ['plan', 'merge'], [ref]);
  const merge = `${head} <copy>...${commandLine(inv, ['plan', 'merge'], [ref]).slice(head.length)}`;
  return `${required} approvals are needed on one file: approvers sign the same file in turn (each passes it on after signing), or each signs a copy and the copies are combined: ${merge}`;
}

/**
 * How many of a plan's approvals count: under a policy, those plan send counts; without one, one
 * per person, by the name their key gives (personName), among those that hold, the maker's key
 * aside. One left out (a stranger's stored by hash, a row written outside payctl, a person's
 * second key) is not counted: "it now carries 2 approvals" of a plan one approval short was
 * wrong.
 */
export function counting(plan: Plan, policy: Policy | undefined): number {
  if (policy) return checkApprovals(plan, policy).valid.length;
  return new Set(plan.approvals.filter((a) => a.fingerprint !== plan.maker.fingerprint && approvalHolds(plan.hash, a)).map((a) => personName(a.name))).size;
}

/** A person as a name tells them apart without a policy: letter case, and white space around and between words, aside. */
export function personName(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * The approvals of a plan as the policy judges them: one line per counted person, one per
 * approval not counted (those the shared ledger keeps are left out, and say so); at a terminal
 * (`width`) each fitted to it, continued lines indented.
 */
export function approvalLines(plan: Plan, judged: ApprovalCheck | undefined, st: Style, width?: number): string {
  if (plan.approvals.length === 0) return '  none yet\n';
  const line = (segments: string[]) => wrapSegments(segments, width) + '\n';
  if (!judged) return plan.approvals.map((a) => line([`  ${text(a.name)}`, `(${a.fingerprint})`, `at ${text(a.signed_at)}`])).join('');
  return (
    judged.valid.map((v) => line([`  ${st.green('Counts:')} ${text(v.name)}`, `(${v.fingerprint})`, `at ${text(v.signedAt)}`])).join('') +
    [...judged.refused, ...judged.ignored].map((r) => line([`  ${st.yellow('Not counted:')}`, text(r)])).join('')
  );
}

/**
 * The head of a plan for people: where, what, who made it (by name in the policy, when there
 * is one), and `stored` (plan show: when the shared ledger stored it, said when its maker's
 * clock was behind). At a terminal (`width`) a value too long for its line goes on under itself.
 */
export function planHead(plan: Plan, path: string, st: Style, policy?: Policy, width?: number, stored?: string): string {
  const lines: Array<[string, string]> = [
    ['Plan', text(path)],
    ['Service', text(plan.base_url)],
    ['Batch', plan.batch_id === null ? '(single payout)' : text(plan.batch_id)],
    ['Source', text(plan.source)],
    ['Made by', makerLine(plan, policy, st)],
    ...(stored === undefined ? [] : [['Stored', stored] as [string, string]]),
    ['Payouts', String(plan.payouts.length)],
    ['Hash', plan.hash],
  ];
  const label = Math.max(...lines.map(([k]) => k.length));
  const under = ' '.repeat(label + 2);
  const value = (v: string) => (width === undefined ? v : wrapText(v, Math.max(1, width - under.length)).replace(/\n/g, `\n${under}`));
  return lines.map(([k, v]) => `${st.dim(k.padEnd(label))}  ${value(v)}`).join('\n') + '\n';
}

/**
 * One line per payout: row, id, amount, wallet, recipient; then, for a payout that sends them,
 * its note and its metadata on lines of their own under it (payoutExtras): an approver signs
 * every field of the body, so every field is shown. At a terminal (`width`) a line too long for
 * it goes on below, indented, broken before "from" and "to" (nothing is cut: an approver reads
 * every account); ids are never broken.
 */
export function payoutLines(payouts: readonly ReadPayout[], width?: number): string {
  return (
    payouts
      .map((p) => {
        const r = p.request;
        const row = p.row !== undefined ? `row ${p.row}: ` : '';
        return (
          wrapSegments(
            [
              `  ${row}${text(r.payoutId)}  ${formatAmount(r.amountMinor, r.currency)} ${r.currency}`,
              `from ${text(r.walletId)}`,
              `to ${text(r.name)} (${r.type}, ${text(r.provider)} ${text(r.account)}${r.phone ? `, ${text(r.phone)}` : ''})`,
            ],
            width,
          ) + payoutExtras(r, width)
        );
      })
      .join('\n') + '\n'
  );
}

/**
 * What a payout sends beyond its row's line: `note: "…"` and `metadata: key="value", …`, each
 * a line of its own under the row, and nothing for a payout without them (a 500-row plan with no
 * notes stays one line a payout). Values are quoted as JSON writes them (a quote or a comma
 * inside one reads as part of it) and sanitized for the terminal.
 */
function payoutExtras(r: PayoutRequest, width: number | undefined): string {
  const quoted = (v: string) => text(JSON.stringify(v));
  let out = '';
  if (r.note !== undefined) out += '\n' + wrapSegments([`    note: ${quoted(r.note)}`], width, EXTRA_INDENT);
  const pairs = Object.entries(r.metadata ?? {});
  if (pairs.length)
    out += '\n' + wrapSegments(['    metadata:', ...pairs.map(([k, v], i) => `${text(k)}=${quoted(v)}${i < pairs.length - 1 ? ',' : ''}`)], width, EXTRA_INDENT);
  return out;
}

/** Where a note or metadata line too long for the terminal goes on. */
const EXTRA_INDENT = '      ';
