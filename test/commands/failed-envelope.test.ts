/**
 * A 2xx whose envelope says "Failed" and carries no `data` (probe 70-S, finding 5): the usual
 * shape of an error, `{"status":"Failed","message":"Insufficient permissions"}`, was reported as
 * a shape fault ("the field "data" is missing"), the service's reason lost, and `status` showed
 * "answered with an error" without the "(HTTP 200)" README documents. Now every read says the
 * service's status word and its message (sanitized, on one line), exit 1, as with `data`.
 */
import { describe, expect, it } from 'vitest';
import { hostile, hostileProfile, json, useHostileCleanups } from '../helpers/hostile.js';
import { useConfigDir } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';

const cfg = useConfigDir();
useHostileCleanups();

const READS = [
  ['balances'],
  ['payouts', 'list'],
  ['payouts', 'list', '--all'],
  ['summary'],
  ['summary', '--currency', 'SLE'],
  ['payout', 'get', 'TXN-BOK-00000000000000000000000001'],
  ['status'],
];

async function answering(body: unknown): Promise<void> {
  const h = await hostile((_req, res) => json(res, 200, body));
  hostileProfile(cfg.dir, h);
}

describe('HTTP 200 {"status":"Failed","message":...} with no data', () => {
  it.each(READS.map((a) => [a.join(' '), a]))('%s: exit 1, the status word and the service\'s message, no "field data is missing"', async (_name, args) => {
    await answering({ status: 'Failed', message: 'Insufficient permissions' });
    const r = await payctl(args, { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('Error: The service answered HTTP 200 with status "Failed" (Insufficient permissions), not "Successful"');
    expect(r.stderr).not.toContain('is missing');
    const j = await payctl([...args, '--json'], { dir: cfg.dir });
    expect(j.code, j.stderr).toBe(1);
    expect(JSON.parse(j.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { status: 200 } });
  });

  it('status: "Service  answered with an error (HTTP 200)", as README shows', async () => {
    await answering({ status: 'Failed', message: 'Insufficient permissions' });
    const r = await payctl(['status'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^Service\s+answered with an error \(HTTP 200\)$/m);
    expect(r.stdout).toMatch(/^Credentials\s+not checked$/m);
  });

  it('the message is sanitized and kept on one line; another word ("Error") is said as it came', async () => {
    await answering({ status: 'Error', message: 'Denied\r\n\u001b[2J✓ Payout is Successful' });
    const r = await payctl(['balances'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('with status "Error" (Denied ✓ Payout is Successful), not "Successful"');
    expect(r.stderr).not.toContain('\u001b[2J');
    expect(r.stderr.split('\n').filter((l) => l.startsWith('✓'))).toEqual([]);
  });

  it("payouts list --all: a later page so answered ends the list with the service's words, exit 1, the first page written", async () => {
    const record = {
      transaction_id: 'TXN-BOK-00000000000000000000000001',
      status: 'successful',
      amount: '10.00',
      currency: 'SLE',
      created_at: '2026-11-20T10:00:00.000000Z',
    };
    const h = await hostile((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
      if (page > 1) return json(res, 200, { status: 'Failed', message: 'Rate plan exceeded' });
      json(res, 200, { status: 'Successful', data: { current_page: 1, data: [record], next_page_url: `http://${req.headers.host}/v2/payout/list?page=2`, per_page: 1 } });
    });
    hostileProfile(cfg.dir, h);
    const r = await payctl(['payouts', 'list', '--all', '--csv'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('TXN-BOK-00000000000000000000000001');
    expect(r.stderr).toContain('with status "Failed" (Rate plan exceeded), not "Successful"');
  });

  it('a 200 whose envelope says "Successful" but has no data is still a shape fault', async () => {
    await answering({ status: 'Successful', message: 'ok' });
    const r = await payctl(['balances'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('the field "data" is missing');
  });
});
