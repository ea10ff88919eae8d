/**
 * A batch file's rows as `plan create` plans them (create.ts), and every check it makes of what
 * they paid before: a row journaled with other details, a file re-saved by a spreadsheet
 * (payouts/lost-digits.ts), rows of a batch changed since (payouts/changed-rows.ts), rows a
 * single payout or another batch sent (create-repeats.ts), rows that pay what a payout of unknown
 * outcome may have paid (payouts/unsettled-repeats.ts). The first of those refusals is
 * returned, not thrown: plan create throws it; `policy check` says it instead of suggesting a
 * plan create that would be refused (one home for what plan create refuses).
 */
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import type { ApiClient } from '../../api/client.js';
import { commandLine, invocationOf, type Invocation } from '../../config/command-line.js';
import { ownBatchCommand } from '../../payouts/changed-refusal.js';
import { batchRows, checkBatch, openBatch, type BatchSource } from '../../payouts/batch-load.js';
import { DuplicateGroups } from '../../payouts/batch-duplicates.js';
import { restoredForms, restoredRefusal, RestoredRows, restoredSent } from '../../payouts/lost-digits.js';
import { ChangedRows, comparedSince, stillUnpaid } from '../../payouts/changed-rows.js';
import { sentWithOtherDetails } from '../../payouts/changed-cells.js';
import { DEFAULT_BATCH_ID, derivedIdempotencyKey } from '../../payouts/identity.js';
import { journalBase } from '../../payouts/journal.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { payoutBody } from '../../payouts/request.js';
import type { Ledger } from '../../payouts/ledger/ledger.js';
import type { makePlan } from '../../plans/plan.js';
import { PlanRepeats, type RowsRoute } from './create-repeats.js';
import { settleCommands } from '../payout/batch-matched.js';
import { planOutArgs } from './common.js';

/** A row of the plan: its request and idempotency key. */
type PlannedPayout = Parameters<typeof makePlan>[0]['payouts'][number];

/** What plan create says when it writes no plan. */
export const NO_PLAN = 'No plan was written.';

/** The rows planned, where they were read and judged, and the refusal of plan create, if any. */
export interface PlannedRows {
  src: BatchSource;
  api: ApiClient;
  journal: Ledger;
  payouts: PlannedPayout[];
  repeats: PlanRepeats;
  duplicates: DuplicateGroups;
  /** Why plan create makes no plan of these rows (exit 2), each said ending with `nothing`. */
  refusal: UsageError | undefined;
}

/**
 * The rows of `opts.file` under its batch id, read with the ledger of the run. `nothing` ends
 * each refusal (plan create: "No plan was written."); `opts.out`, plan create's -o, is carried
 * by the commands a refusal prints. `route`: what the commands a refusal prints send the rows
 * with, a plan (plan create) or the file itself (payout batch: policy check, for a batch that
 * needs no approval); either names the file by its absolute path.
 */
export async function plannedRows(
  opts: { file: string; batchId?: string; out?: string },
  deps: Deps,
  nothing = NO_PLAN,
  route: RowsRoute['kind'] = 'plan',
): Promise<PlannedRows> {
  const batchId = opts.batchId ?? DEFAULT_BATCH_ID;
  const src = openBatch(opts.file, batchId, deps.signal);
  const checked = await checkBatch(src, nothing);
  const api = await deps.api();
  const journal = await openLedger(deps);
  const payouts: PlannedPayout[] = [];
  const conflicts: string[] = [];
  const restored = new RestoredRows();
  const now = await journal.now();
  const changed = new ChangedRows(journal, api.baseUrl, { batchId, path: src.file, recentSince: comparedSince(batchId, now) });
  const repeats = new PlanRepeats(src, journal, api.baseUrl, now, changed.run.recentSince);
  const duplicates = new DuplicateGroups(checked.alike);
  for await (const r of batchRows(src, checked, journal, api.baseUrl, false, { recentSince: changed.run.recentSince })) {
    if (r.earlier && journal.conflict(r.earlier, r.body)) {
      conflicts.push(`row ${r.row}: payout id "${r.request.payoutId}" ${sentWithOtherDetails(r.earlier, r.request, r.body || payoutBody(r.request))}`);
      continue;
    }
    // A file re-saved by a spreadsheet, as payout batch refuses it (payouts/lost-digits.ts).
    const forms = !r.earlier && checked.lost ? restoredForms(r.request, checked.lost) : [];
    if (forms.length) await restoredSent(journal, api.baseUrl, r.row, r.request, forms, restored);
    // A row this batch sent before, its note or metadata reformatted since (payouts/changed-rows.ts).
    if (stillUnpaid(r.earlier)) await changed.check(r, checked.payouts);
    await repeats.add(r);
    duplicates.add(r, r.earlier?.outcome?.kind !== 'accepted');
    // A plan row's id is derived, so its key is too (identity.ts): a plan sent from another machine or a restored backup reuses it.
    payouts.push({
      row: r.row,
      request: r.request,
      idempotencyKey: r.earlier?.idempotencyKey ?? derivedIdempotencyKey(journalBase(api.baseUrl), r.request.payoutId, r.body || payoutBody(r.request)),
    });
  }
  const inv = invocationOf(deps.globals, deps.env);
  const refusal = conflicts.length
    ? new UsageError(`${opts.file}: ${conflicts.length} row(s) conflict with earlier payouts. ${nothing}`, conflicts)
    : restored.total
      ? restoredRefusal(opts.file, restored, nothing, batchId)
      : (changed.refusal(opts.file, nothing, ownBatchCommand(inv, route === 'batch' ? ['payout', 'batch'] : ['plan', 'create'])) ??
        repeats.unsettled.refusal(opts.file, nothing, settleCommands(inv, deps.clock), deps.clock.now()) ??
        (await repeats.otherBatchRefusal(opts.batchId, inv, deps.clock.now(), nothing, rowsRoute(route, inv, src.file, opts.out))));
  return { src, api, journal, payouts, repeats, duplicates, refusal };
}

/** The commands a refusal of `file`'s rows prints, for a batch id: plan create (with the -o it needs: common.ts planOutArgs), or payout batch. */
function rowsRoute(kind: RowsRoute['kind'], inv: Invocation, file: string, out: string | undefined): RowsRoute {
  if (kind === 'batch') return { kind, command: (id) => commandLine(inv, ['payout', 'batch'], [file, '--batch-id', id]) };
  return { kind, command: (id) => commandLine(inv, ['plan', 'create'], [file, '--batch-id', id, ...planOutArgs(file, id, out)]) };
}
