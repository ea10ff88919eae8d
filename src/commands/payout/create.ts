/**
 * `payctl payout create`: one payout, exact, confirmed, and never sent twice.
 * Validated before anything is sent; journaled before the request leaves; retried
 * only with the journaled key and body; an unknown outcome is reported as unknown.
 * Here: the payout read (flags, or asked at a terminal), checked (fields, payout id against
 * the journal, the repeat guard, the policy, the wallet) and confirmed; create-send.ts
 * journals it, sends it and says what came of it (docs/architecture.md, "Idempotency journal").
 */
import { recordReplaced, refuseSentInstead, replacedEntry, sendReplacing } from './create-replaces.js';
import { write, type Deps } from '../../deps.js';
import { ApiError, CancelledError, fieldProblem, RefusedError, UsageError, type Problem } from '../../errors.js';
import type { Wallet } from '../../service/schemas.js';
import { configDir } from '../../config/paths.js';
import { balanceMinor, formatAmount } from '../../money/amount.js';
import { journalBase, type JournalEntry } from '../../payouts/journal.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { derivedIdempotencyKey } from '../../payouts/identity.js';
import { walletProblem } from '../../payouts/wallet-check.js';
import { RunWallets } from '../../payouts/unkeyed-wallet.js';
import { isUnresolved } from '../../payouts/lookup.js';
import { withRunKey } from '../../payouts/sender-profile.js';
import { refuseNotHeld, refuseOtherSender } from '../history/reconcile-sender.js';
import { COLUMN_LABELS } from '../../payouts/batch-columns.js';
import { commandLine, invocationOf, type Invocation } from '../../config/command-line.js';
import { isUuid, missingFields, payoutBody, validatePayout, type FieldName, type PayoutFields, type PayoutRequest } from '../../payouts/request.js';
import { providerSuggestion } from '../../payouts/providers.js';
import { confirmProvider, promptPayout, walletLabel } from '../../payouts/interactive.js';
import { nothingSentOnInterrupt, yesRequired } from '../../output/prompter.js';
import { planOutCommand } from './retry-command.js';
import { resolve } from 'node:path';
import { requireSigningKey } from '../../plans/keys.js';
import { makePlan } from '../../plans/plan.js';
import { approvalsNeeded, limitProblems, limitsHint, type Policy } from '../../plans/policy.js';
import { policyCountsTheDay } from '../../payouts/wallet-lock.js';
import { writeNewPlan } from '../plan/common.js';
import { effectivePolicy } from '../policy/effective.js';
import { makePlanHint, refuseOverMaximum, refuseUnlistedMaker, reportPlan, sharePlan } from '../plan/create.js';
import { FLAG_LABELS, fieldsFromOptions } from './fields.js';
import { renderCard, text } from '../../output/text.js';
import { makeStyle } from '../../output/style.js';
import { visibleWord } from '../../words.js';
import { acknowledgeLost, repeatWarning } from './create-repeat.js';
import { conflictError, journalPayout, notSentBeforeJournal, reportOutcome, sendJournaled, type CreateRun } from './create-send.js';

export interface PayoutCreateOptions {
  wallet?: string;
  amount?: string;
  currency?: string;
  type?: string;
  name?: string;
  provider?: string;
  account?: string;
  phone?: string;
  note?: string;
  metadata?: string[];
  payoutId?: string;
  idempotencyKey?: string;
  yes?: boolean;
  /** Validate and show what would be sent (the summary card; with --json the exact body), send nothing. */
  dryRun?: boolean;
  /** Write the payout as a plan for approval (four eyes) to this file instead of sending it. */
  planOut?: string;
  allowRepeat?: boolean;
  /** Under a policy's daily total, go on although journal entries are missing: they are acknowledged, and the total no longer counts them (plans/limits.ts). */
  acknowledgeMissing?: boolean;
  /** Once accepted, wait until the payout is Successful or Failed (wait.ts). */
  wait?: boolean;
  /** Seconds --wait waits at most (default 600). */
  waitTimeout?: number;
}

export async function run(opts: PayoutCreateOptions, deps: Deps): Promise<number> {
  // Until the payout is handed to sendPayout nothing has left: Ctrl-C at a prompt (the
  // interactive flow, the confirmation, the repeat question) or while the balances are read
  // says so (exit 130). From then on sendPayout and --wait say what an interruption left.
  const stage = { sending: false };
  try {
    return await createPayout(opts, deps, stage);
  } catch (err) {
    throw stage.sending ? err : nothingSentOnInterrupt(err);
  }
}

/** The steps of a payout create, in order; each may end the run (a problem, a refusal, a no). */
async function createPayout(opts: PayoutCreateOptions, deps: Deps, stage: { sending: boolean }): Promise<number> {
  const { request, wallets } = await readPayout(opts, deps);
  const api = await deps.api();
  const c: CreateRun = {
    opts,
    deps,
    request,
    body: payoutBody(request),
    api,
    journal: await openLedger(deps),
    inv: invocationOf(deps.globals, deps.env),
    existing: undefined,
  };
  c.existing = await earlierEntry(c);
  refuseSentInstead(c);
  // The printed `--payout-id P-2` of a payout P whose id was used before: refused once P is recorded as made.
  const replaced = await replacedEntry(c);
  const repeat = await repeatWarning(c);
  if (opts.dryRun) return dryRun(c, wallets, repeat);
  if (opts.planOut !== undefined) return writePlan(c, opts.planOut);
  // Checked first without a lock (refused before anything is asked), then again under the lock.
  const policy = await effectivePolicy(deps);
  if (policy) await checkPolicy(policy, c);
  // An unknown payout of another sender is refused before its wallet is checked, whose refusal would have it edited (probe 56-K findings 1, 5).
  if (c.existing && isUnresolved(c.existing)) await refuseElsewhere(c.existing, c, wallets);
  // A failed balances read sends nothing, said so (a key refused there: with the payout's own
  // command to send it after login; an earlier attempt of unknown outcome: that it still is).
  await confirmSend(c, wallets, repeat).catch((err: unknown) => {
    throw notSentBeforeJournal(err, c);
  });
  const journalAndSend = async () => {
    const journaled = await journalPayout(c, lockedChecks(c, policy, repeat));
    stage.sending = true;
    return { journaled, sent: await sendJournaled(c, journaled) };
  };
  // A P-2 under P's lock, P checked again there: a --made-by of P at the same time is one or the other.
  const r = replaced ? await sendReplacing(c, replaced, journalAndSend, (x) => x.sent.kind === 'accepted') : await journalAndSend();
  await acknowledgeLost(c);
  // A rerun of a P-2 whose answer was lost, accepted now: P is not made either.
  if (r.sent.kind === 'accepted') await recordReplaced(c.journal, r.journaled.entry, deps);
  return reportOutcome(c, r.journaled, r.sent);
}

/** `existing`, of unknown outcome, refused when another profile or key sent it (reconcile-sender.ts), or its wallet is not the run's account's (unkeyed-wallet.ts). */
async function refuseElsewhere(existing: JournalEntry, c: CreateRun, wallets: Wallet[] | undefined): Promise<void> {
  refuseOtherSender(existing, c.inv, withRunKey(c.deps.config(), c.api.runKey), [], 'Nothing was sent.');
  await refuseNotHeld(existing, c.inv, new RunWallets(c.api, wallets), c.deps.env, [], 'Nothing was sent.');
}

/**
 * The payout as given: its flags, the missing fields asked for at a terminal (with the live
 * balances, returned for the summary card), validated, and a provider close to a known one
 * asked about.
 */
async function readPayout(opts: PayoutCreateOptions, deps: Deps): Promise<{ request: PayoutRequest; wallets: Wallet[] | undefined }> {
  let fields = fieldsFromOptions({ ...opts });
  let wallets: Wallet[] | undefined;
  if (missingFields(fields) && deps.io.interactive) {
    wallets = await liveWallets(deps);
    fields = await promptPayout(fields, await deps.prompter(), wallets, deps.log);
  }
  const request = await checkedProvider(validated(fields, opts, deps), opts, deps);
  return { request, wallets };
}

/**
 * This payout id's journal entry from an earlier run, if any; refused (nothing sent) when it
 * was used for other details or sent with another idempotency key.
 */
async function earlierEntry(c: CreateRun): Promise<JournalEntry | undefined> {
  const { request } = c;
  const existing = await c.journal.get(c.api.baseUrl, request.payoutId);
  const conflict = existing && c.journal.conflict(existing, c.body, c.opts.idempotencyKey);
  if (conflict) throw conflictError(c, conflict);
  return existing;
}

/**
 * What is checked again under the wallet's lock, just before the payout is journaled (the lock
 * is let go before sending): the policy's day, when it counts one; and the repeat guard, when it
 * found nothing at first. Two terminals sending the same payout without --payout-id had each
 * found no repeat, and both were paid (4 of 6 tries); under the lock the second finds the first's
 * entry, and is refused as a repeat. One the person was asked about and said yes to is not asked
 * about again.
 */
function lockedChecks(c: CreateRun, policy: Policy | undefined, repeat: string | undefined): (() => Promise<void>) | undefined {
  const checks: Array<() => Promise<unknown>> = [];
  if (policy && policyCountsTheDay(policy)) checks.push(() => checkPolicy(policy, c, false));
  // With --allow-repeat too: an earlier payout of the same details of unknown outcome refuses it (create-repeat.ts).
  if (repeat === undefined && c.opts.payoutId === undefined && !c.existing) checks.push(() => repeatWarning(c, true));
  if (!checks.length) return undefined;
  return async () => {
    for (const check of checks) await check();
  };
}

/**
 * The wallet checked, then the person asked: without --yes, the summary card and "Send this
 * payout?" (or, for a repeat, "... again, as a new payout?"); with --yes, only a repeat is
 * asked about. A no sends nothing (CancelledError).
 */
async function confirmSend(c: CreateRun, wallets: Wallet[] | undefined, repeat: string | undefined): Promise<void> {
  const { opts, deps, request } = c;
  const live = await checkedWallet(request, wallets, !opts.yes, c.inv, deps);
  if (!opts.yes) {
    await showSummary(request, live, deps);
    if (repeat) deps.log.warn(repeat);
    const ok = await (await deps.prompter()).confirm({ message: repeat ? 'Send this payout again, as a new payout?' : 'Send this payout?', default: false });
    if (!ok) throw new CancelledError();
  } else if (repeat) {
    deps.log.warn(repeat);
    const ok = await (await deps.prompter()).confirm({ message: 'Send it again, as a new payout?', default: false });
    if (!ok) throw new CancelledError();
  }
}

async function liveWallets(deps: Deps): Promise<Wallet[]> {
  return (await (await deps.api()).wallets()).wallets;
}

function validated(fields: PayoutFields, opts: PayoutCreateOptions, deps: Deps): PayoutRequest {
  const r = validatePayout(fields, FLAG_LABELS);
  // Each names its flag (`--amount`) apart from the message, for --json (a line that starts with a flag names it too).
  const problems: Array<Problem | string> = r.ok ? [] : [...r.issues];
  if (opts.idempotencyKey !== undefined && !isUuid(opts.idempotencyKey)) {
    problems.push(fieldProblem('--idempotency-key', `"${visibleWord(opts.idempotencyKey)}" is not a UUID`));
  }
  // A dry run and a plan send nothing, so they need no yes.
  if (!opts.yes && !opts.dryRun && opts.planOut === undefined && !deps.io.interactive) {
    problems.push(yesRequired(deps.globals));
  }
  if (problems.length || !r.ok) {
    throw new UsageError(
      `Cannot send this payout: ${problems.length} problem${problems.length === 1 ? '' : 's'}. Nothing was sent.`,
      problems,
      'See `payctl payout create --help` for an example.',
    );
  }
  return r.request;
}

/**
 * The wallet checked against the live balances before anything is sent, by the batch's rule
 * (payouts/wallet-check.ts): a wallet that is not one of yours, or one that holds another
 * currency, is refused here (exit 2, nothing sent, nothing journaled) instead of by the service.
 * The balances are read when not read yet (the interactive flow read them), as a batch always
 * reads them, and returned for the summary card. When no card needs them (`needed` false: --yes)
 * and the service refuses or fails that read (an ApiError), the wallet's currency is not known:
 * it is left to the service's own check, as before (a refused key, a network failure and Ctrl-C
 * still end the run here, with nothing sent).
 */
async function checkedWallet(r: PayoutRequest, wallets: Wallet[] | undefined, needed: boolean, inv: Invocation, deps: Deps): Promise<Wallet[] | undefined> {
  let live = wallets;
  if (!live) {
    try {
      live = await liveWallets(deps);
    } catch (err) {
      if (needed || !(err instanceof ApiError)) throw err;
      deps.log.verbose(`* the balances could not be read (${err.message.replace(/\.$/, '')}): the wallet's currency is left to the service`);
      return undefined;
    }
  }
  const bad = walletProblem(0, r, new Map(live.map((w) => [w.wallet_id, w])), commandLine(inv, ['balances']));
  if (bad) {
    throw new UsageError(
      'Cannot send this payout: 1 problem. Nothing was sent.',
      [asFlagProblem(bad)],
      `See your wallets and their currencies with: ${commandLine(inv, ['balances'])}`,
    );
  }
  return live;
}

/** A batch row's problem as `payout create` names it: by the flag instead of the column, without a row. */
function asFlagProblem(p: Problem): Problem {
  const field = (Object.keys(COLUMN_LABELS) as FieldName[]).find((k) => COLUMN_LABELS[k] === p.field);
  const flag = field ? FLAG_LABELS[field] : p.field;
  const said = p.text.replace(/^row \d+: /, '');
  return { field: flag, message: p.message, text: p.field && said.startsWith(p.field) ? flag + said.slice(p.field.length) : said };
}

function summaryCard(r: PayoutRequest, wallet: Wallet | undefined, deps: Deps): string {
  const style = makeStyle(deps.io.color);
  const pairs: Array<[string, string]> = [
    ['Amount', style.bold(`${formatAmount(r.amount, r.currency)} ${r.currency}`)],
    ['Fee', 'charged by the service (shown after sending)'],
    ['From wallet', wallet ? walletLabel(wallet) : `${text(r.walletId)} (balance unknown)`],
    ['Recipient', `${text(r.name)} (${r.type})`],
    ['Provider', r.provider],
    ['Account', text(r.account)],
  ];
  if (r.phone) pairs.push(['Phone', r.phone]);
  if (r.note) pairs.push(['Note', text(r.note)]);
  if (r.metadata)
    pairs.push([
      'Metadata',
      Object.entries(r.metadata)
        .map(([k, v]) => `${k}=${text(v)}`)
        .join(', '),
    ]);
  pairs.push(['Payout ID', r.payoutId]);
  return renderCard(pairs, style);
}

/** The summary card on stdout, as a person confirms it (and a dry run shows it); the live balances read if not yet. */
async function showSummary(r: PayoutRequest, wallets: Wallet[] | undefined, deps: Deps): Promise<void> {
  const live = wallets ?? (await liveWallets(deps));
  const wallet = live.find((w) => w.wallet_id === r.walletId);
  await write(deps.io.stdout, '\n' + summaryCard(r, wallet, deps) + '\n');
  // As a batch's plan says of a wallet that would go short (output/batch.ts): the service
  // would refuse it, but a person reading a card may not see that the balance is below it.
  const held = wallet && wallet.currency.toUpperCase() === r.currency ? balanceMinor(wallet.balance, r.currency) : undefined;
  if (held !== undefined && r.amountMinor > held) {
    deps.log.warn(
      `wallet ${text(r.walletId)} would go short: it holds ${formatAmount(wallet!.balance, r.currency)} ${r.currency} but this payout is ${formatAmount(r.amount, r.currency)} ${r.currency} before the fee; the service will refuse it.`,
    );
  }
}

/**
 * A provider given as a flag that is close to a known one (`--provider "orang money"`):
 * asked about at a terminal (a yes sends the known one); otherwise a warning, and it is
 * sent as typed: the provider list is open. One typed at the prompt was asked about there.
 */
async function checkedProvider(request: PayoutRequest, opts: PayoutCreateOptions, deps: Deps): Promise<PayoutRequest> {
  if (opts.provider === undefined) return request;
  const suggestion = providerSuggestion(request.provider, request.type);
  if (!suggestion) return request;
  if (!deps.io.interactive) {
    deps.log.warn(`provider "${text(request.provider)}" is not one payctl knows; did you mean ${suggestion}?`);
    return request;
  }
  return { ...request, provider: await confirmProvider(request.provider, request.type, await deps.prompter()) };
}

/**
 * `--dry-run`: everything checked as for sending (fields, payout id and key against the
 * journal, the spending policy), then what would be sent is shown: the summary card the
 * confirmation shows, or with --json the exact body of POST /payout. Nothing is sent, nothing
 * journaled; no yes needed. What a send would refuse is refused alike (exit 2): a dry run that
 * passes where the send is refused would tell a script the wrong thing.
 */
async function dryRun(c: CreateRun, wallets: Wallet[] | undefined, repeat: string | undefined): Promise<number> {
  const { deps, request } = c;
  // The policy's limits and approvals, as the send checks them before it asks (the day counted
  // from the journal as it is: nothing is journaled, so no lock is needed).
  const policy = await effectivePolicy(deps);
  if (policy) await checkPolicy(policy, c);
  // With --json only the body is printed and no balances are read (so the wallet is not checked).
  if (deps.globals.json) await write(deps.io.stdout, c.body + '\n');
  else await showSummary(request, await checkedWallet(request, wallets, true, c.inv, deps), deps);
  if (c.existing) deps.log.info(`Payout ${request.payoutId} was journaled before: sending it would reuse its idempotency key.`);
  if (repeat) deps.log.warn(`${repeat} Sending it asks first at a terminal, and needs --allow-repeat without one.`);
  if (!deps.globals.json) deps.log.info('Dry run: nothing was sent. Run the same command without --dry-run to send it.');
  return 0;
}

/**
 * `--plan-out`: the payout written as a plan for approval, signed by its maker; nothing is
 * sent. Its key is the journaled one, else --idempotency-key, else derived from the payout.
 */
async function writePlan(c: CreateRun, file: string): Promise<number> {
  const { deps, request, api } = c;
  const idempotencyKey = c.existing?.idempotencyKey ?? c.opts.idempotencyKey ?? derivedIdempotencyKey(journalBase(api.baseUrl), request.payoutId, c.body);
  const maker = requireSigningKey(configDir(deps.env));
  // As plan create: a key the policy does not list as a maker's makes no plan, nor does a payout over
  // max_per_payout (plan approve and send would refuse either).
  const policy = await effectivePolicy(deps);
  if (policy) {
    refuseUnlistedMaker(policy, maker);
    refuseOverMaximum(policy, 'This payout', [request]);
  }
  const plan = makePlan({ baseUrl: api.baseUrl, batchId: null, source: 'payout create', now: deps.clock.now(), maker, payouts: [{ request, idempotencyKey }] });
  const out = resolve(file);
  writeNewPlan(out, plan, '--plan-out');
  await reportPlan(deps, plan, out, undefined, await sharePlan(c.journal, plan));
  return 0;
}

/**
 * With a policy in the profile: a payout over a limit is refused naming the rule, and one that
 * needs approval is refused with the command that writes it as a plan. Nothing is sent either
 * way. `warn` false for the second check (under the lock), which would say the same again.
 */
async function checkPolicy(policy: Policy, c: CreateRun, warn = true): Promise<void> {
  const { deps, request, journal } = c;
  const baseUrl = c.api.baseUrl;
  // "Today" is the ledger's day: the database's for a shared ledger, whatever this machine's clock says.
  const today = await journal.now();
  const limits = await limitProblems(policy, [request], journal, baseUrl, today, {
    ...(warn ? { warn: (l: string) => deps.log.warn(l) } : {}),
    // Acknowledged by the check under the lock, just before journaling; a dry run only says so.
    ...(c.opts.acknowledgeMissing ? { acknowledgeMissing: { record: !warn, dryRun: !!c.opts.dryRun } } : {}),
  });
  // Valid input refused: what to do about the limits, not the command's usage.
  if (limits.length)
    throw new RefusedError(
      `This payout breaks the policy ${policy.file}. Nothing was sent.`,
      limits,
      limitsHint(limits, commandLine(c.inv, ['payouts', 'list'], ['--all'])),
    );
  const need = await approvalsNeeded(policy, [request], journal, baseUrl, today);
  if (need.required > 0) {
    throw new UsageError(
      `This payout needs approval under the policy ${policy.file}. Nothing was sent.`,
      need.reasons,
      makePlanHint(policy, configDir(deps.env), 'Write it as a plan for approval', planOutCommand(request, `payout-${request.payoutId}.plan.json`, c.inv)),
    );
  }
}
