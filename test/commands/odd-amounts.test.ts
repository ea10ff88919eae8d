/**
 * Amounts the service writes in a form payctl's input would refuse, against a plain node:http
 * service that answers raw JSON text: an exponent form (`1e2`, no amount by docs/service.md, so
 * refused by every surface alike) and more decimal places than the currency has ("10.005" SLE,
 * "100.5" JPY: kept exactly as written, and warned about once per command naming the record).
 */
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { configDir, deferCleanup, expectNoCrash, hostile, hostileProfile, useHostileCleanups } from '../helpers/hostile.js';

useHostileCleanups();

const TXN = 'TXN-BOK-FF051A7F00A49EB6AF225D10EA';

/** A look-up record as the documented service writes it, with `fields` (raw JSON text) for amount, fee, total and currency. */
function record(fields: string, txn = TXN): string {
  return `{"transaction_id":"${txn}","status":"successful",${fields},"recipient":{"transfer_type":"bank","account_number":"0127500182","name":"John Doe","bank":"ECOBANK"},"description":"Payment","created_at":"2026-04-02T15:30:04.000000Z","updated_at":"2026-04-02T15:30:04.000000Z"}`;
}

/** A service answering each path in `answers` (path after /v2, no query) with the envelope around that raw `data` text. */
async function service(answers: Record<string, string>): Promise<string> {
  const h = await hostile((req, res) => {
    const path = (req.url ?? '').replace(/^\/v2/, '').replace(/\?.*$/, '');
    const data = answers[path];
    res.writeHead(data === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(data === undefined ? '{"status":"error","message":"no such route"}' : `{"status":"Successful","message":"ok","data":${data}}`);
  });
  deferCleanup(() => h.close());
  const dir = configDir();
  hostileProfile(dir, h);
  return dir;
}

describe('an amount written with an exponent is no amount, on every surface', () => {
  it('payout get refuses amount 1e2 as unreadable (it was read as 100.00), as summary calls total_sent 1e2 no exact amount', async () => {
    const dir = await service({
      [`/payout/${TXN}`]: record('"amount":1e2,"currency":"SLE","fee":1e-2,"total_amount":100.01'),
      '/payout/summary': '{"total_transfers":38,"successful":2,"pending":36,"failed":0,"total_sent":1e2,"wallet_transfers":5,"bank_transfers":33}',
    });
    const got = await payctl(['payout', 'get', TXN], { dir });
    expectNoCrash(got);
    // A record payctl does not understand: its status not read (exit 5), never a refusal's 1.
    expect(got.code).toBe(5);
    expect(got.stdout).not.toContain('100.00');
    expect(got.stderr).toContain('amount: expected a decimal amount');

    const summary = await payctl(['summary'], { dir });
    expect(summary.code).toBe(0);
    expect(summary.stderr).toContain('total_sent 1e2 is not an exact amount');
  });

  it('payouts list refuses a record whose fee is 1E-2, text and --json alike', async () => {
    const dir = await service({ '/payout/list': `[${record('"amount":"10.00","currency":"SLE","fee":1E-2,"total_amount":"10.01"')}]` });
    for (const args of [
      ['payouts', 'list'],
      ['payouts', 'list', '--json'],
    ]) {
      const r = await payctl(args, { dir });
      expectNoCrash(r);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('fee: expected a decimal amount');
    }
  });
});

describe('an amount with more decimal places than its currency has is kept as written and named', () => {
  it('payout get shows 10.005 SLE exactly and warns once naming the record and fields (no warning before)', async () => {
    const dir = await service({ [`/payout/${TXN}`]: record('"amount":"10.005","currency":"SLE","fee":"0.00","total_amount":"10.005"') });
    const r = await payctl(['payout', 'get', TXN], { dir });
    expectNoCrash(r);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Amount\s+10\.005 SLE/);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('decimal places'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`payout ${TXN} gives amount "10.005" with 3 decimal places, total_amount "10.005" with 3 decimal places, where SLE has 2: `);
    expect(warnings[0]).toContain('shown as the service wrote it');
  });

  it('payouts list, table and --csv: values exact on stdout, one warning per odd record on stderr, none for amounts that fit', async () => {
    const other = 'TXN-BOK-00000000000000000000000002';
    const fine = 'TXN-BOK-00000000000000000000000003';
    const dir = await service({
      '/payout/list': `[${record('"amount":"10.005","currency":"SLE","fee":"0.00","total_amount":"10.005"')},${record('"amount":"100.5","currency":"JPY","fee":"0","total_amount":"100.5"', other)},${record('"amount":"10.00","currency":"JPY","fee":"0","total_amount":"10"', fine)}]`,
    });
    for (const args of [
      ['payouts', 'list'],
      ['payouts', 'list', '--csv'],
    ]) {
      const r = await payctl(args, { dir });
      expectNoCrash(r);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('10.005');
      expect(r.stdout).toContain('100.5');
      const warnings = r.stderr.split('\n').filter((l) => l.includes('decimal place'));
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toContain(`${TXN} gives amount "10.005" with 3 decimal places, total_amount "10.005" with 3 decimal places, where SLE has 2: `);
      expect(warnings[1]).toContain(`${other} gives amount "100.5" with 1 decimal place, total_amount "100.5" with 1 decimal place, where JPY has no minor units: `);
      expect(r.stderr).not.toContain(fine);
    }
  });

  it('the computed summary (a filter given) sums them exactly as written and says so, naming each (probe M 1)', async () => {
    const other = 'TXN-BOK-00000000000000000000000002';
    const dir = await service({
      '/payout/list': `[${record('"amount":"10.005","currency":"SLE","fee":"0.00","total_amount":"10.005"')},${record('"amount":"1.00","currency":"SLE","fee":"0.00","total_amount":"1.00"', other)}]`,
    });
    const r = await payctl(['summary', '--currency', 'SLE'], { dir });
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('11.005');
    const warnings = r.stderr.split('\n').filter((l) => l.includes('decimal place'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${TXN} gives amount "10.005" with 3 decimal places, total_amount "10.005" with 3 decimal places, where SLE has 2: `);
    expect(r.stderr).toContain('The totals include that amount as the service wrote it, not rounded.');
  });

  it('payout get quotes the amount as the service wrote it ("1,000.005"), in a sentence that reads (before: "gives amount 1000.005 has 3 decimal places")', async () => {
    const dir = await service({ [`/payout/${TXN}`]: record('"amount":"1,000.005","currency":"SLE","fee":"0.00"') });
    const r = await payctl(['payout', 'get', TXN], { dir });
    expectNoCrash(r);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `Warning: The service's answer for payout ${TXN} gives amount "1,000.005" with 3 decimal places, where SLE has 2: shown as the service wrote it, not rounded; check it with the service.\n`,
    );
  });

  it('balances, table and --csv: a balance of 3 decimal places in SLE is shown exactly and warned of, one of 2 is not (before: no warning)', async () => {
    const wallet = (id: string, balance: string) =>
      `{"wallet_id":"${id}","wallet_name":"W","currency":"SLE","balance":${balance},"updated_at":"2026-04-02T15:30:04.000000Z"}`;
    const dir = await service({ '/wallets/balances': `[${wallet('5553881136', '"1,000.005"')},${wallet('5553881137', '"20.50"')}]` });
    for (const args of [['balances'], ['balances', '--csv']]) {
      const r = await payctl(args, { dir });
      expectNoCrash(r);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(args.length === 1 ? '1,000.005' : ',1000.005,');
      expect(r.stderr).toBe(
        `Warning: The service's answer for wallet 5553881136 gives balance "1,000.005" with 3 decimal places, where SLE has 2: shown as the service wrote it, not rounded; check it with the service.\n`,
      );
    }
  });
});
