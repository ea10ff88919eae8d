/**
 * The run's wallets that `payout batch` plans with (its wallet check and balances), read before
 * anything is sent. When that read fails (the service's 5xx, a time-out: unkeyed-wallet.ts
 * readFault) and rows of the batch are still of unknown outcome, the run stops as a batch resume
 * that leaves such rows unknown does: exit 4 OUTCOME_UNKNOWN with the read's cause, the rows named
 * (`--json`: `errors`, one a row) and the command to run again when the service answers, never
 * exit 1 "The service failed" that names none while payouts may or may not have been made. Rows
 * journaled by an older payctl without their key's id, whose resend needs those very wallets to
 * tell whether this run's key sent them (unkeyed-wallet.ts), are said so (probe R58a finding 4);
 * rows this build journaled are said to wait for the batch's wallet check (probe R60 finding 4).
 * Nothing is sent: every row needs the wallet check. A batch with no such row fails as the read did.
 * A read that answers without the wallet such a row of this run's key was sent from stops the run
 * so too (planRules), never as a row to fix (probe R62 finding 3).
 */
import type { ApiClient } from '../../api/client.js';
import type { Deps } from '../../deps.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { fieldProblem, OutcomeUnknownError, rowProblem } from '../../errors.js';
import { batchRows, type BatchCheck, type BatchSource, type PlanRules, type UnlistedRow } from '../../payouts/batch-load.js';
import type { JournalEntry, Ledger } from '../../payouts/journal.js';
import { isUnresolved } from '../../payouts/unresolved.js';
import { checkedWallet, readFault, rowsSaid, unreadRetry, unreadRowsSaid } from '../../payouts/unkeyed-wallet.js';
import type { Wallet } from '../../service/schemas.js';
import { text } from '../../output/text.js';
import { BatchCommands } from './batch-commands.js';

/** What of the command line a batch stop's printed command carries. */
type RunOpts = { batchId?: string; report?: string };

/** A row of unknown outcome: its number and payout id. */
type UnknownRow = { row: number; payoutId: string };

/** What of a batch run the read needs: its rows, and what makes its command. */
export interface WalletsRun {
  src: BatchSource;
  checked: BatchCheck;
  batchId: string;
  concurrency: number;
  defaultReport: string;
  reportPath: string;
}

/** The run's wallets; a failed read with such rows is their OutcomeUnknownError, any other failure as it was. */
export async function batchWallets(deps: Deps, api: ApiClient, journal: Ledger, run: WalletsRun, opts: RunOpts): Promise<Wallet[]> {
  try {
    return (await api.wallets()).wallets;
  } catch (err) {
    const fault = readFault(err);
    if (!fault) throw err;
    const rows: UnknownRow[] = [];
    const older: number[] = [];
    const keyed: number[] = [];
    for await (const r of batchRows(run.src, run.checked, journal, api.baseUrl, true)) {
      if (!r.earlier || !isUnresolved(r.earlier)) continue;
      (checkedWallet(r.earlier) === undefined ? keyed : older).push(r.row);
      rows.push({ row: r.row, payoutId: r.earlier.payoutId });
    }
    if (!rows.length) throw err;
    const said = text(fault.said);
    const why = [older.length ? unreadRowsSaid(older, said) : '', keyed.length ? unreadRowsSaid(keyed, said, false) : ''].filter(Boolean).join('; ');
    return unknownRowsStop(deps, run, opts, rows, { why, cause: fault.cause, hint: unreadRetry });
  }
}

/**
 * planBatch's rules for the run: `held` as given, and rows of unknown outcome this run's key sent
 * whose wallet the run's wallets, read without a fault, do not list (the key's access changed, a
 * partial answer): stopped as a failed read stops them, exit 4 and nothing sent (probe R62 finding 3).
 * They were refused as "not one of your wallets", exit 2, "fix the rows": a new wallet id would pay them again.
 */
export function planRules(deps: Deps, run: WalletsRun, opts: RunOpts, held: (e: JournalEntry) => boolean): PlanRules {
  const balances = commandLine(invocationOf(deps.globals, deps.env), ['balances']);
  const unlisted = (rows: UnlistedRow[]): Error => {
    const wallets = [...new Set(rows.map((r) => r.walletId))];
    const them = rows.length === 1 ? 'it' : 'them';
    const named = `wallet${wallets.length === 1 ? '' : 's'} ${wallets.slice(0, 5).map(text).join(', ')}${wallets.length > 5 ? ', ...' : ''}`;
    const why = `${rowsSaid(
      rows.map((r) => r.row),
      ' of unknown outcome',
    )} not sent: this run's account's wallets, as the service listed them just now, do not list ${named} this run's API key sent ${them} from (the service may have answered in part, or the key's access changed since); left unknown (${rows.length === 1 ? 'it' : 'they'} may or may not have been made), not ${rows.length === 1 ? 'a row' : 'rows'} to fix: another wallet id would send a new payout`;
    const hint = (command: string) => `Check that ${balances} lists ${named}, then run it again:\n  ${command}`;
    return unknownRowsStop(deps, run, opts, rows, { why, hint });
  };
  return { held, unlisted };
}

/**
 * Rows of unknown outcome a batch stops at before its plan, nothing sent: exit 4 OUTCOME_UNKNOWN
 * saying `why` (with the read's `cause`, when a fault left them so), each row named (`--json`:
 * `errors`), and `hint` made of the command that runs the batch again.
 */
function unknownRowsStop(deps: Deps, run: WalletsRun, opts: RunOpts, rows: UnknownRow[], s: { why: string; cause?: string; hint: (command: string) => string }): never {
  const inv = invocationOf(deps.globals, deps.env);
  const { batchId, concurrency, defaultReport, reportPath } = run;
  const commands = new BatchCommands({ inv, clock: deps.clock, file: run.src.file, batchId, concurrency, report: opts.report, defaultReport, reportPath });
  throw new OutcomeUnknownError(`Cannot send this batch: ${s.why}. Nothing was sent.`, {
    payoutId: rows.length === 1 ? rows[0]!.payoutId : undefined,
    ...(s.cause !== undefined ? { causeCode: s.cause } : {}),
    hint: s.hint(commands.batch(opts.batchId)),
    rows: rows.map((r) => rowProblem(r.row, fieldProblem('payout_id', `"${text(r.payoutId)}" is of unknown outcome, not sent`, ' '))),
  });
}
