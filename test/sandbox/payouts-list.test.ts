/**
 * GET /v2/payout/{transactionId} (the documented look-up record: grouped amount strings,
 * lower-case status, no payout id) and GET /v2/payout/list in every answer shape a client
 * must tolerate: Laravel's paginator (the default), a resource collection, a bare array and
 * `items`. The list pages with `page` and `per_page` only and ignores every other parameter.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { admin, api, eventually, freshWallet, payoutBody, startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { cpuMs } from '../helpers/cpu.js';

const opened: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

/** A sandbox with the demo wallets and no historic payouts. */
async function emptySandbox(opts: Parameters<typeof startSandbox>[0] = {}): Promise<Sandbox> {
  const sb = await startSandbox({ demoPayouts: false, settleAfterMs: 60_000, ...opts });
  opened.push(sb);
  return sb;
}

const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const LOOKUP_KEYS = [
  'transaction_id',
  'status',
  'amount',
  'currency',
  'fee',
  'total_amount',
  'recipient',
  'description',
  'created_at',
  'updated_at',
  'provider_reference',
];

async function create(sb: Sandbox, body: ReturnType<typeof payoutBody>): Promise<{ transaction_id: string; created_at: string; provider_response: { orderId: string } }> {
  const res = await api(sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() });
  expect(res.status, res.raw).toBe(201);
  return res.body.data;
}

interface PaginatorPage {
  current_page: number;
  per_page: number;
  next_page_url: string | null;
  data: Array<{ transaction_id: string }>;
}

const bank = (accountNumber: string, note?: string) => ({
  type: 'bank' as const,
  accountDetails: { name: 'John Doe', provider: 'ecobank', phoneNumber: null, accountNumber, ...(note === undefined ? {} : { note }) },
});

/** A GET of `path` (under /v2) sent to the sandbox's address with the Host header `host` (fetch cannot set it); its JSON body. */
function getAs(sb: Sandbox, host: string, path: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(`${sb.baseUrl}${path}`, { headers: { Host: host, Authorization: `Bearer ${sb.apiKey}`, Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A GET with a JSON body, as the documentation's example sends it (fetch cannot). */
function getWithBody(sb: Sandbox, path: string, body: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${sb.baseUrl}${path}`,
      {
        method: 'GET',
        headers: {
          Authorization: `Bearer ${sb.apiKey}`,
          Accept: 'application/json',
          'Content-Type': 'application/json',
          'Idempotency-Key': randomUUID(),
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('GET /v2/payout/{transactionId}', () => {
  it('answers the documented look-up record: grouped amounts, lower-case status, the note as description', async () => {
    const sb = await emptySandbox({ settleAfterMs: 100 });
    const walletId = freshWallet(sb, '5000.00');
    const made = await create(sb, payoutBody(walletId, { amount: 1000, recipient: bank('0127500182', 'Payment for services') }));
    // A loaded machine may hold the settlement timer back for seconds.
    await eventually(() => sb.payouts()[0]!.status === 'Successful', 20_000);
    const res = await api(sb, 'GET', `/payout/${made.transaction_id}`);
    expect(Object.keys(res.body)).toEqual(['status', 'message', 'data', 'timestamp']);
    expect(Object.keys(res.body.data)).toEqual(LOOKUP_KEYS);
    expect(res.body.data).toEqual({
      transaction_id: made.transaction_id,
      status: 'successful',
      amount: '1,000.00',
      currency: 'SLE',
      fee: '10.00',
      total_amount: '1,010.00',
      recipient: { transfer_type: 'bank', account_number: '0127500182', name: 'John Doe', bank: 'ECOBANK' },
      description: 'Payment for services',
      created_at: made.created_at,
      updated_at: expect.stringMatching(MICROS),
      provider_reference: made.provider_response.orderId,
    });
    expect(res.body.data.updated_at > res.body.data.created_at).toBe(true);
    // Exactly the documented fields: no payout id, wallet id or metadata.
    for (const absent of ['payout_id', 'wallet_id', 'metadata', 'failure_reason']) expect(res.raw).not.toContain(`"${absent}"`);
  });

  it("writes a pending payout's status in lower case too", async () => {
    const sb = await emptySandbox();
    const made = await create(sb, payoutBody(freshWallet(sb, '5000.00')));
    const res = await api(sb, 'GET', `/payout/${made.transaction_id}`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Transfer status retrieved');
    expect(res.body.data.status).toBe('pending');
    expect(res.body.data.updated_at).toBe(made.created_at);
  });

  it('a failed payout carries failure_reason; a wallet payout names its provider as the bank; no note is null', async () => {
    const sb = await emptySandbox({ settleAfterMs: 100 });
    const walletId = freshWallet(sb, '5000.00');
    const failing = await create(sb, payoutBody(walletId, { amount: 12.5, recipient: bank('1200000000') }));
    const body = payoutBody(walletId, { amount: 3 });
    delete body.recipient.accountDetails.note;
    const wallet = await create(sb, body);
    await eventually(() => sb.payouts().every((p) => p.status !== 'Pending'), 20_000);
    const failed = (await api(sb, 'GET', `/payout/${failing.transaction_id}`)).body.data;
    expect(failed.status).toBe('failed');
    expect(failed.failure_reason).toBe('Recipient account rejected by the provider (account not found).');
    expect(Object.keys(failed)).toEqual([...LOOKUP_KEYS, 'failure_reason']);
    expect(failed.description).toBeNull();
    expect([failed.amount, failed.fee, failed.total_amount]).toEqual(['12.50', '0.13', '12.63']);
    const w = (await api(sb, 'GET', `/payout/${wallet.transaction_id}`)).body.data;
    expect(w.recipient).toEqual({ transfer_type: 'wallet', account_number: '076123456', name: 'Aminata Kamara', bank: 'ORANGE_MONEY' });
    expect(w.description).toBeNull();
    expect([w.amount, w.fee, w.total_amount]).toEqual(['3.00', '0.03', '3.03']);
  });

  it("groups amounts with the currency's digits, exactly: NGN millions, JPY without decimals", async () => {
    const sb = await emptySandbox();
    const ngn = freshWallet(sb, '99999999.99', 'NGN');
    const a = await create(sb, payoutBody(ngn, { amount: 12345678.9, currency: 'NGN' }));
    expect((await api(sb, 'GET', `/payout/${a.transaction_id}`)).body.data).toMatchObject({
      amount: '12,345,678.90',
      fee: '123,456.79',
      total_amount: '12,469,135.69',
    });
    const jpy = freshWallet(sb, '10000000', 'JPY');
    const b = await create(sb, payoutBody(jpy, { amount: 1234567, currency: 'JPY' }));
    expect((await api(sb, 'GET', `/payout/${b.transaction_id}`)).body.data).toMatchObject({ amount: '1,234,567', fee: '12,346', total_amount: '1,246,913' });
  });

  it('answers 404 "Transfer not found" for an unknown transaction id, and for a payout id (no look-up by payout id)', async () => {
    const sb = await emptySandbox();
    const body = payoutBody(freshWallet(sb, '5000'));
    await create(sb, body);
    for (const id of ['TXN-BOK-00000000000000000000000000', body.payoutId]) {
      const res = await api(sb, 'GET', `/payout/${id}`);
      expect(res.status, id).toBe(404);
      expect(Object.keys(res.body)).toEqual(['status', 'message', 'timestamp']);
      expect(res.body).toMatchObject({ status: 'Failed', message: 'Transfer not found' });
      expect(res.body.timestamp).toMatch(MICROS);
    }
  });

  it('takes a GET with the body {} the documentation sends', async () => {
    const sb = await emptySandbox();
    const made = await create(sb, payoutBody(freshWallet(sb, '5000')));
    const res = await getWithBody(sb, `/payout/${made.transaction_id}`, '{}');
    expect(res.status).toBe(200);
    expect(res.json.data.transaction_id).toBe(made.transaction_id);
    const list = await getWithBody(sb, '/payout/list', '{}');
    expect(list.status).toBe(200);
    expect(list.json.data.data[0].transaction_id).toBe(made.transaction_id);
  });
});

describe('GET /v2/payout/list: the Laravel paginator (default)', () => {
  it('pages newest first, 15 a page, with absolute page URLs on the sandbox origin', async () => {
    const sb = await emptySandbox();
    sb.generatePayouts(40);
    const all = sb.payouts().map((p) => p.transaction_id);
    const path = `${sb.url}/v2/payout/list`;

    const p1 = await api(sb, 'GET', '/payout/list');
    expect(p1.status).toBe(200);
    expect(p1.body.message).toBe('Transfers retrieved');
    const d = p1.body.data;
    expect(Object.keys(d)).toEqual([
      'current_page',
      'data',
      'first_page_url',
      'from',
      'last_page',
      'last_page_url',
      'links',
      'next_page_url',
      'path',
      'per_page',
      'prev_page_url',
      'to',
      'total',
    ]);
    expect(d.data.map((r: { transaction_id: string }) => r.transaction_id)).toEqual(all.slice(0, 15));
    expect(d).toMatchObject({
      current_page: 1,
      first_page_url: `${path}?page=1`,
      from: 1,
      last_page: 3,
      last_page_url: `${path}?page=3`,
      next_page_url: `${path}?page=2`,
      path,
      per_page: 15,
      prev_page_url: null,
      to: 15,
      total: 40,
    });
    expect(d.links).toEqual([
      { url: null, label: '&laquo; Previous', active: false },
      { url: `${path}?page=1`, label: '1', active: true },
      { url: `${path}?page=2`, label: '2', active: false },
      { url: `${path}?page=3`, label: '3', active: false },
      { url: `${path}?page=2`, label: 'Next &raquo;', active: false },
    ]);

    const p3 = (await api(sb, 'GET', '/payout/list?page=3')).body.data;
    expect(p3.data.map((r: { transaction_id: string }) => r.transaction_id)).toEqual(all.slice(30, 40));
    expect(p3).toMatchObject({ current_page: 3, from: 31, to: 40, next_page_url: null, prev_page_url: `${path}?page=2` });

    const beyond = (await api(sb, 'GET', '/payout/list?page=4')).body.data;
    expect(beyond).toMatchObject({ current_page: 4, data: [], from: null, to: null, next_page_url: null, last_page: 3, total: 40 });
    for (const page of ['1000000000', '9007199254740993', '1' + '0'.repeat(40)]) {
      const far = await api(sb, 'GET', `/payout/list?page=${page}`);
      expect(far.status, page).toBe(200);
      expect(far.body.data.data, page).toEqual([]);
      expect(far.body.data.next_page_url, page).toBeNull();
    }
  });

  it('carries a per_page other than 15 in every URL, and follows next_page_url to the end', async () => {
    const sb = await emptySandbox();
    sb.generatePayouts(45);
    const all = sb.payouts().map((p) => p.transaction_id);
    const seen: string[] = [];
    let next: string | null = `${sb.url}/v2/payout/list?per_page=20`;
    let pages = 0;
    while (next) {
      expect(next.startsWith(`${sb.url}/v2/payout/list?`)).toBe(true);
      const res = await api<{ data: PaginatorPage }>(sb, 'GET', next.slice(sb.baseUrl.length));
      const d: PaginatorPage = res.body.data;
      expect(d.per_page).toBe(20);
      if (d.next_page_url) expect(d.next_page_url).toBe(`${sb.url}/v2/payout/list?per_page=20&page=${d.current_page + 1}`);
      seen.push(...d.data.map((r) => r.transaction_id));
      next = d.next_page_url;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(all);
  });

  it('builds its page URLs on the origin it was reached at: localhost, as the Host header names it, or 127.0.0.1', async () => {
    const sb = await emptySandbox();
    sb.generatePayouts(20);
    const port = new URL(sb.url).port;
    const asLocalhost = await getAs(sb, `localhost:${port}`, '/payout/list?per_page=5');
    expect(asLocalhost.data).toMatchObject({
      next_page_url: `http://localhost:${port}/v2/payout/list?per_page=5&page=2`,
      first_page_url: `http://localhost:${port}/v2/payout/list?per_page=5&page=1`,
      path: `http://localhost:${port}/v2/payout/list`,
    });
    const asAddress = await getAs(sb, `127.0.0.1:${port}`, '/payout/list?per_page=5');
    expect(asAddress.data.next_page_url).toBe(`${sb.url}/v2/payout/list?per_page=5&page=2`);
  });

  it("builds links as Laravel's UrlWindow does: three pages each side of the current one, '...' gaps", async () => {
    const sb = await emptySandbox();
    sb.generatePayouts(300);
    const labels = async (page: number) =>
      (await api(sb, 'GET', `/payout/list?per_page=10&page=${page}`)).body.data.links.map((l: { label: string; active: boolean }) =>
        l.active ? `[${l.label}]` : l.label,
      );
    const P = '&laquo; Previous';
    const N = 'Next &raquo;';
    expect(await labels(1)).toEqual([P, '[1]', '2', '3', '4', '5', '6', '7', '8', '9', '10', '...', '29', '30', N]);
    expect(await labels(15)).toEqual([P, '1', '2', '...', '12', '13', '14', '[15]', '16', '17', '18', '...', '29', '30', N]);
    expect(await labels(28)).toEqual([P, '1', '2', '...', '21', '22', '23', '24', '25', '26', '27', '[28]', '29', '30', N]);
    const gap = (await api(sb, 'GET', '/payout/list?per_page=10&page=15')).body.data.links[3];
    expect(gap).toEqual({ url: null, label: '...', active: false });
  });

  it('lists records as the look-up record plus wallet_id', async () => {
    const sb = await emptySandbox();
    const walletId = freshWallet(sb, '5000');
    const made = await create(sb, payoutBody(walletId, { amount: 1000, recipient: bank('0427570182', 'Payment for services') }));
    const record = (await api(sb, 'GET', '/payout/list?per_page=1')).body.data.data[0];
    expect(Object.keys(record)).toEqual([...LOOKUP_KEYS, 'wallet_id']);
    const lookup = (await api(sb, 'GET', `/payout/${made.transaction_id}`)).body.data;
    expect(record).toEqual({ ...lookup, wallet_id: walletId });
  });

  it('ignores every query parameter but page and per_page (no filters are documented)', async () => {
    const sb = await emptySandbox();
    sb.generatePayouts(60);
    const plain = (await api(sb, 'GET', '/payout/list?per_page=25&page=2')).body.data;
    const w = sb.wallets()[0]!.wallet_id;
    const filtered = (await api(sb, 'GET', `/payout/list?per_page=25&page=2&status=Failed&walletId=${w}&wallet_id=${w}&currency=NGN&from=2030-01-01&to=nonsense&limit=3`))
      .body.data;
    expect(filtered.data).toEqual(plain.data);
    expect(filtered.total).toBe(60);
    expect(new Set(filtered.data.map((r: { status: string }) => r.status))).toEqual(new Set(['successful', 'pending', 'failed']));
    // The URLs it gives carry only page and per_page.
    expect(filtered.next_page_url).toBe(`${sb.url}/v2/payout/list?per_page=25&page=3`);
  });

  it('gives one empty page when there are no payouts', async () => {
    const sb = await emptySandbox();
    const d = (await api(sb, 'GET', '/payout/list')).body.data;
    expect(d).toMatchObject({ current_page: 1, data: [], from: null, to: null, last_page: 1, total: 0, next_page_url: null, prev_page_url: null });
  });

  it.each([
    ['per_page=101', 'per_page', 'The per page field must not be greater than 100.'],
    ['per_page=0', 'per_page', 'The per page field must be at least 1.'],
    ['per_page=-1', 'per_page', 'The per page field must be at least 1.'],
    ['per_page=ten', 'per_page', 'The per page field must be an integer.'],
    ['per_page=1.5', 'per_page', 'The per page field must be an integer.'],
    ['page=0', 'page', 'The page field must be at least 1.'],
    ['page=-2', 'page', 'The page field must be at least 1.'],
    ['page=x', 'page', 'The page field must be an integer.'],
  ])('refuses %s with a Laravel 422 on %s', async (query, field, message) => {
    const sb = await emptySandbox();
    const res = await api(sb, 'GET', `/payout/list?${query}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message, errors: { [field]: [message] } });
  });

  it('takes per_page 100 and per_page 1; an empty page or per_page means the default', async () => {
    const sb = await emptySandbox();
    sb.generatePayouts(150);
    const all = sb.payouts().map((p) => p.transaction_id);
    const ids = (d: { data: Array<{ transaction_id: string }> }) => d.data.map((r) => r.transaction_id);
    expect(ids((await api(sb, 'GET', '/payout/list?per_page=100')).body.data)).toEqual(all.slice(0, 100));
    expect(ids((await api(sb, 'GET', '/payout/list?per_page=100&page=2')).body.data)).toEqual(all.slice(100, 150));
    expect(ids((await api(sb, 'GET', '/payout/list?per_page=1&page=150')).body.data)).toEqual([all[149]]);
    const empty = (await api(sb, 'GET', '/payout/list?page=&per_page=')).body.data;
    expect([empty.current_page, empty.per_page]).toEqual([1, 15]);
  });
});

describe('GET /v2/payout/list: the other tolerated shapes', () => {
  async function seeded(): Promise<{ sb: Sandbox; all: string[] }> {
    const sb = await emptySandbox();
    sb.generatePayouts(35);
    return { sb, all: sb.payouts().map((p) => p.transaction_id) };
  }

  it("'resource': data is the array, links and meta beside it in the envelope", async () => {
    const { sb, all } = await seeded();
    sb.setShapes({ list: 'resource' });
    const path = `${sb.url}/v2/payout/list`;
    const res = await api(sb, 'GET', '/payout/list?per_page=10&page=2');
    expect(Object.keys(res.body)).toEqual(['status', 'message', 'data', 'links', 'meta', 'timestamp']);
    expect(res.body.data.map((r: { transaction_id: string }) => r.transaction_id)).toEqual(all.slice(10, 20));
    expect(res.body.links).toEqual({
      first: `${path}?per_page=10&page=1`,
      last: `${path}?per_page=10&page=4`,
      prev: `${path}?per_page=10&page=1`,
      next: `${path}?per_page=10&page=3`,
    });
    expect(res.body.meta).toEqual({ current_page: 2, from: 11, last_page: 4, path, per_page: 10, to: 20, total: 35 });
    const last = await api(sb, 'GET', '/payout/list?per_page=10&page=4');
    expect(last.body.links.next).toBeNull();
    expect(last.body.data).toHaveLength(5);
  });

  it("'array': data is the page's records alone", async () => {
    const { sb, all } = await seeded();
    sb.setShapes({ list: 'array' });
    const res = await api(sb, 'GET', '/payout/list?page=3');
    expect(Object.keys(res.body)).toEqual(['status', 'message', 'data', 'timestamp']);
    expect(res.body.data.map((r: { transaction_id: string }) => r.transaction_id)).toEqual(all.slice(30, 35));
    expect((await api(sb, 'GET', '/payout/list?page=4')).body.data).toEqual([]);
  });

  it("'items': data is {items, has_more, total, page}", async () => {
    const { sb, all } = await seeded();
    sb.setShapes({ list: 'items' });
    const first = (await api(sb, 'GET', '/payout/list')).body.data;
    expect(Object.keys(first)).toEqual(['items', 'has_more', 'total', 'page']);
    expect(first.items.map((r: { transaction_id: string }) => r.transaction_id)).toEqual(all.slice(0, 15));
    expect(first).toMatchObject({ has_more: true, total: 35, page: 1 });
    const last = (await api(sb, 'GET', '/payout/list?page=3')).body.data;
    expect(last).toMatchObject({ has_more: false, total: 35, page: 3 });
    expect(last.items).toHaveLength(5);
  });

  it('switches shapes through the option, the admin route, and back', async () => {
    const sb = await emptySandbox({ listShape: 'array' });
    sb.generatePayouts(3);
    expect(Array.isArray((await api(sb, 'GET', '/payout/list')).body.data)).toBe(true);
    const set = await admin(sb, 'POST', '/shapes', { list: 'items' });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual({ list: 'items', error: 'laravel' });
    expect(sb.shapes()).toEqual({ list: 'items', error: 'laravel' });
    expect((await api(sb, 'GET', '/payout/list')).body.data.items).toHaveLength(3);
    await admin(sb, 'POST', '/shapes', { list: 'paginator' });
    expect((await api(sb, 'GET', '/payout/list')).body.data.current_page).toBe(1);
    const bad = await admin(sb, 'POST', '/shapes', { list: 'cursor' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('paginator, resource, array, items');
    expect(() => sb.setShapes({ list: 'cursor' as never })).toThrow(/list shape must be one of/);
    await expect(startSandbox({ listShape: 'cursor' as never })).rejects.toThrow(/list shape must be one of/);
  });
});

describe('100,000 payouts', () => {
  it('generates them quickly and still pages fast', async () => {
    const sb = await emptySandbox();
    let t = cpuMs();
    sb.generatePayouts(100_000);
    expect(cpuMs() - t).toBeLessThan(3000);
    await api(sb, 'GET', '/payout/list?per_page=1'); // connection warm

    t = cpuMs();
    const first = await api(sb, 'GET', '/payout/list?per_page=100');
    const last = await api(sb, 'GET', '/payout/list?per_page=100&page=1000');
    const beyond = await api(sb, 'GET', '/payout/list?per_page=100&page=1001');
    const elapsed = cpuMs() - t;
    expect(first.body.data.data).toHaveLength(100);
    expect(first.body.data.total).toBe(100_000);
    expect(first.body.data.last_page).toBe(1000);
    expect(last.body.data.data).toHaveLength(100);
    expect(last.body.data.next_page_url).toBeNull();
    expect(beyond.body.data.data).toEqual([]);
    expect(elapsed).toBeLessThan(1500);
    expect(first.body.data.data[0].created_at > last.body.data.data[0].created_at).toBe(true);
    expect(first.body.data.data[0].transaction_id).toMatch(/^TXN-BOK-[0-9A-F]{26}$/);
  });
});
