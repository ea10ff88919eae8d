/**
 * `history reconcile --made-by` for a payout a search that decides left unknown (its resend
 * refused 400, so its entry is marked anyTime): the transaction's record must pay the account
 * that was sent. The look-up answer is rewritten by a proxy in front of the in-process sandbox.
 * A record paying another account (`999`) is refused (exit 2, nothing recorded); one writing the
 * account masked (`******` and its last four digits) is said as only partly checked, never "form
 * only", and asked about (or `--yes`) when another record pays the account exactly as sent.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { heldFor, useFreshLogin } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { Journal } from '../../src/payouts/journal.js';
import { sandboxProxy, useHostileCleanups, type Proxy } from '../helpers/hostile.js';
import { writeProfile } from '../helpers/e2e.js';

const ctx = useSandbox();
useHostileCleanups();

const setup = useFreshLogin(ctx);

afterEach(() => ctx.sb.faults.clear());

const run = (args: string[]) => payctl(args, { dir: setup.dir, clock: new TestClock() });

/** A payout of 10.00 SLE to bank account `account` whose answer was lost, its resend refused 400: unknown, anyTime; its proxy and transaction id. */
async function leftUnknown(account: string): Promise<{ proxy: Proxy; id: string; txn: string }> {
  const wallet = freshWallet(ctx.sb, '1000.00');
  const proxy = await sandboxProxy(ctx.sb);
  writeProfile(setup.dir, { baseUrl: proxy.baseUrl, apiKey: ctx.sb.apiKey });
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
  expect((await new Journal(setup.dir).get(proxy.baseUrl, id))?.outcome).toMatchObject({ kind: 'unknown', anyTime: true });
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
  expect((await new Journal(setup.dir).get(proxy.baseUrl, id))?.outcome?.kind).toBe('unknown');
});

it('--made-by a record showing the account masked (******3344) while another record pays it exactly: asks (exit 2 without a terminal), then --yes records it, the mask said as only partly checked', async () => {
  const { proxy, id, txn } = await leftUnknown('0011223344');
  proxy.rewriteLookups(recipient({ account_number: '******3344', bank: 'Y', name: 'X' }));
  const r = await run(['history', 'reconcile', '--payout-id', id, '--made-by', txn]);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(
    `Transaction ${txn} is not recorded as payout ${id} without a confirmation: account shown masked (******3344): only its last 4 characters could be checked, and transaction TXN-BOK-`,
  );
  expect(r.stderr).toContain('pays the account exactly as sent (0011223344). Nothing was recorded.');
  expect(r.stderr).toContain('run the command at a terminal, or add --yes');
  expect((await new Journal(setup.dir).get(proxy.baseUrl, id))?.outcome?.kind).toBe('unknown');
  const yes = await run(['history', 'reconcile', '--payout-id', id, '--made-by', txn, '--yes']);
  expect(yes.code, yes.stderr).toBe(0);
  expect(yes.stderr).toContain(
    `Transaction ${txn}'s record differs from what was sent for payout ${id}: account shown masked (******3344): only its last 4 characters could be checked; provider Y, sent ecobank; name "X", sent "Ibrahim Conteh". ` +
      'Not held against it (amount and currency match, the account as far as it is shown)',
  );
  expect(yes.stderr).not.toContain('form or time only');
  expect((await new Journal(setup.dir).get(proxy.baseUrl, id))?.outcome).toMatchObject({ kind: 'accepted', transactionId: txn });
});

it('--made-by a record showing the account masked (**3344) with no other record paying it exactly: recorded, said as only partly checked, never "form only"', async () => {
  const { proxy, id, txn } = await leftUnknown('0011223344');
  proxy.rewriteLookups(recipient({ account_number: '**3344' }));
  // The list shows every record masked too: none pays the account exactly as sent.
  proxy.rewriteLists((raw) => raw.replace(/"account_number":"[^"]*"/g, '"account_number":"**3344"'));
  const r = await run(['history', 'reconcile', '--payout-id', id, '--made-by', txn]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(`account shown masked (**3344): only its last 4 characters could be checked`);
  expect(r.stderr).not.toContain('form or time only');
  expect((await new Journal(setup.dir).get(proxy.baseUrl, id))?.outcome).toMatchObject({ kind: 'accepted', transactionId: txn });
});

it('history reconcile prints --made-by only for records --made-by takes; records of other accounts (AB11223344, 0011223345) listed as not offered, text and --json', async () => {
  const { id, txn } = await leftUnknown('0011223344');
  const other = freshWallet(ctx.sb, '1000.00');
  for (const account of ['AB11223344', '0011223345']) {
    const args = ['payout', 'create', '--wallet', other, '--amount', '10.00', '--currency', 'SLE', '--type', 'bank'];
    const made = await run([...args, '--name', 'Someone Else', '--provider', 'ecobank', '--account', account, '--yes']);
    expect(made.code, made.stderr).toBe(0);
  }
  const refuse = () =>
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 400, code: 'INSUFFICIENT_FUNDS', message: 'Insufficient wallet balance' });
  refuse();
  const r = await run(['history', 'reconcile', '--payout-id', id]);
  expect(r.code, r.stderr).toBe(4);
  const printed = r.stdout.split('\n').filter((l) => l.includes(' --made-by TXN'));
  expect(printed.length, r.stdout).toBeGreaterThan(0);
  for (const l of printed) expect(l).not.toMatch(/AB11223344|0011223345/);
  expect(r.stdout).toContain(`--payout-id ${id} --made-by ${txn}`);
  expect(r.stdout).toContain('Not offered as made (these records):');
  expect(r.stdout).toContain('(account AB11223344, sent 0011223344: --made-by takes only a record of the account sent)');
  expect(r.stdout).toContain('(account 0011223345, sent 0011223344: --made-by takes only a record of the account sent)');
  // Every printed command runs as printed: each --made-by is taken by --made-by's own rule.
  const offered = [...r.stdout.matchAll(/--made-by (TXN-BOK-[0-9A-F]+)/g)].map((m) => m[1]!);
  refuse();
  const json = await run(['history', 'reconcile', '--payout-id', id, '--json']);
  ctx.sb.faults.clear();
  const doc = JSON.parse(json.stdout) as { results: Array<{ candidates: Array<{ transaction_id: string; account_number: string; not_offered: string | null }> }> };
  const cands = doc.results[0]!.candidates;
  for (const c of cands) expect(c.not_offered === null, JSON.stringify(c)).toBe(offered.includes(c.transaction_id));
  expect(
    cands
      .filter((c) => c.not_offered !== null)
      .map((c) => c.account_number)
      .sort(),
  ).toEqual(['0011223345', 'AB11223344']);
  const taken = await run(['history', 'reconcile', '--payout-id', id, '--made-by', txn]);
  expect(taken.code, taken.stderr).toBe(0);
});

it('a candidate the journal has as another payout: listed as not offered, never a --made-by command that is refused (probe D54, F6)', async () => {
  // Payout A paid (accepted, its transaction journaled); payout B of the same details never made, its resend refused 400.
  const wallet = freshWallet(ctx.sb, '1000.00');
  const proxy = await sandboxProxy(ctx.sb);
  writeProfile(setup.dir, { baseUrl: proxy.baseUrl, apiKey: ctx.sb.apiKey });
  const base = ['payout', 'create', '--wallet', wallet, '--amount', '10.00', '--currency', 'SLE', '--type', 'bank'];
  base.push('--name', 'Ibrahim Conteh', '--provider', 'ecobank', '--account', '0011223344', '--yes');
  const a = randomUUID();
  expect((await run([...base, '--payout-id', a])).code).toBe(0);
  const txn = heldFor(ctx.sb, a)[0]!.transaction_id;
  const b = randomUUID();
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
  expect((await run([...base, '--payout-id', b])).code).toBe(4);
  ctx.sb.faults.clear();
  ctx.sb.faults.add({
    method: 'POST',
    path: '/v2/payout',
    kind: 'status',
    status: 400,
    code: 'INSUFFICIENT_FUNDS',
    message: 'Insufficient wallet balance',
    times: Infinity,
  });
  const r = await run(['history', 'reconcile', '--payout-id', b]);
  ctx.sb.faults.clear();
  expect(r.stdout + r.stderr).not.toContain(`--made-by ${txn}`);
  expect(r.stdout + r.stderr).toContain(`already recorded as payout ${a}`);
  expect(heldFor(ctx.sb, b)).toHaveLength(0);
});
