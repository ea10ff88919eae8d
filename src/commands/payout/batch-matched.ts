/**
 * What `payout batch` says of its rows that pay what other payouts paid (payouts/unsettled-repeats.ts):
 * the commands its refusals print (of rows repeating a payout of unknown outcome: a batch run's
 * resume, history reconcile; of rows changed since: a file of new rows under a batch id of its own), and the plan's notes of the rest: rows paid again as new payouts
 * under this batch id, and rows resent under their own journaled entry of unknown outcome,
 * which a payout already made answers (not paid again). Before, such a resumed row was said
 * "pays it again as new payouts" (probe A53).
 */
import type { Clock } from '../../clock.js';
import { commandLine, type Invocation } from '../../config/command-line.js';
import { ownBatchCommand } from '../../payouts/changed-refusal.js';
import type { BatchPlan } from '../../payouts/batch-load.js';
import { describeRun } from '../../payouts/repeats.js';
import type { SettleCommands } from '../../payouts/unsettled-repeats.js';
import type { Style } from '../../output/style.js';
import { plural } from '../../output/text.js';
import { resumeCommand } from './batch-commands.js';

/** The refusal's commands, with the run's profile and options (docs/architecture.md, "Printed commands"). */
export function settleCommands(inv: Invocation, clock: Clock): SettleCommands {
  return {
    resume: (batch) => resumeCommand(inv, clock, batch),
    reconcile: (id) => commandLine(inv, ['history', 'reconcile'], id === undefined ? [] : ['--payout-id', id]),
    ownBatch: ownBatchCommand(inv, ['payout', 'batch']),
  };
}

/** The plan's notes of rows that pay what payouts sent under other ids paid (none: ''). */
export function matchedNotes(load: BatchPlan, batchId: string, st: Style): string {
  let out = '';
  const { newMatch: fresh, resentMatch: resent } = load;
  if (fresh.rows) {
    out += `${st.yellow('Note:')} ${plural(fresh.rows, 'row pays', 'rows pay')} the same as payouts sent ${fresh.runs.map(describeRun).join('; ')}; batch "${batchId}" pays ${fresh.rows === 1 ? 'it' : 'them'} again as new payouts.\n`;
  }
  if (resent.rows) {
    const one = resent.rows === 1;
    out +=
      `${st.yellow('Note:')} ${plural(resent.rows, 'row pays', 'rows pay')} the same as payouts sent ${resent.runs.map(describeRun).join('; ')}; ` +
      `batch "${batchId}" sends ${one ? 'it' : 'them'} again under the key${one ? '' : 's'} ${one ? 'it was' : 'they were'} journaled with in this batch (outcome unknown): a payout already made is answered, not paid again.\n`;
  }
  return out;
}
