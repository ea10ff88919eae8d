/**
 * The repeat guard on the shared PostgreSQL ledger and a payout of unknown outcome over 24 hours
 * old (probe 53-H, finding 1), in process against the sandbox over real HTTP and a real
 * PostgreSQL: a machine whose clock was a day and an hour behind journaled a payout whose answer
 * was lost (the sandbox made it), and `ledger import` copied it into the shared ledger, where it
 * is over 24 hours old by the database's clock. Another machine of the team typing the same
 * payout again, or sending a batch row paying the same person written otherwise under a batch id
 * of its own, is refused (exit 2, nothing sent). Before, both were sent: paid twice.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeLoggedIn } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts, toCsv, writeFile } from '../helpers/batch.js';
import { heldFrom } from '../helpers/payout-fixtures.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const folders: Array<{ dir: string; cleanup(): void }> = [];
afterEach(() => ctx.sb.faults.clear());
afterAll(() => {
  for (const f of folders) f.cleanup();
});

let url: string;
beforeAll(async () => {
  url = await (await sharedPostgres()).freshDatabase('old-unknown');
});

/** A config folder logged in to the sandbox and using the shared ledger: one machine of the team. */
async function machine(): Promise<string> {
  const cfg = tempConfigDir();
  folders.push(cfg);
  await writeLoggedIn(ctx.sb, cfg.dir);
  return cfg.dir;
}

const useLedger = async (dir: string) => expect((await payctl(['config', 'set', 'ledger', '--stdin'], { dir, input: `${url}\n` })).code).toBe(0);

/** A bank payout of 31.07 SLE to `acct`, without --payout-id. */
function createArgs(wallet: string, acct: string): string[] {
  return [
    ...['payout', 'create', '--wallet', wallet, '--amount', '31.07', '--currency', 'SLE', '--type', 'bank'],
    ...['--name', 'Fatu Koroma', '--provider', 'ecobank', '--account', acct, '--yes'],
  ];
}

describe('a payout of unknown outcome imported into the shared ledger 25 hours after it was journaled', () => {
  it('typed again on another machine, or as a batch row written otherwise: refused (exit 2), nothing sent', async () => {
    const slow = await machine();
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const acct = String(Math.floor(1e9 + Math.random() * 8e9));
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const lost = await payctl(createArgs(wallet, acct), { dir: slow, clock: new TestClock(new Date(Date.now() - 25 * 60 * 60 * 1000)) });
    ctx.sb.faults.clear();
    expect(lost.code, lost.stderr).toBe(4);
    const id = /The outcome of payout (\S+) is unknown/.exec(lost.stderr)?.[1];
    expect(id, lost.stderr).toBeDefined();
    await useLedger(slow);
    const imp = await payctl(['ledger', 'import'], { dir: slow });
    expect(imp.code, imp.stderr).toBe(0);

    const other = await machine();
    await useLedger(other);
    const from = ctx.sb.requests().length;
    const typed = await payctl(createArgs(wallet, acct), { dir: other });
    expect(typed.code, typed.stderr).toBe(2);
    expect(typed.stderr).toContain("This payout repeats one sent through the team's shared ledger 25 hours ago");
    expect(typed.stderr).toContain(`payout id ${id}, sent, outcome unknown`);
    expect(typed.stderr).toContain(`payctl history reconcile --payout-id ${id}`);

    const row = { wallet_id: wallet, amount: '31.07', currency: 'SLE', type: 'bank', name: 'F. Koroma', provider: 'ecobank', account_number: acct, note: 'x' };
    const file = writeFile(`${other}/again.csv`, toCsv([row]));
    const sent = await payctl(['payout', 'batch', file, '--batch-id', 'again', '--yes'], { dir: other });
    expect(sent.code, sent.stderr).toBe(2);
    expect(sent.stderr).toContain(`row 2: pays what payout ${id} may have paid the same (its outcome is unknown) as a single payout`);

    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });
});
