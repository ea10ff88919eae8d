/**
 * What `payctl policy propose|approve|show` share (README "Working as a team": the team's
 * policy): the shared ledger's policy store (with the local journal, a usage error saying how to
 * set a shared ledger), a proposal named by its hash (`sha256:<hex>`, its hex alone, or at least
 * its first 12 hex digits), and the rule a change is judged by, said for people.
 */
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import type { PolicyStore, StoredPolicy } from '../../payouts/ledger/ledger.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { text } from '../../output/text.js';

/** The approvals a change needs, for help texts and messages. */
/** The shared ledger's policy store; with the local journal, a usage error (exit 2) naming the command that sets one. */
export async function teamStore(deps: Deps): Promise<PolicyStore> {
  const ledger = await openLedger(deps);
  if (ledger.policies) return ledger.policies;
  throw new UsageError(
    "The team's policy needs a shared ledger: this profile's ledger is the local journal of this config folder. Nothing was changed.",
    [],
    `Point the profile at the team's ledger (the URL on standard input):\n  ${commandLine(invocationOf(deps.globals, deps.env), ['config', 'set', 'ledger'], ['--stdin'])}`,
  );
}

/** A hash as typed: `sha256:` optional, 12 to 64 hex digits; its `sha256:<hex>` prefix. */
export function hashPrefix(arg: string, deps: Deps): string {
  const m = /^(?:sha256:)?([0-9a-fA-F]{12,64})$/.exec(arg.trim());
  if (!m)
    throw new UsageError(
      `${text(arg)} is not the hash of a proposal (sha256: and 64 hex digits, or at least the first 12). Nothing was changed.`,
      [],
      `See the proposals with: ${showCommand(deps)}`,
    );
  return `sha256:${m[1]!.toLowerCase()}`;
}

/** The command that approves a proposal, as printed (it works as printed on any machine sharing the ledger). */
export function approveCommand(deps: Deps, hash: string): string {
  return commandLine(invocationOf(deps.globals, deps.env), ['policy', 'approve'], [hash]);
}

/**
 * The command another approver signs a proposal with (policy propose's report, policy approve's
 * "another approver signs"), as plan approve's (plan/common.ts approverCommand): run on their own
 * machine, so it carries none of this run's options (the proposer's `--profile team` may be no
 * profile there); `where` says what it runs with.
 */
export function othersApproveCommand(hash: string): { command: string; where: string } {
  return { command: commandLine({}, ['policy', 'approve'], [hash]), where: 'on their own machine, with their own key and a profile that shares this ledger' };
}

/** The command that shows the team's policy and its proposals. */
export function showCommand(deps: Deps): string {
  return commandLine(invocationOf(deps.globals, deps.env), ['policy', 'show']);
}

/** "Aminata Kamara (SHA256:…) at 2026-…". */
export const byLine = (who: { name: string; fingerprint: string }, at: string) => `${who.name} (${who.fingerprint}) at ${at}`;

/** The proposals not adopted, oldest first. */
export const proposalsOf = (rows: StoredPolicy[]) => rows.filter((r) => r.version === null);
