/**
 * Output that fits the terminal (issue #15, "Width"), as pure functions: text cut to a
 * display width (East Asian wide characters and emoji take two columns, colour codes none,
 * an escape sequence is never cut), prose wrapped, tables fitted (text cut with …,
 * amounts never; cards when even that cannot fit; nothing cut without a width), the
 * streamed table of `payouts list --all`, the progress bar laid out at 60, 80 and 200
 * columns, and the terminal width read from the streams (ioFrom).
 */
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { displayWidth, fitColumns, fitWidth, renderCards, renderLine, renderTable, StreamedTable, wrapSegments, wrapText, type Column } from '../../src/output/table.js';
import { barLine, LiveLine, Progress, type BarPart } from '../../src/output/progress.js';
import { renderPlan } from '../../src/output/batch.js';
import { LIST_COLUMNS, payoutRow } from '../../src/output/payout.js';
import { LIST_TABLE } from '../../src/commands/payouts/list.js';
import { fitHelpText } from '../../src/commands/help-text.js';
import { ioFrom } from '../../src/output/io.js';
import { loadColor, makeStyle } from '../../src/output/style.js';
import type { PlanGroup } from '../../src/payouts/batch-plan.js';
import { payoutRecordSchema, type PayoutRecord } from '../../src/service/schemas.js';

const plain = makeStyle(false);
const ESC = '\u001b';
const red = (s: string) => `${ESC}[31m${s}${ESC}[39m`;

/** The terminal lines of a text (no trailing newline). */
const linesOf = (out: string) => out.replace(/\n$/, '').split('\n');
const widest = (out: string) => Math.max(...linesOf(out).map(displayWidth));
/** Every escape sequence in `s` is whole: ESC [ digits/semicolons m. */
const escapesWhole = (s: string) =>
  s
    .split(ESC)
    .slice(1)
    .every((part) => /^\[[0-9;]*m/.test(part));

describe('displayWidth and fitWidth: columns as a terminal draws them', () => {
  it('East Asian wide characters take two columns; a cut never splits one and never passes the width', () => {
    expect(displayWidth('山田太郎')).toBe(8);
    expect(displayWidth('Ｐａｙ')).toBe(6); // fullwidth Latin
    expect(displayWidth('김민준')).toBe(6);
    expect(fitWidth('山田太郎', 8)).toBe('山田太郎');
    expect(fitWidth('山田太郎', 7)).toBe('山田太…');
    expect(fitWidth('山田太郎', 6)).toBe('山田…');
    expect(displayWidth(fitWidth('山田太郎', 6))).toBe(5);
    expect(fitWidth('a山田', 4)).toBe('a山…');
    expect(fitWidth('山田太郎', 1)).toBe('…');
  });

  it('an emoji (with a skin tone, a ZWJ sequence, a flag, VS16) takes two columns and is cut whole', () => {
    expect(displayWidth('👩‍💻')).toBe(2);
    expect(displayWidth('👍🏽')).toBe(2);
    expect(displayWidth('🇸🇱')).toBe(2);
    expect(displayWidth('❤️')).toBe(2);
    expect(displayWidth('ab👩‍💻cd')).toBe(6);
    expect(fitWidth('ab👩‍💻cd', 6)).toBe('ab👩‍💻cd');
    expect(fitWidth('ab👩‍💻cd', 5)).toBe('ab👩‍💻…');
    expect(fitWidth('ab👩‍💻cd', 4)).toBe('ab…');
    expect(fitWidth('🇸🇱🇳🇬', 3)).toBe('🇸🇱…');
    for (let w = 1; w <= 8; w++) expect(displayWidth(fitWidth('x🇸🇱y👍🏽z山', w))).toBeLessThanOrEqual(w);
  });

  it('colour codes take no width, are kept whole (what was opened is closed) and never cut inside', () => {
    const cell = red('Aminata Kamara');
    expect(displayWidth(cell)).toBe(14);
    expect(fitWidth(cell, 14)).toBe(cell);
    expect(fitWidth(cell, 8)).toBe(`${ESC}[31mAminata${ESC}[39m…`);
    // Every cut point, including those right before and after a code: whole codes, width kept.
    const mixed = `ab${ESC}[1m${ESC}[31m山d${ESC}[39m${ESC}[22mef`;
    for (let w = 1; w <= 7; w++) {
      const cut = fitWidth(mixed, w);
      expect(escapesWhole(cut), JSON.stringify(cut)).toBe(true);
      expect(displayWidth(cut)).toBeLessThanOrEqual(w);
      if (w < 7) expect(cut.endsWith('…')).toBe(true);
    }
  });
});

describe('wrapText: prose for a terminal', () => {
  it('breaks at spaces into lines no wider than the width; unchanged without a width', () => {
    const s = 'Fees are charged by the service per payout and are shown in the report.';
    expect(wrapText(s, undefined)).toBe(s);
    expect(wrapText(s, 100)).toBe(s);
    expect(wrapText(s, 30)).toBe('Fees are charged by the\nservice per payout and are\nshown in the report.');
    expect(wrapText(s, 30).replace(/\n/g, ' ')).toBe(s);
  });

  it('a word longer than a line is broken inside (nothing is lost); wide characters count two; colour takes no width', () => {
    expect(wrapText('id wal_0123456789abcdef end', 8)).toBe('id\nwal_0123\n456789ab\ncdef end');
    expect(wrapText('山田太郎山田', 5)).toBe('山田\n太郎\n山田');
    expect(wrapText(`${red('Warning:')} wallet short`, 15)).toBe(`${red('Warning:')} wallet\nshort`);
    expect(wrapText('  indented', 20)).toBe('  indented');
  });

  it('a 1 MB word is wrapped in linear time', () => {
    const word = 'x'.repeat(1_000_000);
    const started = Date.now();
    const out = wrapText(word, 80);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(out.split('\n')).toHaveLength(12_500);
  });
});

const COLUMNS: Column[] = [{ header: 'ID', minWidth: 6 }, { header: 'NAME', minWidth: 6 }, { header: 'AMOUNT', align: 'right' }, { header: 'STATUS' }];
const ROWS = [
  ['wal_a08ff49b6f772632', 'Freetown Operations and Logistics', '1,427,202.06 SLE', 'Successful'],
  ['wal_c43069c43a8c3b7c', '山田太郎の給与口座', '447,869.23 SLE', 'Pending'],
];

describe('tables fitted to a terminal', () => {
  it('without a width nothing is cut (a pipe, a file); with room to spare the table is the same', () => {
    const full = renderTable(COLUMNS, ROWS, plain);
    expect(full).toContain('Freetown Operations and Logistics');
    expect(renderTable(COLUMNS, ROWS, plain, { width: undefined })).toBe(full);
    expect(renderTable(COLUMNS, ROWS, plain, { width: 200 })).toBe(full);
    expect(widest(full)).toBe(20 + 2 + 33 + 2 + 16 + 2 + 10);
  });

  it('at 60 columns: text columns cut with …, the widest first; amounts and statuses whole; every line fits', () => {
    const out = renderTable(COLUMNS, ROWS, plain, { width: 60 });
    expect(widest(out)).toBeLessThanOrEqual(60);
    const lines = linesOf(out);
    expect(lines).toHaveLength(3);
    // 60 - 3 gaps - 16 - 10 = 28 for ID and NAME: 14 each.
    expect(lines[0]).toBe('ID              NAME                      AMOUNT  STATUS');
    expect(lines[1]).toBe('wal_a08ff49b6…  Freetown Oper…  1,427,202.06 SLE  Successful');
    expect(lines[2]).toBe('wal_c43069c43…  山田太郎の給…     447,869.23 SLE  Pending');
    expect(displayWidth(lines[1]!)).toBe(60);
    expect(displayWidth(lines[2]!)).toBe(displayWidth(lines[1]!) - 'Successful'.length + 'Pending'.length);
  });

  it('a short text column keeps its width; the long one takes the rest', () => {
    const fitted = fitColumns(COLUMNS, [['w1', 'A very long recipient name indeed, longer than the screen', '1.00 SLE', 'Failed']], 50)!;
    expect(fitted.map((c) => c.width)).toEqual([undefined, 50 - 3 * 2 - 2 - 8 - 6, undefined, undefined]);
  });

  it('colour codes do not count and survive the cut', async () => {
    await loadColor();
    const color = makeStyle(true);
    const out = renderTable(COLUMNS, [[ROWS[0]![0]!, color.red(ROWS[0]![1]!), ROWS[0]![2]!, color.green('Successful')]], color, { width: 60 });
    expect(widest(out)).toBeLessThanOrEqual(60);
    expect(escapesWhole(out)).toBe(true);
    expect(out).toContain(`${color.green('Successful')}`);
    expect(out).toMatch(/Freetown Oper(\u001b\[\d+m)+…/);
  });

  it('too narrow for the table even cut: each row becomes a card, every value whole where it fits, nothing left out', () => {
    expect(fitColumns(COLUMNS, ROWS, 40)).toBeUndefined();
    const out = renderTable(COLUMNS, ROWS, plain, { width: 40 });
    expect(out).toBe(
      [
        'ID      wal_a08ff49b6f772632',
        'NAME    Freetown Operations and Logisti…',
        'AMOUNT  1,427,202.06 SLE',
        'STATUS  Successful',
        '',
        'ID      wal_c43069c43a8c3b7c',
        'NAME    山田太郎の給与口座',
        'AMOUNT  447,869.23 SLE',
        'STATUS  Pending',
        '',
      ].join('\n'),
    );
    const narrow = renderCards(COLUMNS, ROWS, plain, 24);
    expect(widest(narrow)).toBeLessThanOrEqual(24);
    expect(narrow).toContain('NAME    Freetown Operat…\n');
    expect(narrow).toContain('NAME    山田太郎の給与…\n');
    expect(narrow).toContain('AMOUNT  1,427,202.06 SLE');
  });

  it('a 1 MB wide name is fitted, as a table or as cards, in linear time', () => {
    const name = '支'.repeat(1_000_000);
    const started = Date.now();
    const table = renderTable(COLUMNS, [['wal_1', name, '1.00 SLE', 'Pending']], plain, { width: 60 });
    const cards = renderTable(COLUMNS, [['wal_1', name, '1.00 SLE', 'Pending']], plain, { width: 20 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(widest(table)).toBeLessThanOrEqual(60);
    expect(table).toContain(`  ${'支'.repeat(16)}…   1.00 SLE  Pending\n`);
    expect(cards).toContain(`NAME    ${'支'.repeat(5)}…\n`);
  });

  it('a table without columns that may be cut is shown as cards when it is too wide, never cut', () => {
    const cols: Column[] = [{ header: 'A' }, { header: 'B' }];
    expect(renderTable(cols, [['x'.repeat(30), 'y'.repeat(30)]], plain, { width: 40 })).toBe(`A  ${'x'.repeat(30)}\nB  ${'y'.repeat(30)}\n`);
  });
});

describe('StreamedTable: payouts list --all, page by page', () => {
  const page1 = [['wal_1', 'Short', '1.00 SLE', 'Pending']];
  const page2 = [['wal_2', 'A much longer recipient name on page two', '22,222.00 SLE', 'Successful']];

  it('off a terminal nothing is cut: a column grows when a later page needs it; the header once', () => {
    const t = new StreamedTable(COLUMNS, plain, undefined);
    const out = t.page(page1) + t.page([]) + t.page(page2);
    expect(out).toBe(
      ['ID     NAME     AMOUNT  STATUS', 'wal_1  Short  1.00 SLE  Pending', 'wal_2  A much longer recipient name on page two  22,222.00 SLE  Successful', ''].join('\n'),
    );
  });

  it('at a terminal the first page fixes the layout: later pages line up, cut to it, and fit', () => {
    const t = new StreamedTable(COLUMNS, plain, 60);
    const first = t.page([...page1, ...ROWS]);
    const second = t.page(page2);
    expect(widest(first + second)).toBeLessThanOrEqual(60);
    expect(first.split('\n')[0]).toMatch(/^ID/);
    expect(second).not.toMatch(/^ID/);
    expect(second).toBe('wal_2           A much longer…     22,222.00 SLE  Successful\n');
    expect(second.indexOf('22,222.00 SLE') + '22,222.00 SLE'.length).toBe(linesOf(first)[1]!.indexOf('1.00 SLE') + '1.00 SLE'.length);
  });

  it('at a terminal too narrow for the table: cards on every page, a blank line between pages', () => {
    const t = new StreamedTable(COLUMNS, plain, 30);
    const out = t.page(page1) + t.page(page2);
    expect(out).toBe(
      [
        'ID      wal_1',
        'NAME    Short',
        'AMOUNT  1.00 SLE',
        'STATUS  Pending',
        '',
        'ID      wal_2',
        'NAME    A much longer recipie…',
        'AMOUNT  22,222.00 SLE',
        'STATUS  Successful',
        '',
      ].join('\n'),
    );
  });
});

/** A list record as the service sends it (the documented look-up's fields, the wallet id, no payout id). */
function record(name: string, amount: string, status: string): PayoutRecord {
  return payoutRecordSchema.parse({
    transaction_id: 'TXN-BOK-FF051A7F00A49EB6AF225D10EA',
    wallet_id: '5564222970',
    status,
    amount,
    currency: 'NGN',
    created_at: '2026-11-19T12:19:25.000000Z',
    recipient: { transfer_type: 'bank', account_number: '0127500182', name, bank: 'ECOBANK' },
  });
}

describe('payouts list rows at a terminal (issue #28: ids whole, the table gives way)', () => {
  const rows = [record('Chinedu Okafor-Adebayo of the Lagos State Civil Service', '498,922.79', 'successful'), record('山田太郎', '3,460.32', 'failed')].map((r) =>
    payoutRow(r, plain),
  );

  it('about 150 columns in a pipe, nothing cut; LIST_TABLE is LIST_COLUMNS with the order they give way in', () => {
    const out = renderTable(LIST_TABLE, rows, plain);
    expect(out).toBe(renderTable(LIST_COLUMNS, rows, plain));
    expect(widest(out)).toBe(19 + 34 + 10 + 55 + 14 + 10 + 5 * 2);
    expect(linesOf(out)[0]).toMatch(/^CREATED \(UTC\) {8}TRANSACTION {25}WALLET {6}RECIPIENT {56}AMOUNT {2}STATUS$/);
    expect(out).not.toContain('…');
    expect(LIST_TABLE.map((c) => [c.header, c.giveWay?.step])).toEqual([
      ['CREATED (UTC)', 1],
      ['TRANSACTION', undefined],
      ['WALLET', 2],
      ['RECIPIENT', 3],
      ['AMOUNT', undefined],
      ['STATUS', undefined],
    ]);
  });

  it('at 120 the recipient gives way first: the IDs, time, amount and status are whole', () => {
    const out = renderTable(LIST_TABLE, rows, plain, { width: 120 });
    expect(widest(out)).toBeLessThanOrEqual(120);
    const lines = linesOf(out);
    expect(lines).toEqual([
      'CREATED (UTC)        TRANSACTION                         WALLET      RECIPIENT                        AMOUNT  STATUS',
      '2026-11-19 12:19:25  TXN-BOK-FF051A7F00A49EB6AF225D10EA  5564222970  Chinedu Okafor-Adebayo…  498,922.79 NGN  Successful',
      '2026-11-19 12:19:25  TXN-BOK-FF051A7F00A49EB6AF225D10EA  5564222970  山田太郎                   3,460.32 NGN  Failed',
    ]);
    // The narrowest table with every column: the recipient at its minimum, its header (9 columns), never cut.
    expect(linesOf(renderTable(LIST_TABLE, rows, plain, { width: 106 })).slice(0, 2)).toEqual([
      'CREATED (UTC)        TRANSACTION                         WALLET      RECIPIENT          AMOUNT  STATUS',
      '2026-11-19 12:19:25  TXN-BOK-FF051A7F00A49EB6AF225D10EA  5564222970  Chinedu…   498,922.79 NGN  Successful',
    ]);
  });

  it('below 106 the created time is left out (the recipient gets room again); below 85 the wallet id too', () => {
    expect(linesOf(renderTable(LIST_TABLE, rows, plain, { width: 105 }))[1]).toBe(
      'TXN-BOK-FF051A7F00A49EB6AF225D10EA  5564222970  Chinedu Okafor-Adebayo of th…  498,922.79 NGN  Successful',
    );
    expect(linesOf(renderTable(LIST_TABLE, rows, plain, { width: 104 }))).toEqual([
      'TRANSACTION                         WALLET      RECIPIENT                             AMOUNT  STATUS',
      'TXN-BOK-FF051A7F00A49EB6AF225D10EA  5564222970  Chinedu Okafor-Adebayo of t…  498,922.79 NGN  Successful',
      'TXN-BOK-FF051A7F00A49EB6AF225D10EA  5564222970  山田太郎                        3,460.32 NGN  Failed',
    ]);
    expect(linesOf(renderTable(LIST_TABLE, rows, plain, { width: 85 }))[1]).toBe('TXN-BOK-FF051A7F00A49EB6AF225D10EA  5564222970  Chinedu…   498,922.79 NGN  Successful');
    expect(linesOf(renderTable(LIST_TABLE, rows, plain, { width: 84 }))[1]).toBe('TXN-BOK-FF051A7F00A49EB6AF225D10EA  Chinedu Okafor-Adeb…  498,922.79 NGN  Successful');
  });

  it('at 80 a table: the transaction id whole (what payout get takes), the recipient cut, the amount and status whole', () => {
    const out = renderTable(LIST_TABLE, rows, plain, { width: 80 });
    expect(linesOf(out)).toEqual([
      'TRANSACTION                         RECIPIENT                 AMOUNT  STATUS',
      'TXN-BOK-FF051A7F00A49EB6AF225D10EA  Chinedu Okafor-…  498,922.79 NGN  Successful',
      'TXN-BOK-FF051A7F00A49EB6AF225D10EA  山田太郎            3,460.32 NGN  Failed',
    ]);
    expect(widest(out)).toBe(80);
  });

  it('at 62 the recipient is left out too; at 60 not even the transaction id, amount and status fit: a card per payout, every ID whole', () => {
    expect(linesOf(renderTable(LIST_TABLE, rows, plain, { width: 62 }))).toEqual([
      'TRANSACTION                                 AMOUNT  STATUS',
      'TXN-BOK-FF051A7F00A49EB6AF225D10EA  498,922.79 NGN  Successful',
      'TXN-BOK-FF051A7F00A49EB6AF225D10EA    3,460.32 NGN  Failed',
    ]);
    const out = renderTable(LIST_TABLE, rows, plain, { width: 60 });
    expect(widest(out)).toBeLessThanOrEqual(60);
    const cards = out.split('\n\n');
    expect(cards).toHaveLength(2);
    expect(cards[0]).toBe(
      [
        'CREATED (UTC)  2026-11-19 12:19:25',
        'TRANSACTION    TXN-BOK-FF051A7F00A49EB6AF225D10EA',
        'WALLET         5564222970',
        `RECIPIENT      Chinedu Okafor-Adebayo of the Lagos State Ci…`,
        'AMOUNT         498,922.79 NGN',
        'STATUS         Successful',
      ].join('\n'),
    );
    expect(cards[1]).toContain('RECIPIENT      山田太郎\n');
  });

  it('--all at 80: the first page fixes the layout, later pages line up; a wider amount on a later page is never cut', () => {
    const t = new StreamedTable(LIST_TABLE, plain, 80);
    const first = t.page(rows);
    const later = t.page([payoutRow(record('Ama', '1,234,567,890.12', 'pending'), plain)]);
    expect(linesOf(first)[0]).toBe('TRANSACTION                         RECIPIENT                 AMOUNT  STATUS');
    expect(later).toBe('TXN-BOK-FF051A7F00A49EB6AF225D10EA  Ama               1,234,567,890.12 NGN  Pending\n');
  });
});

describe('columns giving way (giveWay): left out, or moved under another column', () => {
  const cols: Column[] = [
    { header: 'TIME', giveWay: { step: 2 } },
    { header: 'ID' },
    { header: 'REF', giveWay: { step: 1, under: 'ID' } },
    { header: 'NAME', minWidth: 5, giveWay: { step: 3, under: 'TIME' } },
    { header: 'AMOUNT', align: 'right' },
    { header: 'OUTCOME', giveWay: { step: 4, under: 'AMOUNT' } },
  ];
  const rows = [
    ['2026-11-19 12:19:25', 'pay-0001', 'TXN-1', 'Aminata Kamara', '1,500.50 SLE', 'accepted'],
    ['2026-11-19 12:19:26', 'pay-0002', '', 'Bo', '12.00 SLE', 'unknown'],
  ];

  it('with room, every column beside the others; the text is cut (to its minimum) before any column gives way', () => {
    const full = renderTable(cols, rows, plain, { width: 200 });
    expect(full).toBe(renderTable(cols, rows, plain));
    expect(linesOf(full)[1]).toBe('2026-11-19 12:19:25  pay-0001  TXN-1  Aminata Kamara  1,500.50 SLE  accepted');
    expect(linesOf(renderTable(cols, rows, plain, { width: 72 }))[1]).toBe('2026-11-19 12:19:25  pay-0001  TXN-1  Aminata K…  1,500.50 SLE  accepted');
    expect(linesOf(renderTable(cols, rows, plain, { width: 71 }))[1]).toBe('2026-11-19 12:19:25  pay-0001  TXN-1  Aminata…   1,500.50 SLE  accepted');
  });

  it('step by step, in the order of the steps: the text full width again after each', () => {
    // Step 1: REF under ID (a second line of each row); the name has more room again.
    expect(renderTable(cols, rows, plain, { width: 65 })).toBe(
      [
        'TIME                 ID        NAME              AMOUNT  OUTCOME',
        '                     REF',
        '2026-11-19 12:19:25  pay-0001  Aminata K…  1,500.50 SLE  accepted',
        '                     TXN-1',
        '2026-11-19 12:19:26  pay-0002  Bo             12.00 SLE  unknown',
        '',
      ].join('\n'),
    );
    // Step 2: TIME left out; step 3 moves NAME under TIME, which is gone: NAME is left out too.
    expect(linesOf(renderTable(cols, rows, plain, { width: 50 }))).toEqual([
      'ID        NAME                  AMOUNT  OUTCOME',
      'REF',
      'pay-0001  Aminata Kamara  1,500.50 SLE  accepted',
      'TXN-1',
      'pay-0002  Bo                 12.00 SLE  unknown',
    ]);
    // Step 4: OUTCOME under AMOUNT, aligned as its own column (left), the amount right.
    expect(linesOf(renderTable(cols, rows, plain, { width: 30 }))).toEqual(linesOf(renderTable(cols, rows, plain, { width: 24 })));
    expect(linesOf(renderTable(cols, rows, plain, { width: 24 }))).toEqual([
      'ID              AMOUNT',
      'REF       OUTCOME',
      'pay-0001  1,500.50 SLE',
      'TXN-1     accepted',
      'pay-0002     12.00 SLE',
      '          unknown',
    ]);
  });

  it('when every step taken cannot fit: a card per row with every column; only what a table may cut is cut (the time overflows)', () => {
    const out = renderTable(cols, rows, plain, { width: 21 });
    expect(out.split('\n\n')[0]).toBe(
      ['TIME     2026-11-19 12:19:25', 'ID       pay-0001', 'REF      TXN-1', 'NAME     Aminata Kam…', 'AMOUNT   1,500.50 SLE', 'OUTCOME  accepted'].join('\n'),
    );
    // A transaction id wider than a card's room is whole (it wraps at the terminal), never cut.
    const id = 'TXN-BOK-19D76B26EF9AC60FCC66D7E410';
    expect(renderCards([{ header: 'TRANSACTION' }, { header: 'NAME', minWidth: 4 }], [[id, 'Aminata Kamara-Sesay of Freetown']], plain, 30)).toBe(
      `TRANSACTION  ${id}\nNAME         Aminata Kamara-S…\n`,
    );
    expect(out.split('\n\n')[1]).toContain('REF\nNAME     Bo\n');
  });

  it('a column moved under another is cut to that column as it would be alone, never below its minimum; a column that may not be cut is never cut', () => {
    const c: Column[] = [{ header: 'TIME' }, { header: 'ID' }, { header: 'NAME', minWidth: 5, giveWay: { step: 1, under: 'TIME' } }];
    const out = renderTable(c, [['2026-11-19 12:19:25', 'TXN-BOK-FF051A7F00A49EB6AF225D10EA', 'A recipient name longer than the time']], plain, { width: 56 });
    // The room left beside the id (56 - 34 - 2 = 20) is the name's: the time is padded to it.
    expect(linesOf(out)).toEqual(['TIME                  ID', 'NAME', '2026-11-19 12:19:25   TXN-BOK-FF051A7F00A49EB6AF225D10EA', 'A recipient name lo…']);
    expect(widest(out)).toBe(56);
    expect(renderTable(c, [['2026-11-19 12:19:25', 'TXN-BOK-FF051A7F00A49EB6AF225D10EA', 'A recipient name longer than the time']], plain, { width: 54 })).toMatch(
      /^TIME {2}2026-11-19 12:19:25\n/,
    );
  });

  it('renderLine: one row as one line, its empty cells taking no room; columns left out to fit; undefined when it cannot be one line', () => {
    const line: Column[] = [{ header: 'TIME', giveWay: { step: 1 } }, { header: 'EVENT', minWidth: 6 }, { header: 'ID' }, { header: 'MARK' }];
    const cells = ['12:00:00', 'transfer.success', 'TXN-1', ''];
    expect(renderLine(line, cells, plain, undefined)).toBe('12:00:00  transfer.success  TXN-1');
    expect(renderLine(line, cells, plain, 33)).toBe('12:00:00  transfer.success  TXN-1');
    expect(renderLine(line, cells, plain, 32)).toBe('12:00:00  transfer.succe…  TXN-1');
    expect(renderLine(line, cells, plain, 23)).toBe('12:00:00  trans…  TXN-1');
    // The time is left out only when the event cut to its minimum is not enough: the event has room again.
    expect(renderLine(line, cells, plain, 22)).toBe('transfer.succe…  TXN-1');
    expect(renderLine(line, cells, plain, 20)).toBe('transfer.suc…  TXN-1');
    expect(renderLine(line, cells, plain, 12)).toBeUndefined();
    // A column that would move under another makes two lines: not a line.
    expect(renderLine([{ header: 'A' }, { header: 'B', giveWay: { step: 1, under: 'A' } }], ['aaaa', 'bbbb'], plain, 6)).toBeUndefined();
  });
});

describe('wrapSegments: a line of parts fitted to a terminal, nothing cut', () => {
  const parts = ['  row 3: 0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e  1,500.50 SLE', 'from 5564222970', 'to Aminata Kamara (wallet, orange_money 076123456, +23276123456)'];

  it('one line when it fits or off a terminal; else broken between parts, later lines indented; a part too long broken at its spaces', () => {
    expect(wrapSegments(parts, undefined)).toBe(parts.join(' '));
    expect(wrapSegments(parts, 200)).toBe(parts.join(' '));
    expect(wrapSegments(parts, 80)).toBe(
      '  row 3: 0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e  1,500.50 SLE from 5564222970\n    to Aminata Kamara (wallet, orange_money 076123456, +23276123456)',
    );
    const at60 = wrapSegments(parts, 60);
    expect(at60).toBe(
      [
        '  row 3: 0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e  1,500.50 SLE',
        '    from 5564222970',
        '    to Aminata Kamara (wallet, orange_money 076123456,',
        '    +23276123456)',
      ].join('\n'),
    );
    expect(widest(at60)).toBeLessThanOrEqual(60);
    expect(at60.replace(/\n\s+/g, ' ')).toBe(parts.join(' '));
  });
});

describe('fitHelpText: help written at about 100 columns, shown at the terminal width', () => {
  const help = [
    'Filters are applied by payctl to every record it reads: the service is asked only for pages',
    '(page, per_page) and never trusted to filter.',
    'Exit codes: 0 sent, 1 refused by the service, 2 bad input (nothing sent), 3 not logged in.',
    '',
    'A sample:',
    '  wallet_id,amount,currency,type,name,provider,account_number,phone_number',
    '',
    'Examples:',
    '  $ payctl payout create --wallet 5564222970 --amount 1500.50 --name "Aminata Kamara" --yes \\',
    '      --provider orange_money',
    '  $ payctl payout create          # asks for everything at a terminal',
    '  $ payctl payouts list --all --csv > november.csv',
  ].join('\n');

  it('what fits is kept as written; a paragraph too wide is joined and wrapped, a new sentence keeps its line', () => {
    expect(fitHelpText(help, 100)).toBe(help);
    const at60 = fitHelpText(help, 60);
    expect(at60.split('\n').slice(0, 6)).toEqual([
      'Filters are applied by payctl to every record it reads: the',
      'service is asked only for pages (page, per_page) and never',
      'trusted to filter.',
      'Exit codes: 0 sent, 1 refused by the service, 2 bad input',
      '(nothing sent), 3 not logged in.',
      '',
    ]);
  });

  it('a sample (an indented line) is kept as written, to be copied; an example is wrapped between words as a shell reads it', () => {
    const at60 = fitHelpText(help, 60);
    expect(at60).toContain('\n  wallet_id,amount,currency,type,name,provider,account_number,phone_number\n');
    expect(at60).toContain(
      [
        '  $ payctl payout create --wallet 5564222970 \\',
        '      --amount 1500.50 --name "Aminata Kamara" --yes \\',
        '      --provider orange_money',
        '  $ payctl payout create',
        '      # asks for everything at a terminal',
        '  $ payctl payouts list --all --csv > november.csv',
      ].join('\n'),
    );
    // A comment that does not fit goes on a line of its own (after a complete command: no ` \`).
    expect(fitHelpText('  $ payctl payout create          # asks for everything at a terminal', 40)).toBe(
      '  $ payctl payout create\n      # asks for everything at a\n      # terminal',
    );
    // A redirection stays beside its file.
    expect(fitHelpText('  $ payctl payouts list --all --csv > november.csv', 40)).toBe('  $ payctl payouts list --all --csv \\\n      > november.csv');
  });
});

function group(walletId: string, walletName: string | undefined, totalMinor: bigint, balanceMinor: bigint | undefined): PlanGroup {
  return {
    walletId,
    walletName,
    currency: 'SLE',
    digits: 2,
    count: 200,
    totalMinor,
    balanceMinor,
    short: balanceMinor !== undefined && balanceMinor < totalMinor,
    missingWallet: false,
    currencyMismatch: false,
  };
}

describe('the batch plan at a terminal', () => {
  const groups = [
    group('wal_a08ff49b6f772632', 'Freetown Operations and Logistics Department', 4_321_000n, 90_000_000_000n),
    group('wal_c43069c43a8c3b7c', '山田太郎の給与口座', 99_999_999_00n, 16_397_287_67n),
  ];

  it('without a width it is the full table; at 200 columns the same', () => {
    const full = renderPlan(groups, plain);
    expect(full).toContain('Freetown Operations and Logistics Department');
    expect(renderPlan(groups, plain, 200)).toBe(full);
  });

  for (const width of [120, 100, 80, 60]) {
    it(`at ${width} columns every line fits, amounts whole, the prose wrapped`, () => {
      const out = renderPlan(groups, plain, width);
      expect(widest(out)).toBeLessThanOrEqual(width);
      for (const a of ['43,210.00', '900,000,000.00', '899,956,790.00', '99,999,999.00', '16,397,287.67', '-83,602,711.33']) expect(out).toContain(a);
      // The wallet ids whole above the warnings, in a table row or a card (a person copies them into --wallet).
      const table = out.slice(0, out.indexOf('Warning:')).split('\n');
      for (const id of ['wal_a08ff49b6f772632', 'wal_c43069c43a8c3b7c']) expect(table.filter((l) => new RegExp(`(^|\\s)${id}(\\s|$)`).test(l))).toHaveLength(1);
      // The warning and the note, wrapped: the same words.
      const prose = out.slice(out.indexOf('Warning:')).replace(/\n/g, ' ');
      expect(prose).toContain('Warning: wallet wal_c43069c43a8c3b7c would go short: it holds 16,397,287.67 SLE but the payouts total 99,999,999.00 SLE before fees.');
      expect(prose).toContain('Total SLE: 100,043,209.00 in 400 payouts from 2 wallets, before fees.');
      expect(prose).toContain("Fees: charged by the service per payout, not known before sending; each accepted payout's fee is in the report.");
    });
  }

  it('at 120 a table with the long name cut; at 80 a card per wallet (the name whole); at 60 cards with the name cut', () => {
    const wide = linesOf(renderPlan(groups, plain, 120));
    expect(wide.slice(0, 3)).toEqual([
      'WALLET                NAME                         CURRENCY  PAYOUTS          TOTAL         BALANCE  AFTER (before fees)',
      'wal_a08ff49b6f772632  Freetown Operations and Lo…  SLE           200      43,210.00  900,000,000.00       899,956,790.00',
      'wal_c43069c43a8c3b7c  山田太郎の給与口座           SLE           200  99,999,999.00   16,397,287.67       -83,602,711.33',
    ]);
    expect(renderPlan(groups, plain, 80)).toContain(
      [
        'WALLET               wal_a08ff49b6f772632',
        'NAME                 Freetown Operations and Logistics Department',
        'CURRENCY             SLE',
        'PAYOUTS              200',
        'TOTAL                43,210.00',
        'BALANCE              900,000,000.00',
        'AFTER (before fees)  899,956,790.00',
        '',
        'WALLET               wal_c43069c43a8c3b7c',
      ].join('\n'),
    );
    const narrow = renderPlan(groups, plain, 60);
    expect(narrow).toContain('NAME                 Freetown Operations and Logistics Depa…\n');
    expect(narrow).toContain('Warning: wallet wal_c43069c43a8c3b7c would go short: it\nholds 16,397,287.67 SLE but the payouts total 99,999,999.00\nSLE before fees.\n');
  });
});

describe("the batch plan with the service's 10-digit wallet ids", () => {
  it('at 80 a table: the wallet ids whole, the long name cut to its minimum, the amounts whole', () => {
    const groups = [group('5564222970', 'Payroll of the Western Area Rural District Council, Waterloo', 3606n, 24_994_948n)];
    const lines = linesOf(renderPlan(groups, plain, 80));
    expect(lines.slice(0, 2)).toEqual([
      'WALLET      NAME       CURRENCY  PAYOUTS  TOTAL     BALANCE  AFTER (before fees)',
      '5564222970  Payroll…   SLE           200  36.06  249,949.48           249,913.42',
    ]);
    expect(displayWidth(lines[0]!)).toBe(80);
  });
});

const parts = (n: { total: number; finished: number; done: number; failed: number; unknown?: number; inFlight: number }): BarPart[] => [
  { text: `${n.finished}/${n.total}` },
  { text: `${n.done} done`, drop: 4 },
  { text: `${n.failed} failed` },
  ...(n.unknown ? [{ text: `${n.unknown} unknown` }] : []),
  { text: `${n.inFlight} in flight`, drop: 2 },
  { text: '35.2/s', drop: 1 },
  { text: '~3s left', drop: 3 },
];

describe('the progress bar laid out to the terminal', () => {
  const p = parts({ total: 200, finished: 120, done: 118, failed: 2, inFlight: 4 });

  it('unknown width and 200 columns: the full line, a 24-cell bar', () => {
    const full = `batch default [${'█'.repeat(14)}${'░'.repeat(10)}] 120/200 · 118 done · 2 failed · 4 in flight · 35.2/s · ~3s left`;
    expect(barLine('batch default', 0.6, p)).toBe(full);
    expect(barLine('batch default', 0.6, p, 200)).toBe(full);
  });

  it('80 columns: the rate and in flight go rather than a bar under 10 cells; the line stays under 80', () => {
    const line = barLine('batch default', 0.6, p, 80);
    expect(line).toBe(`batch default [${'█'.repeat(13)}${'░'.repeat(9)}] 120/200 · 118 done · 2 failed · ~3s left`);
    expect(displayWidth(line)).toBe(79);
  });

  it('60 columns: then in flight and time left go; the failed count always stays', () => {
    const line = barLine('batch default', 0.6, p, 60);
    expect(line).toBe(`batch default [${'█'.repeat(8)}${'░'.repeat(5)}] 120/200 · 118 done · 2 failed`);
    expect(displayWidth(line)).toBeLessThanOrEqual(59);
    const withUnknown = barLine('batch default', 0.6, parts({ total: 200, finished: 120, done: 116, failed: 2, unknown: 2, inFlight: 4 }), 60);
    expect(withUnknown).toContain('2 failed · 2 unknown');
    expect(displayWidth(withUnknown)).toBeLessThanOrEqual(59);
  });

  it('a long label (a batch id) is cut to a third of the line; very narrow: no bar, the counts cut to fit', () => {
    const label = `batch ${'payroll-'.repeat(20)}`;
    const line = barLine(label, 0.5, p, 80);
    expect(displayWidth(line)).toBeLessThanOrEqual(79);
    expect(line).toBe(`batch payroll-payroll-pay… [${'█'.repeat(10)}${'░'.repeat(10)}] 120/200 · 118 done · 2 failed`);
    expect(barLine(label, 0.5, p, 30)).toBe('batch pay… 120/200 · 2 failed');
    expect(barLine(label, 0.5, p, 12)).toBe('120/200 ·…');
    for (let w = 2; w <= 200; w++) expect(displayWidth(barLine(label, 0.5, p, w)), `at ${w}`).toBeLessThan(w);
  });
});

class Sink extends Writable {
  readonly writes: string[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.writes.push(chunk.toString());
    cb();
  }
}

describe('Progress and LiveLine follow the terminal width at each redraw', () => {
  const T0 = new Date('2026-03-01T12:00:00.000Z');
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  it('a 200-row run redrawn at 80, then 60 columns (resized): each redraw one line narrower than the screen', () => {
    const out = new Sink();
    let columns = 80;
    const p = new Progress(out, true, 100, 'batch default', () => columns);
    for (let k = 1; k <= 200; k++) {
      if (k === 100) columns = 60;
      vi.setSystemTime(T0.getTime() + k * 110);
      p.update({ total: 200, done: k, failed: 0, unknown: 0, inFlight: 4 });
    }
    p.finish({ total: 200, done: 198, failed: 2, unknown: 0, inFlight: 0 });
    const draws = out.writes.filter((w) => w !== '\n');
    expect(draws).toHaveLength(201);
    for (const [i, d] of draws.entries()) {
      expect(d.startsWith('\r\u001b[2K')).toBe(true);
      const line = d.slice(5);
      expect(line).not.toContain('\n');
      expect(displayWidth(line)).toBeLessThan(i < 99 ? 80 : 60);
    }
    expect(draws.at(-1)).toBe(`\r\u001b[2Kbatch default [${'█'.repeat(13)}] 200/200 · 198 done · 2 failed`);
    expect(out.writes.at(-1)).toBe('\n');
  });

  it('LiveLine cuts a longer line with …; without a width it writes the line as it is', () => {
    const out = new Sink();
    new LiveLine(out, true, () => 20).set('Waiting for payout 1de0b5d7-da26-4005-bc25-b3130cd2b3b2: Pending (12 s)');
    expect(out.writes).toEqual(['\r\u001b[2KWaiting for payout…']);
    const all = new Sink();
    new LiveLine(all, true).set('Waiting for payout 1de0b5d7-da26-4005-bc25-b3130cd2b3b2: Pending (12 s)');
    expect(all.writes).toEqual(['\r\u001b[2KWaiting for payout 1de0b5d7-da26-4005-bc25-b3130cd2b3b2: Pending (12 s)']);
  });
});

describe('ioFrom: the width comes from the terminal streams', () => {
  const stream = (isTTY: boolean, columns?: number) => Object.assign(new PassThrough(), { isTTY, columns });
  const io = (stdout: ReturnType<typeof stream>, stderr: ReturnType<typeof stream>) =>
    ioFrom(
      { stdin: stream(false), stdout, stderr },
      { json: false, noInput: false },
      () => false,
      (s) => s,
    );

  it('a terminal gives its columns, read at each use (a resize is followed); a pipe gives none', () => {
    const out = stream(true, 80);
    const err = stream(true, 60);
    const x = io(out, err);
    expect(x.stdoutColumns).toBe(80);
    expect(x.stderrColumns).toBe(60);
    out.columns = 100;
    expect(x.stdoutColumns).toBe(100);
    const piped = io(stream(false, 80), stream(false));
    expect(piped.stdoutColumns).toBeUndefined();
    expect(piped.stderrColumns).toBeUndefined();
    expect(io(stream(true, 0), stream(true)).stdoutColumns).toBeUndefined();
  });
});
