/**
 * Four points of issue #28 about `payout create`, in process against the sandbox over real HTTP:
 *
 * 1. Ctrl-C at a prompt (inquirer's ExitPromptError, thrown by the test's prompter as inquirer
 *    throws it) before anything was sent: exit 130 and "Nothing was sent." on stderr.
 * 2. The payout card names the provider with the word `--provider` takes and the CSV shows
 *    (`orange_money`), not the service's capitals (`ORANGE_MONEY`).
 * 3. A wallet that holds another currency is refused before sending, by the batch's rule:
 *    exit 2, nothing sent, nothing journaled, no question asked.
 * 4. Credentials refused (401 or 403) on POST /payout before anything happened: exit 3, "Nothing
 *    was sent" and `payctl login`, the journal entry refused (not unknown), and the printed command
 *    sends it after login. A request that may have left first stays unknown (exit 4). A key
 *    revoked before sending (refused at the balances read) prints the same two commands.
 */
import { ExitPromptError } from '@inquirer/core';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts } from '../helpers/batch.js';
import { journalOf } from '../helpers/hostile.js';
import { bankArgs, heldFor, heldFrom, loginInProcess, payoutArgs } from '../helpers/payout-fixtures.js';
import { scriptedPrompter, type ScriptedPrompter, type Step } from '../helpers/prompts.js';
import { shellSplit } from '../helpers/pty.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { CSV_HEADER, payoutCsvValues, renderPayoutCard } from '../../src/output/payout.js';
import { payoutRecordSchema } from '../../src/service/schemas.js';
import { makeStyle } from '../../src/output/style.js';

const ctx = useSandbox();
let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
  ctx.sb.faults.clear();
  ctx.sb.clearRequests();
});
afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

function journalFiles(): string[] {
  const folder = join(dir, 'journal');
  return existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')) : [];
}

/** The history's entries as JSON. */
async function history(): Promise<Array<Record<string, unknown>>> {
  const r = await payctl(['history', '--json'], { dir });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { data: Array<Record<string, unknown>> }).data;
}

/**
 * A scripted prompter whose question matching `at` is answered with Ctrl-C as inquirer reports it
 * (ExitPromptError: the terminal is in raw mode, so Ctrl-C reaches the prompt, not the process).
 */
function ctrlCAt(at: RegExp, before: Step[] = []): ScriptedPrompter {
  const p = scriptedPrompter(before);
  /** Ctrl-C at the question `at`; any other one goes to the script. */
  const or = <A extends { message: string }, R>(ask: (o: A) => Promise<R>) => {
    return async (o: A): Promise<R> => {
      if (!at.test(o.message)) return ask(o);
      p.asked.push(o.message);
      throw new ExitPromptError('User force closed the prompt with SIGINT');
    };
  };
  return Object.assign(p, {
    confirm: or(p.confirm.bind(p)),
    input: or(p.input.bind(p)),
    suggest: or(p.suggest.bind(p)),
    select: or(p.select.bind(p)),
  });
}

describe('1. Ctrl-C at a prompt, before anything was sent', () => {
  it('at payout batch\'s confirmation: exit 130, "Nothing was sent.", no POST, nothing journaled', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const file = join(dir, 'pay.csv');
    writeFileSync(
      file,
      'wallet_id,amount,currency,type,name,provider,account_number,phone_number\n' +
        `${walletId},10.00,SLE,wallet,Aminata Kamara,orange_money,076123456,+23276123456\n` +
        `${walletId},12.00,SLE,wallet,Ibrahim Sesay,orange_money,076123457,+23276123457\n`,
    );
    const prompts = ctrlCAt(/^Send 2 payouts/);
    const r = await payctl(['payout', 'batch', file], { dir, prompts });
    expect(prompts.asked).toHaveLength(1);
    expect(r.stderr).toMatch(/\nError: Interrupted\. Nothing was sent\.\n$/);
    expect(r.code, r.stderr).toBe(130);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(journalFiles()).toEqual([]);
  });

  it('at the confirmation: exit 130, "Nothing was sent." on stderr; no POST, nothing journaled', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const prompts = ctrlCAt(/^Send this payout\?$/);
    const r = await payctl(['payout', 'create', ...bankArgs(walletId)], { dir, prompts });
    expect(prompts.asked).toEqual(['Send this payout?']);
    expect(r.stderr).toBe('Error: Interrupted. Nothing was sent.\n');
    expect(r.code, r.stderr).toBe(130);
    // The summary was shown before the question; no card of a sent payout.
    expect(r.stdout).toMatch(/^Amount\s+2,750\.25 SLE$/m);
    expect(r.stdout).not.toMatch(/^Transaction\s/m);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(journalFiles()).toEqual([]);
  });

  it('at the repeat question (the same payout again, with --yes): exit 130, nothing sent', async () => {
    const walletId = freshWallet(ctx.sb, '9000.00', 'SLE');
    const first = await payctl(['payout', 'create', ...bankArgs(walletId), '--yes'], { dir });
    expect(first.code, first.stderr).toBe(0);
    ctx.sb.clearRequests();
    const prompts = ctrlCAt(/^Send it again, as a new payout\?$/);
    const r = await payctl(['payout', 'create', ...bankArgs(walletId), '--yes'], { dir, prompts });
    expect(prompts.asked).toEqual(['Send it again, as a new payout?']);
    expect(r.stderr).toContain('Warning: This payout repeats one sent from this config folder');
    expect(r.stderr).toMatch(/\nError: Interrupted\. Nothing was sent\.\n$/);
    expect(r.code, r.stderr).toBe(130);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(heldFrom(ctx.sb, walletId)).toHaveLength(1);
    expect(journalFiles()).toHaveLength(1);
  });

  it('in the interactive flow (at the amount): exit 130, nothing sent', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const prompts = ctrlCAt(/^Amount in SLE$/, [
      { select: /^Recipient type$/, pick: /^Bank account$/ },
      { input: /^Recipient's full name$/, answer: 'Ibrahim Conteh' },
      { suggest: /^Provider/, answer: 'uba' },
      { input: /^Account number$/, answer: '5401234567' },
    ]);
    const r = await payctl(['payout', 'create', '--wallet', walletId], { dir, prompts });
    expect(prompts.pending).toEqual([]);
    expect(r.stderr).toBe('Error: Interrupted. Nothing was sent.\n');
    expect(r.code, r.stderr).toBe(130);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(journalFiles()).toEqual([]);
  });
});

describe('2. the provider on the card is the word --provider takes, as in the CSV', () => {
  it('payout create: "Provider orange_money", not ORANGE_MONEY', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00', 'SLE');
    const r = await payctl(payoutArgs(walletId, 'card-provider-1'), { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Provider\s+orange_money$/m);
    expect(r.stdout).not.toContain('ORANGE_MONEY');
    // The sandbox answers in capitals, as the service does: the card does not take that word.
    expect(heldFor(ctx.sb, 'card-provider-1')[0]!.provider_response.provider).toBe('ORANGE_MONEY');
  });

  it('a record with both words: the card and the CSV show the same one, the one --provider takes', () => {
    const record = payoutRecordSchema.parse({
      transaction_id: 'TXN-BOK-83BD4FB5EF52C8CB2329510901',
      amount: 1500.5,
      fee: 15.01,
      currency: 'SLE',
      status: 'Pending',
      recipient: { type: 'wallet', accountDetails: { name: 'Aminata Kamara', provider: 'orange_money', accountNumber: '076123456' } },
      provider_response: { status: 'Pending', provider: 'ORANGE_MONEY', orderId: 'ORD-1' },
    });
    const card = renderPayoutCard(record, makeStyle(false));
    const csv = payoutCsvValues(record)[CSV_HEADER.indexOf('provider')];
    expect(csv).toBe('orange_money');
    expect(card).toMatch(/^Provider\s+orange_money$/m);
    // Only the service's word known: that one, in both.
    const onlyService = payoutRecordSchema.parse({ ...record, recipient: { type: 'wallet', name: 'A' } });
    expect(renderPayoutCard(onlyService, makeStyle(false))).toMatch(/^Provider\s+ORANGE_MONEY$/m);
    expect(payoutCsvValues(onlyService)[CSV_HEADER.indexOf('provider')]).toBe('ORANGE_MONEY');
  });
});

describe("3. a wallet of another currency is refused before sending (the batch's rule)", () => {
  const ngnArgs = (walletId: string, extra: string[] = []) => [
    'payout',
    'create',
    '--wallet',
    walletId,
    '--amount',
    '100.00',
    '--currency',
    'NGN',
    '--type',
    'bank',
    '--name',
    'Ibrahim Conteh',
    '--provider',
    'uba',
    '--account',
    '5401234567',
    ...extra,
  ];

  it('--yes: exit 2 naming both currencies, no POST, nothing journaled', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(ngnArgs(walletId, ['--yes']), { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'Error: Cannot send this payout: 1 problem. Nothing was sent.\n' +
        `  - wallet ${walletId} holds SLE, not NGN\n` +
        'See your wallets and their currencies with: payctl balances\n',
    );
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(ctx.sb.requests().map((x) => `${x.method} ${x.path}`)).toEqual(['GET /v2/wallets/balances']);
    expect(journalFiles()).toEqual([]);
  });

  it('--json: the problem names --currency', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(ngnArgs(walletId, ['--yes', '--json']), { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'USAGE_ERROR',
      errors: [{ field: '--currency', message: `wallet ${walletId} holds SLE, not NGN` }],
    });
    expect(payoutPosts(ctx.sb)).toEqual([]);
  });

  it('at a terminal: refused before the summary and the question', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const prompts = scriptedPrompter([]);
    const r = await payctl(ngnArgs(walletId), { dir, prompts });
    expect(prompts.asked).toEqual([]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`wallet ${walletId} holds SLE, not NGN`);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(journalFiles()).toEqual([]);
  });

  it('--dry-run (text, which reads the balances for its card) is refused the same way', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(ngnArgs(walletId, ['--dry-run']), { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`wallet ${walletId} holds SLE, not NGN`);
    expect(journalFiles()).toEqual([]);
  });

  it('a wallet that is not one of yours: exit 2, nothing sent', async () => {
    const r = await payctl(ngnArgs('wal_nobody_0000', ['--yes']), { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('  - --wallet "wal_nobody_0000" is not one of your wallets (see payctl balances)\n');
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(journalFiles()).toEqual([]);
  });

  it('--yes while the service fails every balances read: the currency is left to the service, the payout sent', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'NGN');
    ctx.sb.faults.add({ kind: 'status', status: 500, method: 'GET', path: '/v2/wallets/balances', times: Infinity });
    const r = await payctl(ngnArgs(walletId, ['--yes']), { dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(0);
    expect(payoutPosts(ctx.sb).map((p) => p.outcome)).toEqual([201]);
  });

  it('a key refused at the balances read: exit 3, nothing sent, nothing journaled', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    ctx.sb.faults.add({ kind: 'status', status: 401, method: 'GET', path: '/v2/wallets/balances' });
    const r = await payctl(ngnArgs(walletId, ['--yes']), { dir });
    expect(r.code, r.stderr).toBe(3);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(journalFiles()).toEqual([]);
  });

  it('the matching currency still sends (one balances read, one POST)', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'NGN');
    const r = await payctl(ngnArgs(walletId, ['--yes']), { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(ctx.sb.requests().map((x) => `${x.method} ${x.path} ${x.outcome}`)).toEqual(['GET /v2/wallets/balances 200', 'POST /v2/payout 201']);
  });
});

describe('4. credentials refused on POST /payout', () => {
  it.each([401, 403])('%i on the first attempt: exit 3, nothing sent, journaled as refused; after login the printed command sends it once', async (status) => {
    const walletId = freshWallet(ctx.sb, '10000.00', 'SLE');
    const payoutId = `refused-${status}`;
    ctx.sb.faults.add({ kind: 'status', status, method: 'POST', path: '/v2/payout' });
    const r = await payctl(payoutArgs(walletId, payoutId), { dir });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    const said = status === 401 ? 'The service refused the API key' : 'The service forbids this request with this API key';
    expect(r.stderr).toMatch(new RegExp(`^Error: ${said} \\(.+\\)\\. Nothing was sent: payout ${payoutId} is journaled as refused\\.\n`));
    expect(r.stderr).toContain(`HTTP ${status} ${status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN'}`);
    expect(r.stderr).toContain('payctl login');
    expect(r.stderr).not.toMatch(/unknown|may or may not/i);
    expect(payoutPosts(ctx.sb).map((p) => p.outcome)).toEqual([status]);
    expect(heldFor(ctx.sb, payoutId)).toEqual([]);

    // The journal: refused, not unknown; history says so.
    const [entry] = journalOf(dir, payoutId);
    expect(entry!.outcome).toMatchObject({ kind: 'rejected', status, code: status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN' });
    const listed = (await history()).find((l) => l.payout_id === payoutId);
    expect(listed).toMatchObject({ outcome: 'rejected' });

    // The printed command, run as printed (the key is fine again): one payout, with the journaled key.
    const line = r.stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith('payctl payout create '));
    expect(line).toContain(`--payout-id ${payoutId} --idempotency-key ${entry!.idempotencyKey} --yes`);
    ctx.sb.clearRequests();
    const again = await payctl(shellSplit(line!).slice(1), { dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`Payout ${payoutId} submitted.`);
    expect(payoutPosts(ctx.sb).map((p) => p.headers['idempotency-key'])).toEqual([entry!.idempotencyKey]);
    expect(heldFor(ctx.sb, payoutId)).toHaveLength(1);
    expect(journalOf(dir, payoutId)[0]!.outcome).toMatchObject({ kind: 'accepted' });
  });

  /** Under profile `team` (not the default one), with a key the service has revoked: refused at the balances read, before sending. */
  async function refusedBeforeSending(args: string[], prompts?: ScriptedPrompter): Promise<{ login: string; send: string }> {
    const team = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl, '--profile', 'team'], { dir, input: ctx.sb.apiKey + '\n' });
    expect(team.code, team.stderr).toBe(0);
    ctx.sb.revokeApiKey();
    ctx.sb.clearRequests();
    const r = await payctl([...args, '--profile', 'team'], { dir, prompts });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/^Error: The service refused the API key \(.+\)\. Nothing was sent\.\n/);
    expect(ctx.sb.requests().map((x) => `${x.method} ${x.path} ${x.outcome}`)).toEqual(['GET /v2/wallets/balances 401']);
    const login = /Run `(payctl login[^`]*)` with a valid key\./.exec(r.stderr)?.[1];
    expect(login, r.stderr).toBe('payctl login --profile team');
    const send = r.stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith('payctl payout create '));
    expect(send, r.stderr).toBeDefined();
    expect(r.stderr).toContain(`Then send it with the same idempotency key (it cannot be paid twice):\n  ${send}\n`);
    // Logged in again, as printed (the new key from PAYCTL_API_KEY, as a hidden prompt would take it).
    const again = await payctl(shellSplit(login!).slice(1), { dir, env: { PAYCTL_API_KEY: ctx.sb.apiKey } });
    expect(again.code, again.stderr).toBe(0);
    ctx.sb.clearRequests();
    return { login: login!, send: send! };
  }

  it('a key revoked before the payout was sent (no --payout-id): exit 3, the login and the send printed; run as printed, one payout, and twice still one', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00', 'SLE');
    const args = payoutArgs(walletId, 'unused').filter((a, i, all) => a !== '--payout-id' && all[i - 1] !== '--payout-id');
    const { send } = await refusedBeforeSending(args);
    expect(journalFiles()).toEqual([]);
    // The payout id made for it is in the command, so running it twice is one payout.
    const payoutId = /--payout-id (\S+)/.exec(send)![1]!;
    expect(send).toContain('--profile team');
    for (const n of [1, 2]) {
      const sent = await payctl(shellSplit(send).slice(1), { dir });
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.stderr).toContain(n === 1 ? `Payout ${payoutId} submitted.` : `Already submitted: payout ${payoutId} was accepted earlier`);
    }
    expect(heldFrom(ctx.sb, walletId)).toHaveLength(1);
    expect(heldFor(ctx.sb, payoutId)).toHaveLength(1);
  });

  it('a journaled payout whose key is revoked before its resend: the printed send carries its journaled key; after login, one payout under it', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00', 'SLE');
    const payoutId = 'revoked-before-resend';
    ctx.sb.faults.add({ kind: 'status', status: 401, method: 'POST', path: '/v2/payout' });
    const first = await payctl(payoutArgs(walletId, payoutId), { dir });
    expect(first.code, first.stderr).toBe(3);
    ctx.sb.faults.clear();
    const [entry] = journalOf(dir, payoutId);
    const { send } = await refusedBeforeSending(payoutArgs(walletId, payoutId));
    expect(send).toMatch(/^payctl payout create --profile team /);
    expect(send).toContain(`--payout-id ${payoutId} --idempotency-key ${entry!.idempotencyKey} --yes`);
    const sent = await payctl(shellSplit(send).slice(1), { dir });
    expect(sent.code, sent.stderr).toBe(0);
    expect(payoutPosts(ctx.sb).map((p) => p.headers['idempotency-key'])).toEqual([entry!.idempotencyKey]);
    expect(heldFor(ctx.sb, payoutId)).toHaveLength(1);
  });

  it('at a terminal, refused before the question: the printed send has no --yes, so it asks before sending', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00', 'SLE');
    const payoutId = 'revoked-before-asked';
    const prompts = scriptedPrompter([]);
    const { send } = await refusedBeforeSending(
      payoutArgs(walletId, payoutId).filter((a) => a !== '--yes'),
      prompts,
    );
    expect(prompts.asked).toEqual([]);
    expect(send).toMatch(new RegExp(`--payout-id ${payoutId} --idempotency-key [0-9a-f-]{36}$`));
    const yes = scriptedPrompter([{ confirm: /^Send this payout\?$/, answer: true }]);
    const sent = await payctl(shellSplit(send).slice(1), { dir, prompts: yes });
    expect(yes.asked).toEqual(['Send this payout?']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(heldFor(ctx.sb, payoutId)).toHaveLength(1);
  });

  it('a refused key after an attempt that may have left (reset after commit): still unknown, exit 4', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00', 'SLE');
    const payoutId = 'refused-after-reset';
    ctx.sb.faults.add({ kind: 'reset-after-commit', method: 'POST', path: '/v2/payout' });
    ctx.sb.faults.add({ kind: 'status', status: 401, method: 'POST', path: '/v2/payout' });
    const r = await payctl(payoutArgs(walletId, payoutId), { dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`The outcome of payout ${payoutId} is unknown`);
    expect(r.stderr).not.toContain('Nothing was sent');
    // It was made.
    expect(heldFor(ctx.sb, payoutId)).toHaveLength(1);
    expect(journalOf(dir, payoutId)[0]!.outcome).toMatchObject({ kind: 'unknown' });
  });

  it('a 403 after an attempt that may have left: unknown (exit 4), never refused', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00', 'SLE');
    const payoutId = 'forbidden-after-reset';
    ctx.sb.faults.add({ kind: 'reset-after-commit', method: 'POST', path: '/v2/payout' });
    ctx.sb.faults.add({ kind: 'status', status: 403, method: 'POST', path: '/v2/payout' });
    const r = await payctl(payoutArgs(walletId, payoutId), { dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(4);
    expect(heldFor(ctx.sb, payoutId)).toHaveLength(1);
    expect(journalOf(dir, payoutId)[0]!.outcome).toMatchObject({ kind: 'unknown' });
  });

  it('a rerun of a payout left unknown, refused at login: not recorded as refused (the first run may have made it)', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00', 'SLE');
    const payoutId = 'unknown-then-refused';
    ctx.sb.faults.add({ kind: 'reset-after-commit', method: 'POST', path: '/v2/payout', times: Infinity });
    const first = await payctl(payoutArgs(walletId, payoutId), { dir, clock: new TestClock() });
    expect(first.code, first.stderr).toBe(4);
    expect(journalOf(dir, payoutId)[0]!.outcome).toMatchObject({ kind: 'unknown' });

    ctx.sb.faults.clear();
    ctx.sb.faults.add({ kind: 'status', status: 401, method: 'POST', path: '/v2/payout' });
    const r = await payctl(payoutArgs(walletId, payoutId), { dir });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(
      `Error: The service refused the API key (Unauthenticated.). This attempt sent nothing, but payout ${payoutId} was sent before and its outcome is still unknown.\n`,
    );
    expect(r.stderr).not.toContain('Nothing was sent');
    expect(r.stderr).toContain('payctl login');
    expect(journalOf(dir, payoutId)[0]!.outcome).toMatchObject({ kind: 'unknown' });
    expect((await history()).find((l) => l.payout_id === payoutId)).toMatchObject({ outcome: 'unknown' });
    expect(heldFor(ctx.sb, payoutId)).toHaveLength(1);
  });
});
