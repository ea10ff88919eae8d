import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { plainCsv } from '../../src/payouts/plain-csv.js';
import { parseBatchFile } from '../../src/payouts/batch-file.js';

/** What csv-parse reads, with the options batch-file.ts gives it: the header's fields and each record's values and blank-line count. */
function csvParse(bytes: Buffer): { header: string[]; records: Array<{ values: string[]; emptyLines: number }> } {
  let header: string[] = [];
  const out: Array<{ record: Record<string, string>; info: { empty_lines: number } }> = parse(bytes, {
    bom: true,
    columns: (h: string[]) => {
      header = h;
      // Unique names, so that every field is kept in the record: the values are compared in order.
      return h.map((_, i) => `c${i}`);
    },
    skip_empty_lines: true,
    trim: false,
    info: true,
  });
  return { header, records: out.map((r) => ({ values: Object.values(r.record), emptyLines: r.info.empty_lines })) };
}

/** What plainCsv reads of a file it reads to the end (undefined when it leaves any of it to csv-parse). */
function plain(bytes: Buffer) {
  const p = plainCsv(bytes);
  const records = p && [...p.records()];
  return p && !p.rest ? { header: p.header, records } : undefined;
}

/** A small deterministic random generator (the same files every run). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

const PIECES = ['a', 'Z', '0', '9', ' ', '.', '-', '+', '_', 'é', 'ß', '中', '😀', '\t', ';', "'", '\\', '=', '@', 'x y'];

function field(r: () => number): string {
  const n = Math.floor(r() * 6);
  let s = '';
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

describe('plain CSV files are read as csv-parse reads them', () => {
  it('gives the same header, records and blank-line counts on 600 generated files (LF and CRLF, BOM, blank lines, empty and unicode fields, with or without a final line ending)', () => {
    const r = rng(20261125);
    let compared = 0;
    for (let n = 0; n < 600; n++) {
      const eol = r() < 0.5 ? '\n' : '\r\n';
      const cols = 1 + Math.floor(r() * 6);
      const lines: string[] = [Array.from({ length: cols }, () => field(r) || 'h').join(',')];
      const rows = Math.floor(r() * 8);
      for (let i = 0; i < rows; i++) {
        while (r() < 0.2) lines.push('');
        // With one column an empty field would be a blank line: each is given a value.
        lines.push(Array.from({ length: cols }, () => field(r) || (cols === 1 ? 'v' : '')).join(','));
      }
      const text = (r() < 0.2 ? '\uFEFF' : '') + lines.join(eol) + (r() < 0.7 ? eol : '') + (r() < 0.1 ? eol : '');
      const bytes = Buffer.from(text, 'utf8');
      const want = csvParse(bytes);
      const got = plain(bytes);
      expect(got, JSON.stringify(text)).toBeDefined();
      expect(got, JSON.stringify(text)).toEqual(want);
      compared++;
    }
    expect(compared).toBe(600);
  });

  it.each([
    ['a quoted field', 'a,b\n"1",2\n'],
    ['a quote inside a field', 'a,b\n1"x,2\n'],
    ['LF after CRLF', 'a,b\r\n1,2\n3,4\r\n'],
    ['CRLF after LF', 'a,b\n1,2\r\n3,4\n'],
    ['a lone CR', 'a,b\r1,2\r'],
    ['a blank first line', '\na,b\n1,2\n'],
    ['an empty file', ''],
    ['a byte order mark alone', '\uFEFF'],
  ])('leaves %s to csv-parse', (_what, text) => {
    expect(plainCsv(Buffer.from(text, 'utf8'))).toBeUndefined();
  });

  it.each([
    ['a row with a field too many', 'a,b\n1,2\n3,4,5\n6,7\n'],
    ['a row with a field too few', 'a,b\n1,2\n3\n6,7\n'],
    ['a line of spaces', 'a,b\n1,2\n  \n6,7\n'],
  ])('reads the records before %s, then stops and leaves the rest to csv-parse', (_what, text) => {
    const p = plainCsv(Buffer.from(text, 'utf8'))!;
    expect([...p.records()]).toEqual([{ values: ['1', '2'], emptyLines: 0 }]);
    expect(p.rest).toBe(true);
  });

  it('counts the fields of a file of one column in linear time: 200,000 lines without a comma in well under a second of CPU', async () => {
    const { cpuMs } = await import('../helpers/cpu.js');
    // Each line's comma count was a search from the line to the next comma in the file: the
    // file's end, when there is none (100 billion bytes read for these 200,000 lines: 3 s).
    const text = 'amount\n' + '1.00\n'.repeat(200_000);
    const before = cpuMs();
    const p = plainCsv(Buffer.from(text))!;
    let n = 0;
    for (const _ of p.records()) n++;
    const ms = cpuMs() - before;
    expect(n).toBe(200_000);
    expect(ms).toBeLessThan(1000);
    expect(p.rest).toBe(false);
  });

  it('a file read by both: rows before the odd line come once, and csv-parse words the error', async () => {
    const head = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note';
    const good = 'p-1,wal_1,10.50,SLE,bank,Ada,uba,0761,,';
    const text = `${head}\n${good}\n${good.replace('p-1', 'p-2')},extra\n`;
    const p = plainCsv(Buffer.from(text))!;
    expect([...p.records()].map((x) => x.values[0])).toEqual(['p-1']);
    expect(p.rest).toBe(true);
    const r = await parseBatchFile('x.csv', text);
    expect(r.rows.map((x) => x.fields.payoutId)).toEqual(['p-1']);
    expect(r.problems).toHaveLength(1);
    // Said plainly, never in csv-parse's own words.
    expect(r.problems[0]).toBe('the file is not valid CSV: line 3 has 11 cells, but the header row has 10');
  });

  it('leaves a file that is not UTF-8 to csv-parse', () => {
    expect(plainCsv(Buffer.from([0x61, 0x2c, 0x62, 0x0a, 0xff, 0x2c, 0x31, 0x0a]))).toBeUndefined();
  });

  it('reads a batch file the same way whichever reads it: the same rows, row numbers and problems', async () => {
    const head = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note,metadata.ref,name';
    const body = [
      'p-1,wal_1,10.50,SLE,wallet,Ada,orange_money,0761,+23276000001,Nov,r1,Ada L',
      '',
      'p-2,wal_1,1.00,SLE,bank,Bo,,0762,,,r2,Bo',
      '',
      '',
      'p-3,wal_1,abc,SLE,wallet,Cy,africell,0763,+23276000003,,r3,Cy',
    ];
    const plainText = [head, ...body].join('\r\n') + '\r\n';
    // The same rows with one cell quoted: csv-parse reads that file.
    const quotedText = plainText.replace('Ada L', '"Ada L"');
    expect(plainCsv(Buffer.from(plainText))).toBeDefined();
    expect(plainCsv(Buffer.from(quotedText))).toBeUndefined();
    const a = await parseBatchFile('x.csv', plainText);
    const b = await parseBatchFile('x.csv', quotedText);
    expect(a).toEqual(b);
    expect(a.rows.map((r) => r.row)).toEqual([2, 4, 7]);
    expect(a.problems).toEqual(['the header row has the column "name" more than once']);
  });
});
