/**
 * Exports (issue #15), in process (payctl's main with in-memory streams, the sandbox over
 * real HTTP): `payouts list --csv`, `balances --csv` and `summary --csv` write amounts
 * exactly with the currency's digits (as the batch report does, from src/money), leave
 * plain numbers such as phone numbers alone and neutralize formulas in every cell.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { payoutBody, useSandbox } from '../helpers/sandbox.js';
import { direct, newKey, since, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { parse } from '../helpers/parse.js';
import type { BalancesOptions } from '../../src/commands/balances.js';
import type { SummaryOptions } from '../../src/commands/summary.js';
import { parseCsv } from '../helpers/csv.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();

const run = (...args: string[]) => payctl(args, { dir: cfg.dir });

beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));

/** Creates a payout straight on the sandbox (as another client would), with the key as the bearer token. */
async function createPayout(walletId: string, currency: string, amount: number, details: Record<string, string>): Promise<string> {
  const body = payoutBody(walletId, { amount, currency });
  Object.assign(body.recipient.accountDetails, details);
  const res = await fetch(`${ctx.sb.baseUrl}/payout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return body.payoutId;
}

describe('payouts list --csv', () => {
  let sle: string;
  let jpy: string;
  let kwd: string;
  beforeAll(async () => {
    sle = ctx.sb.setWallet({ wallet_name: 'Export SLE', currency: 'SLE', balance: '100000' }).wallet_id;
    jpy = ctx.sb.setWallet({ wallet_name: 'Export JPY', currency: 'JPY', balance: '1000000' }).wallet_id;
    kwd = ctx.sb.setWallet({ wallet_name: 'Export KWD', currency: 'KWD', balance: '1000' }).wallet_id;
    // Oldest first: the list is newest first.
    await createPayout(sle, 'SLE', 100, { name: 'Plain Name', phoneNumber: '+23276000001', note: '-5' });
    await createPayout(sle, 'SLE', 250.5, { name: '=HYPERLINK("http://evil.example","click")', phoneNumber: '23276000002', note: '@SUM(A1)' });
    await createPayout(sle, 'SLE', 7, { name: "+cmd|' /C calc'!A0", note: "-2+3+cmd|' /C calc'!A0" });
    await createPayout(jpy, 'JPY', 1500, { name: 'Yen' });
    await createPayout(kwd, 'KWD', 12.5, { name: 'Dinar' });
  });

  const csv = async (...args: string[]): Promise<Array<Record<string, string>>> => {
    const r = await run('payouts', 'list', '--csv', ...args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const [head, ...rows] = parseCsv(r.stdout);
    return rows.map((row) => Object.fromEntries(head!.map((h, i) => [h, row[i]!])));
  };

  it("amounts and fees with the currency's digits, as the batch report writes them (100.00, 250.50, fee 1.00)", async () => {
    const rows = await csv('--wallet', sle);
    expect(rows.map((r) => [r.amount, r.fee, r.currency])).toEqual([
      ['7.00', '0.07', 'SLE'],
      ['250.50', '2.51', 'SLE'],
      ['100.00', '1.00', 'SLE'],
    ]);
    expect((await csv('--wallet', jpy)).map((r) => [r.amount, r.fee])).toEqual([['1500', '15']]);
    expect((await csv('--wallet', kwd)).map((r) => [r.amount, r.fee])).toEqual([['12.500', '0.125']]);
  });

  it('a negative number is left as it is; formulas are neutralized', async () => {
    const r = await run('payouts', 'list', '--csv', '--wallet', sle);
    expect(r.code, r.stderr).toBe(0);
    // As written, byte for byte: the note "-5" is a number, not a formula, so it has no quote in front.
    expect(r.stdout).toContain(',-5,');
    expect(r.stdout).not.toContain("'-5");
    expect(r.stdout).toContain(`,"'=HYPERLINK(""http://evil.example"",""click"")",`);
    const rows = await csv('--wallet', sle);
    expect(rows.map((x) => [x.recipient_name, x.note])).toEqual([
      ["'+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
      [`'=HYPERLINK("http://evil.example","click")`, "'@SUM(A1)"],
      ['Plain Name', '-5'],
    ]);
  });

  it('--all --csv writes the same cells', async () => {
    const one = await csv('--wallet', sle);
    const all = await csv('--wallet', sle, '--all');
    expect(all).toEqual(one);
  });
});

describe('balances --csv', () => {
  let jpy: string;
  let kwd: string;
  let evil: string;
  beforeAll(() => {
    jpy = ctx.sb.setWallet({ wallet_name: 'Tokyo Float', currency: 'JPY', balance: '1234567' }).wallet_id;
    kwd = ctx.sb.setWallet({ wallet_name: 'Kuwait Ops', currency: 'KWD', balance: '9876.5' }).wallet_id;
    evil = ctx.sb.setWallet({ wallet_name: '=cmd|"/C calc"!A0', currency: 'SLE', balance: '1500.5' }).wallet_id;
  });

  it('a header row and one row per wallet: balances exact, no grouping, names neutralized', async () => {
    const r = await run('balances', '--csv');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const [head, ...rows] = parseCsv(r.stdout);
    expect(head).toEqual(['wallet_id', 'wallet_name', 'currency', 'balance', 'updated_at']);
    const wallets = ctx.sb.wallets();
    expect(rows.map((x) => x[0])).toEqual(wallets.map((w) => w.wallet_id));
    const byId = new Map(rows.map((x) => [x[0], x]));
    expect(byId.get(jpy)).toEqual([jpy, 'Tokyo Float', 'JPY', '1234567', wallets.find((w) => w.wallet_id === jpy)!.updated_at]);
    expect(byId.get(kwd)!.slice(0, 4)).toEqual([kwd, 'Kuwait Ops', 'KWD', '9876.500']);
    expect(byId.get(evil)!.slice(0, 4)).toEqual([evil, `'=cmd|"/C calc"!A0`, 'SLE', '1500.50']);
    // Every balance matches what the service holds, to the minor unit.
    const d = await direct(ctx.sb, 'GET', '/wallets/balances');
    for (const w of d.body.data as Array<{ wallet_id: string; balance: number; currency: string }>) {
      const digits = { JPY: 0, KWD: 3 }[w.currency] ?? 2;
      expect(byId.get(w.wallet_id)![3]).toBe(Number(w.balance).toFixed(digits));
    }
  });

  it('--currency and --wallet filter the rows; the header stays', async () => {
    const r = await run('balances', '--csv', '--currency', 'kwd');
    expect(r.code, r.stderr).toBe(0);
    const table = parseCsv(r.stdout);
    expect(table.slice(1).every((x) => x[2] === 'KWD')).toBe(true);
    expect(table.slice(1).map((x) => x[0])).toContain(kwd);
    const one = parseCsv((await run('balances', '--csv', '--wallet', jpy)).stdout);
    expect(one).toHaveLength(2);
    expect(one[1]![0]).toBe(jpy);
  });

  it('--csv with --json: exit 2, nothing sent', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('balances', '--csv', '--json');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--csv and --json cannot be used together');
    expect(since(ctx.sb, from)).toEqual([]);
  });
});

describe('summary --csv', () => {
  it("without a filter: a header row and the service's figures as sent, total_sent exact and plain", async () => {
    const r = await run('summary', '--csv');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const [head, ...rows] = parseCsv(r.stdout);
    expect(head).toEqual(['figure', 'value']);
    const res = await fetch(`${ctx.sb.baseUrl}/payout/summary`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const raw = await res.text();
    const data = JSON.parse(raw).data as Record<string, number>;
    expect(rows.map((x) => x[0])).toEqual(Object.keys(data));
    expect(Object.fromEntries(rows)).toMatchObject({ total_transfers: String(ctx.sb.payouts().length), total_sent: /"total_sent":([0-9.]+)/.exec(raw)![1] });
    expect(rows.every((x) => /^\d+(\.\d+)?$/.test(x[1]!))).toBe(true);
  });

  it('with a filter: computed by payctl, one row per currency and status, amounts exact with the currency digits', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('summary', '--csv', '--currency', 'jpy', '--from', '2026-01-01');
    expect(r.code, r.stderr).toBe(0);
    expect(since(ctx.sb, from).every((x) => x.path === '/v2/payout/list')).toBe(true);
    const jpy = ctx.sb.payouts().filter((p) => p.currency === 'JPY' && p.created_at >= '2026-01-01');
    expect(jpy.length).toBeGreaterThan(0);
    const byStatus = new Map<string, { n: number; minor: bigint }>();
    for (const p of jpy) {
      const s = byStatus.get(p.status) ?? { n: 0, minor: 0n };
      byStatus.set(p.status, { n: s.n + 1, minor: s.minor + p.amount_minor });
    }
    expect(parseCsv(r.stdout)).toEqual([['currency', 'status', 'count', 'amount'], ...[...byStatus].map(([st, v]) => ['JPY', st, String(v.n), String(v.minor)])]);
    expect(r.stderr).toMatch(/^Computed by payctl from \d+ payouts? \(of \d+ listed\): currency JPY, from 2026-01-01\.\n$/);
  });

  it('--csv with --json: exit 2, nothing sent', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('summary', '--csv', '--json');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(since(ctx.sb, from)).toEqual([]);
  });
});

describe('the --csv flags (parser tier)', () => {
  it('balances --csv and summary --csv reach the run as csv: true, beside the filters', async () => {
    expect((await parse('balances', '--csv', '--currency', 'SLE')).opts).toEqual({ csv: true, currency: 'SLE' } satisfies BalancesOptions);
    expect((await parse('summary', '--from', '2026-11-01', '--csv')).opts).toEqual({ from: '2026-11-01', csv: true } satisfies SummaryOptions);
    expect((await parse('balances')).opts).toEqual({});
  });
});
