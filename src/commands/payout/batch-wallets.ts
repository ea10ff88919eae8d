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
 */
import type { ApiClient } from '../../api/client.js';
import type { Deps } from '../../deps.js';
import { invocationOf } from '../../config/command-line.js';
import { fieldProblem, OutcomeUnknownError, rowProblem, type Problem } from '../../errors.js';
import { batchRows, type BatchCheck, type BatchSource } from '../../payouts/batch-load.js';
import type { Ledger } from '../../payouts/journal.js';
import { isUnresolved } from '../../payouts/unresolved.js';
import { checkedWallet, readFault, unreadRetry, unreadRowsSaid } from '../../payouts/unkeyed-wallet.js';
import type { Wallet } from '../../service/schemas.js';
import { text } from '../../output/text.js';
import { BatchCommands } from './batch-commands.js';

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
export async function batchWallets(deps: Deps, api: ApiClient, journal: Ledger, run: WalletsRun, opts: { batchId?: string; report?: string }): Promise<Wallet[]> {
  try {
    return (await api.wallets()).wallets;
  } catch (err) {
    const fault = readFault(err);
    if (!fault) throw err;
    const rows: Problem[] = [];
    const ids: string[] = [];
    const older: number[] = [];
    const keyed: number[] = [];
    for await (const r of batchRows(run.src, run.checked, journal, api.baseUrl, true)) {
      if (!r.earlier || !isUnresolved(r.earlier)) continue;
      (checkedWallet(r.earlier) === undefined ? keyed : older).push(r.row);
      ids.push(r.earlier.payoutId);
      rows.push(rowProblem(r.row, fieldProblem('payout_id', `"${text(r.earlier.payoutId)}" is of unknown outcome, not sent`, ' ')));
    }
    if (!rows.length) throw err;
    const said = text(fault.said);
    const inv = invocationOf(deps.globals, deps.env);
    const { batchId, concurrency, defaultReport, reportPath } = run;
    const commands = new BatchCommands({ inv, clock: deps.clock, file: run.src.file, batchId, concurrency, report: opts.report, defaultReport, reportPath });
    throw new OutcomeUnknownError(
      `Cannot send this batch: ${[older.length ? unreadRowsSaid(older, said) : '', keyed.length ? unreadRowsSaid(keyed, said, false) : ''].filter(Boolean).join('; ')}. Nothing was sent.`,
      {
        payoutId: ids.length === 1 ? ids[0] : undefined,
        causeCode: fault.cause,
        hint: unreadRetry(commands.batch(opts.batchId)),
        rows,
      },
    );
  }
}
