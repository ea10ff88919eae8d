/**
 * Probe R, finding 4: a record the service lists without a status (null, or no field) is never a
 * blank a tired operator reads as nothing to worry about. The table and a card show `(none)`; CSV
 * keeps the cell empty (as the service gave it) and every format warns on stderr, naming the
 * payouts, with the `payout get` that reads the first, which runs as printed.
 */
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { warningsOf } from '../helpers/stderr-json.js';
import { printed } from '../helpers/printed.js';
import { configDir, deferCleanup, expectNoCrash, hostile, hostileProfile, useHostileCleanups } from '../helpers/hostile.js';

useHostileCleanups();

const NULL = 'TXN-BOK-00000000000000000000000A01';
const GONE = 'TXN-BOK-00000000000000000000000A02';
const PAID = 'TXN-BOK-00000000000000000000000A03';

function record(txn: string, status: string): string {
  return `{"transaction_id":"${txn}",${status}"amount":"10.00","fee":"0.05","total_amount":"10.05","currency":"SLE","recipient":{"transfer_type":"bank","account_number":"0127500182","name":"John Doe","bank":"ECOBANK"},"created_at":"2026-04-02T15:30:04.000000Z"}`;
}

async function service(): Promise<string> {
  const records: Record<string, string> = { [NULL]: record(NULL, '"status":null,'), [GONE]: record(GONE, ''), [PAID]: record(PAID, '"status":"successful",') };
  const h = await hostile((req, res) => {
    const path = (req.url ?? '').replace(/^\/v2/, '').replace(/\?.*$/, '');
    const data = path === '/payout/list' ? `[${Object.values(records).join(',')}]` : records[path.replace('/payout/', '')];
    res.writeHead(data === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(data === undefined ? '{"status":"error","message":"no such route"}' : `{"status":"Successful","message":"ok","data":${data}}`);
  });
  deferCleanup(() => h.close());
  const dir = configDir();
  hostileProfile(dir, h);
  return dir;
}

describe('payouts list: records without a status', () => {
  it('the table shows (none), every format warns naming them, and the printed payout get runs as printed', async () => {
    const dir = await service();
    const table = await payctl(['payouts', 'list'], { dir });
    expectNoCrash(table);
    expect(table.code, table.stderr).toBe(0);
    for (const txn of [NULL, GONE]) expect(table.stdout).toMatch(new RegExp(`${txn}.*\\(none\\)$`, 'm'));
    expect(table.stdout).toMatch(new RegExp(`${PAID}.*Successful$`, 'm'));
    const warning = `Warning: 2 payouts listed have no status (${NULL}, ${GONE}): whether they were paid cannot be told from the list. Read the first with: payctl payout get ${NULL}`;
    expect(table.stderr).toContain(warning);

    const csv = await payctl(['payouts', 'list', '--csv'], { dir });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).not.toContain('(none)');
    expect(csv.stderr).toContain(warning);
    const json = await payctl(['payouts', 'list', '--json'], { dir });
    expect(json.code, json.stderr).toBe(0);
    expect(warningsOf(json.stderr)).toContain(warning.replace(/^Warning: /, ''));

    const got = await payctl(printed(table.stderr, 'payout get'), { dir });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/^Status\s+\(none\)$/m);
  });
});
