/**
 * What a person sees when money does not move, in process (terminal flags claimed per
 * test): the --yes refusal names its real cause ("with --no-input", "with --json", even at
 * a terminal; "without a terminal" otherwise) in `payout create` and `payout batch`, and a
 * No at a confirmation says "Nothing was sent." without "Error:" (exit 2).
 */
import { describe, expect, it } from 'vitest';
import { payctl, type InProcessOptions } from '../helpers/in-process.js';
import { batchRows, payoutPosts, toCsv, writeFile } from '../helpers/batch.js';
import { bankArgs, useFreshLogin } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { CancelledError, ExitCode, exitCodeOf, UsageError } from '../../src/errors.js';
import { renderErrorText } from '../../src/output/error-report.js';
import { makeStyle } from '../../src/output/style.js';

const ctx = useSandbox();

// A fresh config folder (and so a fresh journal) and work folder per test.
const setup = useFreshLogin(ctx);

const TERMINAL = { stdin: true, stdout: true, stderr: true };
const NO_TERMINAL = {};

type Tty = InProcessOptions['tty'];

/** The refusals: [flags, terminal flags, the cause named]. */
const CASES: Array<[string, string[], Tty, string]> = [
  ['a terminal with --no-input', ['--no-input'], TERMINAL, 'with --no-input'],
  ['a terminal with --json', ['--json'], TERMINAL, 'with --json'],
  ['a terminal with --no-input and --json', ['--no-input', '--json'], TERMINAL, 'with --json'],
  ['no terminal', [], NO_TERMINAL, 'without a terminal'],
  ['stdin a terminal, stdout piped', [], { stdin: true }, 'without a terminal'],
  ['no terminal, with --json', ['--json'], NO_TERMINAL, 'with --json'],
];

const others = (cause: string) => ['with --no-input', 'with --json', 'without a terminal'].filter((c) => c !== cause);

describe('payout create without --yes names why it cannot ask', () => {
  it.each(CASES)('%s', async (_name, flags, tty, cause) => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(['payout', 'create', ...bankArgs(walletId), ...flags], { dir: setup.dir, tty });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    if (flags.includes('--json')) {
      const err = (JSON.parse(r.stderr) as { error: { message: string; errors: Array<{ field: string; message: string }> } }).error;
      expect(err.message).toBe('Cannot send this payout: 1 problem. Nothing was sent.');
      expect(err.errors).toHaveLength(1);
      expect(`${err.errors[0]!.field} ${err.errors[0]!.message}`).toContain(`--yes is required ${cause}: money never moves without an explicit yes`);
    } else {
      expect(r.stderr).toContain('Cannot send this payout: 1 problem. Nothing was sent.');
      expect(r.stderr).toContain(`  - --yes is required ${cause}: money never moves without an explicit yes\n`);
    }
    for (const other of others(cause)) expect(r.stderr).not.toContain(`required ${other}`);
    expect(ctx.sb.requests()).toEqual([]);
  });

  it('--dry-run needs no yes, --yes none of these messages', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const dry = await payctl(['payout', 'create', ...bankArgs(walletId), '--no-input', '--dry-run'], { dir: setup.dir, tty: TERMINAL });
    expect(dry.stderr).not.toContain('--yes is required');
    expect(dry.code, dry.stderr).toBe(0);
    const sent = await payctl(['payout', 'create', ...bankArgs(walletId), '--no-input', '--yes'], { dir: setup.dir, tty: TERMINAL });
    expect(sent.stderr).not.toContain('--yes is required');
    expect(sent.code, sent.stderr).toBe(0);
    expect(payoutPosts(ctx.sb)).toHaveLength(1);
  });
});

describe('payout batch without --yes names why it cannot ask', () => {
  it.each(CASES)('%s', async (_name, flags, tty, cause) => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const file = writeFile(setup.work.file('refused.csv'), toCsv(batchRows(3, walletId, `refused-${Date.now()}`)));
    const r = await payctl(['payout', 'batch', file, ...flags], { dir: setup.dir, tty });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    // Said as payout create says it: the flag in `errors` for --json (probe C53, 5: `errors` was empty).
    const line = `--yes is required ${cause}: money never moves without an explicit yes`;
    if (flags.includes('--json')) {
      const err = (JSON.parse(r.stderr) as { error: { message: string; errors: Array<{ field: string; message: string }> } }).error;
      expect(err.message).toBe('Cannot send this batch: 1 problem. Nothing was sent.');
      expect(err.errors).toEqual([{ field: '--yes', message: line.replace(/^--yes /, '') }]);
    } else {
      expect(r.stderr).toContain('Error: Cannot send this batch: 1 problem. Nothing was sent.\n');
      expect(r.stderr).toContain(`  - ${line}\n`);
      expect(r.stderr).toContain('Review the plan with --dry-run first.');
    }
    for (const other of others(cause)) expect(r.stderr).not.toContain(`required ${other}`);
    expect(payoutPosts(ctx.sb)).toEqual([]);
  });
});

describe('a No at a confirmation', () => {
  it('payout create: "Nothing was sent." alone on stderr, no "Error:", exit 2', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(['payout', 'create', ...bankArgs(walletId)], { dir: setup.dir, prompts: [{ confirm: /^Send this payout\?$/, answer: false }] });
    // The card was shown; then only the answer's consequence.
    expect(r.stdout).toMatch(/^Amount\s+2,750\.25 SLE$/m);
    expect(r.stderr).toBe('Nothing was sent.\n');
    expect(r.code).toBe(2);
    expect(payoutPosts(ctx.sb)).toEqual([]);
  });

  it('payout batch: "Nothing was sent." after the plan, no "Error:", exit 2, no report', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    const file = writeFile(setup.work.file('no.csv'), toCsv(batchRows(3, walletId, `no-${Date.now()}`)));
    const r = await payctl(['payout', 'batch', file], { dir: setup.dir, prompts: [{ confirm: /^Send 3 payouts\?$/, answer: false }] });
    expect(r.stderr).toContain(`Batch "default": 3 payouts to send from ${file}:`);
    expect(r.stderr.endsWith('\nNothing was sent.\n'), r.stderr).toBe(true);
    expect(r.stderr).not.toContain('Error:');
    expect(r.stderr).not.toContain('Cancelled');
    expect(r.code).toBe(2);
    expect(payoutPosts(ctx.sb)).toEqual([]);
  });

  it('is a CancelledError: a usage error (exit 2) rendered without "Error:"', () => {
    const err = new CancelledError();
    expect(err).toBeInstanceOf(UsageError);
    expect(exitCodeOf(err)).toBe(ExitCode.usage);
    expect(renderErrorText(err, makeStyle(false))).toBe('Nothing was sent.\n');
    // Any other usage error still says Error:.
    expect(renderErrorText(new UsageError('Bad.'), makeStyle(false))).toBe('Error: Bad.\n');
  });
});
