/**
 * `payctl plan send <plan>`: sends exactly the plan's bodies under the plan's keys, once
 * every check holds: the plan is whole (hash, maker's signature, bodies), it is for this
 * profile's base URL, it is at most 7 days old, its maker is a maker the profile's policy
 * lists, every approval the plan file carries counts under that policy (signed over this plan,
 * by a listed approver, one per person, not the maker by name whatever key they used; one the
 * shared ledger keeps that does not count is left out, said on stderr) and there are
 * enough of them for its totals and for what each recipient account gets today
 * (approvalsNeeded: splitting counted), and no limit is broken. Any failed check: exit 2, nothing sent. Then
 * the rows go through the same journal, retries, progress and report as a batch; a payout
 * journaled before under another key or with other details is refused before anything
 * leaves, so sending a plan twice, or from two terminals at once, pays nobody twice; and what
 * was paid after the plan was made is checked again under the wallets' locks, in one step with
 * the journaling, so of two plans paying the same people sent at once one is refused. The plan
 * is a file, or a plan of the shared ledger named by its hash (source.ts), with the approvals
 * stored there; "today" is the ledger's day (the database's for a shared ledger). The plan
 * read and judged under the policy: send-judge.ts.
 */
import { resolve } from 'node:path';
import type { Deps } from '../../deps.js';
import type { ApiClient } from '../../api/client.js';
import { CancelledError, CliError, LocalError, UsageError } from '../../errors.js';
import { defaultReportPath, freshReportPath, reportHolder, reportOwner, reportProblems } from '../../payouts/report.js';
import { claimRows, type BatchItem } from '../../payouts/batch.js';
import { ChangedRows, comparedRun, comparedSince, FilePayouts, stillUnpaid } from '../../payouts/changed-rows.js';
import { contestOf } from '../../payouts/paid-meanwhile.js';
import { LOOKAHEAD } from '../../payouts/batch-lookahead.js';
import { DEFAULT_BATCH_ID, payoutFingerprint, repeatKey, repeatKeys } from '../../payouts/identity.js';
import { describeSentIn, paidWording, samePayoutsSent } from '../../payouts/repeats.js';
import { isUnresolved } from '../../payouts/lookup.js';
import { plural } from '../../output/text.js';
import { hash64, rowsKey } from '../../payouts/batch-source.js';
import { listed } from '../../payouts/batch-problems.js';
import { policyCountsTheDay, runLockOptions } from '../../payouts/wallet-lock.js';
import { batchLock } from '../../payouts/batch-lock.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import { formatAmount } from '../../money/amount.js';
import { sendRows } from '../payout/send-rows.js';
import { nothingSentOnInterrupt, yesRequired } from '../../output/prompter.js';
import { madeAt, makerClockNote } from './source.js';
import { readAndJudge, type Judged, type Refuse } from './send-judge.js';
import { DEFAULT_CONCURRENCY } from '../payout/concurrency.js';

export interface PlanSendOptions {
  plan: string;
  concurrency?: number;
  report?: string;
  yes?: boolean;
  /** Under a policy's daily total, go on although journal entries are missing: acknowledged, no longer counted (plans/limits.ts). */
  acknowledgeMissing?: boolean;
}

/** When a plan was made (source.ts madeAt), and what its payouts are compared with (comparedWith). */
interface Compared {
  made: Date;
  recentSince: Date | undefined;
  planned: FilePayouts;
}

/** What the ledger's checks of a plan read: plan send's Judged, or a plan that policy check and plan show judge (ledgerRefusal). */
type Planned = Pick<Judged, 'plan' | 'file' | 'payouts' | 'storedAt' | 'journal'> & { api: Pick<ApiClient, 'baseUrl'> };

export async function run(opts: PlanSendOptions, deps: Deps): Promise<number> {
  const refuse: Refuse = (message, problems = [], hint) => new UsageError(`Cannot send the plan ${opts.plan}: ${message}. Nothing was sent.`, problems, hint);
  const j = await readAndJudge(opts, deps, refuse);
  // Sent holding its batch's lock (batch-lock.ts), as payout batch: a run of the same batch
  // beside it (the plan sent twice, or the batch's file with payout batch) waits for this one.
  const batch = batchOf(j);
  const lock = batchLock(deps);
  // A plan made without --batch-id also locks what its payouts pay, as its file's run would (batch-source.ts rowsKey).
  const rows = batch.id === DEFAULT_BATCH_ID ? rowsKey(BigUint64Array.from(j.payouts, (p) => hash64(repeatKey(p.request)))) : undefined;
  return j.journal.withBatchLock({ ...batch, rows }, () => send(opts, deps, j, batch, refuse, lock.lost), lock.options);
}

/** The batch a plan's payouts are journaled as: its batch id (or one of the plan's own), and its file (or its hash, for a plan of the shared ledger). */
function batchOf(j: Planned): { id: string; file: string } {
  const plan = j.plan;
  return { id: plan.batch_id ?? `plan-${plan.hash.slice(7, 19)}`, file: j.file === undefined ? plan.hash : resolve(j.file) };
}

/** The plan's payouts checked against the journal, confirmed, journaled and sent. */
async function send(opts: PlanSendOptions, deps: Deps, j: Judged, batch: { id: string; file: string }, refuse: Refuse, lockLost: AbortSignal): Promise<number> {
  // Payouts journaled from now on (the lock held) were never sent before (sendRows: a refused key then sent nothing).
  // By the ledger's clock, which dates them (the database's, for a shared ledger).
  const since = await j.journal.now();
  const items = await journaledAsPlanned(j, refuse);
  const reportPath = await reportPlace(opts, deps, j, batch, items, refuse);
  const compared = await comparedWith(j, batch, items);
  await refusePaidSince(j, items, batch, compared, refuse, deps);
  const alreadyAccepted = items.filter((it) => it.earlier?.outcome?.kind === 'accepted').length;
  const toSend = items.length - alreadyAccepted;
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const rerun = commandLine(
    invocationOf(deps.globals, deps.env),
    ['plan', 'send'],
    [
      fileOperand(opts.plan),
      ...(concurrency !== DEFAULT_CONCURRENCY ? ['--concurrency', String(concurrency)] : []),
      ...(opts.report !== undefined ? ['--report', reportPath] : []),
      '--yes',
    ],
  );
  // Journaled with each row, so that history reconcile's resume (batch-commands.ts resumeCommand) repeats them.
  const runOptions = { ...(concurrency !== DEFAULT_CONCURRENCY ? { concurrency } : {}), ...(opts.report !== undefined ? { report: reportPath } : {}) };
  if (toSend > 0 && !opts.yes) await confirmSend(deps, j, toSend, refuse);
  if (toSend === 0) deps.log.info(`Nothing to send: every payout of the plan was accepted earlier.`);
  // What was paid since the plan was made is read again, and the policy's day counted again when
  // it counts one, in one step with the journaling of the payouts to send, under the wallets'
  // locks (wallet-lock.ts): another plan paying the same people, sent at the same moment (its own
  // batch's lock is another), passed the check above too; under the lock, the second sees the
  // first's claims and is refused. Under a policy that counts the day, parallel runs of payout
  // create and payout batch count these claims in their limits the same way; sending comes
  // after, the claims already count.
  const sending =
    toSend > 0
      ? await j.journal.withWalletLocks(
          items.filter((it) => it.earlier?.outcome?.kind !== 'accepted').map((it) => it.request.walletId),
          async () => {
            await refusePaidSince(j, items, batch, compared, refuse, deps);
            if (policyCountsTheDay(j.policy)) await j.judge(await j.journal.now(), true);
            return claimed(items, {
              journal: j.journal,
              baseUrl: j.api.baseUrl,
              now: deps.clock.now(),
              batch: { ...batch, ...runOptions },
              profile: deps.globals.profile,
              // Who sent each payout (sender-profile.ts): the key's id, and whether it is from PAYCTL_API_KEY.
              ...j.api.runKey,
            });
          },
          runLockOptions(deps),
        )
      : items;
  // A plan made without --batch-id looks for its payouts among other runs' as it journals them (paid-meanwhile.ts).
  const contest = contestOf(batch.id, batch.file, { since: compared.recentSince, began: since, holds: (id) => compared.planned.has(id) });
  return sendRows(deps, {
    items: sending,
    rows: items.length,
    toSend,
    alreadyAccepted,
    api: j.api,
    journal: j.journal,
    concurrency,
    batch,
    reportPath,
    rerun,
    since,
    lockLost,
    contest,
  });
}

/** What a plan's payouts are compared with: when it was made (source.ts madeAt), and (changed-rows.ts) the batches of the day before and since, its own payouts apart. */
async function comparedWith(j: Planned, batch: { id: string }, items: BatchItem[]): Promise<Compared> {
  const made = await madeAt(j, j.journal);
  return { made, recentSince: comparedSince(batch.id, made), planned: FilePayouts.ofIds(items.map((it) => it.request.payoutId)) };
}

/**
 * What plan send would refuse a plan for in the ledger as it is now, before sending anything:
 * payouts sent before differently (journaledAsPlanned), or paid since the plan was made
 * (refusePaidSince). policy check and plan show say it with these very checks, read without
 * the batch's lock; undefined when none holds.
 */
export async function ledgerRefusal(j: Planned, deps: Deps): Promise<UsageError | undefined> {
  let said: UsageError | undefined;
  const refuse: Refuse = (message, problems = [], hint) => (said = new UsageError(message, problems, hint));
  try {
    const batch = batchOf(j);
    const items = await journaledAsPlanned(j, refuse);
    await refusePaidSince(j, items, batch, await comparedWith(j, batch, items), refuse, deps);
    return undefined;
  } catch (err) {
    if (said && err === said) return said;
    throw err;
  }
}

/**
 * The plan's payouts as batch rows, each with its journal entry of an earlier run. Every payout
 * journaled before must be this very payout under this very key: otherwise the plan's key would
 * not be the one the service saw first.
 */
async function journaledAsPlanned(j: Planned, refuse: Refuse): Promise<BatchItem[]> {
  const conflicts: string[] = [];
  const items: BatchItem[] = [];
  // In the plan's order (as the conflicts are listed), asked of the ledger a group at a time.
  for (const [i, p] of j.payouts.entries()) {
    if (i % LOOKAHEAD === 0)
      await j.journal.prefetch?.(
        j.api.baseUrl,
        j.payouts.slice(i, i + LOOKAHEAD).map((x) => x.payout_id),
        [],
      );
    const earlier = await j.journal.get(j.api.baseUrl, p.payout_id);
    if (earlier) {
      const c = j.journal.conflict(earlier, p.body, p.idempotency_key);
      if (c)
        conflicts.push(
          `payout ${i + 1} (${p.payout_id}): already sent ${c.what === 'details' ? 'with other details' : `under another idempotency key (${earlier.idempotencyKey})`}`,
        );
    }
    // With what it pays (its fingerprint): found by the repeat guard and batch status as a batch's row is.
    items.push({ row: p.row ?? i + 1, request: p.request, body: p.body, idempotencyKey: p.idempotency_key, fingerprint: payoutFingerprint(p.request), earlier });
  }
  if (conflicts.length)
    throw refuse(
      `${conflicts.length} payout${conflicts.length === 1 ? ' was' : 's were'} sent before differently`,
      conflicts,
      // What to do, not the usage: the plan as typed was fine, the ledger holds those ids already.
      'The payouts sent under those ids are in `payctl history`. To pay these rows as new payouts, make the plan again with another --batch-id (payctl plan create) and have it approved.',
    );
  return items;
}

/**
 * Payouts of the plan still to send that pay what its batch paid since, from another version
 * of the file (changed-rows.ts): a payroll re-saved by a spreadsheet and sent with `payout
 * batch` while the plan waited for its approvals. A plan made without --batch-id is compared,
 * as its file was by plan create, with every batch run of the day before it was made and
 * since. The plan would pay those people again: it is refused, each payout named with the one
 * that paid (plan create refuses such a file itself). Checked before the person is asked, and
 * again under the wallets' locks just before the payouts are journaled (`send`), against what
 * the ledger holds then: another plan's payouts journaled meanwhile count.
 */
async function refusePaidSince(
  j: Planned,
  items: BatchItem[],
  batch: { id: string; file: string },
  { made, recentSince, planned }: Compared,
  refuse: Refuse,
  deps: Deps,
): Promise<void> {
  const changed = new ChangedRows(j.journal, j.api.baseUrl, { batchId: batch.id, path: batch.file, ...(recentSince ? { recentSince } : {}) });
  const batchRun = comparedRun(batch.id, batch.file);
  const after: string[] = [];
  let paidAfter = 0;
  let firstPaid = Infinity;
  // Of those, payouts of unknown outcome: said as may have paid, with the reconcile that settles each (probe D54, F7).
  const unsettled: string[] = [];
  // Paid by another payout after the plan was made (payout create, a batch): its approvers never saw that.
  // Made: the earlier of the maker's clock and the shared ledger's, which dates the payouts; the ledger's alone when the maker's was behind (madeAt).
  for (const [i, it] of items.entries()) {
    if (i % LOOKAHEAD === 0) {
      const group = items.slice(i, i + LOOKAHEAD);
      const keys = [...new Set(group.flatMap((x) => repeatKeys(x.request)))];
      // The same repeat keys in any entry: what each pays as compared (samePayoutsSent).
      await j.journal.prefetch?.(
        j.api.baseUrl,
        [],
        [...new Set(group.map((x) => x.fingerprint!))],
        { batch: batchRun, repeatKeys: keys, recentSince: changed.run.recentSince },
        keys,
      );
    }
    if (!stillUnpaid(it.earlier)) continue;
    await changed.check({ row: it.row, request: it.request, derivedId: true, planned: true, earlier: it.earlier }, planned);
    // The fingerprint journaledAsPlanned gave each item.
    const since = (await samePayoutsSent(j.journal, j.api.baseUrl, it.fingerprint!, (e) => e.payoutId === it.request.payoutId, it.request)).filter(
      (e) => Date.parse(e.createdAt) > made.getTime(),
    );
    for (const e of since) firstPaid = Math.min(firstPaid, Date.parse(e.createdAt));
    const paid = since.at(-1);
    if (paid && isUnresolved(paid) && unsettled.length < 3) unsettled.push(paid.payoutId);
    if (paid && paidAfter++ < 10)
      after.push(
        `payout ${it.request.payoutId}${it.row ? ` (row ${it.row})` : ''} pays what payout ${paid.payoutId} ${isUnresolved(paid) ? paidWording(paid, 'the same') : 'paid'} ${describeSentIn(paid)}`,
      );
  }
  const n = changed.problems.total;
  if (n) {
    throw refuse(
      `${n} of its payouts pay what ${changed.paidBy()} paid since, from another version of its file`,
      listed(changed.problems).map((p) => p.text),
      `See what the batch paid with: ${commandLine(invocationOf(deps.globals, deps.env), ['history'], ['--batch-id', changed.batches[0]!])}\nIf some of the plan is still to pay, make a new plan from the file that was paid.`,
    );
  }
  if (after.length) {
    // A maker's clock a little behind the ledger's can be why (source.ts makerClockNote).
    const clock = makerClockNote(j, firstPaid);
    throw refuse(
      `${plural(paidAfter, 'payout of it pays', 'payouts of it pay')} what was paid after the plan was made (${made.toISOString()}), which its approvers did not see`,
      after,
      `${clock ? `${clock}\n` : ''}${unsettled.map((id) => `Settle payout ${id} first (it may have been paid): ${commandLine(invocationOf(deps.globals, deps.env), ['history', 'reconcile'], ['--payout-id', id])}\n`).join('')}See what was paid: ${commandLine(invocationOf(deps.globals, deps.env), ['history'], ['--since', made.toISOString().slice(0, 10)])}\nIf some of it is still to pay, make a new plan of that, and have it approved.`,
    );
  }
}

/** Where the report goes (for `batch`); never over another run's report. */
async function reportPlace(opts: PlanSendOptions, deps: Deps, j: Judged, batch: { id: string; file: string }, items: BatchItem[], refuse: Refuse): Promise<string> {
  const plan = j.plan;
  // A plan of the shared ledger has no file: its report goes in this folder, named after its hash.
  const input = resolve(j.file ?? `plan-${plan.hash.slice(7, 19)}.json`);
  const reportPath = resolve(opts.report ?? defaultReportPath(input));
  const badReport = reportProblems(reportPath, input, opts.report === undefined ? 'the report' : `--report ${reportPath}`);
  if (badReport.length) throw refuse('its report cannot be written', badReport, 'Choose another --report path.');
  // Never over another run's report: one of another batch, or with payouts this plan does not hold.
  const planIds = new Set(items.map((it) => it.request.payoutId));
  const held = await reportOwner(await reportHolder(reportPath), batch.id, () => Promise.resolve((id: string) => planIds.has(id)));
  if (held !== undefined) {
    const fresh = freshReportPath(reportPath, batch.id);
    throw refuse(
      `its report cannot be written: ${reportPath} ${held}, and payctl never writes over another run's report`,
      [],
      `Choose another --report path, for example:\n  ${commandLine(invocationOf(deps.globals, deps.env), ['plan', 'send'], [fileOperand(opts.plan), '--report', fresh])}`,
    );
  }
  return reportPath;
}

/** Without --yes: what is about to be sent, then an explicit yes (refused without a terminal; Ctrl-C sends nothing). */
async function confirmSend(deps: Deps, j: Judged, toSend: number, refuse: Refuse): Promise<void> {
  if (!deps.io.interactive) {
    throw refuse('1 problem', [yesRequired(deps.globals)]);
  }
  const totals = j.plan.totals.map((t) => `${formatAmount(t.total, t.currency)} ${t.currency} from ${t.wallet_id}`).join('; ');
  deps.log.info(
    `Plan ${j.plan.hash}: ${toSend} payout${toSend === 1 ? '' : 's'} to send (${totals}), made by ${j.approvals.maker!.name}, approved by ${j.approvals.valid.map((v) => v.name).join(', ') || 'nobody (none needed)'}.`,
  );
  // Ctrl-C at the question: exit 130, and nothing was sent.
  const ok = await (await deps.prompter()).confirm({ message: `Send ${toSend} payout${toSend === 1 ? '' : 's'}?`, default: false }).catch((err: unknown) => {
    throw nothingSentOnInterrupt(err);
  });
  if (!ok) throw new CancelledError();
}

/** The payouts journaled by claimRows; a failure other than payctl's own errors said plainly (nothing was sent). */
async function claimed(items: BatchItem[], o: Parameters<typeof claimRows>[1]): Promise<BatchItem[]> {
  try {
    return await claimRows(items, o);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new LocalError(
      `Cannot journal the plan's payouts before sending them: ${(err as Error).message}. Nothing was sent.`,
      'Payouts journaled so far are sent under their keys when plan send is run again.',
    );
  }
}
