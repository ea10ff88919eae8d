/** The verbs of `payctl plan` (their runs are create.ts, show.ts, approve.ts, merge.ts, send.ts). */
import { intOption, nonEmpty, type CommandSpec } from '../spec.js';
import { DEFAULT_CONCURRENCY } from '../payout/concurrency.js';
import { ACKNOWLEDGE_MISSING } from '../payout/missing-spec.js';

const PLAN_ARG = [
  {
    name: 'plan',
    description: "a plan file (payctl plan create, payctl payout create --plan-out), or with a shared ledger a plan's hash (sha256:..., or 12+ of its hex digits)",
  },
] as const;

export const planCreateSpec: CommandSpec = {
  name: 'create',
  summary: 'write a batch file as a plan to approve (nothing is sent)',
  arguments: [{ name: 'file', description: 'payouts as CSV or JSON lines (the columns of payout batch)' }],
  options: [
    { flags: '--batch-id <id>', description: 'the batch the payouts belong to (their identity; default "default")' },
    { flags: '-o, --out <file>', description: 'where to write the plan (default: <file>.plan.json beside the file; never overwritten)' },
  ],
  help:
    "The plan holds the profile's base URL, the batch id, every payout's exact body and idempotency key,\n" +
    'totals per wallet and currency, your key (payctl keys create) and the time, and a SHA-256 over all\n' +
    'of it, signed with your key. Approvers sign that hash; plan send sends exactly those bytes.\n' +
    'With a shared ledger (payctl config set ledger) the plan is stored there too: plan show, approve and\n' +
    'send take its hash on any machine that shares the ledger.',
  examples: ['payctl plan create stipends.csv --batch-id oct-stipends', 'payctl plan create stipends.csv -o oct.plan.json'],
  load: () => import('./create.js'),
};

export const planShowSpec: CommandSpec = {
  name: 'show',
  summary: 'print a plan for review: payouts, totals, balances after, approvals',
  arguments: PLAN_ARG,
  examples: ['payctl plan show stipends.plan.json', 'payctl plan show stipends.plan.json --json | jq .totals', 'payctl plan show 50398ce020a0'],
  load: () => import('./show.js'),
};

export const planApproveSpec: CommandSpec = {
  name: 'approve',
  summary: 'sign a plan with your key after reviewing it',
  arguments: PLAN_ARG,
  options: [{ flags: '-y, --yes', description: 'approve without asking (required without a terminal)' }],
  help:
    "The plan's maker cannot approve it, with any of their keys; each person counts once. With a policy\n" +
    'in the profile, a plan whose maker it does not list, or a key it does not list as an approver, is\n' +
    'refused. A plan changed after approval no longer carries the approval: the signature is over the\n' +
    'hash of every byte to be sent. A plan named by hash gets the approval stored in the shared ledger.',
  examples: ['payctl plan approve stipends.plan.json', 'payctl plan approve stipends.plan.json --yes'],
  load: () => import('./approve.js'),
};

export const planMergeSpec: CommandSpec = {
  name: 'merge',
  summary: 'add the approvals copies of a plan file carry to the plan file',
  arguments: [
    { name: 'plan', description: 'the plan file to add the approvals to' },
    { name: 'copy...', description: 'copies of the same plan, each signed by an approver (payctl plan approve)' },
  ],
  help:
    'When approvers each sign a copy of the plan file (instead of the same file in turn), this puts their\n' +
    'approvals on one file for plan send. Each copy is checked whole and must be the same plan (its hash);\n' +
    'an approval the plan carries already is not added again, and one plan send would refuse under the\n' +
    "profile's policy refuses the merge. Nothing is written unless every check holds. Needs no login.",
  examples: ['payctl plan merge stipends.plan.json ibrahim.plan.json aminata.plan.json'],
  load: () => import('./merge.js'),
};

export const planSendSpec: CommandSpec = {
  name: 'send',
  summary: 'send an approved plan: exactly its bodies, under its keys',
  arguments: PLAN_ARG,
  options: [
    { flags: '--concurrency <n>', description: `payouts in flight at once (default ${DEFAULT_CONCURRENCY})`, parse: intOption('--concurrency', 1, 32) },
    { flags: '--report <file>', description: 'where to write the per-payout report (default: <plan>.report.jsonl)', parse: nonEmpty('--report') },
    { flags: '-y, --yes', description: 'send without asking (required without a terminal)' },
    ACKNOWLEDGE_MISSING,
  ],
  help:
    "Checks first, and sends nothing unless all hold: the plan's hash and the maker's signature, this\n" +
    "profile's base URL, at most 7 days old, made by a maker the profile's policy lists, every approval\n" +
    'signed over this plan by a listed approver who is not the maker (by name, whatever key), one per\n' +
    'person, enough of them for its totals and for what each recipient account got today, and the\n' +
    "policy's limits. Sending a plan again (or from two terminals, or two machines sharing a ledger) pays\n" +
    'nobody twice. A plan named by hash is read with its approvals from the shared ledger; its report\n' +
    'goes to plan-<first 12 digits of the hash>.report.jsonl in this folder, unless --report says where.',
  examples: ['payctl plan send stipends.plan.json', 'payctl plan send stipends.plan.json --yes --report oct.report.csv'],
  load: () => import('./send.js'),
};
