/**
 * Answers checked against requests (issue 14), in process against small hostile services:
 * RFC 9457 problem details shown with their detail, a `payout get A` answered about payout B
 * (exit 1, both ids shown), a filtered list answered with a record outside the filter (exit 1),
 * and a create answered about another payout (exit 4, journaled unknown) over the real
 * sandbox behind a rewriting proxy.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { writeLoggedIn, writeProfile } from '../helpers/e2e.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { configDir, expectNoCrash, heldFor, hostile, hostileProfile, journalOf, json, payoutArgs, sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';

const ctx = useSandbox();
useHostileCleanups();

const TS = '2026-11-21T10:15:30.123456Z';

function record(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    transaction_id: 'TRX0123456789ABCDEF0123',
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
      { title: 'Not found', status: 404, detail: 'Not found: no payout po-x.' },
    ];
    let n = 0;
    const h = await hostile((_req, res) => {
      const body = JSON.stringify(bodies[n++ % bodies.length]);
      res.writeHead(404, { 'content-type': 'application/problem+json' }).end(body);
    });
    const dir = configDir();
    hostileProfile(dir, h);
    const a = await payctl(['payout', 'get', 'po-x'], { dir });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('Service Unavailable');
    expect(a.stderr).not.toContain('not JSON');
    const b = await payctl(['payout', 'get', 'po-x'], { dir });
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('Not found: no payout po-x.');
    expect(b.stderr).not.toContain('Not found: Not found');
    expect(b.stderr).not.toContain('not JSON');
  });
});

describe('reads must be about what was asked', () => {
  it('payout get A answered with payout B: exit 1 naming both, nothing printed on stdout (text and --json)', async () => {
    const h = await hostile((_req, res) => json(res, 200, { status: 'Successful', message: 'ok', data: record({ payout_id: 'po-b' }), timestamp: TS }));
    const dir = configDir();
    hostileProfile(dir, h);
    for (const extra of [[], ['--json']]) {
      const r = await payctl([...extra, 'payout', 'get', 'po-a'], { dir });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('Asked for payout po-a, the service answered about a different payout: po-b.');
      expectNoCrash(r);
    }
    // Asked by transaction id: the record with that transaction id is the answer.
    const byTx = await payctl(['payout', 'get', 'TRX0123456789ABCDEF0123'], { dir });
    expect(byTx.code, byTx.stderr).toBe(0);
    expect(byTx.stdout).toContain('po-b');
  });

  it('a filtered list answered with a record outside the filter: exit 1 naming the record and the filter, nothing listed', async () => {
    const h = await hostile((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const wrong = url.searchParams.get('status') === 'Failed' ? record({ status: 'Pending' }) : record({ currency: 'NGN' });
      json(res, 200, { status: 'Successful', message: 'ok', data: [record({ status: 'Failed', payout_id: 'po-ok' }), wrong], timestamp: TS });
    });
    const dir = configDir();
    hostileProfile(dir, h);
    const status = await payctl(['payouts', 'list', '--status', 'Failed'], { dir });
    expect(status.code, status.stderr).toBe(1);
    expect(status.stdout).toBe('');
    expect(status.stderr).toContain('payout 2 of page 1 (po-b) has status Pending, asked for Failed');
    const all = await payctl(['payouts', 'list', '--currency', 'SLE', '--all', '--json'], { dir });
    expect(all.code, all.stderr).toBe(1);
    expect(all.stderr).toContain('currency NGN, asked for SLE');
    const unfiltered = await payctl(['payouts', 'list'], { dir });
    expect(unfiltered.code, unfiltered.stderr).toBe(0);
  });
});

describe('a create answered about another payout', () => {
  it('another wallet in the answer: exit 4, journaled unknown, both wallets named', async () => {
    const sb = ctx.sb;
    const proxy = await sandboxProxy(sb);
    const dir = configDir();
    const p = await writeLoggedIn(sb, dir);
    writeProfile(dir, { ...p, baseUrl: proxy.baseUrl });
    const wallet = freshWallet(sb, '1000.00', 'SLE');
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
