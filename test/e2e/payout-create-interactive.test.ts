/**
 * `payctl payout create` at a real terminal (tmux): pick the wallet with the arrow keys
 * from the live balances, enter the recipient and amount (refused as typed, corrected),
 * see the summary and confirm with y. One real-terminal run of the flow (keys, inquirer's
 * rendering); its behaviour, and the answers no and Enter, are tested in process with
 * scripted prompts in test/commands/payout-create-interactive.test.ts.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, tempConfigDir } from '../helpers/cli.js';
import { payctl as payctlInProcess } from '../helpers/in-process.js';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { startInTerminal, stopTerminalServer, type TerminalSession } from '../helpers/pty.js';

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;
let term: TerminalSession | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  // The login that sets the test up needs no process of its own.
  const r = await payctlInProcess(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir, input: ctx.sb.apiKey + '\n' });
  expect(r.code, r.stderr).toBe(0);
  ctx.sb.clearRequests();
});

afterEach(() => {
  term?.kill();
  term = undefined;
  cleanup();
});

afterAll(() => stopTerminalServer());

function payoutPosts(sb: Sandbox) {
  return sb.requests().filter((r) => r.method === 'POST' && r.path === '/v2/payout');
}

function balanceMinor(sb: Sandbox, walletId: string): bigint {
  return sb.wallets().find((w) => w.wallet_id === walletId)!.balance_minor;
}

/** payctl in a terminal, logged in through the temp config folder. */
function payctlInTerminal(args: string[]): TerminalSession {
  term = startInTerminal([process.execPath, BIN, ...args], {
    PAYCTL_CONFIG_DIR: dir,
    HOME: dir,
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  });
  return term;
}

/** The line of a select prompt that the cursor is on. */
function activeLine(screen: string): string | undefined {
  return screen.split('\n').find((l) => /^[❯>]\s/.test(l));
}

/** The exit line printed after payctl ends. */
async function exitCode(t: TerminalSession): Promise<number> {
  const screen = await t.waitFor(/^EXIT:\d+$/m, 15_000);
  return Number(/^EXIT:(\d+)$/m.exec(screen)![1]);
}

/**
 * Answers every prompt of the flow up to the confirmation: the wallet (moved to with the
 * arrow keys), a mobile-money recipient, provider "Orange Money", an amount first typed
 * with too many decimals (refused as typed), then corrected.
 */
async function fillPayout(t: TerminalSession, walletId: string): Promise<string> {
  let screen = await t.waitFor((s) => /^\? Pay from which wallet\?/m.test(s) && s.includes(walletId));
  // The list shows each wallet with its live balance.
  expect(screen).toMatch(new RegExp(`\\(${walletId}\\) · 5,000\\.00 SLE`));
  for (let moves = 0; !activeLine(screen)?.includes(walletId); moves++) {
    expect(moves).toBeLessThan(50);
    const before = activeLine(screen);
    t.keys('Down');
    screen = await t.waitFor((s) => activeLine(s) !== before);
  }
  t.keys('Enter');

  await t.waitFor((s) => /^\? Recipient type/m.test(s) && /^[❯>] Mobile-money wallet/m.test(s));
  t.keys('Enter');

  await t.waitFor(/^\? Recipient's full name\s*$/m);
  t.type('Aminata Kamara');
  t.keys('Enter');

  await t.waitFor(/^\? Provider \(type to search, or enter another\)/m);
  t.type('Orange Money');
  // The typed name is normalized and matched to the known provider, offered first.
  await t.waitFor(/^[❯>] orange_money$/m);
  t.keys('Enter');

  await t.waitFor(/^\? Account number\s*$/m);
  t.type('076123456');
  t.keys('Enter');

  await t.waitFor(/^\? Phone number \(e\.g\. \+23276123456\)\s*$/m);
  t.type('+23276123456');
  t.keys('Enter');

  await t.waitFor(/^\? Amount in SLE\s*$/m);
  t.type('1.234');
  t.keys('Enter');
  await t.waitFor(/"1\.234" has 3 decimal places, more than SLE has \(2\)/);
  t.keys('BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace');
  await t.waitFor(/^\? Amount in SLE\s*$/m);
  t.type('1500.50');
  t.keys('Enter');

  await t.waitFor(/^\? Note or payment reference \(optional\)\s*$/m);
  t.type('October stipend');
  t.keys('Enter');

  return t.waitFor(/^\? Send this payout\? \(y\/N\)/m);
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

describe('payout create at a terminal', () => {
  it('pick a wallet, enter a recipient, confirm with y: the payout is made', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '5000.00', 'SLE');
    const t = payctlInTerminal(['payout', 'create']);

    const summary = await fillPayout(t, walletId);
    expectSummary(summary, walletId);
    const payoutId = /^Payout ID\s+([0-9a-f-]{36})$/m.exec(summary)![1]!;
    // Nothing leaves before the yes.
    expect(payoutPosts(sb)).toEqual([]);

    t.type('y');
    t.keys('Enter');
    const code = await exitCode(t);
    const screen = t.screen();
    expect(screen).toContain('Send this payout? Yes');
    expect(screen).toContain(`Payout ${payoutId} submitted.`);
    expect(code).toBe(0);

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
    expect(screen).toMatch(new RegExp(`^Transaction\\s+${held[0]!.transaction_id}$`, 'm'));
    expect(screen).toMatch(/^Total debited\s+1,515\.51 SLE$/m);
  });
});
