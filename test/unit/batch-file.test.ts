import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { COLUMNS, formatOf, parseBatchFile, type BatchRow } from '../../src/payouts/batch-file.js';

const HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note';
const UNKNOWN = (row: number, col: string) =>
  `row ${row}: unknown column "${col}" (columns: payout_id, wallet_id, amount, currency, type, name, provider, account_number, phone_number, note, metadata.<key>)`;

/** The documented derivation: sha256("<file name>\n<row>\n<sorted [column, value] pairs as JSON>"). */
function expectedId(fileName: string, row: number, values: Record<string, string>): string {
  const canon = JSON.stringify(
    Object.keys(values)
      .sort()
      .map((k) => [k, values[k]]),
  );
  return `batch-${createHash('sha256').update(`${fileName}\n${row}\n${canon}`).digest('hex').slice(0, 24)}`;
}

const legacyIds = (rows: BatchRow[]) => rows.map((r) => r.legacyId);

describe('parseBatchFile: CSV', () => {
  it('reads rows with spreadsheet row numbers (header = row 1), leaving empty cells out', async () => {
    const csv =
      `${HEADER}\n` +
      'p-1,wal_1,1500.50,SLE,wallet,Aminata Kamara,orange_money,076123456,+23276123456,October stipend\n' +
      'p-2,wal_2,2500.75,NGN,bank,Chinedu Okafor,uba,0123456789,,\n';
    const r = await parseBatchFile('payouts.csv', csv);
    expect(r.format).toBe('csv');
    expect(r.problems).toEqual([]);
    expect(r.rows).toEqual([
      {
        row: 2,
        derivedId: false,
        fields: {
          payoutId: 'p-1',
          walletId: 'wal_1',
          amount: '1500.50',
          currency: 'SLE',
          type: 'wallet',
          name: 'Aminata Kamara',
          provider: 'orange_money',
          account: '076123456',
          phone: '+23276123456',
          note: 'October stipend',
        },
      },
      {
        row: 3,
        derivedId: false,
        fields: {
          payoutId: 'p-2',
          walletId: 'wal_2',
          amount: '2500.75',
          currency: 'NGN',
          type: 'bank',
          name: 'Chinedu Okafor',
          provider: 'uba',
          account: '0123456789',
        },
      },
    ]);
  });

  it('strips a BOM and reads CRLF line ends', async () => {
    const csv = `\uFEFF${HEADER}\r\np-1,wal_1,10,SLE,bank,A B,uba,123,,\r\n`;
    const r = await parseBatchFile('payouts.csv', csv);
    expect(r.problems).toEqual([]);
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]!.fields).toEqual({ payoutId: 'p-1', walletId: 'wal_1', amount: '10', currency: 'SLE', type: 'bank', name: 'A B', provider: 'uba', account: '123' });
  });

  it('reads quoted cells with commas, newlines and doubled quotes; a multi-line cell stays one row', async () => {
    const csv =
      `${HEADER}\n` + 'p-1,wal_1,1500.50,SLE,bank,"Kamara, Aminata",uba,123,,"line one\nline two"\n' + 'p-2,wal_1,1,SLE,bank,"O\'Brien ""Jr""",uba,456,,"a,b"\n';
    const r = await parseBatchFile('payouts.csv', csv);
    expect(r.problems).toEqual([]);
    expect(r.rows.map((x) => x.row)).toEqual([2, 3]);
    expect(r.rows[0]!.fields.name).toBe('Kamara, Aminata');
    expect(r.rows[0]!.fields.note).toBe('line one\nline two');
    expect(r.rows[1]!.fields.name).toBe('O\'Brien "Jr"');
    expect(r.rows[1]!.fields.note).toBe('a,b');
  });

  it("keeps spaces inside cells as given (an amount's at its ends dropped, for validation to drop the others') and trims header names", async () => {
    const csv = ' wallet_id , amount ,currency,type,name,provider,account_number\nwal_1, 10 ,SLE,bank, Zoë ,uba,1\n';
    const r = await parseBatchFile('p.csv', csv);
    expect(r.problems).toEqual([]);
    expect(r.rows[0]!.fields).toMatchObject({ walletId: 'wal_1', amount: '10', name: ' Zoë ' });
  });

  it('gathers metadata.<key> columns into metadata, leaving empty ones out', async () => {
    const csv =
      'wallet_id,amount,currency,type,name,provider,account_number,metadata.batch,metadata.ref\n' +
      'wal_1,10,SLE,bank,A,uba,1,oct-stipends,R=1\n' +
      'wal_1,11,SLE,bank,B,uba,2,,\n';
    const r = await parseBatchFile('p.csv', csv);
    expect(r.problems).toEqual([]);
    expect(r.rows[0]!.fields.metadata).toEqual({ batch: 'oct-stipends', ref: 'R=1' });
    expect(r.rows[1]!.fields).not.toHaveProperty('metadata');
  });

  it('names an unknown column once, not once per row', async () => {
    const csv = 'wallet_id,amount,currency,type,name,provider,account_number,colour\nwal_1,10,SLE,bank,A,uba,1,red\nwal_1,11,SLE,bank,B,uba,2,\n';
    const r = await parseBatchFile('p.csv', csv);
    expect(r.problems).toEqual([UNKNOWN(2, 'colour').replace(/^row 2: /, '')]);
    expect(r.rows).toHaveLength(2);
  });

  it('lists every missing required header column', async () => {
    const r = await parseBatchFile('p.csv', 'wallet_id,amount,phone_number\nwal_1,10,076\n');
    expect(r.problems).toEqual(['the header row lacks columns currency, type, name, provider, account_number']);
    const one = await parseBatchFile('p.csv', 'wallet_id,amount,currency,type,name,provider\nwal_1,10,SLE,bank,A,uba\n');
    expect(one.problems).toEqual(['the header row lacks column account_number']);
  });

  it('needs neither payout_id, phone_number nor note in the header', async () => {
    const r = await parseBatchFile('p.csv', 'wallet_id,amount,currency,type,name,provider,account_number\nwal_1,10,SLE,bank,A,uba,1\n');
    expect(r.problems).toEqual([]);
    expect(r.rows[0]!.derivedId).toBe(true);
  });

  it.each([
    ['an empty file', ''],
    ['only a BOM', '\uFEFF'],
    ['blank lines', '\n\n\r\n'],
    ['only a header', `${HEADER}\n`],
  ])('reports no payout rows for %s', async (_what, content) => {
    expect(await parseBatchFile('p.csv', content)).toEqual({ rows: [], problems: ['the file has no payout rows'], format: 'csv' });
  });

  it('reports a file that is not valid CSV, and no rows', async () => {
    const r = await parseBatchFile('p.csv', `${HEADER}\np-1,wal_1,10,SLE,bank,A,uba,1,,,EXTRA\n`);
    expect(r.rows).toEqual([]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/^the file is not valid CSV: /);
    const quote = await parseBatchFile('p.csv', `${HEADER}\np-1,wal_1,10,SLE,bank,"unclosed,uba,1,,\n`);
    expect(quote.problems[0]).toMatch(/^the file is not valid CSV: /);
  });

  // Bug (src/payouts/batch-file.ts): skip_empty_lines drops a blank line from the count, so every
  // row after it gets a row number one too low; a spreadsheet (and the JSON-lines reader, which
  // numbers by line) counts the blank line as a row. Errors then point at the wrong row.
  it('counts a blank line as a spreadsheet row when numbering the rows after it', async () => {
    const csv = `${HEADER}\np-1,wal_1,10,SLE,bank,A,uba,1,,\n\np-2,wal_1,11,SLE,bank,B,uba,2,,\n`;
    const r = await parseBatchFile('p.csv', csv);
    expect(r.problems).toEqual([]);
    expect(r.rows.map((x) => [x.fields.payoutId, x.row])).toEqual([
      ['p-1', 2],
      ['p-2', 4],
    ]);
  });

  it.each([
    ['plain', '\n'],
    ['CRLF and quoted', '\r\n'],
  ])('skips rows of separators only, as a spreadsheet saves them below its data (%s), and counts them as rows', async (_name, nl) => {
    const quoted = nl === '\r\n' ? '"p-3",wal_1,"12",SLE,bank,"C, Jr.",uba,3,,' : 'p-3,wal_1,12,SLE,bank,C,uba,3,,';
    const csv = [HEADER, 'p-1,wal_1,10,SLE,bank,A,uba,1,,', ',,,,,,,,,', ' , ,,,,,,,,', quoted, ',,,,,,,,,', ',,,,,,,,,', ''].join(nl);
    const r = await parseBatchFile('p.csv', csv);
    expect(r.problems).toEqual([]);
    expect(r.rows.map((x) => [x.fields.payoutId, x.row])).toEqual([
      ['p-1', 2],
      ['p-3', 5],
    ]);
  });

  it('"1,250" in a currency of three decimals is refused as ambiguous (1.250 or 1250); with two decimals it is 1250', async () => {
    const csv = [
      HEADER,
      'p-1,wal_1,"1,250",KWD,bank,A,uba,1,,',
      'p-2,wal_1,"1,250",SLE,bank,B,uba,2,,',
      'p-3,wal_1,"1,250.000",KWD,bank,C,uba,3,,',
      'p-4,wal_1,"12,500",bhd,bank,D,uba,4,,',
      '',
    ].join('\n');
    const r = await parseBatchFile('p.csv', csv);
    expect(r.rows.map((x) => [x.fields.payoutId, x.fields.amount])).toEqual([
      ['p-1', undefined],
      ['p-2', '1250'],
      ['p-3', '1250.000'],
      ['p-4', undefined],
    ]);
    expect(r.problems.join('\n')).toContain('"1,250" KWD could be 1.250 or 1250; write 1250 or 1.250');
    expect(r.problems.join('\n')).toContain('"12,500" BHD could be 12.500 or 12500');
    expect(r.problems.join('\n')).not.toContain('required');
  });

  it('a file of separator rows only has no payouts', async () => {
    const r = await parseBatchFile('p.csv', `${HEADER}\n,,,,,,,,,\n,,,,,,,,,\n`);
    expect(r.rows).toEqual([]);
    expect(r.problems.length).toBeGreaterThan(0);
  });
});

describe('parseBatchFile: JSON lines', () => {
  it('reads one object per line, numbers as exact decimals, nested metadata, line numbers as rows', async () => {
    const content =
      '{"payout_id":"p-1","wallet_id":"wal_1","amount":1500.50,"currency":"SLE","type":"wallet","name":"Aminata Kamara","provider":"orange_money","account_number":"076123456","phone_number":"+23276123456","metadata":{"batch":"oct","seq":5,"flag":true}}\n' +
      '\n' +
      '   \n' +
      '{"payout_id":"p-2","wallet_id":"wal_1","amount":0.1,"currency":"SLE","type":"bank","name":"B","provider":"uba","account_number":123,"note":null}\n';
    const r = await parseBatchFile('payouts.jsonl', content);
    expect(r.format).toBe('jsonl');
    expect(r.problems).toEqual([]);
    expect(r.rows).toEqual([
      {
        row: 1,
        derivedId: false,
        fields: {
          payoutId: 'p-1',
          walletId: 'wal_1',
          amount: '1500.5',
          currency: 'SLE',
          type: 'wallet',
          name: 'Aminata Kamara',
          provider: 'orange_money',
          account: '076123456',
          phone: '+23276123456',
          metadata: { batch: 'oct', seq: '5', flag: 'true' },
        },
      },
      {
        row: 4,
        derivedId: false,
        fields: { payoutId: 'p-2', walletId: 'wal_1', amount: '0.1', currency: 'SLE', type: 'bank', name: 'B', provider: 'uba', account: '123' },
      },
    ]);
  });

  it.each([
    [0.1, '0.1'],
    [0.3, '0.3'],
    [1500.5, '1500.5'],
    [1500, '1500'],
    [0.001, '0.001'],
    [123456789012345, '123456789012345'],
    [1234567890123.45, '1234567890123.45'],
  ])('keeps the JSON number %s as the decimal %s', async (n, expected) => {
    const r = await parseBatchFile('p.jsonl', JSON.stringify({ amount: n }));
    expect(r.rows[0]!.fields.amount).toBe(expected);
  });

  it('keeps 0.0000001 written in plain digits (JSON.stringify would write 1e-7) as the decimal 0.0000001', async () => {
    const r = await parseBatchFile('p.jsonl', '{"amount":0.0000001}\n');
    expect(r.rows[0]!.fields.amount).toBe('0.0000001');
  });

  it('keeps amount text from a JSON literal written with trailing zeros; an exponent is refused (issue 27)', async () => {
    const r = await parseBatchFile('p.jsonl', '{"amount":1500.50}\n{"amount":1.5e3}\n{"amount":"1500.50"}\n');
    // The refused row is not handed on to validation (which would add "amount is required").
    expect(r.rows.map((x) => [x.row, x.fields.amount])).toEqual([
      [1, '1500.5'],
      [3, '1500.50'],
    ]);
    expect(r.problems).toEqual(['row 2: "amount" is a number written with an exponent (as 1e3 is); write it in plain digits, e.g. 1000 or "1000.00"']);
  });

  // Bug (src/payouts/batch-file.ts, jsonValues): a JSON number is read into a binary float and
  // written back with String(n), which is exact only up to 15 significant digits. 99999999999990.01
  // becomes "99999999999990.02": the row silently pays another amount than the file says.
  it('never silently changes a JSON amount beyond 15 significant digits', async () => {
    const r = await parseBatchFile('p.jsonl', '{"wallet_id":"w","amount":99999999999990.01}\n');
    const amount = r.rows[0]?.fields.amount;
    // Either kept digit for digit, or refused with a problem naming the row.
    const exactOrRefused = amount === '99999999999990.01' || r.problems.some((p) => p.startsWith('row 1: '));
    expect({ amount, problems: r.problems, exactOrRefused }).toMatchObject({ exactOrRefused: true });
  });

  it('a JSON number a float would round is read as its own digits: 99.999999999999999 stays itself (never 100), metadata numbers too', async () => {
    const r = await parseBatchFile(
      'p.jsonl',
      '{"amount":99.999999999999999}\n{"amount":0.0049999999999999999}\n{"amount":"1","metadata":{"ref":12345678901234567890,"n":7}}\n',
    );
    expect(r.rows.map((x) => x.fields.amount)).toEqual(['99.999999999999999', '0.0049999999999999999', '1']);
    expect(r.rows[2]!.fields.metadata).toEqual({ ref: '12345678901234567890', n: '7' });
  });

  it('names invalid lines by line number and keeps reading', async () => {
    const content = '{"amount":"1"}\n{not json\n[1,2]\n"text"\n42\nnull\n{"amount":"2"}\n';
    const r = await parseBatchFile('p.jsonl', content);
    expect(r.problems).toEqual([
      "row 2: not valid JSON at column 2, the character 'n': expected property name or '}'",
      'row 3: not a JSON object',
      'row 4: not a JSON object',
      'row 5: not a JSON object',
      'row 6: not a JSON object',
    ]);
    expect(r.rows.map((x) => [x.row, x.fields.amount])).toEqual([
      [1, '1'],
      [7, '2'],
    ]);
  });

  it('refuses values that are neither strings nor numbers, and unknown keys', async () => {
    const r = await parseBatchFile('p.jsonl', '{"amount":true,"name":["A"],"colour":"red","metadata":"x"}\n');
    expect(r.problems).toEqual([
      'row 1: "amount" must be a string or a number',
      'row 1: "name" must be a string or a number',
      UNKNOWN(1, 'colour'),
      UNKNOWN(1, 'metadata'),
    ]);
  });

  it('strips a BOM and reads CRLF line ends', async () => {
    const r = await parseBatchFile('p.jsonl', '\uFEFF{"amount":"1"}\r\n{"amount":"2"}\r\n');
    expect(r.problems).toEqual([]);
    expect(r.rows.map((x) => [x.row, x.fields.amount])).toEqual([
      [1, '1'],
      [2, '2'],
    ]);
  });

  it('reports no payout rows for an empty or blank file', async () => {
    expect(await parseBatchFile('p.jsonl', '')).toEqual({ rows: [], problems: ['the file has no payout rows'], format: 'jsonl' });
    expect(await parseBatchFile('p.jsonl', '\n  \n')).toEqual({ rows: [], problems: ['the file has no payout rows'], format: 'jsonl' });
  });

  it('reports only the bad lines, not "no payout rows", when every line is bad', async () => {
    expect((await parseBatchFile('p.jsonl', '{bad\n')).problems).toEqual(["row 1: not valid JSON at column 2, the character 'b': expected property name or '}'"]);
  });
});

// Rows without payout_id get their id from identity.ts (test/unit/identity.test.ts). The id
// payctl 0.1 derived from the file name and row is still computed, as legacyId, so that a
// batch it sent is found in the journal and resumed rather than paid again.
describe('parseBatchFile: payctl 0.1 ids of rows without payout_id (legacyId)', () => {
  const CSV = 'wallet_id,amount,currency,type,name,provider,account_number\nwal_1,10,SLE,bank,A,uba,1\nwal_1,10,SLE,bank,A,uba,1\nwal_1,11,SLE,bank,A,uba,1\n';

  it('derives batch-<24 hex> from the file name, row and content, the same on every call', async () => {
    const a = await parseBatchFile('/data/oct/payouts.csv', CSV);
    const b = await parseBatchFile('/data/oct/payouts.csv', CSV);
    expect(legacyIds(a.rows)).toEqual(legacyIds(b.rows));
    expect(a.rows.every((r) => r.derivedId)).toBe(true);
    const values = { wallet_id: 'wal_1', amount: '10', currency: 'SLE', type: 'bank', name: 'A', provider: 'uba', account_number: '1' };
    // Pinned: a different derivation in a later version would make a resumed file pay twice.
    expect(a.rows[0]!.legacyId).toBe(expectedId('payouts.csv', 2, values));
    expect(a.rows[0]!.legacyId).toMatch(/^batch-[0-9a-f]{24}$/);
  });

  it('gives identical rows on different lines different ids, and changed content a different id', async () => {
    const r = await parseBatchFile('payouts.csv', CSV);
    const [x, y, z] = legacyIds(r.rows);
    expect(new Set([x, y, z]).size).toBe(3);
    const changed = await parseBatchFile('payouts.csv', CSV.replace('wal_1,10,SLE,bank,A,uba,1\nwal_1,11', 'wal_1,10,SLE,bank,A,uba,1\nwal_1,12'));
    expect(legacyIds(changed.rows).slice(0, 2)).toEqual([x, y]);
    expect(legacyIds(changed.rows)[2]).not.toBe(z);
  });

  it('depends on the file name but not its folder', async () => {
    const a = await parseBatchFile('/one/payouts.csv', CSV);
    const b = await parseBatchFile('two/payouts.csv', CSV);
    const c = await parseBatchFile('/one/payouts-2.csv', CSV);
    expect(legacyIds(b.rows)).toEqual(legacyIds(a.rows));
    expect(legacyIds(c.rows)[0]).not.toBe(legacyIds(a.rows)[0]);
  });

  it('does not depend on the order of the columns', async () => {
    const a = await parseBatchFile('p.csv', 'wallet_id,amount,currency,type,name,provider,account_number\nwal_1,10,SLE,bank,A,uba,1\n');
    const b = await parseBatchFile('p.csv', 'account_number,provider,name,type,currency,amount,wallet_id\n1,uba,A,bank,SLE,10,wal_1\n');
    expect(legacyIds(b.rows)).toEqual(legacyIds(a.rows));
  });

  it('derives JSON-lines ids the same way, from line number and values', async () => {
    const line = '{"wallet_id":"wal_1","amount":1500.5,"currency":"SLE","metadata":{"batch":"oct"}}';
    const r = await parseBatchFile('p.jsonl', `${line}\n${line}\n`);
    expect(legacyIds(r.rows)).toEqual([
      expectedId('p.jsonl', 1, { wallet_id: 'wal_1', amount: '1500.5', currency: 'SLE', 'metadata.batch': 'oct' }),
      expectedId('p.jsonl', 2, { wallet_id: 'wal_1', amount: '1500.5', currency: 'SLE', 'metadata.batch': 'oct' }),
    ]);
    expect((await parseBatchFile('p.jsonl', `${line}\n`)).rows[0]!.legacyId).toBe(legacyIds(r.rows)[0]);
  });

  // Guards the fix of the blank-line bug above: the derived id must keep using the record's
  // position (header = 2, blank lines not counted), or a file resumed after an upgrade would
  // get new ids for the rows after a blank line and pay them a second time.
  it('keeps the derived id of a row after a blank line unchanged (blank lines not counted)', async () => {
    const csv = 'wallet_id,amount,currency,type,name,provider,account_number\nwal_1,10,SLE,bank,A,uba,1\n\nwal_1,11,SLE,bank,B,uba,2\n';
    const r = await parseBatchFile('p.csv', csv);
    expect(legacyIds(r.rows)[1]).toBe(
      expectedId('p.csv', 3, { wallet_id: 'wal_1', amount: '11', currency: 'SLE', type: 'bank', name: 'B', provider: 'uba', account_number: '2' }),
    );
  });

  it('keeps an explicit payout_id and marks it as given', async () => {
    const csv = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number\nmy-id-1,wal_1,10,SLE,bank,A,uba,1\n,wal_1,10,SLE,bank,A,uba,1\n';
    const r = await parseBatchFile('p.csv', csv);
    expect(r.rows[0]!.fields.payoutId).toBe('my-id-1');
    expect(r.rows[1]!.fields.payoutId).toBeUndefined();
    expect(r.rows.map((x) => [x.legacyId, x.derivedId])).toEqual([
      [undefined, false],
      [expectedId('p.csv', 3, { payout_id: '', wallet_id: 'wal_1', amount: '10', currency: 'SLE', type: 'bank', name: 'A', provider: 'uba', account_number: '1' }), true],
    ]);
    const j = await parseBatchFile('p.jsonl', '{"payout_id":"j-1","amount":"1"}\n');
    expect(j.rows[0]).toMatchObject({ derivedId: false, fields: { payoutId: 'j-1' } });
    expect(j.rows[0]!.legacyId).toBeUndefined();
  });
});

describe('formatOf', () => {
  it.each([
    ['payouts.csv', '{"a":1}', 'csv'],
    ['PAYOUTS.CSV', '', 'csv'],
    ['payouts.jsonl', 'wallet_id,amount', 'jsonl'],
    ['payouts.JSONL', '', 'jsonl'],
    ['payouts.ndjson', '', 'jsonl'],
    ['payouts.json', '', 'jsonl'],
    ['payouts.txt', '{"amount":"1"}', 'jsonl'],
    ['payouts', '\uFEFF  \n {"amount":"1"}', 'jsonl'],
    ['payouts', 'wallet_id,amount\n', 'csv'],
    ['payouts.txt', '', 'csv'],
    ['payouts.tsv', '[{"a":1}]', 'csv'],
    ['/dir.json/payouts', 'wallet_id', 'csv'],
  ] as const)('formatOf(%j, %j) is %s', (file, content, format) => {
    expect(formatOf(file, content)).toBe(format);
  });

  it('parseBatchFile reads a sniffed JSON-lines file without a known extension', async () => {
    const r = await parseBatchFile('payouts.txt', '{"amount":"1"}\n');
    expect(r.format).toBe('jsonl');
    expect(r.rows[0]!.fields.amount).toBe('1');
  });

  it('COLUMNS lists the documented columns in order', () => {
    expect([...COLUMNS]).toEqual(['payout_id', 'wallet_id', 'amount', 'currency', 'type', 'name', 'provider', 'account_number', 'phone_number', 'note']);
  });
});
