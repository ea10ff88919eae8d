/**
 * In process: stdout that refuses what is written (a full disk, `> /dev/full`, an I/O error).
 * The output is then incomplete, and the exit code says so: 1 when the run sent nothing, 4 when
 * it sent a payout (the caller has not seen the outcome and must not take the run as failed),
 * with the cause on stderr (as JSON with --json). A run whose stream refused a write never
 * waited for a drain that would not come: before, such a run was left with nothing to do, and
 * the process exited 0 with the output cut. A reader that went away (EPIPE) is no error. The
 * real binary on /dev/full: test/e2e/direct-stdout.test.ts.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { newKey, oneJson, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { errorOf, noticesOf } from '../helpers/stderr-json.js';
import { heldFor, payoutArgs } from '../helpers/payout-fixtures.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY, demoPayouts: false });
const cfg = useConfigDir();
const FULL = { after: 0, code: 'ENOSPC' };
const CAUSE = 'Error: The output could not be written: no space left on device (ENOSPC); what was printed is incomplete.\n';

beforeAll(() => ctx.sb.generatePayouts(260));
beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));

describe('a run that sends nothing: exit 1, the cause on stderr', () => {
  it('balances on a full disk', async () => {
    const r = await payctl(['balances'], { dir: cfg.dir, stdoutFault: FULL });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${CAUSE}Nothing was sent. Free the space, or write the output elsewhere, and run the same command again.\n`);
  });

  it('--json errors stay JSON on stderr', async () => {
    const r = await payctl(['balances', '--json'], { dir: cfg.dir, stdoutFault: { after: 0, code: 'EIO' } });
    expect(r.code).toBe(1);
    const err = oneJson(r.stderr).error;
    expect(err.message).toBe('The output could not be written: EIO: refused, write; what was printed is incomplete.');
    expect(err.hint).toMatch(/^Nothing was sent\./);
  });

  it('payouts list --all --csv refused half way: the run ends (it waited for a drain before), exit 1', async () => {
    const whole = await payctl(['payouts', 'list', '--all', '--csv'], { dir: cfg.dir });
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout.length).toBeGreaterThan(40_000);
    const r = await payctl(['payouts', 'list', '--all', '--csv'], { dir: cfg.dir, stdoutFault: { after: 20_000, code: 'ENOSPC' } });
    expect(r.code).toBe(1);
    expect(r.stdout.length).toBeLessThanOrEqual(20_000);
    expect(whole.stdout.startsWith(r.stdout)).toBe(true);
    expect(r.stderr.startsWith(CAUSE)).toBe(true);
  });

  it('the help is an answer too: exit 1 when it could not be written', async () => {
    const r = await payctl(['--help'], { dir: cfg.dir, stdoutFault: FULL });
    expect(r.code).toBe(1);
    expect(r.stderr.startsWith(CAUSE)).toBe(true);
  });

  it('a reader that went away (EPIPE) is no error: exit 0, nothing on stderr', async () => {
    const r = await payctl(['payouts', 'list', '--all', '--csv'], { dir: cfg.dir, stdoutFault: { after: 1000, code: 'EPIPE' } });
    expect(r).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('a run that sent a payout: exit 4, as for an answer that never came', () => {
  it('payout create --json: sent once, journaled; the same command again pays nothing new', async () => {
    const wallet = freshWallet(ctx.sb, '5000.00', 'SLE');
    const args = payoutArgs(wallet, `full-${KEY.slice(0, 8)}`, ['--json']);
    const r = await payctl(args, { dir: cfg.dir, stdoutFault: FULL });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toBe('');
    // Before: "✓ Payout … submitted." as text before the error; now every line is JSON, the error last.
    expect(noticesOf(r.stderr)).toEqual([expect.stringMatching(/^Payout full-\S+ submitted\.$/)]);
    const err = errorOf(r.stderr);
    expect(err.message).toBe('The output could not be written: no space left on device (ENOSPC); what was printed is incomplete.');
    expect(err.hint).toBe('Payouts were sent and are journaled: `payctl history` shows each with its outcome; the same command run again sends none of them twice.');
    expect(heldFor(ctx.sb, `full-${KEY.slice(0, 8)}`)).toHaveLength(1);

    const again = await payctl(args, { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(oneJson(again.stdout).status).toBe('Successful');
    expect(heldFor(ctx.sb, `full-${KEY.slice(0, 8)}`)).toHaveLength(1);
  });

  it('the command in the hint carries the profile of the run, as every printed command does', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }, 'team-a');
    const wallet = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl([...payoutArgs(wallet, `team-${KEY.slice(0, 8)}`), '--profile', 'team-a'], { dir: cfg.dir, stdoutFault: FULL });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('Payouts were sent and are journaled: `payctl history --profile team-a` shows each with its outcome;');
  });

  it('a dry run sends nothing: exit 1', async () => {
    const wallet = freshWallet(ctx.sb, '5000.00', 'SLE');
    const r = await payctl(payoutArgs(wallet, `dry-${KEY.slice(0, 8)}`, ['--dry-run', '--json']), { dir: cfg.dir, stdoutFault: FULL });
    expect(r.code).toBe(1);
    expect(heldFor(ctx.sb, `dry-${KEY.slice(0, 8)}`)).toHaveLength(0);
  });
});
