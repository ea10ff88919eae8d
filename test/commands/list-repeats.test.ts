/**
 * A payout the service sends twice on the same page of `GET /v2/payout/list` is one payout
 * everywhere payctl shows the list: `payouts list --json` (whose page is otherwise printed as
 * the service sent it, byte for byte), the table, `--csv`, `--all --json` and a computed
 * `summary` hold it once, and the note on stderr says it came again on the same page (not "on
 * two pages"). A small node:http server (test/helpers/hostile.ts) plays the service, in the
 * paginator shape and as an array alone (docs/service.md "Payout list").
 */
import { describe, expect, it } from 'vitest';
import { oneJson } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { stderrDocs } from '../helpers/stderr-json.js';
import { configDir, hostile, hostileProfile, json, useHostileCleanups } from '../helpers/hostile.js';

useHostileCleanups();

/** A documented look-up record of `amount` SLE (fee 1.00). */
function rec(i: number, amount: string): Record<string, unknown> {
  const at = `2026-11-2${i}T10:00:00.000000Z`;
  return {
    transaction_id: `TXN-BOK-${String(i).padStart(26, '0')}`,
    status: 'successful',
    amount,
    currency: 'SLE',
    fee: '1.00',
    total_amount: (Number(amount) + 1).toFixed(2),
    recipient: { transfer_type: 'bank', account_number: `042700000${i}`, name: `Person ${i}`, bank: 'ECOBANK' },
    description: 'Payment for services',
    created_at: at,
    updated_at: at,
    provider_reference: `ORD-${i}`,
  };
}
const ONE = rec(2, '100.00');
const TWO = rec(1, '200.00');
/** One page: the first payout, the second, the first again. */
const PAGE = [ONE, TWO, ONE];
const IDS = [ONE.transaction_id, TWO.transaction_id];
const NOTE = "Note: 1 payout came again on the same page of the service's answer; it is listed once.\n";

const SHAPES = {
  paginator: () => ({ current_page: 1, data: PAGE, last_page: 1, next_page_url: null, per_page: 20, total: 3 }),
  array: () => PAGE,
};

async function service(shape: keyof typeof SHAPES): Promise<string> {
  const h = await hostile((req, res) => {
    if (!req.url?.startsWith('/v2/payout/list')) return json(res, 404, { message: 'Not Found' });
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? '1');
    json(res, 200, { status: 'Successful', message: 'Transfers retrieved', data: page === 1 ? SHAPES[shape]() : [], timestamp: '2026-12-01T00:00:00.000000Z' });
  });
  const dir = configDir();
  hostileProfile(dir, h);
  return dir;
}

describe.each(Object.keys(SHAPES) as Array<keyof typeof SHAPES>)('a payout sent twice on one page (%s)', (shape) => {
  it('payouts list --json holds it once, as the table, --csv and --all --json do; the note says the same page', async () => {
    const dir = await service(shape);
    const records = (doc: { data: unknown }) => (Array.isArray(doc.data) ? doc.data : (doc.data as { data: unknown[] }).data) as Array<{ transaction_id: string }>;

    const page = await payctl(['payouts', 'list', '--json'], { dir });
    expect(page.code, page.stderr).toBe(0);
    // Before: the page as sent, three records (100.00 counted twice).
    const doc = oneJson(page.stdout);
    expect(records(doc).map((p) => p.transaction_id)).toEqual(IDS);
    expect(records(doc)[0]).toEqual(ONE);
    if (shape === 'paginator') expect(doc.data.current_page).toBe(1);
    // Before: "1 payout was on two pages (payouts made while the list was read ...)".
    // Under --json, the note is stderr's one JSON line (src/output/log.ts).
    expect(stderrDocs(page.stderr)).toEqual([{ notice: NOTE.trimEnd() }]);

    const table = await payctl(['payouts', 'list'], { dir });
    expect(table.code, table.stderr).toBe(0);
    const tableIds = table.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/)[2]);
    expect(tableIds).toEqual(IDS);
    expect(table.stderr).toContain(NOTE);

    const csv = await payctl(['payouts', 'list', '--csv'], { dir });
    expect(
      csv.stdout
        .trimEnd()
        .split('\r\n')
        .slice(1)
        .map((l) => l.split(',')[1]),
    ).toEqual(IDS);

    const all = await payctl(['payouts', 'list', '--all', '--json'], { dir });
    expect(all.code, all.stderr).toBe(0);
    expect(oneJson(all.stdout).data.map((p: { transaction_id: string }) => p.transaction_id)).toEqual(IDS);
    expect(stderrDocs(all.stderr)).toEqual([{ notice: NOTE.trimEnd() }]);
  });

  it('a computed summary counts it once: 2 payouts, 300.00 SLE', async () => {
    const dir = await service(shape);
    const r = await payctl(['summary', '--currency', 'SLE', '--csv'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(['currency,status,count,amount', 'SLE,Successful,2,300.00', ''].join('\r\n'));
    expect(r.stderr).toBe(`${NOTE}Computed by payctl from 2 payouts (of 2 listed): currency SLE.\n`);
  });
});
