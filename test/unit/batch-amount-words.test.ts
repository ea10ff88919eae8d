/**
 * Amounts a spreadsheet writes that payctl refuses, said so that a person sees the fault: more
 * decimal places than the currency has ("100.250" SLE, a column formatted with three decimals),
 * one line for the rows refused the same way, the zeros said to be only the column's format; a
 * space in an amount (the no-break space LibreOffice writes between thousands, a space left at
 * a cell's end) named, and echoed written out. Real files in a temp folder for the loader.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseAmount } from '../../src/money/amount.js';
import { checkBatch, openBatch } from '../../src/payouts/batch-load.js';

const HEADER = 'wallet_id,amount,currency,type,name,provider,account_number';
const ROW = (i: number, amount: string, currency = 'SLE') => `wal_1,${amount},${currency},bank,Person ${i},uba,${1000 + i}`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-amount-words-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

async function refusal(path: string): Promise<UsageError> {
  const err = await checkBatch(openBatch(path, 'default')).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  return err as UsageError;
}

describe('more decimal places than the currency has', () => {
  it('44 rows of "10NN.250" SLE: one line, the rows and what to write, the zeros said to be the column\'s format', async () => {
    const rows = Array.from({ length: 44 }, (_, i) => ROW(i, `${1000 + i}.250`));
    const p = file('dec3.csv', `${HEADER}\n${rows.join('\n')}\n`);
    const err = await refusal(p);
    expect(err.message).toBe(`${p}: 44 problems. Nothing was sent.`);
    expect(err.problems).toEqual([
      'rows 2–45 (44 rows): amount has more decimal places than SLE has (2): row 2 "1000.250" (write 1000.25), row 3 "1001.250" (write 1001.25), ' +
        'row 4 "1002.250" (write 1002.25) and 41 more; the extra digits are zeros: format the amount column with 2 decimals and save the file again',
    ]);
  });

  it('extra digits that are not zeros are never rounded: grouped apart, with no amount to write', async () => {
    const rows = [...Array.from({ length: 4 }, (_, i) => ROW(i, `${i + 1}.005`)), ...Array.from({ length: 4 }, (_, i) => ROW(i + 4, `${i + 1}000.500`))];
    const err = await refusal(file('mixed.csv', `${HEADER}\n${rows.join('\n')}\n`));
    expect(err.problems).toEqual([
      'rows 2–5 (4 rows): amount has more decimal places than SLE has (2): row 2 "1.005", row 3 "2.005", row 4 "3.005" and 1 more; payctl never rounds an amount: give each with at most 2 decimals',
      'rows 6–9 (4 rows): amount has more decimal places than SLE has (2): row 6 "1000.500" (write 1000.50), row 7 "2000.500" (write 2000.50), row 8 "3000.500" (write 3000.50) and 1 more; ' +
        'the extra digits are zeros: format the amount column with 2 decimals and save the file again',
    ]);
  });

  it('a few rows are listed one by one, each saying why ("1,250.000" quoted as written, read as 1250.000); JPY has none', async () => {
    const err = await refusal(file('few.csv', `${HEADER}\n${ROW(1, '"1,250.000"')}\n${ROW(2, '7.125')}\n${ROW(3, '1500.0', 'JPY')}\n`));
    expect(err.problems).toEqual([
      'row 2: amount: "1,250.000" has 3 decimal places, more than SLE has (2): its extra digits are zeros, write 1250.00; format the amount column with 2 decimals and save the file again',
      'row 3: amount: "7.125" has 3 decimal places, more than SLE has (2)',
      'row 4: amount: "1500.0" has 1 decimal place; JPY has no minor units (whole numbers only): its extra digits are zeros, write 1500; format the amount column with 0 decimals and save the file again',
    ]);
  });

  it('parseAmount (payout create --amount) says the same, without the spreadsheet', () => {
    expect(parseAmount('1100.250', 'SLE')).toEqual({
      ok: false,
      problem: '"1100.250" has 3 decimal places, more than SLE has (2): its extra digits are zeros, write 1100.25',
    });
    expect(parseAmount('1.2345', 'KWD')).toEqual({ ok: false, problem: '"1.2345" has 4 decimal places, more than KWD has (3)' });
    expect(parseAmount('100.25', 'SLE')).toMatchObject({ ok: true, minor: 10025n });
  });
});

describe('one group of three after a "." in a currency of fewer decimals: a thousand, or a column\'s format', () => {
  it.each([
    [
      '1.000',
      'SLE',
      '"1.000" has 3 decimal places, more than SLE has (2): it could be 1.00 (its extra digits are zeros) or 1000 (\'.\' between thousands); write 1.00 or 1000',
    ],
    [
      '250.500',
      'SLE',
      '"250.500" has 3 decimal places, more than SLE has (2): it could be 250.50 (its extra digits are zeros) or 250500 (\'.\' between thousands); write 250.50 or 250500',
    ],
    [
      '5.000',
      'JPY',
      '"5.000" has 3 decimal places; JPY has no minor units (whole numbers only): it could be 5 (its extra digits are zeros) or 5000 (\'.\' between thousands); write 5 or 5000',
    ],
  ])('parseAmount("%s", %s) names both readings', (amount, currency, problem) => {
    expect(parseAmount(amount, currency)).toEqual({ ok: false, problem });
  });

  it('a batch row "1.000" SLE: both readings, no column format advised (probe A53, finding 6: it said write 1.00 only)', async () => {
    const err = await refusal(file('thousand.csv', `${HEADER}\n${ROW(1, '"1.000"')}\n`));
    expect(err.problems).toEqual([
      'row 2: amount: "1.000" has 3 decimal places, more than SLE has (2): it could be 1.00 (its extra digits are zeros) or 1000 (\'.\' between thousands); write 1.00 or 1000',
    ]);
  });

  it('many such rows: one line naming both readings of each', async () => {
    const rows = Array.from({ length: 5 }, (_, i) => ROW(i, `${i + 1}.000`));
    const err = await refusal(file('thousands.csv', `${HEADER}\n${rows.join('\n')}\n`));
    expect(err.problems).toEqual([
      'rows 2–6 (5 rows): amount has more decimal places than SLE has (2): row 2 "1.000" (write 1.00 or 1000), row 3 "2.000" (write 2.00 or 2000), row 4 "3.000" (write 3.00 or 3000) and 2 more; ' +
        "each could be a thousand written with '.' between thousands or a column formatted with more decimals: write each amount as meant, without '.' between thousands",
    ]);
  });
});

describe('a space in an amount is named, and echoed written out', () => {
  it.each([
    ['1\u00a0000.00', '"1\\u00a0000.00" has a no-break space (U+00A0) between its digits: write 1000.00'],
    ['1\u202f000\u202f000.50', '"1\\u202f000\\u202f000.50" has a narrow no-break space (U+202F) between its digits: write 1000000.50'],
    ['1 000.00', '"1 000.00" has a space between its digits: write 1000.00'],
    ['1,000.00 ', '"1,000.00 " has a space at its end: write 1000.00'],
    ['\u00a0250.5', '"\\u00a0250.5" has a no-break space (U+00A0) at its start: write 250.5'],
    // Grouped by spaces with ',' as the decimal point: the exact amount, not a fix refused next for its comma.
    ['1\u00a0000,00', '"1\\u00a0000,00" has a no-break space (U+00A0) between its digits: write 1000.00'],
    ['1 250,000', '"1 250,000" has a space between its digits: write the amount without spaces (e.g. 1500.50)'],
    ['12 34', '"12 34" has a space between its digits: write the amount without spaces (e.g. 1500.50)'],
  ])('%j', (input, problem) => {
    expect(parseAmount(input, 'SLE')).toEqual({ ok: false, problem });
  });

  it("in a batch file: the cell's no-break space is written out; spaces at a cell's ends are dropped, as in every other column", async () => {
    const err = await refusal(file('nb.csv', `${HEADER}\n${ROW(1, '"1\u00a0000.00"')}\n${ROW(2, '"1,000.00 "')}\n${ROW(3, '"1\u200b"')}\n`));
    expect(err.problems).toEqual([
      'row 2: amount: "1\\u00a0000.00" has a no-break space (U+00A0) between its digits: write 1000.00',
      'row 4: amount: "1\\u200b" is not a plain decimal amount (use digits and at most one ".", e.g. 1500.50)',
    ]);
  });
});
