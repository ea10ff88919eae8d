/**
 * `summary` in its two forms, in process (payctl's main with in-memory streams):
 * - no filter: the sandbox's own summary (POST /v2/payout/summary with `{}`), its counts equal
 *   to what the sandbox holds, `total_sent` shown as the service's figure without a currency;
 * - with filters: computed by payctl from every page of GET /v2/payout/list (the sandbox ignores
 *   filters), per currency and status, the totals equal to bigint sums of `sb.payouts()`.
 * And a plain node:http server answering summaries of other shapes (extra, missing, string counts).
 */
import { createServer, type Server } from 'node:http';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { fmtMinor, newKey, oneJson, since, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { asText } from '../helpers/stderr-json.js';
import { parseCsv } from '../helpers/csv.js';
import { fakeDeps } from '../helpers/fake-deps.js';
import { run as summaryRun, type SummaryOptions } from '../../src/commands/summary.js';
import { displayWidth } from '../../src/output/table.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const DIGITS: Record<string, number> = { SLE: 2, NGN: 2 };

beforeAll(() => {
  // The demo payouts and 230 more: the computed summary reads three pages of 100.
  ctx.sb.generatePayouts(230);
});
beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));

const run = (args: string[], tty = false) => payctl(args, { dir: cfg.dir, ...(tty ? { tty: { stderr: true } } : {}) });

/** Minor units as a plain decimal with `digits` decimals ("1500.50"), computed here, not with src/. */
function plain(minor: bigint, digits: number): string {
  return fmtMinor(minor, digits).replace(/,/g, '');
}

type P = ReturnType<typeof ctx.sb.payouts>[number];

/** Count and exact amount per currency and status, from the sandbox's own records. */
function expectedTotals(keep: (p: P) => boolean): Map<string, { count: number; amount: bigint; fee: bigint; statuses: Map<string, { count: number; amount: bigint }> }> {
  const out = new Map<string, { count: number; amount: bigint; fee: bigint; statuses: Map<string, { count: number; amount: bigint }> }>();
  for (const p of ctx.sb.payouts().filter(keep)) {
    const c = out.get(p.currency) ?? { count: 0, amount: 0n, fee: 0n, statuses: new Map() };
    out.set(p.currency, c);
    c.count++;
    c.amount += p.amount_minor;
    c.fee += p.fee_minor;
    const s = c.statuses.get(p.status) ?? { count: 0, amount: 0n };
    c.statuses.set(p.status, s);
    s.count++;
    s.amount += p.amount_minor;
  }
  return out;
}

async function directSummary(): Promise<string> {
  const res = await fetch(`${ctx.sb.baseUrl}/payout/summary`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(200);
  return res.text();
}

const noTimestamp = (raw: string) => raw.trim().replace(/"timestamp":"[^"]*"/, '"timestamp":"<ts>"');

describe('summary without filters: the service’s own', () => {
  it('text: total, counts by status and type with bars, equal to what the sandbox holds; total_sent as its figure', async () => {
    const all = ctx.sb.payouts();
    const count = (f: (p: P) => boolean) => all.filter(f).length;
    const from = ctx.sb.requests().length;
    const r = await run(['summary']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const sent = since(ctx.sb, from);
    expect(sent.map((x) => [x.method, x.path, x.body])).toEqual([['POST', '/v2/payout/summary', '{}']]);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(`Total transfers  ${all.length}`);
    const row = (label: string, n: number) => {
      const m = new RegExp(`^  ${label}\\s+(\\d+)(?:  (█+))?$`).exec(lines.find((l) => l.startsWith(`  ${label} `)) ?? '');
      expect(m, label).not.toBeNull();
      expect(Number(m![1])).toBe(n);
      return m![2]?.length ?? 0;
    };
    const ok = count((p) => p.status === 'Successful');
    const pending = count((p) => p.status === 'Pending');
    const failed = count((p) => p.status === 'Failed');
    const bars = [row('Successful', ok), row('Pending', pending), row('Failed', failed)];
    const max = Math.max(ok, pending, failed);
    expect(bars).toEqual([ok, pending, failed].map((n) => (n === 0 ? 0 : Math.max(1, Math.round((n * 24) / max)))));
    row(
      'Wallet',
      count((p) => p.recipient.type === 'wallet'),
    );
    row(
      'Bank',
      count((p) => p.recipient.type === 'bank'),
    );
    // The service's figure, exactly as it sent it: the successful amounts of every currency, added.
    const raw = await directSummary();
    const figure = /"total_sent":([0-9.]+)/.exec(raw)![1]!;
    const minor = all.filter((p) => p.status === 'Successful').reduce((s, p) => s + p.amount_minor, 0n);
    expect(figure).toBe(plain(minor, 2).replace(/\.?0+$/, ''));
    expect(lines).toContain(`Total sent (service's figure, no currency): ${figure}`);
    expect(r.stdout).not.toMatch(/computed/i);
  });

  it('--json: the envelope exactly as the service sent it', async () => {
    const r = await run(['summary', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(noTimestamp(r.stdout)).toBe(noTimestamp(await directSummary()));
    expect(oneJson(r.stdout).data.total_transfers).toBe(ctx.sb.payouts().length);
  });

  it('--csv: one row per figure, as sent', async () => {
    const r = await run(['summary', '--csv']);
    expect(r.code, r.stderr).toBe(0);
    const raw = await directSummary();
    const figure = /"total_sent":([0-9.]+)/.exec(raw)![1]!;
    const data = JSON.parse(raw).data as Record<string, unknown>;
    const rows = parseCsv(r.stdout);
    expect(rows[0]).toEqual(['figure', 'value']);
    expect(rows.slice(1)).toEqual(Object.entries(data).map(([k, v]) => [k, k === 'total_sent' ? figure : String(v)]));
  });
});

describe('summary with filters: computed by payctl from the list', () => {
  it('--currency SLE --from DAY: per status, counts and exact amounts equal to the sandbox’s records; no summary call', async () => {
    const all = ctx.sb.payouts();
    const day = all[Math.floor(all.length / 2)]!.created_at.slice(0, 10);
    const keep = (p: P) => p.currency === 'SLE' && p.created_at >= `${day}T00:00:00.000000Z`;
    const expected = expectedTotals(keep);
    const sle = expected.get('SLE')!;
    expect(sle.count).toBeGreaterThan(10);
    expect(sle.count).toBeLessThan(all.length);
    const from = ctx.sb.requests().length;
    const r = await run(['summary', '--currency', 'sle', '--from', day]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const sent = since(ctx.sb, from);
    expect(sent.every((x) => x.method === 'GET' && x.path === '/v2/payout/list')).toBe(true);
    expect(sent.length).toBe(Math.ceil(all.length / 100));
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`Computed by payctl from ${sle.count} payouts (of ${all.length} listed): currency SLE, from ${day}.`);
    expect(lines).toContain(`SLE  ${sle.count} payouts  ${fmtMinor(sle.amount, 2)} SLE  fees ${fmtMinor(sle.fee, 2)} SLE`);
    for (const [status, s] of sle.statuses) {
      expect(r.stdout).toMatch(new RegExp(`^  ${status}\\s+${s.count}\\s+${fmtMinor(s.amount, 2).replace('.', '\\.')} SLE  █+$`, 'm'));
    }
    expect(r.stdout).not.toMatch(/^NGN/m);
  });

  it('--json: the computed document, marked computed, amounts exact per currency and status', async () => {
    const w = ctx.sb.wallets().find((x) => ctx.sb.payouts().some((p) => p.wallet_id === x.wallet_id && p.currency === 'NGN'))!;
    const expected = expectedTotals((p) => p.wallet_id === w.wallet_id);
    const r = await run(['summary', '--wallet', w.wallet_id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = oneJson(r.stdout);
    expect(doc.computed).toBe(true);
    expect(doc.filters).toEqual({ wallet: w.wallet_id });
    expect(doc.listed).toBe(ctx.sb.payouts().length);
    const want = [...expected.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([currency, c]) => ({
        currency,
        count: c.count,
        amount: plain(c.amount, DIGITS[currency]!),
        fee: plain(c.fee, DIGITS[currency]!),
        statuses: Object.fromEntries(
          ['Successful', 'Pending', 'Failed']
            .filter((s) => c.statuses.has(s))
            .map((s) => [s, { count: c.statuses.get(s)!.count, amount: plain(c.statuses.get(s)!.amount, DIGITS[currency]!) }]),
        ),
      }));
    expect(doc.currencies).toEqual(want);
    expect(doc.payouts).toBe(want.reduce((n, c) => n + c.count, 0));
  });

  it('--csv: one row per currency and status; the label on stderr', async () => {
    const expected = expectedTotals((p) => p.currency === 'NGN');
    const r = await run(['summary', '--csv', '--currency', 'NGN']);
    expect(r.code, r.stderr).toBe(0);
    const ngn = expected.get('NGN')!;
    expect(parseCsv(r.stdout)).toEqual([
      ['currency', 'status', 'count', 'amount'],
      ...['Successful', 'Pending', 'Failed']
        .filter((s) => ngn.statuses.has(s))
        .map((s) => ['NGN', s, String(ngn.statuses.get(s)!.count), plain(ngn.statuses.get(s)!.amount, 2)]),
    ]);
    expect(r.stderr).toBe(`Computed by payctl from ${ngn.count} payouts (of ${ctx.sb.payouts().length} listed): currency NGN.\n`);
  });

  it('a progress line on stderr at a terminal only', async () => {
    const tty = await run(['summary', '--currency', 'SLE'], true);
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stderr).toContain('Reading payouts: page 1, 100 read');
    // The line is erased when the reading ends.
    expect(tty.stderr.endsWith('\r\u001b[2K')).toBe(true);
    const pipe = await run(['summary', '--currency', 'SLE']);
    expect(pipe.stderr).toBe('');
    expect(pipe.stdout).toBe(tty.stdout);
  });
});

describe('at a terminal: every line fits its width, bars shrink, labels and numbers whole', () => {
  /** `summary` with stdout a terminal of `columns` columns (undefined: a pipe). */
  async function at(columns: number | undefined, opts: SummaryOptions = {}): Promise<string[]> {
    const fd = fakeDeps({ dir: cfg.dir, tty: { stdout: columns !== undefined } });
    fd.deps.io = { ...fd.deps.io, stdoutColumns: columns };
    try {
      expect(await summaryRun(opts, fd.deps)).toBe(0);
      return fd.stdout().replace(/\n$/, '').split('\n');
    } finally {
      await fd.close();
    }
  }
  const barOf = (lines: string[], label: string) => /█*$/.exec(lines.find((l) => l.startsWith(`  ${label} `)) ?? '')![0].length;

  it("the service's summary at 40 columns: bars of at most 19 cells (were 24: lines of 45), the counts and the figure whole; a pipe as before", async () => {
    const pipe = await at(undefined);
    expect(Math.max(...pipe.map(displayWidth))).toBeGreaterThan(40);
    expect(barOf(pipe, 'Successful') === 24 || barOf(pipe, 'Pending') === 24 || barOf(pipe, 'Failed') === 24).toBe(true);
    const narrow = await at(40);
    for (const l of narrow) expect(displayWidth(l), l).toBeLessThanOrEqual(40);
    for (const label of ['Successful', 'Pending', 'Failed', 'Wallet', 'Bank']) {
      const wide = pipe.find((l) => l.startsWith(`  ${label} `))!;
      // The same label and count, the bar shorter (or as long, when it was short).
      expect(narrow.find((l) => l.startsWith(`  ${label} `))).toBe(wide.replace(/█+$/, (b) => '█'.repeat(Math.min(b.length, barOf(narrow, label)))));
      expect(barOf(narrow, label)).toBeLessThanOrEqual(19);
    }
    expect(Math.max(barOf(narrow, 'Successful'), barOf(narrow, 'Pending'), barOf(narrow, 'Failed'))).toBe(19);
    const figure = /: ([0-9.]+)$/.exec(pipe.find((l) => l.startsWith('Total sent'))!)![1]!;
    expect(narrow.join(' ')).toContain(`Total sent (service's figure, no currency): ${figure}`);
    // A wide terminal gets what a pipe gets.
    expect(await at(200)).toEqual(pipe);
  });

  it('at 20 columns no room for bars: the counts alone, every line fits', async () => {
    const narrow = await at(20);
    for (const l of narrow) expect(displayWidth(l), l).toBeLessThanOrEqual(20);
    expect(narrow.join('\n')).not.toContain('█');
    expect(narrow).toContain(`  Pending ${String(ctx.sb.payouts().filter((p) => p.status === 'Pending').length).padStart(9)}`);
  });

  it('the computed summary (--currency SLE) at 40 columns: lines of at most 40 (were 60), amounts whole, a bar on each status', async () => {
    const pipe = await at(undefined, { currency: 'SLE' });
    expect(Math.max(...pipe.map(displayWidth))).toBeGreaterThan(40);
    const narrow = await at(40, { currency: 'SLE' });
    for (const l of narrow) expect(displayWidth(l), l).toBeLessThanOrEqual(40);
    const rows = pipe.filter((l) => / SLE {2}█+$/.test(l));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const whole = row.replace(/ {2}█+$/, '');
      expect(
        narrow.find((l) => l.startsWith(whole + '  █')),
        whole,
      ).toBeDefined();
    }
    const totals = pipe.find((l) => l.startsWith('SLE  '))!.split('  ');
    expect(narrow.join(' ').replace(/ +/g, ' ')).toContain(totals.join(' '));
  });
});

describe('summaries of other shapes (a plain server)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });
  /** A server answering the summary with `data`, or with `raw` as its JSON text (numbers JSON.stringify cannot write: 1e400). */
  async function answering(data: unknown, raw = JSON.stringify(data)): Promise<string> {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(`{"status":"Successful","message":"Payout summary retrieved","data":${raw},"timestamp":"2026-04-05T18:38:54.734510Z"}`),
      );
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const a = server.address();
    return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/v2`;
  }

  it('counts as digit strings, a figure missing, extra figures shown as they came', async () => {
    writeProfile(cfg.dir, {
      baseUrl: await answering({ total_transfers: '38', successful: '2', pending: 36, total_sent: '7,281.78', reversed: 1, by_day: { '2026-04-01': 3 } }),
      apiKey: KEY,
    });
    const r = await run(['summary']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Total transfers  38\n');
    expect(r.stdout).toMatch(/^ {2}Successful\s+2 {2}█+$/m);
    expect(r.stdout).toMatch(/^ {2}Pending\s+36 {2}█{24}$/m);
    expect(r.stdout).not.toMatch(/Failed|TYPE/);
    expect(r.stdout).toContain("Total sent (service's figure, no currency): 7281.78\n");
    expect(r.stdout).toContain('Other figures from the service, as sent:\n  reversed: 1\n  by_day:\n    2026-04-01: 3\n');
  });

  it.each([[['a', 'b']], [[]], ['nope'], [null]])('data that is no object (%j) is an answer not understood: exit 1, nothing on stdout', async (data) => {
    // Shown "generically" before: an empty list printed nothing and exited 0, a word was printed as the summary.
    writeProfile(cfg.dir, { baseUrl: await answering(data), apiKey: KEY });
    const r = await run(['summary']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: The service sent a summary that payctl does not understand');
  });

  const DOCUMENTED = (totalSent: string) =>
    `{"total_transfers":38,"successful":2,"pending":36,"failed":0,"total_sent":${totalSent},"wallet_transfers":5,"bank_transfers":33}`;

  it.each(['1e400', '"abc"', '"7.281,78"'])(
    'total_sent %s, no exact amount: one verdict in text, --csv and --json (exit 0, a warning), the counts shown, the total never as a float',
    async (totalSent) => {
      // Before: the text was a bare "key: value" dump without heading or label (exit 0) and --csv exited 1.
      writeProfile(cfg.dir, { baseUrl: await answering(undefined, DOCUMENTED(totalSent)), apiKey: KEY });
      const sent = totalSent.replace(/"/g, '');
      const warning = `Warning: The service's summary has figures payctl cannot read: total_sent ${sent} is not an exact amount: not shown.\n`;
      const text = await run(['summary']);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stderr).toBe(warning);
      expect(text.stdout.startsWith('Summary from the service (every payout; POST /payout/summary)\n\nTotal transfers  38\n')).toBe(true);
      expect(text.stdout).toMatch(/^ {2}Pending\s+36 {2}█{24}$/m);
      expect(text.stdout).toMatch(/^ {2}Bank\s+33 {2}█{24}$/m);
      expect(text.stdout).toContain("\nTotal sent (service's figure, no currency): (unreadable)\n");
      expect(text.stdout).not.toMatch(/total_sent|Infinity|1e\+?400|abc|7\.281/);
      const csv = await run(['summary', '--csv']);
      expect(csv.code, csv.stderr).toBe(0);
      expect(csv.stderr).toBe(warning);
      expect(parseCsv(csv.stdout)).toEqual([
        ['figure', 'value'],
        ['total_transfers', '38'],
        ['successful', '2'],
        ['pending', '36'],
        ['failed', '0'],
        ['total_sent', ''],
        ['wallet_transfers', '5'],
        ['bank_transfers', '33'],
      ]);
      const json = await run(['summary', '--json']);
      expect(json.code, json.stderr).toBe(0);
      expect(asText(json.stderr)).toBe(warning);
      expect(json.stdout).toContain(`"total_sent":${totalSent}`);
    },
  );

  it.each([
    ['"-5.00"', '-5.00'],
    ['-0.0', '-0.0'],
  ])('total_sent %s, negative: shown as sent and warned about in text, --csv and --json (exit 0)', async (totalSent, shown) => {
    // Before: "Total sent (service's figure, no currency): -5.00" (and -0.0) without a word (probe M, finding 3).
    writeProfile(cfg.dir, { baseUrl: await answering(undefined, DOCUMENTED(totalSent)), apiKey: KEY });
    const warning = `Warning: The service's summary is not as docs/service.md describes it: total_sent ${shown} is negative (a total is never below zero): shown as sent.\n`;
    const text = await run(['summary']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toBe(warning);
    expect(text.stdout).toContain(`\nTotal sent (service's figure, no currency): ${shown}\n`);
    for (const mode of ['--csv', '--json']) {
      const r = await run(['summary', mode]);
      expect(r.code, r.stderr).toBe(0);
      // Under --json, the same warning as a JSON line (src/output/log.ts).
      expect(mode === '--json' ? asText(r.stderr) : r.stderr).toBe(warning);
    }
    expect((await run(['summary', '--json'])).stdout).toContain(`"total_sent":${totalSent}`);
  });

  it.each([
    ['null', 'total_sent is null: no figure'],
    [undefined, 'total_sent is missing'],
  ])('total_sent %s: its line says (missing), a warning in every mode, --json as the service sent it', async (totalSent, phrase) => {
    // Before: the "Total sent" line was left out without a word (probe M, finding 3).
    const body = totalSent === undefined ? DOCUMENTED('0').replace(',"total_sent":0', '') : DOCUMENTED(totalSent);
    writeProfile(cfg.dir, { baseUrl: await answering(undefined, body), apiKey: KEY });
    const warning = `Warning: The service's summary is not as docs/service.md describes it: ${phrase}.\n`;
    const text = await run(['summary']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toBe(warning);
    expect(text.stdout).toMatch(/^ {2}Bank\s+33 {2}█{24}$/m);
    expect(text.stdout).toContain("\nTotal sent (service's figure, no currency): (missing)\n");
    for (const mode of ['--csv', '--json']) {
      const r = await run(['summary', mode]);
      expect(r.code, r.stderr).toBe(0);
      // Under --json, the same warning as a JSON line (src/output/log.ts).
      expect(mode === '--json' ? asText(r.stderr) : r.stderr).toBe(warning);
    }
    expect(JSON.parse((await run(['summary', '--json'])).stdout).data).toEqual(JSON.parse(body));
  });

  it('a count that is no whole number is shown as sent without a bar, named in the same warning in every mode', async () => {
    writeProfile(cfg.dir, { baseUrl: await answering({ total_transfers: 38, successful: 'two', pending: 36, failed: -1, total_sent: '7281.78' }), apiKey: KEY });
    const warning =
      "Warning: The service's summary has figures payctl cannot read: successful two is not a count: shown as sent, without a bar; failed -1 is not a count: shown as sent, without a bar.\n";
    const text = await run(['summary']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toBe(warning);
    expect(text.stdout).toMatch(/^ {2}Successful\s+two$/m);
    expect(text.stdout).toMatch(/^ {2}Pending\s+36 {2}█{24}$/m);
    expect(text.stdout).toMatch(/^ {2}Failed\s+-1$/m);
    expect(text.stdout).toContain("Total sent (service's figure, no currency): 7281.78\n");
    for (const mode of ['--csv', '--json']) {
      const r = await run(['summary', mode]);
      expect(r.code, r.stderr).toBe(0);
      // Under --json, the same warning as a JSON line (src/output/log.ts).
      expect(mode === '--json' ? asText(r.stderr) : r.stderr).toBe(warning);
    }
  });

  it('a count that is null reads (missing), named in the warning; one unreadable for an escape is written with it (before: the row gone without a word; "33 is not a count", shown 33)', async () => {
    const raw = '{"total_transfers":"38","successful":2,"pending":1,"failed":null,"total_sent":"1,000.00","wallet_transfers":1,"bank_transfers":"\\u001b[2J33"}';
    writeProfile(cfg.dir, { baseUrl: await answering(undefined, raw), apiKey: KEY });
    const warning =
      'Warning: The service\'s summary has figures payctl cannot read: bank_transfers "\\u001b[2J33" is not a count: shown as sent, without a bar.\n' +
      "Warning: The service's summary is not as docs/service.md describes it: failed is null: no figure.\n";
    const text = await run(['summary']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toBe(warning);
    expect(text.stdout).toMatch(/^ {2}Failed\s+\(missing\)$/m);
    expect(text.stdout).toMatch(/^ {2}Bank\s+"\\u001b\[2J33"$/m);
    for (const mode of ['--csv', '--json']) {
      const r = await run(['summary', mode]);
      expect(r.code, r.stderr).toBe(0);
      // Under --json, the same warning as a JSON line (src/output/log.ts).
      expect(mode === '--json' ? asText(r.stderr) : r.stderr).toBe(warning);
    }
    const csv = (await run(['summary', '--csv'])).stdout;
    expect(csv).toContain('\r\nfailed,\r\n');
    expect(csv).toContain('\r\nbank_transfers,\\u001b[2J33\r\n');
  });

  it('data that is no object is refused by --json too (exit 1, nothing on stdout), as by text and --csv', async () => {
    writeProfile(cfg.dir, { baseUrl: await answering('nope'), apiKey: KEY });
    for (const mode of [[], ['--csv'], ['--json']]) {
      const r = await run(['summary', ...mode]);
      expect(r.code, `${mode.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stdout).toBe('');
    }
  });

  it('counts past a double (1e30, 31 digits) shown exactly as written, the bars scaled to them; no warning', async () => {
    // Before: "1e+30" without a bar while pending 1 had the whole bar.
    writeProfile(cfg.dir, {
      baseUrl: await answering(
        undefined,
        '{"total_transfers":1e30,"successful":1e30,"pending":1,"failed":0,"wallet_transfers":1000000000000000000000000000000,"bank_transfers":5E1,"total_sent":"0.00"}',
      ),
      apiKey: KEY,
    });
    const r = await run(['summary']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Total transfers  1e30\n');
    expect(r.stdout).toMatch(/^ {2}Successful\s+1e30 {2}█{24}$/m);
    expect(r.stdout).toMatch(/^ {2}Pending\s+1 {2}█$/m);
    expect(r.stdout).toMatch(/^ {2}Failed\s+0$/m);
    expect(r.stdout).toMatch(/^ {2}Wallet\s+1000000000000000000000000000000 {2}█{24}$/m);
    expect(r.stdout).toMatch(/^ {2}Bank\s+5E1 {2}█$/m);
    expect(r.stdout).not.toContain('e+30');
    const csv = await run(['summary', '--csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(parseCsv(csv.stdout).slice(1, 3)).toEqual([
      ['total_transfers', '1e30'],
      ['successful', '1e30'],
    ]);
  });
});
