/**
 * `payctl history reconcile` past 24 hours, against a service whose list gives a record that
 * pays exactly the payout whose answer was lost, under a transaction id not of the documented
 * form (probe X, F9: `TXN-BOK-` and 10 hex digits instead of 26). One rule (schemas.ts
 * isTransactionId) says which ids payctl can name: reconcile offers `--made-by` only for a record
 * whose id it is, and `--made-by` and `payout get` take what reconcile offers, so every printed
 * command runs as printed; a record with an id payctl cannot name (a placeholder, shell
 * characters, lower case) is listed as unchecked, never offered as made. A small node:http
 * service plays the service (it answers 500 to every payout, so the outcome stays unknown); a
 * TestClock a day ahead makes the entry old.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { printed } from '../helpers/printed.js';
import { configDir, hostile, hostileProfile, json, useHostileCleanups, type Hostile } from '../helpers/hostile.js';

useHostileCleanups();

const WALLET = '6643665465';
const ACCOUNT = '5500112002';
const DAY_AND_AN_HOUR = 25 * 60 * 60 * 1000;

let dir: string;
let service: Hostile;
/** The transaction id the service's list and look-up give the payout's record. */
let recordId: string;
let t0: number;

const envelope = (data: unknown) => ({ status: 'Successful', message: 'ok', data, timestamp: new Date().toISOString() });

/** The look-up record of the payout (2.00 SLE to ACCOUNT), under `id`, created at `at`. */
function record(id: string, at: string): Record<string, unknown> {
  const recipient = { transfer_type: 'bank', account_number: ACCOUNT, name: 'EL', bank: 'UBA' };
  return {
    transaction_id: id,
    status: 'successful',
    amount: '2.00',
    currency: 'SLE',
    fee: '0.02',
    total_amount: '2.02',
    recipient,
    description: null,
    created_at: at,
    updated_at: at,
  };
}

beforeEach(async () => {
  dir = configDir();
  t0 = Date.now();
  const at = new Date(t0 + 60_000).toISOString();
  service = await hostile((req, res, seen) => {
    const path = new URL(seen.url, 'http://x').pathname;
    if (path === '/v2/wallets/balances') return json(res, 200, envelope([{ wallet_id: WALLET, wallet_name: 'Ops', currency: 'SLE', balance: 5000, updated_at: at }]));
    if (path === '/v2/payout' && seen.method === 'POST') return json(res, 500, { message: 'boom' });
    if (path === '/v2/payout/list')
      return json(res, 200, envelope({ current_page: 1, data: [record(recordId, at)], last_page: 1, total: 1, per_page: 100, next_page_url: null }));
    const one = /^\/v2\/payout\/([^/]+)$/.exec(path);
    if (one && decodeURIComponent(one[1]!) === recordId) return json(res, 200, envelope(record(recordId, at)));
    json(res, 404, { message: 'Transfer not found.' });
  });
  hostileProfile(dir, service);
});

afterEach(() => {
  recordId = '';
});

const later = () => new TestClock(new Date(t0 + DAY_AND_AN_HOUR));
const run = (args: string[], clock?: TestClock): Promise<Run> => payctl(args, { dir, ...(clock ? { clock } : {}) });

/** A payout of 2.00 SLE to ACCOUNT whose every answer was a 500: the journal holds it unknown. */
async function lostPayout(id: string): Promise<void> {
  const args = ['payout', 'create', '--wallet', WALLET, '--amount', '2.00', '--currency', 'SLE', '--type', 'bank', '--name', 'EL'];
  const r = await run([...args, '--provider', 'uba', '--account', ACCOUNT, '--payout-id', id, '--timeout', '1', '--yes'], new TestClock(new Date(t0)));
  expect(r.code, r.stderr).toBe(4);
}

describe('history reconcile past 24 hours: a record whose transaction id is not of the documented form', () => {
  it('TXN-BOK- and 10 hex digits: --made-by is offered, and runs as printed (before: refused, "See the candidates" looped back)', async () => {
    recordId = 'TXN-BOK-9F3A77C2E1';
    await lostPayout('evl-1');
    const r = await run(['history', 'reconcile', '--payout-id', 'evl-1'], later());
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stdout).toContain('1 payout at the service could be it');
    const madeBy = printed(r.stdout, 'history reconcile');
    expect(madeBy.slice(-2)).toEqual(['--made-by', recordId]);
    const m = await run(madeBy, later());
    expect(m.code, m.stdout + m.stderr).toBe(0);
    expect(m.stderr).toContain(`Payout evl-1 recorded as made by transaction ${recordId}.`);
    // payout get of that transaction, and of the payout id, ask the service for it.
    const byTxn = await run(['payout', 'get', recordId.toLowerCase()], later());
    expect(byTxn.code, byTxn.stderr).toBe(0);
    expect(byTxn.stdout).toContain(recordId);
    expect(byTxn.stdout).toContain('evl-1');
    const byId = await run(['payout', 'get', 'evl-1'], later());
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toContain(recordId);
  });

  it('payout get of such a transaction id that this machine never journaled asks the service (before: "not a transaction id")', async () => {
    recordId = 'TXN-BOK-9F3A77C2E1';
    const r = await run(['payout', 'get', recordId]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(recordId);
    expect(service.seen.map((s) => s.url)).toContain(`/v2/payout/${recordId}`);
  });

  it.each([
    ['a placeholder', 'PENDING'],
    ['shell characters', "TXN-BOK-1`touch x`;'y"],
    ['a space', 'TXN-BOK-9F3A 77C2E1'],
    ['lower case', 'txn-bok-9f3a77c2e1'],
    ['another prefix', 'txn_9F3A77C2E1'],
    ['letters that are no hex digits', 'TXN-BOK-9F3A77C2EZ'],
  ])('%s (%s): listed as unchecked, no --made-by printed (before: a --made-by it refused)', async (_, id) => {
    recordId = id;
    await lostPayout('evl-2');
    const r = await run(['history', 'reconcile', '--payout-id', 'evl-2'], later());
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stdout).toContain('1 payout at the service could be it');
    expect(r.stdout).toMatch(/cannot be checked, so not offered as made: transaction id .* is not one payctl can look up/);
    expect(r.stdout).not.toContain('--made-by');
    expect(r.stdout).toContain('--resend');
    const j = await run(['history', 'reconcile', '--payout-id', 'evl-2', '--json'], later());
    const doc = JSON.parse(j.stdout) as { results: Array<{ candidates: Array<{ unchecked: string[] }>; commands: { made_by: string[] } }> };
    expect(doc.results[0]!.commands.made_by).toEqual([]);
    expect(doc.results[0]!.candidates[0]!.unchecked.join()).toContain('is not one payctl can look up');
  });
});
