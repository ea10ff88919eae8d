/**
 * Fixtures shared by the payout tests (in process and spawned): a logged-in config folder
 * made by `payctl login --api-key-stdin` run in process (once, or afresh for each test), what
 * the sandbox holds for a payout id or a wallet, the arguments of one payout create, and its
 * attempts' one key and body; a bank payout of 15.00 SLE as arguments and as a request, and the
 * repeat key payctl journaled for it before accounts were compared (repeat-account-forms.test.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect } from 'vitest';
import type { RecordedRequest, Sandbox } from '../../src/sandbox/server.js';
import type { PayoutRequest } from '../../src/payouts/request.js';
import { tempWorkDir } from './batch.js';
import { tempConfigDir } from './cli.js';
import { TestClock } from './clock.js';
import { payctl } from './in-process.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `payctl login --api-key-stdin --base-url <sandbox>` in process, checked. */
export async function loginInProcess(sb: Sandbox, dir: string): Promise<void> {
  const r = await payctl(['login', '--api-key-stdin', '--base-url', sb.baseUrl], { dir, input: sb.apiKey + '\n' });
  expect(r.stderr).toContain('Logged in');
  expect(r.code, r.stderr).toBe(0);
}

/**
 * For each test, a config folder logged in afresh (a journal with no payout in it) and a work
 * folder for batch files and reports, both removed after it; the sandbox's request log emptied.
 * (useBatchFolders, batch-fixtures.ts, logs in once for a whole file.) Registers its hooks where
 * it is called.
 */
export function useFreshLogin(ctx: { readonly sb: Sandbox }): { readonly dir: string; readonly work: ReturnType<typeof tempWorkDir> } {
  let cfg: ReturnType<typeof tempConfigDir> | undefined;
  let work: ReturnType<typeof tempWorkDir> | undefined;
  beforeEach(async () => {
    cfg = tempConfigDir();
    work = tempWorkDir();
    await loginInProcess(ctx.sb, cfg.dir);
    ctx.sb.clearRequests();
  });
  afterEach(() => {
    work?.cleanup();
    cfg?.cleanup();
  });
  return {
    get dir() {
      return cfg!.dir;
    },
    get work() {
      return work!;
    },
  };
}

/** The payouts the sandbox holds with this payout id. */
export function heldFor(sb: Sandbox, payoutId: string) {
  return sb.payouts().filter((p) => p.payout_id === payoutId);
}

/** The payouts the sandbox holds from this wallet. */
export function heldFrom(sb: Sandbox, walletId: string) {
  return sb.payouts().filter((p) => p.wallet_id === walletId);
}

export function walletOf(sb: Sandbox, walletId: string) {
  const w = sb.wallets().find((x) => x.wallet_id === walletId);
  if (!w) throw new Error(`no wallet ${walletId}`);
  return w;
}

export function balanceMinor(sb: Sandbox, walletId: string): bigint {
  return walletOf(sb, walletId).balance_minor;
}

/** Escapes text for a RegExp. */
export const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every attempt carried one key and one body, byte for byte. */
export function expectOneKeyOneBody(posts: RecordedRequest[]): string {
  expect(posts.length).toBeGreaterThan(0);
  const key = posts[0]!.headers['idempotency-key']!;
  expect(key).toMatch(UUID);
  for (const p of posts) {
    expect(p.headers['idempotency-key']).toBe(key);
    expect(p.body).toBe(posts[0]!.body);
  }
  return key;
}

/** A wallet payout of 1500.50 SLE from `walletId`, with --yes. */
export function payoutArgs(walletId: string, payoutId: string, extra: string[] = []): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    walletId,
    '--amount',
    '1500.50',
    '--currency',
    'SLE',
    '--type',
    'wallet',
    '--name',
    'Aminata Kamara',
    '--provider',
    'Orange Money',
    '--account',
    '076123456',
    '--phone',
    '+23276123456',
    '--note',
    "Aminata's October stipend",
    '--metadata',
    'batch=oct stipends',
    '--payout-id',
    payoutId,
    ...extra,
    '--yes',
  ];
}

/** A bank payout from `walletId`; every flag given. */
export function bankArgs(walletId: string): string[] {
  return ['--wallet', walletId, '--amount', '2750.25', '--currency', 'SLE', '--type', 'bank', '--name', 'Ibrahim Conteh', '--provider', 'uba', '--account', '5401234567'];
}

/** Sends the bank payout once without a terminal, through `run` (in process or spawned); returns the payout the sandbox holds. */
export async function sendFirst(sb: Sandbox, walletId: string, run: (args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>) {
  const first = await run(['payout', 'create', ...bankArgs(walletId), '--yes']);
  expect(first.stdout).toMatch(/^Transaction\s+TXN-BOK-[0-9A-F]{26}$/m);
  expect(first.code, first.stderr).toBe(0);
  const held = heldFrom(sb, walletId);
  expect(held).toHaveLength(1);
  expect(first.stderr).toContain(`Payout ${held[0]!.payout_id} submitted.`);
  expect(held[0]!.transaction_id).toMatch(/^TXN-BOK-[0-9A-F]{26}$/);
  sb.clearRequests();
  return held[0]!;
}

/** The warning naming the earlier payout, as one (joined) line of the screen. */
export function repeatWarning(payoutId: string, transactionId: string): RegExp {
  return new RegExp(
    String.raw`This payout repeats one sent from this config folder (?:less than a minute|\d+ minutes?) ago \(\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\) ` +
      String.raw`with the same wallet, account, amount and currency: payout id ${escapeRe(payoutId)}, accepted, transaction ${escapeRe(transactionId)}\.`,
  );
}

/** `payout create` of 15.00 SLE from `wallet` to bank account `account` (the probe's payout), with --yes. */
export function bankPayoutArgs(wallet: string, account: string, name = 'Rep4'): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    wallet,
    '--currency',
    'SLE',
    '--type',
    'bank',
    '--name',
    name,
    '--provider',
    'ecobank',
    '--yes',
    '--amount',
    '15.00',
    '--account',
    account,
  ];
}

/** What bankPayoutArgs pays, as a request under a new payout id. */
export function bankPayoutRequest(wallet: string, account: string, name = 'Rep4'): PayoutRequest {
  return {
    payoutId: randomUUID(),
    walletId: wallet,
    currency: 'SLE',
    amountMinor: 1500n,
    digits: 2,
    amount: '15.00',
    type: 'bank',
    name,
    provider: 'ecobank',
    account,
    phone: undefined,
    note: undefined,
    metadata: undefined,
  };
}

/** The repeat key as payctl journaled it before accounts were compared: of the account exactly as typed. */
export function previousRepeatKey(r: Pick<PayoutRequest, 'walletId' | 'account' | 'currency' | 'amountMinor'>): string {
  const text = `payctl-repeat-v1\n${JSON.stringify([r.walletId, r.account, r.currency, r.amountMinor.toString()])}`;
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * Runs a payout create (`args`) whose answer is lost on every try, after the sandbox made the
 * payout (`kind` reset-after-commit, the default) or before (reset-before-commit: not made): exit
 * 4, unknown; returns its payout id. `run` is
 * given a TestClock for payctl to wait its retries' back-off on (no real waits; its journal times
 * run ahead of real time by the seconds waited).
 */
export async function createWithLostAnswer(
  sb: Sandbox,
  run: (args: string[], clock: TestClock) => Promise<{ code: number | null; stderr: string }>,
  args: string[],
  kind: 'reset-after-commit' | 'reset-before-commit' = 'reset-after-commit',
): Promise<string> {
  sb.faults.add({ method: 'POST', path: '/v2/payout', kind, times: Infinity });
  const first = await run(args, new TestClock());
  sb.faults.clear();
  expect(first.code, first.stderr).toBe(4);
  const id = /The outcome of payout (\S+) is unknown/.exec(first.stderr)?.[1];
  expect(id, first.stderr).toBeDefined();
  return id!;
}
