/**
 * Hostile service strings against the renderers (issue 11): output in linear time (a 1 MB
 * wallet name renders in under 1 s), escape sequences and bidi controls removed from every
 * part of an error in text and JSON.
 */
import { describe, expect, it } from 'vitest';
import { payoutRecordSchema, recordStatus, summarySchema, type PayoutRecord, type Wallet } from '../../src/service/schemas.js';
import { ApiError, AuthError, NetworkError, UsageError } from '../../src/errors.js';
import { csvCell, csvRow } from '../../src/output/csv.js';
import { renderErrorJson, renderErrorText } from '../../src/output/error-report.js';
import { LIST_COLUMNS, payoutCsvValues, payoutRow, renderPayoutCard } from '../../src/output/payout.js';
import { sanitize, sanitizeInline } from '../../src/output/sanitize.js';
import { loadColor, makeStyle, type Style } from '../../src/output/style.js';
import { SummaryTally, renderComputedSummary, renderServiceSummary, serviceSummaryCsv, summaryCsv, type ComputedSummary } from '../../src/output/summary.js';
import { displayWidth, fitWidth, renderTable } from '../../src/output/table.js';
import { renderCard, text, utcTime } from '../../src/output/text.js';
import { computePlan } from '../../src/payouts/batch-plan.js';
import { renderPlan } from '../../src/output/batch.js';
import { validatePayout } from '../../src/payouts/request.js';
import { cpuMs } from '../helpers/cpu.js';

const plain = makeStyle(false);
const MB = 1_000_000;
const LIMIT_MS = 1000;
/** Sizes tried in turn: a quadratic renderer fails on a small one in seconds instead of hanging on 1 MB. */
const SIZES = [1_000, 10_000, 100_000, MB];

/** Hostile names of about n characters. */
const HOSTILE: Array<[string, (n: number) => string]> = [
  ['a run of spaces inside', (n) => 'a' + ' '.repeat(n) + 'b'],
  ['spaces then a non-space', (n) => ' '.repeat(n) + 'x'],
  ['trailing spaces', (n) => 'a' + ' '.repeat(n)],
  ['ESC [ fragments', (n) => '\u001b['.repeat(n / 2)],
  ['unterminated OSC fragments', (n) => '\u001b]'.repeat(n / 2)],
  ['8-bit CSI and OSC', (n) => '\u009b'.repeat(n / 2) + '\u009d'.repeat(n / 2)],
  ['combining marks', (n) => 'e' + '\u0301'.repeat(n)],
  ['CJK (width 2)', (n) => '支'.repeat(n)],
  ['emoji ZWJ sequences', (n) => '👩🏽‍💻'.repeat(n / 7)],
  ['no-break spaces', (n) => 'a' + '\u00a0'.repeat(n) + 'b'],
  ['zero-width spaces', (n) => 'a' + '\u200b'.repeat(n) + 'b'],
  ['tabs and newlines', (n) => 'a' + '\t\n'.repeat(n / 2) + 'b'],
];

/** Renders growing names, each under LIMIT_MS of CPU; returns the output for the 1 MB name. */
function timed(render: (name: string) => string, make: (n: number) => string): { out: string; name: string; ms: number } {
  let last = { out: '', name: '', ms: 0 };
  for (const n of SIZES) {
    const name = make(n);
    const t0 = cpuMs();
    const out = render(name);
    const ms = cpuMs() - t0;
    expect(ms, `${n} characters took ${ms.toFixed(0)} ms`).toBeLessThan(LIMIT_MS);
    last = { out, name, ms };
  }
  return last;
}

/**
 * The documented look-up record as the list carries it (the wallet id, no payout id), with a
 * hostile `name`. The schema refuses a currency or transaction id that is not plain ASCII
 * (service/schemas.ts); such fields are set after it, so the renderers' own sanitizing is still
 * what is tested.
 */
function record(fields: Record<string, unknown> = {}, name = 'Aminata Kamara'): PayoutRecord {
  const { currency, transaction_id, ...rest } = fields;
  const parsed = parsedRecord(rest, name);
  if (typeof currency === 'string') parsed.currency = currency;
  if (typeof transaction_id === 'string') parsed.transaction_id = transaction_id;
  return parsed;
}

function parsedRecord(fields: Record<string, unknown>, name: string): PayoutRecord {
  return payoutRecordSchema.parse({
    transaction_id: 'TXN-BOK-FF051A7F00A49EB6AF225D10EA',
    wallet_id: '5564222970',
    status: 'pending',
    amount: '1,500.50',
    fee: '15.01',
    total_amount: '1,515.51',
    currency: 'SLE',
    recipient: { transfer_type: 'wallet', account_number: '076123456', name, bank: 'ORANGE_MONEY' },
    description: 'October stipend',
    provider_reference: 'ORD-79A7C916A37B46BA',
    created_at: '2026-11-21T10:15:30.123456Z',
    ...fields,
  });
}

/** A summary payctl computes from `records` (each normalized as the summary command does). */
function computed(records: PayoutRecord[]): ComputedSummary {
  const t = new SummaryTally();
  for (const r of records) {
    t.listed++;
    t.add(r, recordStatus(r));
  }
  return t.result({ currency: 'SLE', wallet: '5564222970' });
}

/** Every hostile field of a record at once: service text in each place the card, row and CSV show. */
function hostileRecord(s: string): PayoutRecord {
  return record(
    {
      transaction_id: s,
      wallet_id: s,
      status: s,
      failure_reason: s,
      description: s,
      provider_reference: s,
      metadata: { [s]: s },
      recipient: { transfer_type: s, account_number: s, name: s, bank: s },
    },
    s,
  );
}

function plan(walletName: string, style: Style = plain): string {
  const r = validatePayout({ walletId: 'wal_1', amount: '10', currency: 'SLE', type: 'bank', name: 'A', provider: 'uba', account: '1' });
  if (!r.ok) throw new Error(r.problems.join('; '));
  const wallets: Wallet[] = [{ wallet_id: 'wal_1', wallet_name: walletName, currency: 'SLE', balance: '100.00' }];
  return renderPlan(computePlan([r.request], wallets), style);
}

describe('linear-time output: a 1 MB name renders in under 1 s', () => {
  describe.each(HOSTILE)('%s', (_, make) => {
    it('in a table whose widths fit the content', () => {
      // The cell as the table is given it (text() of the name): kept, not sanitized a second time.
      let cell = '';
      const { out } = timed((s) => renderTable([{ header: 'NAME' }, { header: 'BALANCE', align: 'right' }], [[(cell = text(s)), '1.00']], plain), make);
      const [head, row, end] = out.split('\n');
      expect(end).toBe('');
      expect(head!.startsWith('NAME ')).toBe(true);
      expect(row!.startsWith(cell.slice(0, 8))).toBe(true);
      expect(row!.endsWith('  1.00')).toBe(true);
      // Both lines end with the right-aligned column: equal widths mean aligned columns.
      expect(displayWidth(head!)).toBe(displayWidth(row!));
    });

    it('in a table of fixed widths (payouts list), cut with …', () => {
      const widths = LIST_COLUMNS.map((c) => ({ ...c, width: 20 }));
      const { out } = timed((s) => renderTable(widths, [payoutRow(record({ wallet_id: s }, s), plain)], plain, { header: false }), make);
      const line = out.slice(0, -1);
      expect(out.endsWith('\n')).toBe(true);
      expect(line.split('\n')).toHaveLength(1);
      expect(displayWidth(line)).toBeLessThanOrEqual(6 * 22);
      expect(line.endsWith('Pending')).toBe(true);
    });

    it('in the payouts list at an 80-column terminal (the name and the wallet id hostile)', () => {
      const { out } = timed((s) => renderTable(LIST_COLUMNS, [payoutRow(record({ wallet_id: s }, s), plain)], plain, { width: 80 }), make);
      for (const l of out.replace(/\n$/, '').split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(80);
      expect(out).toContain('TXN-BOK-FF051A7F00A49EB6AF225D10EA');
      expect(out).toContain('1,500.50 SLE');
      expect(out).not.toMatch(/[\u001b\u009b\u009d]/);
    });

    it('in a CSV row (every text cell hostile)', () => {
      const { out } = timed((s) => csvRow(payoutCsvValues(hostileRecord(s))), make);
      // The amounts exact and whole whatever the text around them.
      expect(out).toContain(',1500.50,15.01,SLE,');
      expect(out).not.toMatch(/[\u001b\u009b\u009d]/);
      expect(out.endsWith('\r\n')).toBe(true);
    });

    it('in a payout card', () => {
      const { out } = timed((s) => renderPayoutCard(record({ failure_reason: s, description: s, metadata: { k: s } }, s), plain), make);
      expect(out).toMatch(/^Transaction +TXN-BOK-FF051A7F00A49EB6AF225D10EA\n/);
      expect(out).toMatch(/\nTotal debited +1,515\.51 SLE\n/);
      expect(out).toMatch(/\nProvider ref +ORD-79A7C916A37B46BA\n/);
      expect(out).not.toMatch(/[\u001b\u009b\u009d]/);
      expect(out).not.toMatch(/ \n/);
    });

    it('in a key/value card', () => {
      let cell = '';
      const { out } = timed(
        (s) =>
          renderCard(
            [
              ['Name', (cell = text(s))],
              ['Wallet', 'wal_1'],
            ],
            plain,
          ),
        make,
      );
      expect(out).toBe(`Name    ${cell}`.trimEnd() + '\nWallet  wal_1\n');
    });

    it('in the batch plan (wallet name)', () => {
      const { out } = timed((s) => plan(s), make);
      const lines = out.split('\n');
      expect(lines[0]).toMatch(/^WALLET {2}NAME/);
      expect(lines[1]).toMatch(/^wal_1 /);
      expect(lines[1]).toMatch(/ {2}SLE +1 +10\.00 +100\.00 +90\.00$/);
    });

    it('in the computed summary (a status name)', () => {
      const { out } = timed(
        (s) =>
          renderComputedSummary(
            computed([
              record({ transaction_id: 'T1', status: s, amount: 1 }),
              record({ transaction_id: 'T2', status: 'successful', amount: 1 }),
              record({ transaction_id: 'T3', status: 'Paid', amount: '1.00' }),
            ]),
            plain,
          ),
        make,
      );
      expect(out).toContain('  Successful ');
      expect(out).toContain('2.00 SLE  ' + '█'.repeat(24) + '\n');
      expect(out).toContain('SLE  3 payouts  3.00 SLE  fees 45.03 SLE\n');
      expect(out).not.toMatch(/[\u001b\u009b\u009d]/);
    });

    it('in the computed summary (a currency)', () => {
      const { out } = timed(
        (s) => renderComputedSummary(computed([record({ currency: s, amount: '2.50' }), record({ transaction_id: 'T2', amount: '1.00' })]), plain),
        make,
      );
      expect(out).toContain('SLE  1 payout  1.00 SLE  fees 15.01 SLE\n');
      expect(out).toContain('  Pending      1  1.00 SLE  ' + '█'.repeat(24) + '\n');
      expect(out).toContain('2.50 ');
      expect(out).not.toMatch(/[\u001b\u009b\u009d]/);
    });

    it('in the computed summary as CSV (a status and a currency)', () => {
      const { out } = timed(
        (s) => summaryCsv(computed([record({ transaction_id: 'T1', status: s, amount: '1.00' }), record({ transaction_id: 'T2', currency: s, amount: '2.00' })])),
        make,
      );
      expect(out.startsWith('currency,status,count,amount\r\n')).toBe(true);
      expect(out).toMatch(/,1,1\.00\r\n/);
      expect(out).toMatch(/,Pending,1,2\.00\r\n/);
      expect(out).not.toMatch(/[\u001b\u009b\u009d]/);
    });

    it("in the service's summary (an extra field's name and value)", () => {
      const summary = (s: string) => summarySchema.parse({ total_transfers: 3, successful: 1, pending: 2, failed: 0, [s]: s, extra: { [s]: s } });
      const { out } = timed((s) => renderServiceSummary(summary(s), plain), make);
      expect(out).toContain('Total transfers  3\n');
      expect(out).toContain('  Pending         2  ' + '█'.repeat(24) + '\n');
      expect(out).toContain('Other figures from the service, as sent:\n');
      expect(out).not.toMatch(/[\u001b\u009b\u009d]/);
      const csv = timed((s) => serviceSummaryCsv(summary(s)), make).out;
      expect(csv.startsWith('figure,value\r\ntotal_transfers,3\r\nsuccessful,1\r\npending,2\r\nfailed,0\r\n')).toBe(true);
      expect(csv).not.toMatch(/[\u001b\u009b\u009d]/);
    });
  });

  it('keeps colour codes balanced when a coloured cell is cut', async () => {
    await loadColor();
    const color = makeStyle(true);
    const cell = color.green('支'.repeat(MB));
    const t0 = cpuMs();
    const cut = fitWidth(cell, 9);
    expect(cpuMs() - t0).toBeLessThan(LIMIT_MS);
    expect(cut).toBe(color.green('支'.repeat(4)) + '…');
    expect(displayWidth(cut)).toBe(9);
    const out = renderTable([{ header: 'STATUS', width: 6 }], [[color.red('Successful')]], color);
    expect(out).toBe(`${color.bold('STATUS')}\n${color.red('Succe')}…\n`);
  });

  it('shows an unreadable 1 MB time sanitized, in linear time', () => {
    const t0 = cpuMs();
    const out = utcTime('2026-11-21T10:15:30' + ' '.repeat(MB) + '\u001b[2J UTC');
    expect(cpuMs() - t0).toBeLessThan(LIMIT_MS);
    expect(out).toBe('2026-11-21T10:15:30' + ' '.repeat(MB) + ' UTC');
  });

  it.each([
    ['spaces', ' '.repeat(MB) + 'x'],
    ['ESC [ and digits', '\u001b[' + '1;'.repeat(MB / 2)],
    ['ESC [ repeated', '\u001b['.repeat(MB / 2)],
    ['ESC ] repeated', '\u001b]'.repeat(MB / 2)],
    ['ESC alone repeated', '\u001b'.repeat(MB)],
    ['ESC intermediates', '\u001b' + ' '.repeat(MB)],
    ['8-bit CSI and digits', '\u009b' + '0'.repeat(MB)],
    ['8-bit OSC repeated', '\u009d'.repeat(MB)],
    ['bidi controls', '\u202e\u2066'.repeat(MB / 2)],
    ['tabs and newlines', '\t\r\n'.repeat(MB / 3)],
    ['formula digits', '+' + '1 '.repeat(MB / 2) + '=x'],
  ])('sanitizes and quotes 1 MB of %s in linear time', (_, s) => {
    const t0 = cpuMs();
    const results = [sanitize(s), sanitizeInline(s), csvCell(s)];
    expect(cpuMs() - t0).toBeLessThan(LIMIT_MS);
    for (const r of results) expect(r).not.toMatch(/[\u001b\u009b\u009d\u202e\u2066\r]/);
  });
});

describe('bidi and invisible format characters never reach the terminal', () => {
  // With what draws as nothing between letters: a zero-width space, a word joiner, a tag character.
  const name = 'Ami\u202Enata\u2066 Kam\u200Fara\u061C\u206E\uFFF9x\uFFFB\u200B\u2060\u{E0041}';
  const ESCAPED = 'Ami\\u202enata\\u2066 Kam\\u200fara\\u061c\\u206e\\ufff9x\\ufffb\\u200b\\u2060\\u{e0041}';
  it.each([
    ['a payout card', () => renderPayoutCard(hostileRecord(name), plain)],
    ['a payouts list row', () => renderTable(LIST_COLUMNS, [payoutRow(hostileRecord(name), plain)], plain)],
    ['a payouts list at 80 columns', () => renderTable(LIST_COLUMNS, [payoutRow(hostileRecord(name), plain)], plain, { width: 80 })],
    ['a payouts CSV row', () => csvRow(payoutCsvValues(hostileRecord(name)))],
    // The status, a word payctl does not know, with each invisible character written out (service/status-words.ts).
    ['the computed summary', () => renderComputedSummary(computed([hostileRecord(name), record({ currency: name })]), plain), ESCAPED],
    ['the computed summary as CSV', () => summaryCsv(computed([hostileRecord(name), record({ currency: name })])), ESCAPED],
    ["the service's summary", () => renderServiceSummary(summarySchema.parse({ total_transfers: 1, [name]: name }), plain)],
    ["the service's summary as CSV", () => serviceSummaryCsv(summarySchema.parse({ total_transfers: 1, [name]: name }))],
    ['the batch plan', () => plan(name)],
  ])('in %s', (_, render, shown = 'Aminata Kamarax') => {
    const out = render();
    expect(out).not.toMatch(/[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u206f\ufff9-\ufffb]|\udb40/);
    expect(out).toContain(shown);
  });
});

describe('display width', () => {
  it.each([
    ['', 0],
    ['plain', 5],
    ['Séverine', 8],
    ['e\u0301', 1],
    ['支払い', 6],
    ['💸', 2],
    ['👩🏽‍💻', 2],
    ['❤️', 2],
    ['1️⃣', 2],
    ['🇸🇱', 2],
    ['أمينة', 5],
    ['\u001b[32mpaid\u001b[39m', 4],
    ['ab\ncdef', 4],
  ])('%j is %i columns', (s, w) => {
    expect(displayWidth(s)).toBe(w);
  });

  it('aligns CJK and emoji cells by their width, not their length', () => {
    expect(
      renderTable(
        [{ header: 'NAME' }, { header: 'N', align: 'right' }],
        [
          ['支払い', '1'],
          ['💸 ok', '22'],
        ],
        plain,
      ),
    ).toBe('NAME     N\n支払い   1\n💸 ok   22\n');
  });

  it('cuts wide text without splitting a character', () => {
    expect(fitWidth('支払い完了', 6)).toBe('支払…');
    expect(fitWidth('支払い完了', 5)).toBe('支払…');
    expect(fitWidth('支払い完了', 10)).toBe('支払い完了');
    expect(fitWidth('abc', 1)).toBe('…');
    expect(fitWidth('abc', 0)).toBe('');
  });
});

describe('errors: every service string sanitized, text and JSON', () => {
  const hostile = () =>
    new ApiError('Payout \u001b]0;owned\u0007refused\u202e', {
      status: 422,
      code: 'BAD\u001b[2J\u0007',
      requestId: 'req-\u001b[31m1\u009b2J\u2066',
      errors: [{ field: 'amo\u001b[1munt\u202e', message: 'too \u009b31mlarge\u202e lexe.pdf\u0007\nnext' }],
      hint: 'Check \u001b]8;;http://evil\u001b\\the amount\u001b]8;;\u001b\\ \u202eand retry',
    });
  const BAD = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

  it('in text: no escape, control or bidi character, the code included', () => {
    const out = renderErrorText(hostile(), plain);
    expect(out).not.toMatch(BAD);
    expect(out).toBe(
      ['Error: Payout refused', '  HTTP 422 BAD', '  - amount: too large lexe.pdf next', '  Request ID: req-1', 'Check the amount and retry', ''].join('\n'),
    );
  });

  it('in JSON: valid JSON with the control characters removed, not escaped', () => {
    const raw = renderErrorJson(hostile());
    expect(raw.endsWith('}\n')).toBe(true);
    expect(raw).not.toMatch(BAD);
    // JSON.stringify escapes C0 as \u001b; removed means no escape for them either.
    expect(raw).not.toMatch(/\\u00[01][0-9a-f]|\\u007f/i);
    expect(JSON.parse(raw)).toEqual({
      error: {
        message: 'Payout refused',
        status: 422,
        code: 'BAD',
        request_id: 'req-1',
        errors: [{ field: 'amount', message: 'too large lexe.pdf next' }],
        hint: 'Check the amount and retry',
      },
    });
  });

  it.each([
    ['AuthError', new AuthError('Invalid key \u001b[8m', { status: 401, requestId: 'r\u009b1m', hint: 'Run `payctl login`\u202e' })],
    ['UsageError', new UsageError('Bad \u001b[2Jinput', ['--name: \u202eexe.pdf\u001b[0m'], 'See --help\u0007')],
    ['NetworkError', new NetworkError('Connection reset \u001b]0;x\u0007', { causeCode: 'ECONN\u001b[2JRESET' })],
    ['a bug', new TypeError('Unexpected token \u001b[2J\u202e in JSON')],
    ['a string', 'thrown \u001b[31mstring\u202e'],
  ])('for %s too', (_, err) => {
    for (const out of [renderErrorText(err, plain), renderErrorText(err, plain, true), renderErrorJson(err)]) {
      expect(out).not.toMatch(BAD);
    }
    // In JSON, not even as an escape: what a consumer decodes and prints is clean.
    const raw = renderErrorJson(err);
    expect(raw).not.toMatch(/\\u00[01][0-9a-f]|\\u007f/i);
    const strings: string[] = [];
    JSON.parse(raw, (_k, v: unknown) => (typeof v === 'string' && strings.push(v), v));
    expect(strings.length).toBeGreaterThan(0);
    for (const v of strings) expect(v).not.toMatch(BAD);
  });

  it('keeps ordinary text as it is', () => {
    const err = new ApiError('Insufficient funds in wallet wal_1', {
      status: 422,
      code: 'INSUFFICIENT_FUNDS',
      requestId: 'req-9f2c',
      errors: [{ field: 'amount', message: 'exceeds the balance (1,500.50 SLE)' }],
    });
    expect(renderErrorText(err, plain)).toBe(
      'Error: Insufficient funds in wallet wal_1\n  HTTP 422 INSUFFICIENT_FUNDS\n  - amount: exceeds the balance (1,500.50 SLE)\n  Request ID: req-9f2c\n',
    );
    expect(JSON.parse(renderErrorJson(err))).toEqual({
      error: {
        message: 'Insufficient funds in wallet wal_1',
        status: 422,
        code: 'INSUFFICIENT_FUNDS',
        request_id: 'req-9f2c',
        errors: [{ field: 'amount', message: 'exceeds the balance (1,500.50 SLE)' }],
        hint: null,
      },
    });
  });
});
