/**
 * Answers checked against requests (issue 14), in process against small hostile services:
 * RFC 9457 problem details shown with their detail, a `payout get A` answered about payout B
 * (transaction ids: exit 5, its status not read, both ids shown) or with no transaction id (exit 5), a filtered list answered with a record outside the filter (exit 1),
 * a total that is not the amount plus the fee (warned), and a create answered about another
 * payout (exit 4, journaled unknown) over the real sandbox behind a rewriting proxy, and a
 * balances answer that lists a wallet twice (exit 1 for every command that reads it).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { writeLoggedIn, writeProfile } from '../helpers/e2e.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { batchRows, toCsv, writeFile } from '../helpers/batch.js';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { printed } from '../helpers/printed.js';
import { configDir, expectNoCrash, heldFor, hostile, hostileProfile, journalOf, json, payoutArgs, sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';

const ctx = useSandbox();
useHostileCleanups();

const TS = '2026-11-21T10:15:30.123456Z';
const TXN_A = 'TXN-BOK-0000000000000000000000000A';
const TXN_B = 'TXN-BOK-0000000000000000000000000B';
const TXN_X = 'TXN-BOK-00000000000000000000000000';

function record(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    transaction_id: TXN_B,
    payout_id: 'po-b',
    wallet_id: 'wal_a08ff49b6f772632',
    amount: 1500.5,
    fee: 15.01,
    currency: 'SLE',
    status: 'Pending',
    failure_reason: null,
    recipient: { type: 'bank', accountDetails: { name: 'Aminata Kamara', provider: 'uba', accountNumber: '0123' } },
    created_at: TS,
    updated_at: TS,
    ...overrides,
  };
}

describe('RFC 9457 problem details', () => {
  it('a 422 application/problem+json to payout create is shown with its title and detail (exit 1), in text and --json', async () => {
    const h = await hostile((req, res) => {
      const body = JSON.stringify({
        type: 'https://api.example.com/problems/insufficient-funds',
        title: 'Insufficient funds',
        status: 422,
        detail: 'Wallet wal_1 has 10.00 SLE; the payout needs 12.63.',
        errors: [{ pointer: '/amount', detail: 'exceeds the balance' }],
      });
      res.writeHead(422, { 'content-type': 'application/problem+json', 'x-request-id': 'req_problem' }).end(body);
    });
    const dir = configDir();
    hostileProfile(dir, h);
    const id = `problem-${randomUUID()}`;
    const r = await payctl([...payoutArgs('wal_1', id)], { dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('Insufficient funds: Wallet wal_1 has 10.00 SLE; the payout needs 12.63.');
    expect(r.stderr).toContain('amount');
    expect(r.stderr).toContain('exceeds the balance');
    expect(r.stderr).toContain('req_problem');
    expect(r.stderr).not.toContain('not JSON');
    expectNoCrash(r);
    expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('rejected');

    const j = await payctl(['--json', ...payoutArgs('wal_1', `problem-${randomUUID()}`)], { dir });
    expect(j.code).toBe(1);
    const err = JSON.parse(j.stderr) as { error: { message: string; status: number; errors: Array<{ field: string; message: string }> } };
    expect(err.error.message).toBe('Insufficient funds: Wallet wal_1 has 10.00 SLE; the payout needs 12.63.');
    expect(err.error.status).toBe(422);
    expect(err.error.errors).toEqual([{ field: 'amount', message: 'exceeds the balance' }]);
  });

  it('a problem with only a title, and one whose detail already says the title, read as one message', async () => {
    const bodies = [
      { title: 'Service Unavailable', status: 404 },
      { title: 'Not found', status: 404, detail: `Not found: no payout ${TXN_X}.` },
    ];
    let n = 0;
    const h = await hostile((_req, res) => {
      const body = JSON.stringify(bodies[n++ % bodies.length]);
      res.writeHead(404, { 'content-type': 'application/problem+json' }).end(body);
    });
    const dir = configDir();
    hostileProfile(dir, h);
    const a = await payctl(['payout', 'get', TXN_X], { dir });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('Service Unavailable');
    expect(a.stderr).not.toContain('not JSON');
    const b = await payctl(['payout', 'get', TXN_X], { dir });
    expect(b.code).toBe(1);
    expect(b.stderr).toContain(`(it said: Not found: no payout ${TXN_X})`);
    expect(b.stderr).not.toContain('Not found: Not found');
    expect(b.stderr).not.toContain('not JSON');
  });
});

describe('reads must be about what was asked', () => {
  it('amounts are read exactly as the service writes them: grouped "1,000.00" and plain; "1.000,00" or words are refused, never guessed', async () => {
    const lookup = (amount: unknown, fee: unknown) => ({
      transaction_id: TXN_B,
      status: 'successful',
      amount,
      currency: 'SLE',
      fee,
      total_amount: '1,234,567.90',
      recipient: { transfer_type: 'bank', account_number: '0123', name: 'Aminata Kamara', bank: 'UBA' },
      description: null,
      created_at: TS,
      updated_at: TS,
      provider_reference: 'ORD-1',
    });
    const answers = [lookup('1,234,555.55', '12.35'), lookup(1234555.55, 12.35), lookup('1.234.555,55', '12,35'), lookup('a lot', '1.00')];
    let n = 0;
    const h = await hostile((_req, res) => json(res, 200, { status: 'Successful', message: 'Transfer status retrieved', data: answers[n++], timestamp: TS }));
    const dir = configDir();
    hostileProfile(dir, h);
    for (let i = 0; i < 2; i++) {
      const r = await payctl(['payout', 'get', TXN_B], { dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Amount\s+1,234,555\.55 SLE$/m);
      expect(r.stdout).toMatch(/^Fee\s+12\.35 SLE$/m);
      expect(r.stdout).toMatch(/^Total debited\s+1,234,567\.90 SLE$/m);
      expect(r.stdout).toMatch(/^Status\s+Successful$/m);
    }
    for (let i = 0; i < 2; i++) {
      const r = await payctl(['payout', 'get', TXN_B], { dir });
      // Its status not read (exit 5, as with --wait), never a refusal's 1.
      expect(r.code, r.stderr).toBe(5);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/does not understand: amount: expected a decimal amount/);
      expectNoCrash(r);
    }
  });

  it('payout get A answered with payout B: exit 5 (its status not read, STATUS_NOT_READ) naming both, nothing printed on stdout (text and --json)', async () => {
    const h = await hostile((_req, res) => json(res, 200, { status: 'Successful', message: 'ok', data: record(), timestamp: TS }));
    const dir = configDir();
    hostileProfile(dir, h);
    for (const extra of [[], ['--json']]) {
      const r = await payctl([...extra, 'payout', 'get', TXN_A], { dir });
      expect(r.code, r.stderr).toBe(5);
      if (extra.length) expect(r.stderr).toContain('"code":"STATUS_NOT_READ"');
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Asked for payout ${TXN_A}, the service answered about a different payout: ${TXN_B}.`);
      expectNoCrash(r);
    }
    // Asked by its own transaction id: the record is the answer.
    const byTx = await payctl(['payout', 'get', TXN_B], { dir });
    expect(byTx.code, byTx.stderr).toBe(0);
    expect(byTx.stdout).toContain(TXN_B);
  });

  it('payout get A answered with payout B under a named profile: the settings check printed carries --profile, and runs as printed', async () => {
    const h = await hostile((_req, res) => json(res, 200, { status: 'Successful', message: 'ok', data: record(), timestamp: TS }));
    const dir = configDir();
    writeProfile(dir, { baseUrl: h.baseUrl, apiKey: `sk_test_${randomUUID()}` }, 'ops');
    for (const extra of [[], ['--wait']]) {
      const r = await payctl(['--profile', 'ops', 'payout', 'get', TXN_A, ...extra], { dir });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toMatch(/Check the profile's base URL and its payoutGet route \(when not set, the documented path\): payctl config list --profile ops$/m);
      const check = await payctl(printed(r.stderr, 'config list'), { dir });
      expect(check.code, check.stderr).toBe(0);
      expect(check.stdout).toContain(h.baseUrl);
    }
  });

  it('payout get A answered with a record that names no transaction id: exit 5, not taken for A (text, --json, --wait)', async () => {
    const { transaction_id: _, ...nameless } = record({ status: 'successful' });
    const h = await hostile((_req, res) => json(res, 200, { status: 'Successful', message: 'ok', data: nameless, timestamp: TS }));
    const dir = configDir();
    hostileProfile(dir, h);
    for (const extra of [[], ['--json'], ['--wait']]) {
      const r = await payctl([...(extra[0] === '--json' ? extra : []), 'payout', 'get', TXN_A, ...(extra[0] === '--wait' ? extra : [])], { dir });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Asked for payout ${TXN_A}, the service answered with a payout that names no transaction id: it is not taken for ${TXN_A}.`);
      expect(r.stderr).not.toContain('Successful');
      expectNoCrash(r);
    }
  });

  it('a list that ignores the filter: payctl filters every record itself, never showing one outside it', async () => {
    // The service's list takes no documented filters: whatever it is asked, it answers every record.
    const h = await hostile((_req, res) => {
      json(res, 200, {
        status: 'Successful',
        message: 'ok',
        data: [
          record({ status: 'Failed', transaction_id: 'TXN-BOK-0000000000000000000000000A', payout_id: 'po-a' }),
          record({ status: 'pending', currency: 'NGN', transaction_id: 'TXN-BOK-0000000000000000000000000B' }),
        ],
        timestamp: TS,
      });
    });
    const dir = configDir();
    hostileProfile(dir, h);
    const status = await payctl(['payouts', 'list', '--status', 'Failed', '--csv'], { dir });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('TXN-BOK-0000000000000000000000000A');
    expect(status.stdout).not.toContain('TXN-BOK-0000000000000000000000000B');
    const all = await payctl(['payouts', 'list', '--currency', 'SLE', '--all', '--json'], { dir });
    expect(all.code, all.stderr).toBe(0);
    const data = JSON.parse(all.stdout).data as Array<{ transaction_id: string }>;
    expect(data.map((d) => d.transaction_id)).toEqual(['TXN-BOK-0000000000000000000000000A']);
    // The filter never went to the service.
    for (const q of h.seen) expect(q.url).not.toMatch(/status=|currency=/);
    const unfiltered = await payctl(['payouts', 'list', '--csv'], { dir });
    expect(unfiltered.code, unfiltered.stderr).toBe(0);
    expect(unfiltered.stdout).toContain('TXN-BOK-0000000000000000000000000B');
  });
});

describe('a balances answer that lists one wallet twice', () => {
  it('is unreadable for every command (exit 1, saying so): balances, payout create (the card and the check), payout batch; nothing is sent', async () => {
    const wallet = (currency: string, balance: string) => ({ wallet_id: '1', wallet_name: 'Main', currency, balance, updated_at: TS });
    const h = await hostile((req, res) => {
      if (req.url === '/v2/wallets/balances') json(res, 200, { status: 'Successful', data: [wallet('SLE', '5.00'), wallet('NGN', '90000.00')] });
      else json(res, 500, { message: 'not here' });
    });
    const dir = configDir();
    hostileProfile(dir, h);
    const said = 'Error: The service sent wallet balances that payctl does not understand: 1.wallet_id: wallet "1" is listed twice (entries 0 and 1).';
    const create = [
      'payout',
      'create',
      '--wallet',
      '1',
      '--amount',
      '10',
      '--currency',
      'NGN',
      '--type',
      'bank',
      '--name',
      'Aminata Kamara',
      '--provider',
      'uba',
      '--account',
      '0123',
    ];
    const file = writeFile(join(dir, 'rows.csv'), toCsv(batchRows(1, '1', 'dup', 'NGN')));
    for (const args of [['balances'], ['balances', '--wallet', '1'], [...create, '--dry-run'], ['payout', 'batch', file, '--yes']]) {
      const r = await payctl(args, { dir });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(said);
      expectNoCrash(r);
    }
    const j = await payctl(['balances', '--json'], { dir });
    expect(j.code, j.stderr).toBe(1);
    expect(JSON.parse(j.stderr).error.message).toBe(said.slice('Error: '.length));
    expect(h.seen.map((s) => `${s.method} ${s.url}`).filter((l) => !l.endsWith('/wallets/balances'))).toEqual([]);
  });
});

describe('a total that is not the amount plus the fee (the documented look-up: 1,000.00 + 5.00 = 1,005.00)', () => {
  const lookup = (txn: string, total: unknown) => ({
    transaction_id: txn,
    status: 'successful',
    amount: '1,000.00',
    currency: 'SLE',
    fee: '5.00',
    total_amount: total,
    recipient: { transfer_type: 'bank', account_number: '0123', name: 'Aminata Kamara', bank: 'UBA' },
    description: null,
    created_at: TS,
    updated_at: TS,
    provider_reference: 'ORD-1',
  });
  const said = (txn: string, total: string) =>
    `Warning: The service's answer for payout ${txn} gives total_amount ${total}, which is not its amount "1,000.00" plus its fee "5.00" (SLE): check it with the service before relying on it.`;

  it('payout get and payouts list: a warning naming the three values as sent; a right total, as a string or a number, says nothing', async () => {
    const records = [lookup(TXN_A, '1,010.00'), lookup(TXN_B, '1,005.00'), lookup(TXN_X, 1005)];
    const h = await hostile((req, res) => {
      if (req.url?.startsWith('/v2/payout/list')) return json(res, 200, { status: 'Successful', message: 'ok', data: records, timestamp: TS });
      const data = records.find((r) => req.url?.endsWith(r.transaction_id));
      json(res, 200, { status: 'Successful', message: 'Transfer status retrieved', data, timestamp: TS });
    });
    const dir = configDir();
    hostileProfile(dir, h);
    const wrong = await payctl(['payout', 'get', TXN_A], { dir });
    expect(wrong.code, wrong.stderr).toBe(0);
    expect(wrong.stderr).toBe(said(TXN_A, '"1,010.00"') + '\n');
    // The card shows the service's total as it came, never one recomputed.
    expect(wrong.stdout).toMatch(/Total debited\s+1,010\.00 SLE/);
    const waited = await payctl(['payout', 'get', TXN_A, '--wait'], { dir });
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stderr).toContain(said(TXN_A, '"1,010.00"'));
    for (const txn of [TXN_B, TXN_X]) {
      const right = await payctl(['payout', 'get', txn], { dir });
      expect(right.code, right.stderr).toBe(0);
      expect(right.stderr).toBe('');
    }
    const list = await payctl(['payouts', 'list', '--csv'], { dir });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toContain(said(TXN_A, '"1,010.00"'));
    expect(list.stderr.match(/Warning: The service's answer for payout/g)).toHaveLength(1);
  });

  it('a create answer that adds a total_amount that is not amount + fee: warned, the payout accepted as it was (exit 0)', async () => {
    const { proxy, dir, wallet } = await throughProxy();
    proxy.rewriteNextPayout((status, raw) => {
      const answer = JSON.parse(raw) as { data: Record<string, unknown> };
      answer.data.fee = 0.13;
      answer.data.total_amount = 12.5;
      return { status, body: JSON.stringify(answer), contentType: 'application/json' };
    });
    const id = `total-${randomUUID()}`;
    const r = await payctl(payoutArgs(wallet, id), { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /Warning: The service's answer for payout TXN-BOK-[0-9A-F]{26} gives total_amount 12\.5, which is not its amount 12\.5 plus its fee 0\.13 \(SLE\)/,
    );
    expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('accepted');
  });
});

/** A config folder logged in to the sandbox through a proxy that rewrites create answers, and a wallet of 1,000.00 SLE. */
async function throughProxy(): Promise<{ proxy: Awaited<ReturnType<typeof sandboxProxy>>; dir: string; wallet: string }> {
  const proxy = await sandboxProxy(ctx.sb);
  const dir = configDir();
  const p = await writeLoggedIn(ctx.sb, dir);
  writeProfile(dir, { ...p, baseUrl: proxy.baseUrl });
  return { proxy, dir, wallet: freshWallet(ctx.sb, '1000.00', 'SLE') };
}

describe('a create answered about another payout', () => {
  it('another wallet in the answer: exit 4, journaled unknown, both wallets named', async () => {
    const sb = ctx.sb;
    const { proxy, dir, wallet } = await throughProxy();
    const id = `otherwallet-${randomUUID()}`;
    proxy.rewriteNextPayout((status, raw) => {
      const answer = JSON.parse(raw) as { data: Record<string, unknown> };
      answer.data.wallet_id = 'wal_someone_else';
      return { status, body: JSON.stringify(answer), contentType: 'application/json' };
    });
    const r = await payctl(payoutArgs(wallet, id), { dir });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`the service answered about a different payout (wallet: sent ${wallet}, answered wal_someone_else)`);
    expect(r.stdout).toBe('');
    expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('unknown');
    expect(heldFor(sb, id)).toHaveLength(1);
  });
});

describe('a create answer that says the provider failed it', () => {
  it('provider_response.status "DECLINED": no success line, exit 1 naming the transaction, journaled as accepted and Failed; --json the same', async () => {
    const sb = ctx.sb;
    const { proxy, dir, wallet } = await throughProxy();
    const failedAtOnce = (status: number, raw: string) => {
      const answer = JSON.parse(raw) as { data: { provider_response: Record<string, unknown> } };
      answer.data.provider_response.status = 'DECLINED';
      return { status, body: JSON.stringify(answer), contentType: 'application/json' };
    };

    const id = `declined-${randomUUID()}`;
    proxy.rewriteNextPayout(failedAtOnce);
    const r = await payctl(payoutArgs(wallet, id), { dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toContain('submitted');
    const txn = /TXN-BOK-[0-9A-F]{26}/.exec(r.stdout)?.[0];
    expect(txn, r.stdout).toBeDefined();
    expect(r.stderr).toContain(`Payout ${id} failed: the service accepted it (transaction ${txn}) and its answer says "DECLINED".`);
    expect(r.stderr).toContain(`payctl payout get ${txn}`);
    const entry = journalOf(dir, id)[0]!;
    expect(entry.outcome).toMatchObject({ kind: 'accepted', transactionId: txn, payoutStatus: 'Failed' });
    expect(heldFor(sb, id)).toHaveLength(1);
    expectNoCrash(r);

    const jid = `declined-${randomUUID()}`;
    proxy.rewriteNextPayout(failedAtOnce);
    const j = await payctl(['--json', ...payoutArgs(wallet, jid)], { dir });
    expect(j.code, j.stderr).toBe(1);
    expect((JSON.parse(j.stdout) as { data: { provider_response: { status: string } } }).data.provider_response.status).toBe('DECLINED');
    expect((JSON.parse(j.stderr) as { error: { message: string } }).error.message).toContain(`Payout ${jid} failed`);
  });
});

describe('a transaction id the service gave another payout', () => {
  const sameTransaction = (txn: string) => (status: number, raw: string) => {
    const answer = JSON.parse(raw) as { data: Record<string, unknown> };
    answer.data.transaction_id = txn;
    return { status, body: JSON.stringify(answer), contentType: 'application/json' };
  };

  it('payout create answered with the transaction of an earlier payout: exit 4, journaled unknown, the other payout named', async () => {
    const { proxy, dir, wallet } = await throughProxy();
    const first = `first-${randomUUID()}`;
    const a = await payctl(payoutArgs(wallet, first), { dir });
    expect(a.code, a.stderr).toBe(0);
    const txn = journalOf(dir, first)[0]!.outcome as unknown as { transactionId: string };

    const second = `second-${randomUUID()}`;
    proxy.rewriteNextPayout(sameTransaction(txn.transactionId));
    const b = await payctl(payoutArgs(wallet, second), { dir });
    expect(b.code, b.stderr).toBe(4);
    expect(b.stderr).toContain(`the service answered with transaction ${txn.transactionId}, which the journal already has for another payout (${first})`);
    expect(b.stderr).not.toContain('submitted');
    expect(journalOf(dir, second)[0]!.outcome?.kind).toBe('unknown');
    expect(journalOf(dir, first)[0]!.outcome).toMatchObject({ kind: 'accepted', transactionId: txn.transactionId });
    expectNoCrash(b);
  });

  it('payout batch whose rows are all answered with one transaction id: the first row accepted, the others unknown (exit 4)', async () => {
    const { proxy, dir, wallet } = await throughProxy();
    const rows = batchRows(3, wallet, `onetxn-${randomUUID().slice(0, 8)}`);
    const file = writeFile(join(dir, 'three.csv'), toCsv(rows));
    proxy.rewriteEveryPayout(sameTransaction('TXN-BOK-0123456789ABCDEF0123456789'));
    const r = await payctl(['payout', 'batch', file, '--concurrency', '1', '--yes'], { dir });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('1 accepted, 0 already submitted, 0 rejected, 2 unknown.');
    const report = readFileSync(join(dir, 'three.report.csv'), 'utf8');
    expect(report).toContain(`which it gave payout ${rows[0]!.payout_id} of this run`);
    expect(report.split('\n').filter((l) => l.includes(',unknown,'))).toHaveLength(2);
    expectNoCrash(r);
  });
});

describe('a batch row whose answer says the provider failed it', () => {
  it('the row stays accepted (its transaction in the report) with code FAILED; the run warns with the --failed-out command and exits 1', async () => {
    const sb = ctx.sb;
    const { proxy, dir, wallet } = await throughProxy();
    const rows = batchRows(3, wallet, `declined-${randomUUID().slice(0, 8)}`);
    const file = writeFile(join(dir, 'three.csv'), toCsv(rows));
    proxy.rewriteNextPayout((status, raw) => {
      const answer = JSON.parse(raw) as { data: { provider_response: Record<string, unknown> } };
      answer.data.provider_response.status = 'declined';
      return { status, body: JSON.stringify(answer), contentType: 'application/json' };
    });
    const r = await payctl(['payout', 'batch', file, '--concurrency', '1', '--yes'], { dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('3 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expect(r.stderr.replace(/\s+/g, ' ')).toContain("1 payout was accepted, but the service's answer says the provider failed it (row 2;");
    expect(r.stderr).toContain(`payctl payout batch status ${join(dir, 'three.report.csv')} --failed-out ${join(dir, 'three.rejected.csv')}`);
    const report = readFileSync(join(dir, 'three.report.csv'), 'utf8');
    expect(report.split('\n').filter((l) => l.includes(',accepted,FAILED,'))).toHaveLength(1);
    expect(heldFor(sb, rows[0]!.payout_id!)).toHaveLength(1);
    expectNoCrash(r);
  });
});
