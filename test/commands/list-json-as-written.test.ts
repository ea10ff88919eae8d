/**
 * `payouts list --json` writes each record exactly as the service wrote it, whichever way the
 * list is read: one page as sent, `--all` (records from every page in one envelope) and a page
 * cut to `--limit` (the envelope as sent with the records shown in the place of its records).
 * Before, only the uncut page kept the service's text: `--all` and `--limit` wrote each record
 * back from its parsed value, so the JSON number `12345678901234567.89` (more digits than a
 * double holds, read as its text) became the string "12345678901234567.89" and `2.10` became
 * `2.1`: one document with strings and numbers for one field. A node:http server
 * (test/helpers/hostile.ts) writes the list as text, in three of the shapes docs/service.md lists.
 */
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { configDir, hostile, hostileProfile, useHostileCleanups } from '../helpers/hostile.js';

useHostileCleanups();

/** A documented record whose amount is the JSON literal given, written with the spacing a service may use. */
function rec(i: number, amount: string): string {
  return (
    `{"transaction_id": "TXN-BOK-00000000000000000000ABC00${i}", "status":"successful", "amount": ${amount}, "currency":"SLE", "fee":"1.00",` +
    `"recipient":{"transfer_type":"bank","account_number":"123","name":"N${i}","bank":"X"},"description":"d\\u00e9",` +
    `"created_at":"2026-11-2${i}T06:32:56.000081Z","updated_at":"2026-11-2${i}T06:32:56.000081Z","provider_reference":"O","wallet_id":"111"}`
  );
}
const RECORDS = [rec(2, '12345678901234567.89'), rec(1, '2.10')];

/** The list's body in each shape, with `records` in their place. */
const SHAPES: Record<string, (records: string) => string> = {
  paginator: (r) =>
    `{"status":"Successful", "message":"ok","data":{"current_page":1,"data":[ ${r} ],"from":1,"last_page":1,"next_page_url":null,"per_page":2,"to":2,"total":2},"timestamp":"2026-12-01T00:00:00.000000Z"}`,
  collection: (r) => `{"status":"Successful","message":"ok","data":[${r}],"links":{"next":null},"meta":{"current_page":1,"last_page":1,"per_page":2,"total":2}}`,
  items: (r) => `{"status":"Successful","message":"ok","data":{"items":[${r}],"has_more":false,"total":2}}`,
};

async function service(shape: string): Promise<{ dir: string; body: string }> {
  const body = SHAPES[shape]!(RECORDS.join(','));
  const h = await hostile((req, res) => {
    const list = req.url?.startsWith('/v2/payout/list');
    const text = list ? body : '{"message":"Not Found"}';
    res.writeHead(list ? 200 : 404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  });
  const dir = configDir();
  hostileProfile(dir, h);
  return { dir, body };
}

describe.each(Object.keys(SHAPES))('payouts list --json writes records as the service wrote them (%s)', (shape) => {
  it('one page: the answer as sent', async () => {
    const { dir, body } = await service(shape);
    const r = await payctl(['payouts', 'list', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${body}\n`);
  });

  it('--all: each record as written, its amount a number with every digit, in the envelope as written', async () => {
    const { dir } = await service(shape);
    const r = await payctl(['payouts', 'list', '--all', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    // Before: "amount":"12345678901234567.89" (a string) and "amount":2.1.
    // Each member of the head as written (the white space between members is not kept).
    const head = '{"status":"Successful","message":"ok",';
    const tail = shape === 'paginator' ? ',"timestamp":"2026-12-01T00:00:00.000000Z"}' : '}';
    expect(r.stdout).toBe(`${head}"data":[${RECORDS.join(',')}]${tail}\n`);
  });

  it('--limit 1 (the page cut to the payout shown): that record as written, every other byte of the envelope as sent', async () => {
    const { dir, body } = await service(shape);
    const r = await payctl(['payouts', 'list', '--limit', '1', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    // Before: the envelope written back from its parsed value, "amount":"12345678901234567.89".
    const cut = SHAPES[shape]!(RECORDS[0]!).replace('[ ', '[').replace(' ]', ']');
    expect(r.stdout).toBe(`${cut}\n`);
    expect(body).not.toBe(cut);
  });

  it('a filter across the page: the records that match, as written', async () => {
    const { dir } = await service(shape);
    const r = await payctl(['payouts', 'list', '--from', '2026-11-21', '--to', '2026-11-21', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`[${RECORDS[1]}]`);
    expect(r.stdout).toContain('"amount": 2.10,');
  });
});
