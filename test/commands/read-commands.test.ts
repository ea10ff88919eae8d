/**
 * The read commands, in process (payctl's main with in-memory streams, the sandbox over real HTTP), in table and --json form: balances, payout get,
 * payouts list (filters, paging, CSV) and summary. --json output is compared byte for
 * byte with what the sandbox answers to the same request made directly.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { direct, fmtDecimal, fmtMinor, newKey, oneJson, sameButTimestamp, since, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { parseCsv } from '../helpers/csv.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const DIGITS: Record<string, number> = { SLE: 2, NGN: 2, JPY: 0, KWD: 3 };

let jpy: string;
let kwd: string;
beforeAll(() => {
  jpy = ctx.sb.setWallet({ wallet_name: 'Tokyo Float', currency: 'JPY', balance: '1234567' }).wallet_id;
  kwd = ctx.sb.setWallet({ wallet_name: 'Kuwait Ops', currency: 'KWD', balance: '9876.543' }).wallet_id;
});
beforeEach(() => {
  writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
});

const run = (...args: string[]) => payctl(args, { dir: cfg.dir });

/** The table's data lines (header dropped). */
function rows(stdout: string): string[] {
  return stdout.trimEnd().split('\n').slice(1);
}

function utc(iso: string): string {
  return new Date(iso)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

describe('balances', () => {
  it('table: one row per wallet, balances right-aligned with the currency digits and separators, UTC times', async () => {
    const r = await run('balances');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^WALLET\s+NAME\s+CURRENCY\s+BALANCE\s+UPDATED$/);
    const balanceEnd = lines[0]!.indexOf('BALANCE') + 'BALANCE'.length;
    const wallets = ctx.sb.wallets();
    expect(lines).toHaveLength(wallets.length + 1);
    for (const w of wallets) {
      const line = lines.find((l) => l.startsWith(w.wallet_id + ' '));
      expect(line, w.wallet_id).toBeDefined();
      const amount = fmtMinor(w.balance_minor, DIGITS[w.currency]!);
      expect(line).toMatch(new RegExp(`^${w.wallet_id}\\s+${w.wallet_name}\\s+${w.currency}\\s+${amount.replace(/\./g, '\\.')}\\s+${utc(w.updated_at)}$`));
      expect(line!.indexOf(amount) + amount.length, `${w.currency} right-aligned`).toBe(balanceEnd);
    }
    // The currency's own digits.
    expect(lines.find((l) => l.startsWith(jpy))).toContain(' 1,234,567 ');
    expect(lines.find((l) => l.startsWith(kwd))).toContain(' 9,876.543 ');
  });

  it('--json: exactly the envelope the service sent', async () => {
    const r = await run('balances', '--json');
    const d = await direct(ctx.sb, 'GET', '/wallets/balances');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const doc = oneJson(r.stdout);
    expect(doc.status).toBe('Successful');
    expect(doc.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(sameButTimestamp(r.stdout)).toBe(sameButTimestamp(d.raw));
  });

  it('--currency (any case) keeps only that currency, in table and --json', async () => {
    const ngn = ctx.sb.wallets().filter((w) => w.currency === 'NGN');
    expect(ngn.length).toBeGreaterThan(0);
    const t = await run('balances', '--currency', 'ngn');
    expect(t.code, t.stderr).toBe(0);
    expect(t.stderr).toBe('');
    expect(rows(t.stdout).map((l) => l.split(/\s+/)[0])).toEqual(ngn.map((w) => w.wallet_id));

    const j = await run('balances', '--currency', 'NGN', '--json');
    const d = await direct(ctx.sb, 'GET', '/wallets/balances');
    expect(j.code, j.stderr).toBe(0);
    const doc = oneJson(j.stdout);
    expect(doc.data).toEqual(d.body.data.filter((w: { currency: string }) => w.currency === 'NGN'));
    expect(doc.status).toBe(d.body.status);
    expect(doc.message).toBe(d.body.message);
  });

  it('--wallet keeps only that wallet; an unknown wallet is not found (exit 1)', async () => {
    const t = await run('balances', '--wallet', kwd);
    expect(t.code, t.stderr).toBe(0);
    expect(rows(t.stdout)).toHaveLength(1);
    expect(rows(t.stdout)[0]).toMatch(new RegExp(`^${kwd}\\s+Kuwait Ops\\s+KWD\\s+9,876\\.543\\s`));

    const j = await run('balances', '--wallet', jpy, '--json');
    expect(j.code, j.stderr).toBe(0);
    expect(oneJson(j.stdout).data).toEqual([
      { wallet_id: jpy, wallet_name: 'Tokyo Float', currency: 'JPY', balance: 1234567, updated_at: ctx.sb.wallets().find((w) => w.wallet_id === jpy)!.updated_at },
    ]);

    const none = await run('balances', '--wallet', 'wal_nope');
    expect(none.code, none.stderr).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Error: No wallet "wal_nope"');
  });
});

describe('payout get', () => {
  it('by payoutId and by transaction id: the same card, with amounts, fee, total and UTC times', async () => {
    const p = ctx.sb.payouts().find((x) => x.fee !== '0' && x.recipient.accountDetails.note)!;
    const byId = await run('payout', 'get', p.payout_id);
    const byTrx = await run('payout', 'get', p.transaction_id);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byTrx.code, byTrx.stderr).toBe(0);
    expect(byId.stderr).toBe('');
    expect(byTrx.stderr).toBe('');
    expect(byTrx.stdout).toBe(byId.stdout);

    const digits = DIGITS[p.currency]!;
    const card = byId.stdout;
    expect(card).toMatch(new RegExp(`^Transaction\\s+${p.transaction_id}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Payout ID\\s+${p.payout_id}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Status\\s+${p.status}$`, 'm'));
    expect(card).toContain(`${fmtMinor(p.amount_minor, digits)} ${p.currency}`);
    expect(card).toMatch(new RegExp(`^Fee\\s+${fmtMinor(p.fee_minor, digits)} ${p.currency}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Total debited\\s+${fmtMinor(p.amount_minor + p.fee_minor, digits)} ${p.currency}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Wallet\\s+${p.wallet_id}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Recipient\\s+${p.recipient.accountDetails.name}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Created\\s+${utc(p.created_at)}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Note\\s+${p.recipient.accountDetails.note}$`, 'm'));
  });

  it('--json: exactly the envelope the service sent, by either id', async () => {
    const p = ctx.sb.payouts()[3]!;
    for (const id of [p.payout_id, p.transaction_id]) {
      const r = await run('payout', 'get', id, '--json');
      const d = await direct(ctx.sb, 'GET', `/payouts/${id}`);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(oneJson(r.stdout).data.transaction_id).toBe(p.transaction_id);
      expect(sameButTimestamp(r.stdout)).toBe(sameButTimestamp(d.raw));
    }
  });

  it('an unknown id: exit 1, NOT_FOUND and the request id the service sent, on stderr', async () => {
    const r = await run('payout', 'get', 'no-such-payout', '--verbose');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    // The id of the last answer (the 404; the first is the token's).
    const rid = [...r.stderr.matchAll(/^< x-request-id: (req_[0-9a-f]{24})$/gm)].at(-1)?.[1];
    expect(rid).toBeDefined();
    expect(r.stderr).toContain('Error: No payout with payoutId or transaction_id "no-such-payout".\n  HTTP 404 NOT_FOUND\n');
    expect(r.stderr).toContain(`  Request ID: ${rid}\n`);
  });

  it('an unknown id with --json: {"error":{...}} on stderr, nothing on stdout', async () => {
    const r = await run('payout', 'get', 'no-such-payout', '--json');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    const doc = JSON.parse(r.stderr);
    expect(Object.keys(doc)).toEqual(['error']);
    expect(doc.error).toMatchObject({
      message: 'No payout with payoutId or transaction_id "no-such-payout".',
      status: 404,
      code: 'NOT_FOUND',
      errors: [],
    });
    expect(doc.error.request_id).toMatch(/^req_[0-9a-f]{24}$/);
  });
});

describe('payouts list', () => {
  it('table: the first 20, newest first, with a hint about the next page', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list');
    expect(r.code, r.stderr).toBe(0);
    const all = ctx.sb.payouts();
    expect(all.length).toBeGreaterThan(20);
    expect(r.stderr).toBe('Page 1. More: --page 2, or --all for every page.\n');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CREATED \(UTC\)\s+TRANSACTION\s+PAYOUT ID\s+RECIPIENT\s+AMOUNT\s+STATUS$/);
    const amountEnd = lines[0]!.indexOf('AMOUNT') + 'AMOUNT'.length;
    expect(lines).toHaveLength(21);
    all.slice(0, 20).forEach((p, i) => {
      const line = lines[i + 1]!;
      const amount = `${fmtMinor(p.amount_minor, DIGITS[p.currency]!)} ${p.currency}`;
      expect(line.startsWith(`${utc(p.created_at).replace(/ UTC$/, '')}  ${p.transaction_id}  ${p.payout_id}  ${p.recipient.accountDetails.name}`)).toBe(true);
      expect(line.indexOf(amount) + amount.length).toBe(amountEnd);
      expect(line.endsWith(`  ${p.status}`)).toBe(true);
    });
    const list = since(ctx.sb, from).filter((x) => x.path === '/v2/payouts');
    expect(list.map((x) => x.query)).toEqual([{ page: '1', limit: '20' }]);
  });

  it('--json: exactly the envelope of that page', async () => {
    const r = await run('payouts', 'list', '--json');
    const d = await direct(ctx.sb, 'GET', '/payouts?page=1&limit=20');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(oneJson(r.stdout).data).toHaveLength(20);
    expect(sameButTimestamp(r.stdout)).toBe(sameButTimestamp(d.raw));
  });

  it('--limit and --page pick the page', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', '--limit', '5', '--page', '2');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('Page 2. More: --page 3, or --all for every page.\n');
    expect(rows(r.stdout).map((l) => l.split(/\s+/)[2])).toEqual(
      ctx.sb
        .payouts()
        .slice(5, 10)
        .map((p) => p.transaction_id),
    );
    expect(
      since(ctx.sb, from)
        .filter((x) => x.path === '/v2/payouts')
        .map((x) => x.query),
    ).toEqual([{ page: '2', limit: '5' }]);

    const j = await run('payouts', 'list', '--limit', '5', '--page', '2', '--json');
    const d = await direct(ctx.sb, 'GET', '/payouts?page=2&limit=5');
    expect(j.code, j.stderr).toBe(0);
    expect(sameButTimestamp(j.stdout)).toBe(sameButTimestamp(d.raw));
  });

  it('a page past the end says so (exit 0, nothing on stdout)', async () => {
    const r = await run('payouts', 'list', '--page', '99');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('No payouts on page 99.\n');
  });

  it.each([
    ['--status', 'Failed', 'status', 'Failed', (p: { status: string }) => p.status === 'Failed'],
    ['--currency', 'ngn', 'currency', 'NGN', (p: { currency: string }) => p.currency === 'NGN'],
  ] as const)('%s %s is sent as %s and filters the list', async (flag, value, param, sent, keep) => {
    const expected = ctx.sb
      .payouts()
      .filter(keep as (p: unknown) => boolean)
      .slice(0, 20);
    expect(expected.length).toBeGreaterThan(0);
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', flag, value, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(
      since(ctx.sb, from)
        .filter((x) => x.path === '/v2/payouts')
        .map((x) => x.query),
    ).toEqual([{ page: '1', limit: '20', [param]: sent }]);
    const d = await direct(ctx.sb, 'GET', `/payouts?page=1&limit=20&${param}=${sent}`);
    expect(sameButTimestamp(r.stdout)).toBe(sameButTimestamp(d.raw));
    expect(oneJson(r.stdout).data.map((p: { transaction_id: string }) => p.transaction_id)).toEqual(expected.map((p) => p.transaction_id));

    const t = await run('payouts', 'list', flag, value);
    expect(t.code, t.stderr).toBe(0);
    expect(rows(t.stdout).map((l) => l.split(/\s+/)[2])).toEqual(expected.map((p) => p.transaction_id));
  });

  it('--wallet is sent as walletId', async () => {
    const w = ctx.sb.wallets().find((x) => x.wallet_name === 'Bo Field Payroll')!;
    const expected = ctx.sb.payouts().filter((p) => p.wallet_id === w.wallet_id);
    expect(expected.length).toBeGreaterThan(0);
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', '--wallet', w.wallet_id);
    expect(r.code, r.stderr).toBe(0);
    expect(
      since(ctx.sb, from)
        .filter((x) => x.path === '/v2/payouts')
        .map((x) => x.query),
    ).toEqual([{ page: '1', limit: '20', walletId: w.wallet_id }]);
    expect(rows(r.stdout).map((l) => l.split(/\s+/)[2])).toEqual(expected.slice(0, 20).map((p) => p.transaction_id));
  });

  it('--from and --to (dates) mean whole UTC days, inclusive', async () => {
    const all = ctx.sb.payouts();
    const fromDay = all[12]!.created_at.slice(0, 10);
    const toDay = all[2]!.created_at.slice(0, 10);
    const lo = `${fromDay}T00:00:00.000000Z`;
    const hi = `${toDay}T23:59:59.999999Z`;
    const expected = all.filter((p) => p.created_at >= lo && p.created_at <= hi);
    expect(expected.length).toBeGreaterThan(2);
    expect(expected.length).toBeLessThan(all.length);
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', '--from', fromDay, '--to', toDay, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(
      since(ctx.sb, from)
        .filter((x) => x.path === '/v2/payouts')
        .map((x) => x.query),
    ).toEqual([{ page: '1', limit: '20', from: lo, to: hi }]);
    expect(oneJson(r.stdout).data.map((p: { transaction_id: string }) => p.transaction_id)).toEqual(expected.slice(0, 20).map((p) => p.transaction_id));

    // A full timestamp is sent as given.
    const ts = all[5]!.created_at;
    const from2 = ctx.sb.requests().length;
    const t = await run('payouts', 'list', '--from', ts);
    expect(t.code, t.stderr).toBe(0);
    expect(
      since(ctx.sb, from2)
        .filter((x) => x.path === '/v2/payouts')
        .map((x) => x.query),
    ).toEqual([{ page: '1', limit: '20', from: ts }]);
    expect(rows(t.stdout).map((l) => l.split(/\s+/)[2])).toEqual(all.slice(0, 6).map((p) => p.transaction_id));
  });

  it("--csv: a header row and one CRLF row per payout, exact decimals with the currency's digits", async () => {
    const r = await run('payouts', 'list', '--csv', '--limit', '10');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const table = parseCsv(r.stdout);
    expect(table[0]).toEqual([
      'created_at',
      'transaction_id',
      'payout_id',
      'wallet_id',
      'status',
      'amount',
      'fee',
      'currency',
      'type',
      'recipient_name',
      'provider',
      'account_number',
      'phone_number',
      'note',
      'failure_reason',
    ]);
    const expected = ctx.sb.payouts().slice(0, 10);
    expect(table).toHaveLength(11);
    expected.forEach((p, i) => {
      const row = table[i + 1]!;
      const d = p.recipient.accountDetails;
      const phone = d.phoneNumber ?? ''; // "+232..." is a phone number, not a formula: left as it is
      expect(row).toEqual([
        p.created_at,
        p.transaction_id,
        p.payout_id,
        p.wallet_id,
        p.status,
        fmtMinor(p.amount_minor, DIGITS[p.currency]!).replace(/,/g, ''),
        fmtMinor(p.fee_minor, DIGITS[p.currency]!).replace(/,/g, ''),
        p.currency,
        p.recipient.type,
        d.name,
        d.provider,
        d.accountNumber,
        phone,
        d.note ?? '',
        p.failure_reason ?? '',
      ]);
    });
  });
});

describe('summary', () => {
  it('table: per-currency totals and a bar chart of amounts by status', async () => {
    const r = await run('summary');
    const d = await direct(ctx.sb, 'POST', '/payouts/summary', {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const currencies = d.body.data.currencies as Array<{
      currency: string;
      count: number;
      amount: number;
      fee: number;
      statuses: Record<string, { count: number; amount: number }>;
    }>;
    expect(currencies.length).toBeGreaterThan(1);
    for (const c of currencies) {
      const digits = DIGITS[c.currency]!;
      const head = `${c.currency}  ${c.count} payouts  ${fmtDecimal(c.amount, digits)} ${c.currency}  fees ${fmtDecimal(c.fee, digits)} ${c.currency}`;
      expect(r.stdout.split('\n')).toContain(head);
      const block = r.stdout.slice(r.stdout.indexOf(head));
      const minor = (v: number) => BigInt(fmtDecimal(v, digits).replace(/[,.]/g, ''));
      const max = Object.values(c.statuses).reduce((m, s) => (minor(s.amount) > m ? minor(s.amount) : m), 0n);
      for (const [status, s] of Object.entries(c.statuses)) {
        const m = new RegExp(`^  ${status}\\s+${s.count}\\s+${fmtDecimal(s.amount, digits).replace(/\./g, '\\.')} ${c.currency}(?:  (█+))?$`, 'm').exec(block);
        expect(m, `${c.currency} ${status}`).not.toBeNull();
        const bar = m![1]?.length ?? 0;
        const v = minor(s.amount);
        if (v === max) expect(bar).toBe(24);
        else if (v === 0n) expect(bar).toBe(0);
        else expect(bar).toBe(Math.max(1, Number((v * 24n + max / 2n) / max)));
      }
    }
  });

  it('--json: exactly the envelope the service sent', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('summary', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const sent = since(ctx.sb, from).filter((x) => x.path === '/v2/payouts/summary');
    expect(sent.map((x) => [x.method, x.body])).toEqual([['POST', '{}']]);
    const d = await direct(ctx.sb, 'POST', '/payouts/summary', {});
    expect(oneJson(r.stdout).data.currencies.length).toBeGreaterThan(0);
    expect(sameButTimestamp(r.stdout)).toBe(sameButTimestamp(d.raw));
  });

  it('--currency and --from are sent in the body; only that currency is shown', async () => {
    const day = ctx.sb.payouts()[10]!.created_at.slice(0, 10);
    const from = ctx.sb.requests().length;
    const r = await run('summary', '--currency', 'sle', '--from', day);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const sent = since(ctx.sb, from).filter((x) => x.path === '/v2/payouts/summary');
    expect(sent.map((x) => JSON.parse(x.body))).toEqual([{ from: `${day}T00:00:00.000000Z`, currency: 'SLE' }]);
    expect(r.stdout).toContain(`Payouts from ${day}\n`);
    expect(r.stdout).toMatch(/^SLE {2}\d+ payouts? /m);
    expect(r.stdout).not.toMatch(/^NGN /m);
  });
});
