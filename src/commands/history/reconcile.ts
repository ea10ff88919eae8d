/**
 * `payctl history reconcile`: every journaled payout of this base URL whose outcome is
 * unknown (or was never recorded: the run ended with its request maybe in flight) is looked up at the service by payout id (payouts/lookup.ts). Found: recorded as
 * accepted, with its transaction. Not found (404 NOT_FOUND): recorded as not made, and the
 * command that sends it safely (same payout id, same idempotency key) is printed. A look-up
 * that fails leaves the outcome unknown (exit 4).
 */
import { write, type Deps } from '../../deps.js';
import { AuthError, ExitCode, InterruptedError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { commandLine, invocationOf, type Invocation } from '../../output/command-line.js';
import { text } from '../../output/text.js';
import { Journal, journalBase, type JournalEntry } from '../../payouts/journal.js';
import { reconcileEntry } from '../../payouts/lookup.js';
import { ledgerOutcome } from '../../payouts/ledger.js';
import { validatePayout, payoutBody, type PayoutFields } from '../../payouts/request.js';
import { retryCommand } from '../payout/retry-command.js';

export interface ReconcileResult {
  payoutId: string;
  outcome: 'accepted' | 'not made' | 'unknown';
  transactionId?: string;
  status?: string;
  retryCommand?: string;
  error?: string;
}

/** The payout's fields back from its journaled body (to print the retry command). */
function fieldsOf(body: string): PayoutFields | undefined {
  try {
    const b = JSON.parse(body) as {
      currency?: unknown;
      payoutId?: unknown;
      walletId?: unknown;
      recipient?: { type?: unknown; accountDetails?: Record<string, unknown> };
      metadata?: unknown;
    };
    const literal = /^\{"amount":(-?\d+(?:\.\d+)?)[,}]/.exec(body)?.[1];
    const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const d = b.recipient?.accountDetails ?? {};
    const metadata =
      b.metadata && typeof b.metadata === 'object' && Object.values(b.metadata).every((v) => typeof v === 'string') ? (b.metadata as Record<string, string>) : undefined;
    return {
      payoutId: s(b.payoutId),
      walletId: s(b.walletId),
      amount: literal,
      currency: s(b.currency),
      type: s(b.recipient?.type),
      name: s(d.name),
      provider: s(d.provider),
      account: s(d.accountNumber),
      phone: s(d.phoneNumber),
      note: s(d.note),
      ...(metadata ? { metadata } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * `payctl payout create ... --payout-id ID --idempotency-key KEY --yes` for a journaled
 * entry, only when it rebuilds the very body that was journaled; else undefined.
 */
export function retryCommandOf(entry: JournalEntry, inv: Invocation, journal: Journal): string | undefined {
  const fields = fieldsOf(entry.body);
  if (!fields) return undefined;
  const r = validatePayout(fields);
  if (!r.ok || journal.conflict(entry, payoutBody(r.request)) !== undefined) return undefined;
  return retryCommand(r.request, entry.idempotencyKey, inv);
}

export async function run(_opts: Record<string, never>, deps: Deps): Promise<number> {
  const api = await deps.api();
  const journal = new Journal(configDir(deps.env));
  const inv = invocationOf(deps.globals, deps.env);
  const base = journalBase(api.baseUrl);
  const results: ReconcileResult[] = [];
  const damaged: string[] = [];

  // One entry at a time: the journal's listing is read first, each entry when its turn comes.
  const todo: Array<{ name: string; t: number }> = [];
  for (const it of journal.scan()) {
    if ('error' in it) damaged.push(it.error.message);
    else if (ledgerOutcome(it.entry) === 'unknown' && journalBase(it.entry.baseUrl) === base) todo.push({ name: it.name, t: Date.parse(it.entry.createdAt) || 0 });
  }
  // Oldest first: the order they were sent in.
  todo.sort((a, b) => a.t - b.t);

  for (const { name } of todo) {
    if (deps.signal.aborted) break;
    const entry = journal.byName(name);
    if (!entry || ledgerOutcome(entry) !== 'unknown') continue;
    let result: ReconcileResult;
    try {
      const { lookUp, entry: now } = await reconcileEntry(api, journal, entry, () => deps.clock.now(), deps.signal);
      if (now.outcome?.kind === 'accepted') {
        result = {
          payoutId: entry.payoutId,
          outcome: 'accepted',
          ...(now.outcome.transactionId ? { transactionId: now.outcome.transactionId } : {}),
          ...(now.outcome.payoutStatus ? { status: now.outcome.payoutStatus } : {}),
        };
      } else {
        const cmd = !lookUp.found ? retryCommandOf(entry, inv, journal) : undefined;
        result = { payoutId: entry.payoutId, outcome: 'not made', ...(cmd ? { retryCommand: cmd } : {}) };
      }
    } catch (err) {
      if (err instanceof AuthError) throw err;
      result = { payoutId: entry.payoutId, outcome: 'unknown', error: (err as Error).message.replace(/\.$/, '') };
      if (err instanceof InterruptedError) {
        results.push(result);
        break;
      }
    }
    results.push(result);
    if (!deps.globals.json) await write(deps.io.stdout, line(result, entry, inv) + '\n');
  }

  const count = (k: ReconcileResult['outcome']) => results.filter((r) => r.outcome === k).length;
  const left = count('unknown');
  if (deps.globals.json) {
    await write(
      deps.io.stdout,
      JSON.stringify({
        base_url: api.baseUrl,
        results: results.map((r) => ({
          payout_id: r.payoutId,
          outcome: r.outcome,
          transaction_id: r.transactionId ?? null,
          status: r.status ?? null,
          retry_command: r.retryCommand ?? null,
          error: r.error ?? null,
        })),
        counts: { accepted: count('accepted'), not_made: count('not made'), unknown: left },
      }) + '\n',
    );
  } else if (results.length === 0) {
    deps.log.info(`No unknown outcomes in the journal for ${text(api.baseUrl)}.`);
  } else {
    deps.log.info(`${results.length} looked up: ${count('accepted')} accepted, ${count('not made')} not made, ${left} still unknown.`);
  }
  if (damaged.length) deps.log.warn(`${damaged.length} journal entr${damaged.length === 1 ? 'y was' : 'ies were'} passed over: they could not be read or verified.`);
  if (left) deps.log.warn(`Run ${commandLine(inv, ['history', 'reconcile'])} again when the service can be reached.`);
  return left ? ExitCode.unknown : ExitCode.ok;
}

function line(r: ReconcileResult, entry: JournalEntry, inv: Invocation): string {
  const id = text(r.payoutId);
  if (r.outcome === 'accepted') return `accepted  ${id}  transaction ${text(r.transactionId ?? '(none given)')}${r.status ? `, ${text(r.status)}` : ''}`;
  if (r.outcome === 'not made')
    return `not made  ${id}  retry safely (same idempotency key): ${r.retryCommand ?? `${commandLine(inv, ['payout', 'create'])} ... --payout-id ${id} --idempotency-key ${entry.idempotencyKey} --yes`}`;
  return `unknown   ${id}  could not look it up: ${text(r.error)}`;
}
