/**
 * Hostile services, in process: fields of a payout record or a wallet that print as one thing
 * but are another (a currency with an invisible character, a transaction id with an escape),
 * a payout listed twice with different contents, and a body compressed though payctl asked for
 * none (probe 70-S, findings 2, 6 and 8). Small node:http servers (test/helpers/hostile.ts) play
 * the service.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { configDir, hostile, hostileProfile, json, useHostileCleanups } from '../helpers/hostile.js';
import { shellSplit } from '../helpers/pty.js';

useHostileCleanups();

const record = (i: number, o: Record<string, unknown> = {}) => ({
  transaction_id: `TXN-BOK-${String(i).padStart(26, '0')}`,
  status: 'successful',
  amount: '10.00',
  currency: 'SLE',
  fee: '0.10',
  total_amount: '10.10',
  recipient: { transfer_type: 'bank', account_number: '123456', name: `Rec ${i}`, bank: 'ECOBANK' },
  created_at: '2026-11-20T10:00:00.000000Z',
  wallet_id: '6643665465',
  ...o,
});

/** A service whose list is `records` on one page and whose balances are `wallets`. */
async function service(records: unknown[], wallets: unknown[] = []) {
  const h = await hostile((req, res) => {
    const env = (data: unknown) => json(res, 200, { status: 'Successful', message: 'ok', data });
    if (req.url?.startsWith('/v2/wallets/balances')) return env(wallets);
    if (req.url?.startsWith('/v2/payout/list')) return env({ current_page: 1, last_page: 1, next_page_url: null, data: records });
    json(res, 404, { message: 'nope' });
  });
  const dir = configDir();
  hostileProfile(dir, h);
  return dir;
}

describe('a currency code that prints as another (an invisible or escape character in it)', () => {
  it('"SLE\\u200b" is an unreadable field: list, --currency SLE, a computed summary and balances refuse the answer, naming it with escapes', async () => {
    const wallet = (id: string, currency: string) => ({ wallet_id: id, wallet_name: id, currency, balance: '1.00', updated_at: '2026-11-27T10:00:00Z' });
    const odds: Array<[string, string]> = [
      ['SLE\u200b', 'SLE\\u200b'],
      ['S\u001b[2JLE', 'S\\u001b[2JLE'],
      ['SLE\u00a0', 'SLE\\u00a0'],
      ['\ufeffSLE', '\\ufeffSLE'],
    ];
    for (const [odd, shown] of odds) {
      const dir = await service(
        [record(1), record(2, { currency: odd, amount: '5,000.00', total_amount: '5,000.10' }), record(3)],
        [wallet('1', 'SLE'), wallet('2', odd)],
      );
      const runs = await Promise.all([
        payctl(['payouts', 'list'], { dir }),
        payctl(['payouts', 'list', '--currency', 'SLE'], { dir }),
        payctl(['summary', '--from', '2026-01-01', '--csv'], { dir }),
        payctl(['balances', '--currency', 'SLE'], { dir }),
      ]);
      for (const r of runs) {
        // Before: exit 0, the record shown as SLE, left out by --currency SLE, or a second "SLE" group.
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toContain(`currency: expected a currency code of three letters ("SLE"), not "${shown}"`);
        expect(r.stdout).not.toContain('5,000.00');
        expect(r.stdout).not.toContain('5000.00');
      }
      expect(runs[0].stderr).toContain('payout 2 of page 1');
    }
  });

  it('white space and letter case around a code are still the code ("SLE ", "\\tsle\\n"): one SLE group', async () => {
    const dir = await service([record(1), record(2, { currency: 'SLE ' }), record(3, { currency: '\tsle\n' })]);
    const r = await payctl(['summary', '--from', '2026-01-01', '--csv'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('currency,status,count,amount\r\nSLE,Successful,3,30.00\r\n');
  });
});

describe('a transaction id with an escape or invisible character', () => {
  it("is an unreadable field (it was shown as an id that looks real but is not the service's): the list exits 1 naming it with escapes", async () => {
    const dir = await service([record(1), record(2, { transaction_id: 'TXN-BOK-\u001b[2J0000000000000000000003' })]);
    const list = await payctl(['payouts', 'list', '--json'], { dir });
    expect(list.code, list.stderr).toBe(1);
    expect(list.stderr).toContain('transaction_id: expected a transaction id of printable ASCII characters, not \\"TXN-BOK-\\\\u001b[2J');
    const zw = await service([record(1, { transaction_id: 'TXN-BOK-0000000000000000000000\u200b0001' })]);
    const r = await payctl(['payouts', 'list'], { dir: zw });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('not "TXN-BOK-0000000000000000000000\\u200b0001"');
  });
});

describe('a payout listed twice with different contents (probe 70-S, finding 6)', () => {
  const id = (i: number) => `TXN-BOK-${String(i).padStart(26, '0')}`;
  // Page 1: payouts 1-5. Page 2: 4 (now 999.00, failed), 5 (now failed), 6, 7, 8. Page 3: 9, 9
  // again (999.00 NGN), 6 again as it was, 10.
  const pages: Record<string, unknown[]> = {
    '1': [1, 2, 3, 4, 5].map((i) => record(i)),
    '2': [record(4, { amount: '999.00', total_amount: '999.10', status: 'failed' }), record(5, { status: 'failed' }), record(6), record(7), record(8)],
    '3': [record(9), record(9, { amount: '999.00', total_amount: '999.10', currency: 'NGN' }), record(6), record(10)],
  };
  let baseUrl = '';
  async function paged() {
    const h = await hostile((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const n = u.searchParams.get('page') ?? '1';
      const next = n === '3' ? null : `${h.baseUrl}/payout/list?page=${Number(n) + 1}&per_page=5`;
      json(res, 200, { status: 'Successful', message: 'ok', data: { current_page: Number(n), last_page: 3, per_page: 5, next_page_url: next, data: pages[n] ?? [] } });
    });
    const dir = configDir();
    hostileProfile(dir, h);
    baseUrl = h.baseUrl;
    return dir;
  }

  it('payouts list --all lists the first copies and warns, naming each payout whose copies differ and the fields; an identical copy is only counted', async () => {
    const dir = await paged();
    const r = await payctl(['payouts', 'list', '--all', '--csv'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\r\n')).toHaveLength(11);
    expect(r.stdout).not.toContain('999.00');
    // Before: only "4 payouts were on two pages ...; each is listed once".
    expect(r.stderr).toContain(`payout ${id(4)} came again with another amount and status (999.00 SLE, Failed); the copy read first is listed.`);
    expect(r.stderr).toContain(`payout ${id(5)} came again with another status (10.00 SLE, Failed)`);
    expect(r.stderr).toContain(`payout ${id(9)} came again with another amount and currency (999.00 NGN, Successful)`);
    expect(r.stderr).not.toContain(`payout ${id(6)} came again`);
  });

  it('a computed summary counts neither copy: the list is unreadable (exit 1, nothing on stdout), text and --json', async () => {
    const dir = await paged();
    for (const json of [false, true]) {
      const r = await payctl(['summary', '--currency', 'SLE', ...(json ? ['--json'] : [])], { dir });
      // Before: exit 0, 10 payouts, 100.00 SLE (the first copies, the others dropped unsaid).
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(
        `The list of payouts contradicts itself: payout ${id(4)} came again with another amount and status (999.00 SLE, Failed); payout ${id(5)} came again with another status`,
      );
      expect(r.stderr).toContain('compute the summary again when that is done');
    }
  });

  it("the refusal's `payouts list --all` carries the run's --base-url, --timeout and filters: it lists the same payouts", async () => {
    const dir = await paged();
    const r = await payctl(['summary', '--currency', 'SLE', '--from', '2020-01-01', '--base-url', baseUrl, '--timeout', '7'], { dir });
    expect(r.code, r.stderr).toBe(1);
    // Before: `payctl payouts list --all`, which lists the default profile's service, unfiltered.
    const listed = r.stderr.match(/`(payctl payouts list [^`]*)`/)?.[1];
    expect(listed, r.stderr).toBe(`payctl payouts list --base-url ${baseUrl} --timeout 7 --currency SLE --from 2020-01-01 --all`);
    const again = await payctl(shellSplit(listed!).slice(1), { dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`payout ${id(4)} came again with another amount and status`);
  });
});

describe('a body compressed with Content-Encoding: gzip (payctl asks for none; probe 70-S, finding 8)', () => {
  it('is said to be compressed, naming the encoding, never printed as its bytes: a 200 and a 502, text, --json and -v', async () => {
    const body = gzipSync(JSON.stringify({ status: 'Successful', message: 'ok', data: [] }));
    for (const status of [200, 502]) {
      const h = await hostile((req, res) => res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(body));
      const dir = configDir();
      hostileProfile(dir, h);
      for (const extra of [[], ['--json'], ['-v']]) {
        // The 502's retries wait on a TestClock: no real back-off.
        const r = await payctl(['balances', ...extra], { dir, clock: new TestClock() });
        expect(r.code, r.stderr).toBe(1);
        // Before: "a body that is not JSON: \"\ufffd\ufffd…\"".
        expect(r.stderr).toContain(
          `The service answered HTTP ${status} with a compressed body (Content-Encoding: gzip), which payctl did not ask for and does not read.`,
        );
        // A 502 keeps the hint of a failing service.
        expect(r.stderr).toContain(status === 200 ? 'have it pass them as they are' : 'The service failed; try again later');
        expect(r.stderr).not.toContain('\ufffd');
        expect(r.stderr).not.toContain('not JSON');
      }
    }
  });
});
