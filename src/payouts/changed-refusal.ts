/**
 * The refusal of a file whose rows are payouts a batch sent before, changed since
 * (changed-rows.ts ChangedRows finds them): the rows listed, then what to do, said by what was
 * found. A row whose payout may have been paid (journaled with no answer recorded, as a run
 * killed mid-request leaves it, or of unknown outcome) is never offered a file of its own or a
 * batch id of its own: resumed from the file as it was sent, its batch sends it again under its
 * journaled key, so it is paid once. Before, such a row was said "not sent yet" and the advice
 * to send it in a file of its own paid its payee twice (probe S). Rows that are new payouts are
 * offered a file of their own under a batch id of its own, with the command: before, the advice said
 * only "a file of their own", and such a file sent without --batch-id was refused again (probe A53).
 */
import { UsageError } from '../errors.js';
import { commandTemplate, type Invocation } from '../config/command-line.js';
import { plural } from '../output/text.js';
import { listed, type ProblemList } from './batch-problems.js';

/** What ChangedRows found beside the rows, each said in the refusal's advice. */
export interface ChangedSaid {
  /** A row matched a payout of another run (the last day's batches), not of this run's batch. */
  recent: boolean;
  /** A row's amount changed since its payout. */
  amount: boolean;
  /** A row's wallet, or its account beyond its form, changed since its payout. */
  moved: boolean;
  /** A cell differs only in Unicode normalization. */
  normalization: boolean;
  /** A row's own payment failed and the payout found paid its payee since: its retry. */
  retried: boolean;
  /** A payout found was journaled with no answer recorded, or is of unknown outcome: it may have been paid. */
  unsettled: boolean;
}

const NORMALIZATION =
  ' A cell that differs only in Unicode normalization looks the same but is other bytes, and those would be sent: a Mac may re-save accented letters decomposed (NFD: e then U+0301 for é); save the file from a program that writes them composed (NFC), as they were sent.';
const RETRIED =
  ' A row named here failed when it was sent, and the payout named paid its payee since: that was its retry (a file of failed rows corrected before it was sent). Take the row out of the file: sent as a new payout, under a batch id of its own, it would be paid twice.';
const UNSETTLED =
  ' A payout named here with its outcome unknown may have been paid: resume its batch from the file as it was sent (its journaled rows are sent again under their own keys, so each is paid once), or settle it with payctl history reconcile. Never send its row in a file of its own or under a batch id of its own: that would pay it twice.';
/**
 * `ownBatch`: the command that sends a file of those rows under a batch id of its own (a template:
 * the file and the name put in). `recent`: a run without --batch-id, compared with the last day's
 * batches, where the row that paid kept beside them is compared all the same (and refused again):
 * that way is offered only to a named batch, compared with itself (probe D54, F5).
 */
const newRows = (ownBatch: string, recent: boolean) =>
  ' If the rows are new payouts (the next run of a payroll kept in this file), give the run a name of its own (--batch-id NAME): every row of the file is then a new payout. If only these rows are new (a payment beside the one made, not that one changed), ' +
  (recent ? '' : 'keep the row that paid in the file beside them, or ') +
  'put them in a file of their own and send it under a batch id of its own (without one it is compared with the same batches, and refused again): ' +
  ownBatch;

/** The `ownBatch` command of a run: `words` (payout batch, or plan create) with its profile and options, a file of those rows and a name of their own put in. */
export function ownBatchCommand(inv: Invocation, words: string[]): string {
  return commandTemplate(inv, words, '<file of those rows>', ['--batch-id', 'NAME']);
}

/**
 * The refusal (exit 2) of the rows in `problems`, when there are; `paidBy`: `batch "nov"`; `nothing`: "Nothing was sent.", "No plan was written.";
 * `ownBatch`: the command that sends rows that are new payouts in a file of their own (never offered for a payout that may have been paid).
 */
export function changedRefusal(path: string, nothing: string, problems: ProblemList, paidBy: string, said: ChangedSaid, ownBatch: string): UsageError | undefined {
  const n = problems.total;
  if (!n) return undefined;
  return new UsageError(
    `${path}: ${plural(n, 'row pays', 'rows pay')} what ${paidBy} paid before, ${n === 1 ? 'its' : 'their'} other cells changed since. ${nothing}`,
    listed(problems),
    `A spreadsheet that re-saves a file reformats dates and drops zeros.${said.normalization ? NORMALIZATION : ''}` +
      ' Put the cells back as they were sent (or start again from the file that was sent) and run the same command again: rows accepted before are not sent again.' +
      (said.amount ? ' A payout made is not changed by editing its row: a difference to pay is a payout of its own.' : '') +
      (said.moved && !said.amount ? ' A payout made is not changed by editing its row: one from another wallet, or to another account, is a payout of its own.' : '') +
      (said.recent ? ' A run without --batch-id is compared with every batch sent in the last 24 hours, from any file.' : '') +
      (said.retried ? RETRIED : said.unsettled ? UNSETTLED : newRows(ownBatch, said.recent)),
  );
}
