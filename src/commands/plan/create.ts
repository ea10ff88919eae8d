/**
 * `payctl plan create <file>`: a batch file written down as a plan instead of sent: every
 * row's exact body and idempotency key (a row journaled before keeps its key, so a plan made
 * after a partial run resumes it), totals, the maker's key, signed. Nothing is sent.
 */
import { randomUUID } from 'node:crypto';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { write, type Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { batchRows, checkBatch, openBatch } from '../../payouts/batch-load.js';
import { checkBatchId, DEFAULT_BATCH_ID } from '../../payouts/identity.js';
import { Journal } from '../../payouts/journal.js';
import { requireSigningKey } from '../../plans/keys.js';
import { makePlan, type Plan } from '../../plans/plan.js';
import { commandLine, invocationOf } from '../../output/command-line.js';
import { formatAmount } from '../../money/amount.js';
import { text } from '../../output/text.js';
import { writeNewPlan } from './common.js';

export interface PlanCreateOptions {
  file: string;
  batchId?: string;
  out?: string;
}

/** `stipends.csv` -> `stipends.plan.json` beside it. */
function defaultPlanPath(file: string): string {
  return join(dirname(file), `${basename(file, extname(file))}.plan.json`);
}

export async function run(opts: PlanCreateOptions, deps: Deps): Promise<number> {
  const batchId = opts.batchId ?? DEFAULT_BATCH_ID;
  const badId = opts.batchId !== undefined ? checkBatchId(opts.batchId) : undefined;
  if (badId) throw new UsageError(`Cannot make this plan: ${badId}.`);
  const maker = requireSigningKey(configDir(deps.env));
  const src = openBatch(opts.file, batchId);
  const checked = await checkBatch(src);
  const api = await deps.api();
  const journal = new Journal(configDir(deps.env));
  const payouts: Parameters<typeof makePlan>[0]['payouts'] = [];
  const conflicts: string[] = [];
  for await (const r of batchRows(src, checked, journal, api.baseUrl)) {
    if (r.earlier && journal.conflict(r.earlier, r.body)) {
      conflicts.push(`row ${r.row}: payout id "${r.request.payoutId}" was already sent with other details`);
      continue;
    }
    payouts.push({ row: r.row, request: r.request, idempotencyKey: r.earlier?.idempotencyKey ?? randomUUID() });
  }
  if (conflicts.length) throw new UsageError(`${opts.file}: ${conflicts.length} row(s) conflict with earlier payouts. No plan was written.`, conflicts);
  const plan = makePlan({ baseUrl: api.baseUrl, batchId, source: basename(src.file), now: deps.clock.now(), maker, payouts });
  const out = resolve(opts.out ?? defaultPlanPath(src.file));
  writeNewPlan(out, plan);
  await reportPlan(deps, plan, out);
  return 0;
}

/** What a person sees once a plan is written (plan create, payout create --plan-out): where it is and what comes next. */
export async function reportPlan(deps: Deps, plan: Plan, out: string): Promise<void> {
  const inv = invocationOf(deps.globals, deps.env);
  if (deps.globals.json) {
    await write(deps.io.stdout, JSON.stringify({ plan: out, hash: plan.hash, batch_id: plan.batch_id, payouts: plan.payouts.length, totals: plan.totals }) + '\n');
    return;
  }
  const totals = plan.totals.map((t) => `${formatAmount(t.total, t.currency)} ${t.currency} from ${text(t.wallet_id)} (${t.count})`).join('; ');
  deps.log.success(`Plan written to ${out}: ${plan.payouts.length} payout${plan.payouts.length === 1 ? '' : 's'}, ${totals}. Nothing was sent.`);
  deps.log.info(
    `Hash ${plan.hash}\n` +
      `Review it:          ${commandLine(inv, ['plan', 'show'], [out])}\n` +
      `An approver signs:  ${commandLine(inv, ['plan', 'approve'], [out])}\n` +
      `Then send it:       ${commandLine(inv, ['plan', 'send'], [out])}`,
  );
}
