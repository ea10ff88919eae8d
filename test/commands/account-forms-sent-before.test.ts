/**
 * "Pays the same as a payout sent before" with the account written another way on each side
 * (src/payouts/repeats.ts samePayoutsSent), in process against the sandbox over real HTTP, on a
 * config folder's local journal and on a real PostgreSQL shared by two config folders. Before:
 * a batch row was found only by its fingerprint, which holds the account as written, so a plan
 * row `0066-001-140` and a clerk's `payout batch` row `0066001140` (or the reverse, or
 * `sl66abcd0142` and `SL66-ABCD-0142`) that paid the same person were strangers: plan send paid
 * that person again (exit 0) although the batch paid after the plan was made, plan show and
 * policy check said nothing, plan create gave no warning for a batch paid before it, and a named
 * batch after another had no "pays the same as payouts sent in batch" note
 * (`matching_earlier_payouts: 0`). Now they match as the repeat guard compares accounts.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payoutPosts } from '../helpers/batch.js';
import { setUpTeam, useTeamFolders } from '../helpers/four-eyes.js';
import { sharedPostgres } from '../helpers/postgres.js';

const ctx = useSandbox();
const { work, people } = useTeamFolders();
/** The clerk's machine on the shared ledger (its own config folder, the same database). */
const clerkFolder = tempConfigDir();
afterAll(() => clerkFolder.cleanup());

beforeAll(async () => {
  await setUpTeam(ctx.sb, people, work.dir);
});

const run = (dir: string, ...args: string[]): Promise<Run> => payctl(args, { dir });

/** Digits no other test of this file uses. */
const digits = (n: number): string => String(Math.floor(10 ** (n - 1) + Math.random() * 9 * 10 ** (n - 1)));

/** A fresh account in two forms the service takes as one: [one, other]. */
type Forms = () => [string, string];
/** Digits with dashes, then plain; plain, then with dashes; small letters, then capitals with dashes. */
const FORMS: Array<[string, Forms]> = [
  ['with dashes in the plan, plain in the batch', () => ((d) => [`${d.slice(0, 4)}-${d.slice(4, 7)}-${d.slice(7)}`, d])(`0066${digits(6)}`)],
  ['plain in the plan, with dashes in the batch', () => ((d) => [d, `${d.slice(0, 4)}-${d.slice(4, 7)}-${d.slice(7)}`])(`0066${digits(6)}`)],
  ['in small letters in the plan, in capitals with dashes in the batch', () => ((d) => [`sl66abcd${d}`, `SL66-ABCD-${d}`])(digits(4))],
];

/** A one-row file (`name`) paying 340 SLE (no approval needed) from `wallet` to `account`: its path. */
function oneRow(name: string, wallet: string, account: string): string {
  const file = join(work.dir, `${name}-${randomUUID().slice(0, 8)}.csv`);
  writeFileSync(file, `wallet_id,amount,currency,type,name,provider,account_number,note\n${wallet},340.00,SLE,bank,Yeabu Koroma,ecobank,${account},dec\n`);
  return file;
}

/** The maker's plan of `file` as batch `batch`: its path. */
async function plan(file: string, batch: string): Promise<{ path: string; made: Run }> {
  const path = file.replace(/\.csv$/, '.plan.json');
  const made = await run(people.maker.dir, 'plan', 'create', file, '--batch-id', batch, '-o', path);
  expect(made.code, made.stderr).toBe(0);
  return { path, made };
}

/** `payout batch` of `file` as batch `batch` from `dir`, paid (exit 0). */
async function paidBatch(dir: string, file: string, batch: string): Promise<void> {
  const sent = await run(dir, 'payout', 'batch', file, '--batch-id', batch, '--yes');
  expect(sent.code, sent.stderr).toBe(0);
  expect(sent.stdout + sent.stderr).toContain('1 accepted');
}

/**
 * Plan send of a plan a batch paid after it was made, its account written another way: plan show
 * and policy check say plan send refuses it, and plan send refuses it (exit 2, nothing sent).
 */
async function paidAfterThePlan(clerk: string, [planned, paid]: [string, string]): Promise<void> {
  const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  const tag = randomUUID().slice(0, 8);
  const made = await plan(oneRow('pay', wallet, planned), `yeabu-${tag}`);
  const clerkFile = oneRow('clerk', wallet, paid);
  await paidBatch(clerk, clerkFile, `clerk-${tag}`);

  const shown = await run(people.maker.dir, 'plan', 'show', made.path);
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stdout).toMatch(new RegExp(`row 2: pays what payout \\S+ paid in batch "clerk-${tag}" .*, after the plan was made: plan send refuses the plan`));
  const checked = await run(people.maker.dir, 'policy', 'check', made.path);
  expect(checked.code, checked.stdout).toBe(1);
  expect(checked.stdout).toMatch(/It cannot be sent: 1 payout of it pays what was paid after the plan was made/);

  const from = ctx.sb.requests().length;
  const sent = await run(people.maker.dir, 'plan', 'send', made.path, '--yes');
  expect(sent.stderr.split('\n')[0]).toMatch(
    /^Error: Cannot send the plan .*: 1 payout of it pays what was paid after the plan was made \(\S+\), which its approvers did not see\. Nothing was sent\.$/,
  );
  expect(sent.stderr).toMatch(new RegExp(`- payout \\S+ \\(row 2\\) pays what payout \\S+ paid in batch "clerk-${tag}" from `));
  expect(sent.code, sent.stderr).toBe(2);
  expect(payoutPosts(ctx.sb, from)).toEqual([]);
}

describe('plan send of a plan a batch paid after it was made, the account written another way there', () => {
  for (const [said, forms] of FORMS) {
    it(`on the local journal, ${said}: plan show and policy check say plan send refuses it; refused (exit 2, nothing sent)`, async () => {
      await paidAfterThePlan(people.maker.dir, forms());
    });
  }

  it('on a shared PostgreSQL ledger, the batch paid from another machine, each form: refused alike', { timeout: 60_000 }, async () => {
    const url = await (await sharedPostgres()).freshDatabase('sameform');
    await writeLoggedIn(ctx.sb, clerkFolder.dir);
    for (const dir of [people.maker.dir, clerkFolder.dir]) {
      const set = await payctl(['config', 'set', 'ledger', '--stdin'], { dir, input: `${url}\n` });
      expect(set.code, set.stderr).toBe(0);
    }
    try {
      for (const [, forms] of FORMS) await paidAfterThePlan(clerkFolder.dir, forms());
    } finally {
      for (const dir of [people.maker.dir, clerkFolder.dir]) expect((await payctl(['config', 'unset', 'ledger'], { dir })).code).toBe(0);
    }
  });
});

describe('a batch paid before, the account written another way', () => {
  it('plan create warns that the plan pays it again, and plan show says so, for each form', async () => {
    for (const [, forms] of FORMS) {
      const [planned, paid] = forms();
      const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
      const tag = randomUUID().slice(0, 8);
      await paidBatch(people.maker.dir, oneRow('clerk', wallet, paid), `clerk-${tag}`);
      const made = await plan(oneRow('pay', wallet, planned), `yeabu-${tag}`);
      expect(made.made.stderr).toMatch(
        new RegExp(`Warning: 1 payout of this plan pays the same as payouts sent in batch "clerk-${tag}" from .*; plan send pays it again as new payouts\\.`),
      );
      const shown = await run(people.maker.dir, 'plan', 'show', made.path);
      expect(shown.stdout).toMatch(new RegExp(`row 2: pays what payout \\S+ paid in batch "clerk-${tag}" .*: plan send pays it again as a new payout`));
    }
  });

  it('payout batch of a named batch after another: the note names the other batch, --dry-run --json counts the row, for each form', async () => {
    for (const [, forms] of FORMS) {
      const [first, second] = forms();
      const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
      const tag = randomUUID().slice(0, 8);
      await paidBatch(people.maker.dir, oneRow('a', wallet, first), `run-a-${tag}`);
      const b = oneRow('b', wallet, second);
      const dry = await run(people.maker.dir, 'payout', 'batch', b, '--batch-id', `run-b-${tag}`, '--dry-run');
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout + dry.stderr).toMatch(
        new RegExp(`Note: 1 row pays the same as payouts sent in batch "run-a-${tag}" from .*; batch "run-b-${tag}" pays it again as new payouts\\.`),
      );
      const json = oneJson((await run(people.maker.dir, 'payout', 'batch', b, '--batch-id', `run-b-${tag}`, '--dry-run', '--json')).stdout) as {
        matching_earlier_payouts: number;
      };
      expect(json.matching_earlier_payouts).toBe(1);
    }
  });
});
