/**
 * The read commands, in process (payctl's main with in-memory streams, the sandbox over real HTTP), in table and --json form: balances, payout get,
 * payouts list (filters, paging, CSV) and summary. --json output is compared byte for
 * byte with what the sandbox answers to the same request made directly.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { direct, fmtMinor, newKey, oneJson, sameButTimestamp, since, useConfigDir, writeProfile } from '../helpers/e2e.js';
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

  it("--wallet empty or blank (a script's unset variable): exit 2 before anything is sent; so are history --batch-id and history reconcile --payout-id and --made-by", async () => {
    const from = ctx.sb.requests().length;
    for (const args of [
      ['balances', '--wallet', ''],
      ['balances', '--wallet', '  ', '--json'],
      ['history', '--batch-id', ''],
      ['history', 'reconcile', '--payout-id', ''],
      ['history', 'reconcile', '--payout-id', 'p-1', '--made-by', ' '],
    ]) {
      const r = await run(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /(--wallet: give a wallet id|--batch-id: give a batch id|--payout-id: give a payout id|--made-by: give a transaction id) \(the value is empty\)|"field":"--wallet","message":"give a wallet id \(the value is empty\)"/,
      );
    }
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('--wallet with a control or invisible character (an id pasted from a chat app): exit 2 before anything is sent, as payout create refuses it', async () => {
    const from = ctx.sb.requests().length;
    const said = {
      [`${kwd}\u200b`]: '--wallet must not contain invisible or direction-changing characters (U+200B)',
      [`${kwd}\u001b[2J`]: '--wallet must not contain control characters',
    };
    for (const [wallet, problem] of Object.entries(said)) {
      const r = await run('balances', '--wallet', wallet);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`  - ${problem}\n`);
      const p = await run('payouts', 'list', '--wallet', wallet);
      expect([p.code, p.stderr.includes(problem)], p.stderr).toEqual([2, true]);
    }
    expect(since(ctx.sb, from)).toEqual([]);
  });
});

describe('payout get', () => {
  it('by transaction id: the documented look-up as a card, amounts exact from grouped strings, status normalized, UTC times', async () => {
    const p = ctx.sb.payouts().find((x) => x.fee !== '0' && x.recipient.accountDetails.note && x.status === 'Successful')!;
    const from = ctx.sb.requests().length;
    const r = await run('payout', 'get', p.transaction_id);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual([`GET /v2/payout/${p.transaction_id} 200`]);

    const digits = DIGITS[p.currency]!;
    const card = r.stdout;
    expect(card).toMatch(new RegExp(`^Transaction\\s+${p.transaction_id}$`, 'm'));
    // The service's record has no payout id, and this machine did not send it.
    expect(card).not.toMatch(/^Payout ID/m);
    expect(card).toMatch(/^Status\s+Successful$/m);
    expect(card).toMatch(new RegExp(`^Amount\\s+${fmtMinor(p.amount_minor, digits)} ${p.currency}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Fee\\s+${fmtMinor(p.fee_minor, digits)} ${p.currency}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Total debited\\s+${fmtMinor(p.amount_minor + p.fee_minor, digits)} ${p.currency}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Recipient\\s+${p.recipient.accountDetails.name}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Bank\\s+${p.recipient.accountDetails.provider.toUpperCase()}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Created\\s+${utc(p.created_at)}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Note\\s+${p.recipient.accountDetails.note}$`, 'm'));
    expect(card).toMatch(new RegExp(`^Provider ref\\s+${p.provider_response.orderId}$`, 'm'));
  });

  it('--json: exactly the envelope the service sent', async () => {
    const p = ctx.sb.payouts()[3]!;
    const r = await run('payout', 'get', p.transaction_id, '--json');
    const d = await direct(ctx.sb, 'GET', `/payout/${p.transaction_id}`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(oneJson(r.stdout).data.transaction_id).toBe(p.transaction_id);
    expect(oneJson(r.stdout).data.amount).toMatch(/^\d{1,3}(,\d{3})*\.\d{2}$/);
    expect(sameButTimestamp(r.stdout)).toBe(sameButTimestamp(d.raw));
  });

  it('a payout id this machine never sent: exit 1 saying the service looks up by transaction id only; nothing sent', async () => {
    const p = ctx.sb.payouts()[0]!;
    const from = ctx.sb.requests().length;
    const r = await run('payout', 'get', p.payout_id);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Error: No payout ${p.payout_id}: it is not a transaction id`);
    expect(r.stderr).toContain('the service looks payouts up by transaction id only');
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('an unknown transaction id: exit 1, NOT_FOUND and the request id the service sent, on stderr', async () => {
    const unknown = 'TXN-BOK-00000000000000000000000000';
    const r = await run('payout', 'get', unknown, '--verbose');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    const rid = [...r.stderr.matchAll(/^< x-request-id: (req_[0-9a-f]{24})$/gm)].at(-1)?.[1];
    expect(rid).toBeDefined();
    expect(r.stderr).toContain(`Error: No payout ${unknown}: the service has no transaction with this id (it said: Transfer not found)`);
    expect(r.stderr).toContain('  HTTP 404 NOT_FOUND\n');
    expect(r.stderr).toContain(`  Request ID: ${rid}\n`);
  });

  it('an unknown transaction id with --json: {"error":{...}} on stderr, nothing on stdout', async () => {
    const unknown = 'TXN-BOK-00000000000000000000000000';
    const r = await run('payout', 'get', unknown, '--json');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    const doc = JSON.parse(r.stderr);
    expect(Object.keys(doc)).toEqual(['error']);
    expect(doc.error).toMatchObject({ status: 404, code: 'NOT_FOUND', errors: [] });
    expect(doc.error.message).toMatch(new RegExp(`^No payout ${unknown}: `));
    expect(doc.error.request_id).toMatch(/^req_[0-9a-f]{24}$/);
  });
});

describe('payouts list', () => {
  /** GET /payout/list straight from the sandbox, with the key as the bearer token. */
  async function listed(query: string): Promise<string> {
    const res = await fetch(`${ctx.sb.baseUrl}/payout/list?${query}`, { headers: { authorization: `Bearer ${KEY}`, accept: 'application/json' } });
    expect(res.status).toBe(200);
    return res.text();
  }
  const listQueries = (from: number) =>
    since(ctx.sb, from)
      .filter((x) => x.path === '/v2/payout/list')
      .map((x) => x.query);

  it('table: the first 20, newest first, with a hint about the next page', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list');
    expect(r.code, r.stderr).toBe(0);
    const all = ctx.sb.payouts();
    expect(all.length).toBeGreaterThan(20);
    expect(r.stderr).toBe('Page 1. Next page: payctl payouts list --page 2\nEvery page: payctl payouts list --all\n');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CREATED \(UTC\)\s+TRANSACTION\s+WALLET\s+RECIPIENT\s+AMOUNT\s+STATUS$/);
    const amountEnd = lines[0]!.indexOf('AMOUNT') + 'AMOUNT'.length;
    expect(lines).toHaveLength(21);
    all.slice(0, 20).forEach((p, i) => {
      const line = lines[i + 1]!;
      const amount = `${fmtMinor(p.amount_minor, DIGITS[p.currency]!)} ${p.currency}`;
      expect(line.startsWith(`${utc(p.created_at).replace(/ UTC$/, '')}  ${p.transaction_id}  `)).toBe(true);
      expect(line).toContain(`  ${p.recipient.accountDetails.name}  `);
      expect(line.indexOf(amount) + amount.length).toBe(amountEnd);
      // The look-up's lower-case word, shown normalized.
      expect(line.endsWith(`  ${p.status}`)).toBe(true);
    });
    expect(listQueries(from)).toEqual([{ page: '1', per_page: '20' }]);
  });

  it('--json: exactly the envelope of that page', async () => {
    const r = await run('payouts', 'list', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(oneJson(r.stdout).data.data).toHaveLength(20);
    expect(sameButTimestamp(r.stdout)).toBe(sameButTimestamp(await listed('page=1&per_page=20')));
  });

  it('--limit and --page pick the page', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', '--limit', '5', '--page', '2');
    expect(r.code, r.stderr).toBe(0);
    // Page 3 of pages of 5: --limit 5 with it (before: --page 3 alone, page 3 of 20-payout pages).
    expect(r.stderr).toBe('Page 2. Next page: payctl payouts list --limit 5 --page 3\nEvery page: payctl payouts list --all\n');
    expect(rows(r.stdout).map((l) => l.split(/\s+/)[2])).toEqual(
      ctx.sb
        .payouts()
        .slice(5, 10)
        .map((p) => p.transaction_id),
    );
    expect(listQueries(from)).toEqual([{ page: '2', per_page: '5' }]);

    const j = await run('payouts', 'list', '--limit', '5', '--page', '2', '--json');
    expect(j.code, j.stderr).toBe(0);
    expect(sameButTimestamp(j.stdout)).toBe(sameButTimestamp(await listed('page=2&per_page=5')));
  });

  it('a page past the end says so (exit 0, nothing on stdout)', async () => {
    const r = await run('payouts', 'list', '--page', '99');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('No payouts on page 99.\n');
  });

  it.each([
    ['--status', 'FAILED', (p: { status: string }) => p.status === 'Failed'],
    ['--currency', 'ngn', (p: { currency: string }) => p.currency === 'NGN'],
  ] as const)('%s %s filters every record in payctl; nothing of it is sent', async (flag, value, keep) => {
    const expected = ctx.sb.payouts().filter(keep as (p: unknown) => boolean);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(ctx.sb.payouts().length);
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', flag, value, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(listQueries(from)).toEqual([{ page: '1', per_page: '100' }]);
    // The service's envelope, its records cut to those that match, as the service wrote them.
    const doc = oneJson(r.stdout);
    expect(doc.data.data.map((p: { transaction_id: string }) => p.transaction_id)).toEqual(expected.slice(0, 20).map((p) => p.transaction_id));
    const sent = JSON.parse(await listed('page=1&per_page=100')).data.data.find((p: { transaction_id: string }) => p.transaction_id === expected[0]!.transaction_id);
    expect(doc.data.data[0]).toEqual(sent);

    const t = await run('payouts', 'list', flag, value);
    expect(t.code, t.stderr).toBe(0);
    expect(rows(t.stdout).map((l) => l.split(/\s+/)[2])).toEqual(expected.slice(0, 20).map((p) => p.transaction_id));
  });

  it('--wallet keeps that wallet only; not sent', async () => {
    const w = ctx.sb.wallets().find((x) => x.wallet_name === 'Bo Field Payroll')!;
    const expected = ctx.sb.payouts().filter((p) => p.wallet_id === w.wallet_id);
    expect(expected.length).toBeGreaterThan(0);
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', '--wallet', w.wallet_id);
    expect(r.code, r.stderr).toBe(0);
    expect(listQueries(from)).toEqual([{ page: '1', per_page: '100' }]);
    expect(rows(r.stdout).map((l) => l.split(/\s+/)[2])).toEqual(expected.slice(0, 20).map((p) => p.transaction_id));
  });

  it('--from and --to (dates) mean whole UTC days, inclusive; a full timestamp is exact to the microsecond', async () => {
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
    expect(listQueries(from)).toEqual([{ page: '1', per_page: '100' }]);
    expect(oneJson(r.stdout).data.data.map((p: { transaction_id: string }) => p.transaction_id)).toEqual(expected.slice(0, 20).map((p) => p.transaction_id));

    // The sandbox's times carry microseconds: --from one record's own time keeps it and every newer one.
    const ts = all[5]!.created_at;
    expect(ts).toMatch(/\.\d{6}Z$/);
    const t = await run('payouts', 'list', '--from', ts);
    expect(t.code, t.stderr).toBe(0);
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
      // The listed record is the look-up's: no payout id, no phone number, the provider as the bank's name.
      expect(row).toEqual([
        p.created_at,
        p.transaction_id,
        '',
        p.wallet_id,
        p.status,
        fmtMinor(p.amount_minor, DIGITS[p.currency]!).replace(/,/g, ''),
        fmtMinor(p.fee_minor, DIGITS[p.currency]!).replace(/,/g, ''),
        p.currency,
        p.recipient.type,
        d.name,
        d.provider.toUpperCase(),
        d.accountNumber,
        '',
        d.note ?? '',
        p.failure_reason ?? '',
      ]);
    });
  });
});

describe('summary', () => {
  it("without filters: the service's counts, as the sandbox holds them", async () => {
    const all = ctx.sb.payouts();
    const from = ctx.sb.requests().length;
    const r = await run('summary');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(since(ctx.sb, from).map((x) => [x.method, x.path, x.body])).toEqual([['POST', '/v2/payout/summary', '{}']]);
    expect(r.stdout).toContain(`Total transfers  ${all.length}\n`);
    for (const status of ['Successful', 'Pending', 'Failed']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${status}\\s+${all.filter((p) => p.status === status).length}\\b`, 'm'));
    }
    expect(r.stdout).toMatch(/^Total sent \(service's figure, no currency\): \d+(\.\d+)?$/m);
  });

  it('--currency and --from: computed by payctl from the list, that currency only, nothing sent to the summary', async () => {
    const all = ctx.sb.payouts();
    const day = all[10]!.created_at.slice(0, 10);
    const kept = all.filter((p) => p.currency === 'SLE' && p.created_at >= `${day}T00:00:00.000000Z`);
    const from = ctx.sb.requests().length;
    const r = await run('summary', '--currency', 'sle', '--from', day);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(since(ctx.sb, from).map((x) => x.path)).toEqual(['/v2/payout/list']);
    expect(r.stdout).toContain(`Computed by payctl from ${kept.length} payout${kept.length === 1 ? '' : 's'} (of ${all.length} listed): currency SLE, from ${day}.\n`);
    const sum = kept.reduce((s, p) => s + p.amount_minor, 0n);
    expect(r.stdout).toMatch(new RegExp(`^SLE {2}${kept.length} payouts? {2}${fmtMinor(sum, 2).replace('.', '\\.')} SLE`, 'm'));
    expect(r.stdout).not.toMatch(/^NGN /m);
  });
});
