/** `payctl policy propose|approve|show`: the team's policy in the shared ledger (the runs are propose.ts, approve.ts, show.ts). */
import type { CommandSpec } from '../spec.js';

/** The rule a change of the team's policy is judged by (plans/team-policy.ts approvalsForChange), said in help. */
export const CHANGE_RULE =
  'A change needs as many approvals as the largest "required" of any approval tier of the policy in\n' +
  'force, and at least 1 when it lists members: each from a different person it lists as an approver,\n' +
  'not the one who proposed the change. The first policy of a shared ledger is adopted at once.';

const SHARED =
  "The team's policy lives in the shared ledger (payctl config set ledger --stdin): while one is\n" +
  "adopted there, every command that goes by a policy uses it, whatever the profile's policy\n" +
  'setting says. With the local journal these commands exit 2.';

export const policyProposeSpec: CommandSpec = {
  name: 'propose',
  summary: "propose a policy file as the team's policy in the shared ledger (signed with your key)",
  arguments: [{ name: 'file', description: 'a policy file (see payctl config set policy)' }],
  help:
    `${SHARED}\n\n` +
    'The file is checked, signed with your key (payctl keys create) and stored. The first policy of\n' +
    'a shared ledger is adopted at once (version 1); a change waits for its approvals, and the hash\n' +
    `and the command an approver runs are printed.\n\n${CHANGE_RULE}`,
  examples: ['payctl policy propose team-policy.json', 'payctl policy propose team-policy.json --json'],
  load: () => import('./propose.js'),
};

export const policyApproveSpec: CommandSpec = {
  name: 'approve',
  summary: "approve a proposed change to the team's policy; adopted once it has the approvals it needs",
  arguments: [{ name: 'hash', description: "the proposal's hash as policy propose printed it (or its first 12 hex digits or more)" }],
  help:
    `${SHARED}\n\n` +
    "Review the change first: payctl policy show. Your key must be an approver's in the policy in\n" +
    "force, and not the proposer's. When the change has the approvals it needs, it is adopted as\n" +
    `the next version at once.\n\n${CHANGE_RULE}`,
  examples: ['payctl policy approve 50398ce020a0', 'payctl policy approve sha256:50398ce020a0a121 --profile team'],
  load: () => import('./approve.js'),
};

export const policyShowSpec: CommandSpec = {
  name: 'show',
  summary: "show the team's policy in the shared ledger and the proposals to change it",
  help: `${SHARED}\n\nThe version in force (hash, when adopted, proposed and approved by whom, the policy itself) and each\nproposal with its approvals and the command an approver runs.`,
  examples: ['payctl policy show', 'payctl policy show --json'],
  load: () => import('./show.js'),
};
