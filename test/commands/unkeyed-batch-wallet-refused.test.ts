/**
 * A batch whose rows an older payctl journaled (without the id of the key that sent them),
 * resumed after its profile was logged in again with another account's key, whose wallets list
 * shows a wallet of the same id (probe K57 finding 4): the rows are resent, refused as that
 * account's (WALLET_NOT_FOUND), and left unknown. Before, the summary said "Run the same command
 * again to finish them safely", which gets the same refusal for ever; now it says to log a
 * profile in with the key that sent them, then resume.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { freshWallet } from '../helpers/sandbox.js';
import { KEY_B, useTwoAccounts } from '../helpers/two-accounts.js';
import { Journal } from '../../src/payouts/journal.js';

const t = useTwoAccounts();
const { a, b, run } = t;
const HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';

describe("an older payctl's batch resumed with another account's key that lists a wallet of the same id", () => {
  it('says to resume with the key that sent the rows, not to run the same command again', async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    const file = join(t.dir, 'pay.csv');
    writeFileSync(file, HEADER + [1, 2].map((i) => `w-${i},${wallet},3${i}.00,SLE,bank,Ibrahim,ecobank,0011223344,,row${i}`).join('\n') + '\n');
    const batch = ['payout', 'batch', file, '--profile', 'teama', '--batch-id', 'nov1', '--yes', '--concurrency', '1'];
    a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await run(batch)).code).toBe(4);
    a.sb.faults.clear();
    const journal = new Journal(t.dir);
    for (const id of ['w-1', 'w-2']) {
      const e = (await journal.get(t.base, id))!;
      delete e.keyId;
      await journal.put(e);
    }
    const login = await payctl(['login', '--api-key-stdin', '--base-url', t.base, '--profile', 'teama'], { dir: t.dir, input: KEY_B + '\n' });
    expect(login.code, login.stderr).toBe(0);
    // Account B lists a wallet of that id, and refuses a payout from it as not its own.
    b.sb.setWallet({ wallet_id: wallet, wallet_name: 'Shared', currency: 'SLE', balance: '999999.00' });
    b.sb.faults.add({
      method: 'POST',
      path: '/v2/payout',
      kind: 'status',
      status: 422,
      code: 'WALLET_NOT_FOUND',
      message: `Wallet "${wallet}" does not exist.`,
      times: Infinity,
    });

    const resumed = await run(batch);
    expect(resumed.code, resumed.stderr).toBe(4);
    expect(resumed.stderr).not.toContain('Run the same command again');
    expect(resumed.stderr).toContain('refused as from a wallet');
    expect(resumed.stderr).toContain(
      `log a profile in with the API key that sent it: payctl login --profile teama --base-url ${t.base}; then, with it: payctl payout batch ${file} --profile teama --batch-id nov1`,
    );
    for (const id of ['w-1', 'w-2']) expect((await journal.get(t.base, id))?.outcome?.kind).toBe('unknown');
  });
});
