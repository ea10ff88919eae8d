/**
 * `payctl payout create --dry-run`: everything validated as for sending, the summary card
 * shown as the confirmation shows it (with --json the exact body POST /payout would carry),
 * nothing sent (no POST /payout), nothing journaled, exit 0, without --yes and without a
 * terminal. Parser tier for the flag, then in process against the sandbox.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';
import { parse, refuse } from '../helpers/parse.js';
import { payoutPosts } from '../helpers/batch.js';
import { balanceMinor, escapeRe, loginInProcess, payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

describe('parsing --dry-run', () => {
  it('payout create --dry-run sets dryRun', async () => {
    const p = await parse('payout', 'create', '--dry-run', '--amount', '5');
    expect(p.opts).toEqual({ metadata: [], dryRun: true, amount: '5' });
  });

  it('with --wait it is refused: a dry run sends nothing to wait for (exit 2)', async () => {
    const r = await refuse('payout', 'create', '--dry-run', '--wait');
    expect(r.message).toBe('--wait cannot be used with --dry-run: a dry run sends nothing to wait for.');
    expect(r.error.exitCode).toBe(2);
  });
});

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
  ctx.sb.clearRequests();
});

afterEach(() => cleanup());

/** Files in the journal folder (none when it was never made). */
function journalFiles(): string[] {
  const j = join(dir, 'journal');
  return existsSync(j) ? readdirSync(j, { recursive: true }).map(String) : [];
}

/** payout create of the shared fixture payout, without its --yes (a dry run needs none). */
function args(walletId: string, payoutId: string, extra: string[] = []): string[] {
  return payoutArgs(walletId, payoutId, extra).slice(0, -1);
}

/** Nothing was sent or journaled: only look-ups reached the sandbox. */
function expectNothingSent(walletId: string): void {
  expect(payoutPosts(ctx.sb)).toEqual([]);
  expect(ctx.sb.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  expect(ctx.sb.payouts().filter((p) => p.wallet_id === walletId)).toEqual([]);
  expect(balanceMinor(ctx.sb, walletId)).toBe(500000n);
  expect(journalFiles()).toEqual([]);
}

describe('payout create --dry-run', () => {
  it('without a terminal and without --yes: the summary card, "Dry run: nothing was sent.", exit 0', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(args(walletId, 'dry-001', ['--dry-run']), { dir });
    expect(r.code, r.stderr).toBe(0);
    // The card as the confirmation shows it.
    expect(r.stdout).toMatch(/^Amount\s+1,500\.50 SLE$/m);
    expect(r.stdout).toMatch(new RegExp(`^From wallet\\s+Test \\w+ \\(${escapeRe(walletId)}\\) · 5,000\\.00 SLE$`, 'm'));
    expect(r.stdout).toMatch(/^Recipient\s+Aminata Kamara \(wallet\)$/m);
    expect(r.stdout).toMatch(/^Provider\s+orange_money$/m);
    expect(r.stdout).toMatch(/^Account\s+076123456$/m);
    expect(r.stdout).toMatch(/^Phone\s+\+23276123456$/m);
    expect(r.stdout).toMatch(/^Metadata\s+batch=oct stipends$/m);
    expect(r.stdout).toMatch(/^Payout ID\s+dry-001$/m);
    expect(r.stderr).toBe('Dry run: nothing was sent. Run the same command without --dry-run to send it.\n');
    expectNothingSent(walletId);
    // The balances were read for the card.
    expect(ctx.sb.requests().some((x) => x.method === 'GET' && x.path === '/v2/wallets/balances')).toBe(true);
  });

  it('shows the same card the confirmation shows', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const dry = await payctl(args(walletId, 'dry-002', ['--dry-run']), { dir });
    const asked = await payctl(args(walletId, 'dry-002'), { dir, prompts: [{ confirm: /^Send this payout\?$/, answer: false }] });
    expect(asked.code).toBe(2);
    expect(dry.stdout).toBe(asked.stdout);
    expectNothingSent(walletId);
  });

  it('a wallet that holds less than the amount: the card and a warning that the service will refuse it, at the confirmation too', async () => {
    const walletId = freshWallet(ctx.sb, '1500.49', 'SLE');
    const said = `Warning: wallet ${walletId} would go short: it holds 1,500.49 SLE but this payout is 1,500.50 SLE before the fee; the service will refuse it.`;
    const dry = await payctl(args(walletId, 'dry-short', ['--dry-run']), { dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr.split('\n')[0]).toBe(said);
    const asked = await payctl(args(walletId, 'dry-short'), { dir, prompts: [{ confirm: /^Send this payout\?$/, answer: false }] });
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(said);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    // Enough (the fee is the service's to check): no warning.
    const enough = freshWallet(ctx.sb, '1500.50', 'SLE');
    const ok = await payctl(args(enough, 'dry-enough', ['--dry-run']), { dir });
    expect(ok.stderr).toBe('Dry run: nothing was sent. Run the same command without --dry-run to send it.\n');
  });

  it('with --json: stdout is exactly the body that is sent without --dry-run', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const dry = await payctl(args(walletId, 'dry-003', ['--dry-run', '--json']), { dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toBe('');
    expect(dry.stdout).toBe(
      `{"amount":1500.5,"currency":"SLE","payoutId":"dry-003","walletId":"${walletId}","recipient":{"type":"wallet","accountDetails":` +
        `{"name":"Aminata Kamara","provider":"orange_money","accountNumber":"076123456","phoneNumber":"+23276123456","note":"Aminata's October stipend"}},` +
        '"metadata":{"batch":"oct stipends"}}\n',
    );
    expectNothingSent(walletId);

    const sent = await payctl(args(walletId, 'dry-003', ['--yes', '--json']), { dir });
    expect(sent.code, sent.stderr).toBe(0);
    const posts = payoutPosts(ctx.sb);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body + '\n').toBe(dry.stdout);
  });

  it('with --json it reads no balances (only the body is printed)', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(args(walletId, 'dry-004', ['--dry-run', '--json']), { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(ctx.sb.requests()).toEqual([]);
    expect(journalFiles()).toEqual([]);
  });

  it('--yes is ignored: still nothing sent', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(args(walletId, 'dry-005', ['--dry-run', '--yes']), { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Dry run: nothing was sent.');
    expectNothingSent(walletId);
  });

  it('bad input is refused as without --dry-run: every problem, exit 2, but no --yes demanded', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(['payout', 'create', '--wallet', walletId, '--amount', '1.234', '--currency', 'SLE', '--type', 'wallet', '--dry-run'], { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('Cannot send this payout: 5 problems. Nothing was sent.');
    expect(r.stderr).toContain('  - --amount: "1.234" has 3 decimal places, more than SLE has (2)');
    expect(r.stderr).toContain('  - --phone is required for wallet recipients');
    expect(r.stderr).not.toContain('--yes');
    expect(r.stdout).toBe('');
    expect(ctx.sb.requests()).toEqual([]);
    expect(journalFiles()).toEqual([]);
  });

  it('a payout id already journaled with other details is refused (exit 2), as sending would be', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const first = await payctl(args(walletId, 'dry-006', ['--yes']), { dir });
    expect(first.code, first.stderr).toBe(0);
    const journaled = journalFiles();
    ctx.sb.clearRequests();
    const other = args(walletId, 'dry-006', ['--dry-run']).map((a) => (a === '1500.50' ? '1600.00' : a));
    const r = await payctl(other, { dir });
    expect(r.stderr).toContain('Payout id dry-006 was already used for a payout with other details. Nothing was sent.');
    expect(r.code, r.stderr).toBe(2);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(journalFiles()).toEqual(journaled);
  });

  it('the same payout id and details: says a send would reuse the journaled key; nothing sent', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const first = await payctl(args(walletId, 'dry-007', ['--yes']), { dir });
    expect(first.code, first.stderr).toBe(0);
    const journaled = journalFiles();
    ctx.sb.clearRequests();
    const r = await payctl(args(walletId, 'dry-007', ['--dry-run']), { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Payout dry-007 was journaled before: sending it would reuse its idempotency key.');
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(journalFiles()).toEqual(journaled);
  });

  it('at a terminal with fields missing: asks for them, shows the card, never asks to send', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(
      args(walletId, 'dry-008', ['--dry-run']).filter((a, i, all) => a !== '--account' && all[i - 1] !== '--account'),
      {
        dir,
        // Any other question (a confirmation) fails the run.
        prompts: [{ input: /^Account number$/, answer: '076999888' }],
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Account\s+076999888$/m);
    expect(r.stderr).toContain('Dry run: nothing was sent.');
    expectNothingSent(walletId);
  });
});
