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
    expect(got.code).toBe(1);
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
