/**
 * `payctl payout create`: one payout, exact, confirmed, and never sent twice.
 * Validated before anything is sent; journaled before the request leaves; retried
 * only with the journaled key and body; an unknown outcome is reported as unknown.
 */
import { write, type Deps } from '../../deps.js';
import { ApiError, AuthError, CancelledError, fieldProblem, InterruptedError, OutcomeUnknownError, UsageError, type Problem } from '../../errors.js';
import type { PayoutRecord, PayoutTransaction, Wallet } from '../../service/schemas.js';
import { configDir } from '../../config/paths.js';
import { formatAmount } from '../../money/amount.js';
import { Journal, journalBase, type JournalEntry } from '../../payouts/journal.js';
import { derivedIdempotencyKey, payoutFingerprint, repeatKey } from '../../payouts/identity.js';
import { shortTime, walletProblem } from '../../payouts/batch-load.js';
import { COLUMN_LABELS } from '../../payouts/batch-file.js';
import { commandLine, invocationOf, type Invocation } from '../../config/command-line.js';
import { isUuid, missingFields, payoutBody, providerSuggestion, validatePayout, type FieldName, type PayoutFields, type PayoutRequest } from '../../payouts/request.js';
import { confirmProvider, promptPayout, walletLabel } from '../../payouts/interactive.js';
import { nothingSentOnInterrupt, yesRequired } from '../../output/prompter.js';
import { planOutCommand, retryCommand } from './retry-command.js';
import { resolve } from 'node:path';
import { requireSigningKey } from '../../plans/keys.js';
import { makePlan } from '../../plans/plan.js';
import { approvalsNeeded, limitProblems, type Policy } from '../../plans/policy.js';
import { policyCountsTheDay, runLockOptions, withWalletLocks } from '../../payouts/wallet-lock.js';
import { profilePolicy, writeNewPlan } from '../plan/common.js';
import { reportPlan } from '../plan/create.js';
import { FLAG_LABELS, fieldsFromOptions } from './fields.js';
import { sendPayout } from '../../payouts/send.js';
import { renderPayoutCard } from '../../output/payout.js';
import { renderCard, text } from '../../output/text.js';
import { makeStyle } from '../../output/style.js';
import { waitAndReport } from './wait.js';
import { heldAdvice, isUnresolved } from '../../payouts/lookup.js';

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
  /** Once accepted, wait until the payout is Successful or Failed (wait.ts). */
  wait?: boolean;
  /** Seconds --wait waits at most (default 600). */
  waitTimeout?: number;
}

/** How far back a payout typed again (without --payout-id) is caught. */
const REPEAT_WINDOW_MS = 24 * 60 * 60 * 1000;

async function liveWallets(deps: Deps): Promise<Wallet[]> {
  return (await (await deps.api()).wallets()).wallets;
}

function validated(fields: PayoutFields, opts: PayoutCreateOptions, deps: Deps): PayoutRequest {
  const r = validatePayout(fields, FLAG_LABELS);
  // Each names its flag (`--amount`) apart from the message, for --json (a line that starts with a flag names it too).
  const problems: Array<Problem | string> = r.ok ? [] : [...r.issues];
  if (opts.idempotencyKey !== undefined && !isUuid(opts.idempotencyKey)) {
    problems.push(fieldProblem('--idempotency-key', `"${opts.idempotencyKey}" is not a UUID`));
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
 * (batch-load.ts walletProblem): a wallet that is not one of yours, or one that holds another
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
  const card = summaryCard(
    r,
    live.find((w) => w.wallet_id === r.walletId),
    deps,
  );
  await write(deps.io.stdout, '\n' + card + '\n');
}

/** A transaction as a record for the card (schemas.ts's one record shape): the status is the provider's, the recipient what was sent. */
function asRecord(t: PayoutTransaction, r: PayoutRequest): PayoutRecord {
  return {
    ...t,
    status: t.provider_response?.status,
    wallet_id: r.walletId,
    recipient: { type: r.type, name: r.name, provider: r.provider, accountNumber: r.account, phoneNumber: r.phone },
    note: r.note,
    provider_reference: t.provider_response?.orderId,
  };
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

async function createPayout(opts: PayoutCreateOptions, deps: Deps, stage: { sending: boolean }): Promise<number> {
  let fields = fieldsFromOptions({ ...opts });
  let wallets: Wallet[] | undefined;
  if (missingFields(fields) && deps.io.interactive) {
    wallets = await liveWallets(deps);
    fields = await promptPayout(fields, await deps.prompter(), wallets, deps.log);
  }
  const request = await checkedProvider(validated(fields, opts, deps), opts, deps);
  const body = payoutBody(request);
  const api = await deps.api();
  const journal = new Journal(configDir(deps.env));
  const inv = invocationOf(deps.globals, deps.env);
  const getCommand = (id: string) => commandLine(inv, ['payout', 'get'], [id]);

  const existing = journal.get(api.baseUrl, request.payoutId);
  const conflict = existing && journal.conflict(existing, body, opts.idempotencyKey);
  if (conflict) {
    throw new UsageError(
      conflict.what === 'details'
        ? `Payout id ${request.payoutId} was already used for a payout with other details. Nothing was sent.`
        : `Payout id ${request.payoutId} was already sent with another idempotency key (${conflict.existing.idempotencyKey}). Nothing was sent.`,
      [],
      `Check the earlier one with: ${getCommand(request.payoutId)}\nFor a new payout, leave out --payout-id (a new id is made) or choose another.`,
    );
  }

  // The same payout typed again without --payout-id would get a new id, so a new payout.
  const rk = repeatKey(request);
  const repeats = opts.payoutId === undefined && !opts.allowRepeat && !existing ? recentRepeats(journal, api.baseUrl, rk, request.payoutId, deps.clock.now()) : [];
  if (repeats.length && !deps.io.interactive && !opts.dryRun) {
    throw new UsageError(
      `This payout repeats ${describeRepeat(repeats.at(-1)!, deps.clock.now())}. Nothing was sent.`,
      [],
      `Check that one with: ${getCommand(repeats.at(-1)!.payoutId)}\nIf it is meant to be paid again, add --allow-repeat.`,
    );
  }
  const repeatWarning = repeats.length ? `This payout repeats ${describeRepeat(repeats.at(-1)!, deps.clock.now())}.` : undefined;

  if (opts.dryRun) return dryRun(request, body, { wallets, existing: !!existing, repeatWarning, inv }, deps);
  if (opts.planOut !== undefined)
    return writePlan(
      request,
      opts.planOut,
      existing?.idempotencyKey ?? opts.idempotencyKey ?? derivedIdempotencyKey(journalBase(api.baseUrl), request.payoutId, body),
      api.baseUrl,
      deps,
    );
  // Checked first without a lock (refused before anything is asked), then again under the lock.
  const policy = profilePolicy(deps);
  if (policy) checkPolicy(policy, request, journal, api.baseUrl, inv, deps);

  wallets = await checkedWallet(request, wallets, !opts.yes, inv, deps);
  if (!opts.yes) {
    await showSummary(request, wallets, deps);
    if (repeatWarning) deps.log.warn(repeatWarning);
    const ok = await (await deps.prompter()).confirm({ message: repeatWarning ? 'Send this payout again, as a new payout?' : 'Send this payout?', default: false });
    if (!ok) throw new CancelledError();
  } else if (repeatWarning) {
    deps.log.warn(repeatWarning);
    const ok = await (await deps.prompter()).confirm({ message: 'Send it again, as a new payout?', default: false });
    if (!ok) throw new CancelledError();
  }

  // Journaled (fsynced) before the request leaves; a rerun reuses this key and body.
  const journaledAt = deps.clock.now();
  const begin = () =>
    journal.begin({
      baseUrl: api.baseUrl,
      payoutId: request.payoutId,
      body,
      idempotencyKey: opts.idempotencyKey,
      // A payout id given on the command line names the payout: its key is derived from it and
      // the body (journal.ts), so another machine or a restored backup reuses it. A new id, a new key.
      randomKey: opts.payoutId === undefined,
      now: journaledAt,
      origin: { fingerprint: payoutFingerprint(request), repeatKey: rk },
      profile: deps.globals.profile,
    });
  // Under a policy that counts the day, the check and the journaling are one step under the
  // wallet's lock, so parallel runs count each other; the lock is let go before sending.
  const entry = policyCountsTheDay(policy)
    ? await withWalletLocks(
        configDir(deps.env),
        [request.walletId],
        async () => {
          checkPolicy(policy!, request, journal, api.baseUrl, inv, deps, false);
          return begin();
        },
        runLockOptions(deps),
      )
    : await begin();
  if (existing) deps.log.info(`Payout ${request.payoutId} was journaled before: resending it with the same idempotency key.`);
  // Journaled by this run (not found before, and written with this run's time): no earlier
  // attempt of it can have reached the service. Another payctl that journaled the same payout id
  // a moment ago (begin then returns its entry) does not count.
  const journaledNow = !existing && entry.outcome === undefined && entry.createdAt === journaledAt.toISOString();

  stage.sending = true;
  let result: Awaited<ReturnType<typeof sendPayout>>;
  try {
    result = await sendPayout(api, journal, entry, {
      signal: deps.signal,
      clock: deps.clock,
      journaledNow,
      onRetry: ({ attempt, waitMs, reason }) =>
        deps.log.info(`Attempt ${attempt} got no final answer (${reason}); retrying in ${(waitMs / 1000).toFixed(1)} s with the same idempotency key…`),
    });
  } catch (err) {
    // The service refused the credentials (it answered): what that means for this payout.
    if (err instanceof AuthError && err.status !== undefined) throw refusedAtLogin(err, request, entry, journaledNow, inv);
    throw err;
  }

  if (result.kind === 'accepted' && result.alreadyMade) {
    // The service has this payout id already (made by an earlier attempt under another key): no
    // transaction id to show or wait for, and nothing new was paid.
    if (deps.globals.json)
      await write(deps.io.stdout, JSON.stringify({ payout_id: request.payoutId, outcome: 'already made', message: result.alreadyMade.message }) + '\n');
    deps.log.success(
      `Already submitted: the service already has payout id ${request.payoutId} (sent before under another key: ${result.alreadyMade.message}). Nothing new was paid.`,
    );
    return 0;
  }
  if (result.kind === 'accepted') {
    // With --wait, stdout gets the settled record instead (one card, one JSON document).
    if (!opts.wait && deps.globals.json) await write(deps.io.stdout, result.res.raw.trim() + '\n');
    else if (!opts.wait) {
      const style = makeStyle(deps.io.color);
      await write(deps.io.stdout, renderPayoutCard(asRecord(result.transaction, request), style));
    }
    if (result.replayed) deps.log.success(`Already submitted: payout ${request.payoutId} was accepted earlier; this is the original transaction. Nothing new was paid.`);
    else deps.log.success(`Payout ${request.payoutId} submitted.`);
    return opts.wait
      ? waitAndReport(deps, api, request.payoutId, opts.waitTimeout, { transactionId: result.transaction.transaction_id, payoutId: request.payoutId, entry })
      : 0;
  }

  if (result.kind === 'rejected') throw withHint(result.error, request, inv);

  // Held (unknown and past the service's key memory): resending is a person's choice, not a retry.
  const hint = result.held
    ? heldAdvice(entry, result.held, inv, deps.clock.now())
    : `Check it with:   ${getCommand(request.payoutId)}\n` +
      `Retry safely (same idempotency key, so it cannot be paid twice):\n  ${retryCommand(request, entry.idempotencyKey, inv)}`;
  if (result.error instanceof InterruptedError) {
    throw new InterruptedError(`Interrupted: payout ${request.payoutId} may or may not have been made.`, hint);
  }
  throw new OutcomeUnknownError(
    `The outcome of payout ${request.payoutId} is unknown: it may or may not have been made (${result.attempts} attempt${result.attempts === 1 ? '' : 's'}; last: ${result.error.message.replace(/\.$/, '')}).`,
    { hint, causeCode: result.error.causeCode },
  );
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
 * journal), then what would be sent is shown: the summary card the confirmation shows, or
 * with --json the exact body of POST /payout. Nothing is sent, nothing journaled; no yes needed.
 */
async function dryRun(
  request: PayoutRequest,
  body: string,
  seen: { wallets: Wallet[] | undefined; existing: boolean; repeatWarning: string | undefined; inv: Invocation },
  deps: Deps,
): Promise<number> {
  // With --json only the body is printed and no balances are read (so the wallet is not checked).
  if (deps.globals.json) await write(deps.io.stdout, body + '\n');
  else await showSummary(request, await checkedWallet(request, seen.wallets, true, seen.inv, deps), deps);
  if (seen.existing) deps.log.info(`Payout ${request.payoutId} was journaled before: sending it would reuse its idempotency key.`);
  if (seen.repeatWarning) deps.log.warn(`${seen.repeatWarning} Sending it asks first at a terminal, and needs --allow-repeat without one.`);
  if (!deps.globals.json) deps.log.info('Dry run: nothing was sent. Run the same command without --dry-run to send it.');
  return 0;
}

/** Payouts with the same repeat key sent from this machine in the last 24 hours, not refused, oldest first. */
function recentRepeats(journal: Journal, baseUrl: string, rk: string, payoutId: string, now: Date): JournalEntry[] {
  const since = now.getTime() - REPEAT_WINDOW_MS;
  return journal.find(baseUrl, 'repeat', rk).filter((e) => e.payoutId !== payoutId && e.outcome?.kind !== 'rejected' && Date.parse(e.createdAt) >= since);
}

function ago(from: string, now: Date): string {
  const min = Math.max(0, Math.round((now.getTime() - Date.parse(from)) / 60_000));
  return min < 1 ? 'less than a minute ago' : min < 90 ? `${min} minute${min === 1 ? '' : 's'} ago` : `${Math.round(min / 60)} hours ago`;
}

/** "one sent from this machine 3 minutes ago (same wallet, account, amount and currency): payout id …, transaction …" */
function describeRepeat(e: JournalEntry, now: Date): string {
  const o = e.outcome;
  const state =
    o?.kind === 'accepted'
      ? `accepted${o.transactionId ? `, transaction ${text(o.transactionId)}` : ''}`
      : o?.kind === 'unknown'
        ? 'outcome unknown'
        : 'sent, no answer recorded';
  return `one sent from this machine ${ago(e.createdAt, now)} (${shortTime(e.createdAt)}) with the same wallet, account, amount and currency: payout id ${e.payoutId}, ${state}`;
}

/**
 * The service refused the credentials (401 or 403) on the first attempt (exit 3). For a payout
 * journaled by this run nothing was sent, and the journal has it as refused. For one journaled
 * before, this attempt took nothing, but what an earlier attempt did is as the journal had it
 * (an unknown outcome stays unknown). What to do either way: log in, then send it with the
 * printed command, which reuses the payout id and key, so it cannot be paid twice.
 */
function refusedAtLogin(err: AuthError, r: PayoutRequest, entry: JournalEntry, journaledNow: boolean, inv: Invocation): AuthError {
  const login = err.hint ?? `The key may be wrong or revoked. Run \`${commandLine(inv, ['login'])}\` with a valid key.`;
  const said = err.message.replace(/\.$/, '');
  const message = journaledNow
    ? `${said}. Nothing was sent: payout ${r.payoutId} is journaled as refused.`
    : isUnresolved(entry)
      ? `${said}. This attempt sent nothing, but payout ${r.payoutId} was sent before and its outcome is still unknown.`
      : `${said}. Payout ${r.payoutId} was not sent.`;
  return new AuthError(message, {
    status: err.status,
    requestId: err.requestId,
    hint: `${login}\nThen send it with the same idempotency key (it cannot be paid twice):\n  ${retryCommand(r, entry.idempotencyKey, inv)}`,
  });
}

function withHint(err: ApiError, r: PayoutRequest, inv: Invocation): ApiError {
  const hints: Record<string, string> = {
    DUPLICATE_PAYOUT_ID: `Payout id ${r.payoutId} was already used under another idempotency key. See it with: ${commandLine(inv, ['payout', 'get'], [r.payoutId])}`,
    IDEMPOTENCY_KEY_REUSED: 'That idempotency key was used for a different payout. Leave out --idempotency-key to use a new one.',
    INSUFFICIENT_FUNDS: `The wallet cannot cover the amount plus the fee. Check it with: ${commandLine(inv, ['balances'], ['--wallet', r.walletId])}`,
    CURRENCY_MISMATCH: `The wallet holds another currency. Check it with: ${commandLine(inv, ['balances'], ['--wallet', r.walletId])}`,
    WALLET_NOT_FOUND: `No such wallet. List yours with: ${commandLine(inv, ['balances'])}`,
  };
  const hint = (err.code && hints[err.code]) ?? err.hint;
  return new ApiError(err.message, { status: err.status, code: err.code, requestId: err.requestId, errors: err.errors, hint });
}

/** `--plan-out`: the payout written as a plan for approval, signed by its maker; nothing is sent. */
async function writePlan(request: PayoutRequest, file: string, idempotencyKey: string, baseUrl: string, deps: Deps): Promise<number> {
  const maker = requireSigningKey(configDir(deps.env));
  const plan = makePlan({ baseUrl, batchId: null, source: 'payout create', now: deps.clock.now(), maker, payouts: [{ request, idempotencyKey }] });
  const out = resolve(file);
  writeNewPlan(out, plan);
  await reportPlan(deps, plan, out);
  return 0;
}

/**
 * With a policy in the profile: a payout over a limit is refused naming the rule, and one that
 * needs approval is refused with the command that writes it as a plan. Nothing is sent either way.
 */
/** The policy's verdict on this payout; `warn` false for the second check (under the lock), which would say the same again. */
function checkPolicy(policy: Policy, request: PayoutRequest, journal: Journal, baseUrl: string, inv: Invocation, deps: Deps, warn = true): void {
  const limits = limitProblems(policy, [request], journal, baseUrl, deps.clock.now(), warn ? (l) => deps.log.warn(l) : undefined);
  if (limits.length) throw new UsageError(`This payout breaks the policy ${policy.file}. Nothing was sent.`, limits);
  const need = approvalsNeeded(policy, [request], journal, baseUrl, deps.clock.now());
  if (need.required > 0) {
    throw new UsageError(
      `This payout needs approval under the policy ${policy.file}. Nothing was sent.`,
      need.reasons,
      `Write it as a plan for approval:\n  ${planOutCommand(request, `payout-${request.payoutId}.plan.json`, inv)}`,
    );
  }
}
