/**
 * `payctl policy show`: the team's policy in the shared ledger: the version in force (its hash,
 * when it was adopted, who proposed it and whose approvals adopted it, and the policy itself),
 * and the proposals to change it, each with the approvals it has and needs and the command an
 * approver runs. Every row is checked as it is read: one changed in the database is refused
 * (exit 2, naming it), but an approval whose signature does not hold is shown as left out (it
 * counts for nothing, and its key's owner can still approve), and a proposal by a key the policy
 * in force does not list as not approvable. With `--json`, one JSON document.
 */
import { write, type Deps } from '../../deps.js';
import type { StoredPolicy } from '../../payouts/ledger/ledger.js';
import { approvalsWord } from '../../plans/policy-file.js';
import type { Approval } from '../../plans/signatures.js';
import {
  approvalsForChange,
  checkRow,
  countedApprovers,
  holdingApprovals,
  LEFT_OUT_WHY,
  leftOut,
  teamPolicyOf,
  unlistedProposer,
  type TeamPolicy,
} from '../../plans/team-policy.js';
import { text } from '../../output/text.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { approveCommand, byLine, proposalsOf, teamStore } from './team.js';

/** A proposal as shown: the approvals that count and are needed, and whether it still changes the version in force. */
interface Shown {
  row: StoredPolicy;
  counted: string[];
  need: number;
  stale: boolean;
  /** Why it cannot be approved though it changes the version in force (its proposer's key is not listed). */
  unlisted: string | undefined;
  /** Why the row cannot be used (changed outside payctl: checkRow): shown left out, never a refusal of the whole show. */
  broken?: string;
}

export async function run(_opts: object, deps: Deps): Promise<number> {
  const rows = await (await teamStore(deps)).all();
  const current = teamPolicyOf(rows, 'Nothing was changed.');
  const proposals = proposalsOf(rows).map((row): Shown => {
    const checked = checkRow(row);
    const stale = row.baseVersion !== (current?.version ?? 0);
    // A proposal row written outside payctl is never adopted (policy approve checks it), so it
    // holds nothing back: listed as left out. Before, it made policy show exit 2 for the whole team.
    if (checked.problem !== undefined) return { row, stale, unlisted: undefined, need: 0, counted: [], broken: checked.problem };
    return {
      row,
      stale,
      unlisted: current && !stale ? unlistedProposer(current.policy, row.proposer, current.version) : undefined,
      need: approvalsForChange(current?.policy),
      counted: current && !stale ? countedApprovers(current.policy, row).map((m) => m.name) : [],
    };
  });
  await write(deps.io.stdout, deps.globals.json ? asJson(deps, current, proposals) : asText(deps, current, proposals));
  return 0;
}

const signer = (r: StoredPolicy) => ({ name: r.proposer.name, fingerprint: r.proposer.fingerprint });
const approvalJson = (a: Approval) => ({ name: a.name, fingerprint: a.fingerprint, at: a.signed_at });
const leftOutJson = (r: StoredPolicy) => leftOut(r).map((a) => ({ ...approvalJson(a), why: LEFT_OUT_WHY }));

/** The line of a row's approvals left out, or nothing when it has none. */
const leftOutLine = (r: StoredPolicy) => {
  const out = leftOut(r);
  return out.length ? `  Left out     ${out.map((a) => `${text(a.name)} (${text(a.fingerprint)})`).join(', ')}: ${LEFT_OUT_WHY}\n` : '';
};

function asJson(deps: Deps, current: TeamPolicy | undefined, proposals: Shown[]): string {
  const team = current && {
    version: current.version,
    hash: current.row.hash,
    adopted_at: current.row.adoptedAt,
    proposed_by: { ...signer(current.row), at: current.row.proposedAt },
    approved_by: holdingApprovals(current.row).map(approvalJson),
    left_out: leftOutJson(current.row),
    policy: JSON.parse(current.row.content) as unknown,
  };
  const waiting = proposals.map((p) =>
    p.broken !== undefined
      ? {
          hash: p.row.hash,
          changes_version: p.row.baseVersion,
          stale: p.stale,
          proposed_by: { ...signer(p.row), at: p.row.proposedAt },
          left_out: `${BROKEN}: ${p.broken}`,
          policy: null,
        }
      : shownJson(deps, p),
  );
  return JSON.stringify({ team_policy: team ?? null, proposals: waiting }) + '\n';
}

/** What is said of a proposal row that cannot be used. */
const BROKEN = 'changed outside payctl, it cannot be approved and holds nothing back';

/** A proposal that checks, as --json shows it. */
function shownJson(deps: Deps, p: Shown): object {
  return {
    hash: p.row.hash,
    changes_version: p.row.baseVersion,
    stale: p.stale,
    proposed_by: { ...signer(p.row), at: p.row.proposedAt },
    approvals: holdingApprovals(p.row).map(approvalJson),
    left_out: leftOutJson(p.row),
    ...(p.unlisted ? { not_approvable: `proposed with ${p.unlisted}` } : {}),
    counted: p.counted,
    required_approvals: p.need,
    ...(p.stale || p.unlisted ? {} : { approve: approveCommand(deps, p.row.hash) }),
    policy: JSON.parse(p.row.content) as unknown,
  };
}

/** The policy itself, indented under its head. */
const body = (content: string) =>
  JSON.stringify(JSON.parse(content), null, 2)
    .split('\n')
    .map((l) => `    ${text(l)}`)
    .join('\n') + '\n';

function asText(deps: Deps, current: TeamPolicy | undefined, proposals: Shown[]): string {
  let out: string;
  if (!current) {
    const propose = commandLine(invocationOf(deps.globals, deps.env), ['policy', 'propose'], ['<file>']).replace("'<file>'", '<file>');
    out = `The shared ledger holds no team policy: each profile's own policy file (payctl config set policy) is used.\nMake one the team's with: ${propose}\n`;
  } else {
    const r = current.row;
    const held = holdingApprovals(r);
    const approved = held.length ? held.map((a) => text(a.name)).join(', ') : 'nobody (the first version is adopted when proposed)';
    out =
      `Team policy: version ${current.version}, ${text(r.hash)}\n` +
      `  Adopted at   ${r.adoptedAt ?? ''}\n` +
      `  Proposed by  ${text(byLine(signer(r), r.proposedAt))}\n` +
      `  Approved by  ${approved}\n` +
      leftOutLine(r) +
      body(r.content);
  }
  if (!proposals.length) return out + 'Proposals: none.\n';
  out += `Proposals: ${proposals.length}\n`;
  for (const p of proposals) {
    out += `  ${text(p.row.hash)}, a change to version ${p.row.baseVersion}, proposed by ${text(byLine(signer(p.row), p.row.proposedAt))}\n`;
    if (p.broken !== undefined) {
      out += `  Left out: ${BROKEN} (${text(p.broken)}).\n`;
      continue;
    }
    out += leftOutLine(p.row);
    out += p.stale
      ? `  No longer approvable: version ${current?.version ?? 0} is in force now (propose it again if it is still wanted).\n`
      : p.unlisted
        ? `  Not approvable: proposed with ${text(p.unlisted)}.\n`
        : `  Approvals: ${p.counted.length} of ${approvalsWord(p.need)}${p.counted.length ? ` (${p.counted.map(text).join(', ')})` : ''}. An approver signs: ${approveCommand(deps, p.row.hash)}\n`;
    out += body(p.row.content);
  }
  return out;
}
