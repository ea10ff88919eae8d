/**
 * `payctl payout create` at a terminal, in process: stdin and stdout claim to be
 * terminals and a scripted prompter answers (any other question fails the run). Pick the
 * wallet from the live balances, enter the recipient and amount (validated as typed), see
 * the summary and confirm; answering no, or just Enter (the default, No), sends nothing.
 * The real terminal (keys, rendering) is driven in test/e2e/payout-create-interactive.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { startPayctl } from '../helpers/in-process.js';
import { payoutPosts } from '../helpers/batch.js';
import { balanceMinor, escapeRe, loginInProcess } from '../helpers/payout-fixtures.js';
import { recordingPrompter, type RecordingPrompter } from '../helpers/recording-prompter.js';
import type { Step } from '../helpers/prompts.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
  ctx.sb.clearRequests();
});

afterEach(() => cleanup());

/**
 * payctl at a (claimed) terminal with scripted answers; resolves with the run, the prompts
 * asked, and how many payouts had been posted when each confirmation was asked.
 */
async function atTerminal(args: string[], script: Step[]) {
  const prompter = recordingPrompter(script);
  const postsAtConfirm: number[] = [];
  const confirm = prompter.confirm.bind(prompter);
  prompter.confirm = async (o) => {
    postsAtConfirm.push(payoutPosts(ctx.sb).length);
    return confirm(o);
  };
  const started = startPayctl(args, { dir, prompts: prompter });
  prompter.output = started;
  const r = await started.done;
  return { r, prompter, postsAtConfirm };
}

/** The answers of the whole flow up to the confirmation (as the terminal test types them), then `confirm`. */
function fillPayout(walletId: string, confirm: boolean): Step[] {
  return [
    { select: /^Pay from which wallet\?$/, pick: new RegExp(`\\(${escapeRe(walletId)}\\)`) },
    { select: /^Recipient type$/, pick: /^Mobile-money wallet$/ },
    { input: /^Recipient's full name$/, answer: 'Aminata Kamara' },
    { suggest: /^Provider \(type to search, or enter another\)$/, answer: 'Orange Money' },
    { input: /^Account number$/, answer: '076123456' },
    { input: /^Phone number \(e\.g\. \+23276123456\)$/, answer: '+23276123456' },
    { input: /^Amount in SLE$/, answer: '1500.50' },
    { input: /^Note or payment reference \(optional\)$/, answer: 'October stipend' },
    { confirm: /^Send this payout\?$/, answer: confirm },
  ];
}

/** What the terminal showed of the flow: the live balances, the provider matched, the amount checked as typed. */
function expectFlow(p: RecordingPrompter, walletId: string): void {
  const wallets = p.call(/^Pay from which wallet\?$/);
  // The list shows each wallet with its live balance.
  expect(wallets.choices!.map((c) => c.name)).toContainEqual(expect.stringMatching(new RegExp(`\\(${walletId}\\) · 5,000\\.00 SLE$`)));
  expect(p.call(/^Recipient type$/).choices!.map((c) => c.name)[0]).toBe('Mobile-money wallet');
  // The typed name is normalized and matched to the known provider.
  const provider = p.call(/^Provider/);
  expect(provider.normalize!('Orange Money')).toBe('orange_money');
  expect(provider.suggestions).toContain('orange_money');
  // Too many decimals are refused as typed; the corrected amount is accepted.
  const amount = p.call(/^Amount in SLE$/);
  expect(amount.validate!('1.234')).toBe('"1.234" has 3 decimal places, more than SLE has (2)');
  expect(amount.validate!('1500.50')).toBe(true);
}

function expectSummary(screen: string, walletId: string): void {
  expect(screen).toMatch(/^Amount\s+1,500\.50 SLE$/m);
  expect(screen).toMatch(new RegExp(`^From wallet\\s+Test \\w+ \\(${walletId}\\) · 5,000\\.00 SLE$`, 'm'));
  expect(screen).toMatch(/^Recipient\s+Aminata Kamara \(wallet\)$/m);
  expect(screen).toMatch(/^Provider\s+orange_money$/m);
  expect(screen).toMatch(/^Account\s+076123456$/m);
  expect(screen).toMatch(/^Phone\s+\+23276123456$/m);
  expect(screen).toMatch(/^Note\s+October stipend$/m);
  expect(screen).toMatch(/^Payout ID\s+[0-9a-f-]{36}$/m);
}

/** The confirmation: default No, with the summary already on stdout. */
function expectConfirmation(p: RecordingPrompter, walletId: string): string {
  const confirm = p.call(/^Send this payout\?$/);
  expect(confirm.default).toBe(false);
  expectSummary(confirm.stdout, walletId);
  return /^Payout ID\s+([0-9a-f-]{36})$/m.exec(confirm.stdout)![1]!;
}

describe('payout create at a terminal', () => {
  it('pick a wallet, enter a recipient, confirm with y: the payout is made', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '5000.00', 'SLE');
    const { r, prompter, postsAtConfirm } = await atTerminal(['payout', 'create'], fillPayout(walletId, true));
    expect(prompter.pending, r.stderr).toEqual([]);
    expectFlow(prompter, walletId);
    // Nothing leaves before the yes.
    expect(postsAtConfirm).toEqual([0]);
    const payoutId = expectConfirmation(prompter, walletId);

    expect(r.stderr).toContain(`Payout ${payoutId} submitted.`);
    expect(r.code, r.stderr).toBe(0);

    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.outcome).toBe(201);
    expect(posts[0]!.body).toContain('"amount":1500.5,');
    expect(JSON.parse(posts[0]!.body)).toEqual({
      amount: 1500.5,
      currency: 'SLE',
      payoutId,
      walletId,
      recipient: {
        type: 'wallet',
        accountDetails: {
          name: 'Aminata Kamara',
          provider: 'orange_money',
          accountNumber: '076123456',
          phoneNumber: '+23276123456',
          note: 'October stipend',
        },
      },
    });
    const held = sb.payouts().filter((p) => p.wallet_id === walletId);
    expect(held).toHaveLength(1);
    expect(held[0]!.payout_id).toBe(payoutId);
    expect(held[0]!.amount).toBe('1500.5');
    expect(balanceMinor(sb, walletId)).toBe(500000n - 150050n - 1501n);
    expect(r.stdout).toMatch(new RegExp(`^Transaction\\s+${held[0]!.transaction_id}$`, 'm'));
    expect(r.stdout).toMatch(/^Total debited\s+1,515\.51 SLE$/m);
  });

  it('answering n at the confirmation sends nothing', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '5000.00', 'SLE');
    const { r, prompter, postsAtConfirm } = await atTerminal(['payout', 'create'], fillPayout(walletId, false));
    expect(prompter.pending, r.stderr).toEqual([]);
    expectFlow(prompter, walletId);
    expect(postsAtConfirm).toEqual([0]);
    expectConfirmation(prompter, walletId);
    expect(r.stderr).toMatch(/^Nothing was sent\.$/m);
    expect(r.stderr).not.toContain('Error:');
    expect(r.stderr).not.toMatch(/submitted/);
    expect(r.code, r.stderr).toBe(2);

    // The live balances were read; no payout was sent.
    expect(sb.requests().some((x) => x.method === 'GET' && x.path === '/v2/wallets/balances')).toBe(true);
    expect(payoutPosts(sb)).toEqual([]);
    expect(sb.payouts().filter((p) => p.wallet_id === walletId)).toEqual([]);
    expect(balanceMinor(sb, walletId)).toBe(500000n);
  });

  it('with every flag but --yes it still asks, and Enter (the default) is no: nothing sent', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '5000.00', 'SLE');
    // Enter takes the default: the test answers what the default is, and checks the default is No.
    const { r, prompter, postsAtConfirm } = await atTerminal(
      [
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
        'October stipend',
      ],
      [{ confirm: /^Send this payout\?$/, answer: false }],
    );
    expect(prompter.pending, r.stderr).toEqual([]);
    // Only the confirmation was asked.
    expect(prompter.asked).toEqual(['Send this payout?']);
    expect(postsAtConfirm).toEqual([0]);
    expectConfirmation(prompter, walletId);
    expect(r.stderr).toMatch(/^Nothing was sent\.$/m);
    expect(r.stderr).not.toContain('Error:');
    expect(r.code, r.stderr).toBe(2);
    expect(payoutPosts(sb)).toEqual([]);
    expect(balanceMinor(sb, walletId)).toBe(500000n);
  });
});

describe("a --wallet that is none of the key's wallets, at a terminal", () => {
  it('is refused (exit 2) before anything is asked: no amount prompt with no currency that takes no answer', async () => {
    const { r, prompter } = await atTerminal(
      ['payout', 'create', '--wallet', '1234567890', '--type', 'bank', '--name', 'X', '--provider', 'uba', '--account', '0011'],
      [],
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('No wallet "1234567890" among this key\'s wallets. Nothing was sent.');
    expect(prompter.asked).toEqual([]);
    expect(payoutPosts(ctx.sb)).toEqual([]);
  });
});
