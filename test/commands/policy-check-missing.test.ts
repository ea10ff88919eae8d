/**
 * `payctl policy check FILE` when journal entries are missing under a daily total (probe Y, F3):
 * the day's total cannot be counted, said as that (not under "Limits broken"), with the two ways
 * forward payout batch gives (put them back, or --acknowledge-missing) and a printed payout batch
 * … --acknowledge-missing that names the file by its absolute path with the run's profile, base
 * URL, time limit and batch id. Pasted from another folder, it sends the file once, under the
 * total. Before: "Limits broken: …" and "It cannot be sent.", with no way forward.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { heldFrom } from '../helpers/payout-fixtures.js';
import { printed } from '../helpers/printed.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const work = tempWorkDir();
const cfg = tempConfigDir();
const home = process.cwd();

const run = (args: string[]): Promise<Run> => payctl(args, { dir: cfg.dir });

beforeAll(async () => {
  await writeLoggedIn(ctx.sb, cfg.dir, ctx.sb.apiKey, 'ops');
  const policy = join(work.dir, 'pol.json');
  writeFileSync(policy, JSON.stringify({ daily_total: { SLE: '30' } }));
  const set = await run(['config', 'set', 'policy', policy, '--profile', 'ops']);
  expect(set.code, set.stderr).toBe(0);
});

afterEach(() => process.chdir(home));

afterAll(() => {
  cfg.cleanup();
  work.cleanup();
});

/** The lines of journal.index acknowledging missing entries for the daily total. */
const uncounted = (): string[] =>
  readFileSync(join(cfg.dir, 'journal.index'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"uncounted"'));

describe('policy check with journal entries missing under a daily total', () => {
  it('says the day is uncountable, with both ways forward and a payout batch --acknowledge-missing that, pasted elsewhere, sends once', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const made = await run([
      ...['payout', 'create', '--profile', 'ops', '--wallet', wallet, '--amount', '10.00', '--currency', 'SLE', '--type', 'bank'],
      ...['--name', 'Awa', '--provider', 'ecobank', '--account', '93001', '--yes'],
    ]);
    expect(made.code, made.stderr).toBe(0);
    const [lost] = heldFrom(ctx.sb, wallet).map((p) => p.payout_id);
    rmSync(join(cfg.dir, 'journal'), { recursive: true });

    const folder = join(work.dir, `pay roll $x 'q' \`b\``);
    mkdirSync(folder);
    const rows = [1, 2].map((i) => `${wallet},5.00,SLE,bank,Person ${i},ecobank,0093${i},,n`);
    writeFileSync(join(folder, 'nov (1).csv'), `wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n${rows.join('\n')}\n`);
    process.chdir(folder);
    const flags = ['--profile', 'ops', '--base-url', ctx.sb.baseUrl, '--timeout', '20', '--batch-id', 'b-1'];
    const r = await run(['policy', 'check', 'nov (1).csv', ...flags]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).not.toContain('Limits broken');
    expect(r.stdout).toContain(
      `Daily total unknown:\n  the daily total cannot be counted for wallet ${wallet} in SLE (policy daily_total.SLE): 1 entry of this config folder's journal`,
    );
    expect(r.stdout).toContain(lost);
    expect(r.stdout).toContain("It cannot be sent as it is: the day's total cannot be counted.\n  Put the missing entries back where they were");
    expect(r.stdout).toContain(`payctl payouts list --profile ops --base-url ${ctx.sb.baseUrl} --timeout 20 --all lists what the service made`);
    const send = printed(r.stdout, 'payout batch');
    expect(send).toEqual(['payout', 'batch', join(folder, 'nov (1).csv'), ...flags, '--acknowledge-missing']);

    const json = oneJson((await run(['policy', 'check', 'nov (1).csv', ...flags, '--json'])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ limits: [], sendable: false, acknowledge_missing: r.stdout.match(/(payctl payout batch .*)$/m)![1] });
    expect(json.daily_total_unknown).toHaveLength(1);

    // Pasted from another folder, as printed: sent once, under the total, the entry acknowledged.
    process.chdir(work.dir);
    const from = ctx.sb.requests().length;
    const sent = await run([...send, '--yes']);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
    expect(uncounted()).toHaveLength(1);
    const again = await run([...send, '--yes']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(3);
  });
});
