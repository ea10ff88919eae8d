/**
 * `history reconcile --made-by` for a payout a search that decides left unknown (its resend
 * refused 400, so its entry is marked anyTime): the transaction's record must pay the account
 * that was sent. The look-up answer is rewritten by a proxy in front of the in-process sandbox.
 * A record paying another account (`999`) is refused (exit 2, nothing recorded); one writing the
 * account masked (`******` and its last four digits) is recorded, said as differing in form
 * only, and its other provider and name are said apart, never as "form or time only".
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { heldFor, loginInProcess } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { Journal } from '../../src/payouts/journal.js';
import { sandboxProxy, useHostileCleanups, type Proxy } from '../helpers/hostile.js';
import { writeProfile } from '../helpers/e2e.js';

const ctx = useSandbox();
useHostileCleanups();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
});

afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

const run = (args: string[]) => payctl(args, { dir, clock: new TestClock() });

/** A payout of 10.00 SLE to bank account `account` whose answer was lost, its resend refused 400: unknown, anyTime; its proxy and transaction id. */
async function leftUnknown(account: string): Promise<{ proxy: Proxy; id: string; txn: string }> {
  const wallet = freshWallet(ctx.sb, '1000.00');
  const proxy = await sandboxProxy(ctx.sb);
  writeProfile(dir, { baseUrl: proxy.baseUrl, apiKey: ctx.sb.apiKey });
  const id = randomUUID();
  const args = ['payout', 'create', '--wallet', wallet, '--amount', '10.00', '--currency', 'SLE', '--type', 'bank'];
  args.push('--name', 'Ibrahim Conteh', '--provider', 'ecobank', '--account', account, '--payout-id', id, '--yes');
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
  expect((await run(args)).code).toBe(4);
  ctx.sb.faults.clear();
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 400, code: 'INSUFFICIENT_FUNDS', message: 'Insufficient wallet balance' });
  const rerun = await run(args);
  ctx.sb.faults.clear();
  expect(rerun.code, rerun.stderr).toBe(4);
  expect((await new Journal(dir).get(proxy.baseUrl, id))?.outcome).toMatchObject({ kind: 'unknown', anyTime: true });
  return { proxy, id, txn: heldFor(ctx.sb, id)[0]!.transaction_id };
}

/** The look-up answer with its recipient rewritten. */
const recipient = (fields: Record<string, string>) => (raw: string) => {
  const j = JSON.parse(raw) as { data: { recipient: Record<string, string> } };
  Object.assign(j.data.recipient, fields);
  return JSON.stringify(j);
};

it('--made-by a transaction paying another account (999 for 0011223344): refused, exit 2, nothing recorded (before: recorded, "in form or time only")', async () => {
  const { proxy, id, txn } = await leftUnknown('0011223344');
  proxy.rewriteLookups(recipient({ account_number: '999', bank: 'Y', name: 'X' }));
  const r = await run(['history', 'reconcile', '--payout-id', id, '--made-by', txn]);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(`Transaction ${txn} does not match payout ${id}. Nothing was recorded.`);
  expect(r.stderr).toContain('account 999, sent 0011223344');
  expect(r.stderr).not.toContain('form or time only');
  expect((await new Journal(dir).get(proxy.baseUrl, id))?.outcome?.kind).toBe('unknown');
});

it('--made-by a transaction whose record masks the account (******3344), with another provider and name: recorded; the mask said as form, the rest said apart', async () => {
  const { proxy, id, txn } = await leftUnknown('0011223344');
  proxy.rewriteLookups(recipient({ account_number: '******3344', bank: 'Y', name: 'X' }));
  const r = await run(['history', 'reconcile', '--payout-id', id, '--made-by', txn]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(`Transaction ${txn}'s record differs from what was sent in form or time only: account written "******3344".`);
  expect(r.stderr).toContain(
    `Transaction ${txn}'s record differs from what was sent for payout ${id}: provider Y, sent ecobank; name "X", sent "Ibrahim Conteh". Not held against it`,
  );
  expect((await new Journal(dir).get(proxy.baseUrl, id))?.outcome).toMatchObject({ kind: 'accepted', transactionId: txn });
});
