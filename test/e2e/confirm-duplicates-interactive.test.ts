/**
 * A duplicate guard at a real terminal (tmux), the built binary against the in-process
 * sandbox: a `payout create` typed again within 24 hours shows the card, warns with the
 * earlier payout and asks again; n sends nothing (exit 2), y sends the card's payout id.
 * Every duplicate guard (batch twins, create with and without --yes, Enter as No) is
 * tested in process with scripted prompts in test/commands/confirm-duplicates-interactive.test.ts.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, tempConfigDir } from '../helpers/cli.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { startInTerminal, stopTerminalServer, type TerminalSession } from '../helpers/pty.js';
import { loginCli, payctl, payoutPosts, postedPayoutId } from '../helpers/batch.js';
import { bankArgs, escapeRe, heldFrom as heldFor, repeatWarning, sendFirst } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();

let cfg: ReturnType<typeof tempConfigDir>;
let terms: TerminalSession[] = [];

// A fresh config folder (and so a fresh journal) per test.
beforeEach(async () => {
  cfg = tempConfigDir();
  await loginCli(ctx.sb, cfg.dir);
  ctx.sb.clearRequests();
});

afterEach(() => {
  for (const t of terms) t.kill();
  terms = [];
  cfg.cleanup();
});

afterAll(() => stopTerminalServer());

/** payctl in a terminal, logged in through the test's config folder. */
function payctlInTerminal(args: string[]): TerminalSession {
  const t = startInTerminal([process.execPath, BIN, ...args], {
    PAYCTL_CONFIG_DIR: cfg.dir,
    HOME: cfg.dir,
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  });
  terms.push(t);
  return t;
}

/** The exit line printed after payctl ends. */
async function exitCode(t: TerminalSession): Promise<number> {
  const screen = await t.waitFor(/^EXIT:\d+$/m, 20_000);
  return Number(/^EXIT:(\d+)$/m.exec(screen)![1]);
}

// ---------------------------------------------------------------------------------------
// payout create: the same payout typed again

describe('payout create at a terminal: the same payout typed again', () => {
  // The card (stdout), the warning (stderr) and the question in their order on one real screen.
  it('without --yes: the summary card, the warning and "Send this payout again, as a new payout?"; n sends nothing; y sends the card\'s payout id', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '100000.00', 'SLE');
    const earlier = await sendFirst(sb, wal, (args) => payctl(args, { dir: cfg.dir }));
    const warning = repeatWarning(earlier.payout_id, earlier.transaction_id);
    const prompt = /^\? Send this payout again, as a new payout\? \(y\/N\)/m;

    // The card shows the live balance, after the first payout and its fee.
    const left = sb.wallets().find((w) => w.wallet_id === wal)!.balance_minor;
    expect(left).toBeLessThan(10000000n - 275025n);
    const leftText = (Number(left) / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const expectCard = (screen: string): string => {
      expect(screen).toMatch(/^Amount\s+2,750\.25 SLE$/m);
      expect(screen).toMatch(new RegExp(`^From wallet\\s+Test \\w+ \\(${wal}\\) · ${escapeRe(leftText)} SLE$`, 'm'));
      expect(screen).toMatch(/^Recipient\s+Ibrahim Conteh \(bank\)$/m);
      expect(screen).toMatch(/^Provider\s+uba$/m);
      expect(screen).toMatch(/^Account\s+5401234567$/m);
      const id = /^Payout ID\s+([0-9a-f-]{36})$/m.exec(screen)?.[1];
      expect(id).toBeDefined();
      expect(id).not.toBe(earlier.payout_id);
      // Card, then warning, then question.
      expect(screen.search(/^Payout ID\s/m)).toBeLessThan(screen.search(warning));
      expect(screen.search(warning)).toBeLessThan(screen.search(prompt));
      return id!;
    };

    // n: cancelled.
    let t = payctlInTerminal(['payout', 'create', ...bankArgs(wal)]);
    let screen = await t.waitFor(prompt);
    expect(screen).toMatch(warning);
    expectCard(screen);
    expect(screen).not.toMatch(/^\? Send this payout\? /m);
    expect(payoutPosts(sb)).toEqual([]);
    t.type('n');
    t.keys('Enter');
    let code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send this payout again, as a new payout? No');
    expect(screen).toContain('Nothing was sent.');
    expect(screen).not.toContain('Error:');
    expect(code).toBe(2);
    expect(payoutPosts(sb)).toEqual([]);
    expect(heldFor(sb, wal).map((p) => p.payout_id)).toEqual([earlier.payout_id]);

    // y: the payout on the card is sent.
    t = payctlInTerminal(['payout', 'create', ...bankArgs(wal)]);
    screen = await t.waitFor(prompt);
    expect(screen).toMatch(warning);
    const cardId = expectCard(screen);
    t.type('y');
    t.keys('Enter');
    code = await exitCode(t);
    screen = t.screen();
    expect(screen).toContain('Send this payout again, as a new payout? Yes');
    expect(screen).toContain(`Payout ${cardId} submitted.`);
    expect(code).toBe(0);
    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(1);
    expect(postedPayoutId(posts[0]!)).toBe(cardId);
    expect(
      heldFor(sb, wal)
        .map((p) => p.payout_id)
        .sort(),
    ).toEqual([earlier.payout_id, cardId].sort());
  }, 45_000);
});
