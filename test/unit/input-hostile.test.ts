/**
 * Hostile input refused before anything is sent: invisible and direction-changing
 * characters, metadata keys that are JavaScript machinery, files that are not UTF-8 or not
 * regular files, duplicate columns and duplicate JSON keys (the last one silently won).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { decodeBatchFile, duplicateJsonKey, parseBatchFile } from '../../src/payouts/batch-file.js';
import { checkBatch, openBatch } from '../../src/payouts/batch-load.js';
import { COLUMN_LABELS } from '../../src/payouts/batch-file.js';
import { payoutBody, validatePayout, type Labels, type PayoutFields } from '../../src/payouts/request.js';
import { FLAG_LABELS } from '../../src/commands/payout/fields.js';

const OK: PayoutFields = { walletId: 'wal_1', amount: '10', currency: 'SLE', type: 'bank', name: 'Aminata Kamara', provider: 'uba', account: '123' };

/** Problems as `payout create` names them (by flag), or as `labels` name them. */
function problems(f: PayoutFields, labels: Labels = FLAG_LABELS): string[] {
  const r = validatePayout({ ...OK, ...f }, labels);
  return r.ok ? [] : r.problems;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-input-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The UsageError of opening and checking a batch file. */
async function usageProblems(path: string): Promise<{ message: string; problems: string[] }> {
  const err = await (async () => checkBatch(openBatch(path, 'default')))().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  return { message: (err as UsageError).message, problems: (err as UsageError).problems };
}

describe('text fields: invisible and direction-changing characters', () => {
  it.each([
    ['name', '\u202eAminata', 'U+202E'],
    ['name', 'Ami\u200bnata', 'U+200B'],
    ['account', '12\u2066 3', 'U+2066'],
    ['note', 'pay\u200fme', 'U+200F'],
    ['walletId', 'wal\ufeff1', 'U+FEFF'],
    // Tag characters carry a hidden text a terminal draws as nothing (probe 54-P): "Pay <tags>salary" read "Pay salary".
    ['note', `Pay ${[...'send to 999'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')}salary`, 'U+E0073'],
    ['name', `Fatu\u{e0020}\u{e0049} Koroma`, 'U+E0020'],
    ['name', 'Fatu \u3164 Koroma', 'U+3164'],
    ['note', 'paid\u2800in full', 'U+2800'],
    ['name', 'Ami\ufe0fnata', 'U+FE0F'],
    ['account', '12\u{e0031}3', 'U+E0031'],
  ] as const)('refuses %s %j (%s)', (field, value, cp) => {
    const label = { name: '--name', account: '--account', note: '--note', walletId: '--wallet' }[field];
    expect(problems({ [field]: value })).toContain(`${label} must not contain invisible or direction-changing characters (${cp})`);
  });

  it('accepts ordinary non-ASCII names', () => {
    expect(problems({ name: 'Zoë Ọmọ́lárá 李' })).toEqual([]);
  });

  it.each([
    ['\uff1076123456', 'U+FF10'],
    ['076\u0661\u0662', 'U+0661'],
    ['O76l23456\u00a0', 'U+00A0'],
  ])('refuses the account %j (a look-alike of plain digits: %s) before anything is sent', (account, cp) => {
    expect(problems({ account })).toEqual([`--account has a character that is not plain ASCII (${cp}): type it with the digits and letters of a keyboard`]);
  });

  it('leaves spaces, dashes and letters in an account to the service (its rule is not documented)', () => {
    expect(problems({ account: '076 123-456' })).toEqual([]);
    expect(problems({ account: 'GB82WEST12345698765432' })).toEqual([]);
  });

  it('an account with an invisible character is said once, as invisible', () => {
    expect(problems({ account: '12\u200b3' })).toEqual(['--account must not contain invisible or direction-changing characters (U+200B)']);
  });
});

describe('metadata', () => {
  it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s (it was silently dropped)', (k) => {
    expect(problems({ metadata: [`${k}=x`] })).toEqual([`--metadata: key "${k}" is reserved; choose another name`]);
    expect(problems({ metadata: { [k]: 'x' } })).toEqual([`--metadata: key "${k}" is reserved; choose another name`]);
  });

  it('refuses control and bidi characters in values', () => {
    expect(problems({ metadata: ['a=x\u001b[31m'] })).toEqual(['--metadata: the value of "a" must not contain control characters']);
    expect(problems({ metadata: ['a=\u202ex'] })).toEqual(['--metadata: the value of "a" must not contain invisible or direction-changing characters (U+202E)']);
    expect(problems({ metadata: ['a=ref\u{e0041}9'] })).toEqual(['--metadata: the value of "a" must not contain invisible or direction-changing characters (U+E0041)']);
  });

  it('a metadata.__proto__ column is refused by row, not turned into a prototype', async () => {
    const r = await parseBatchFile('p.csv', 'wallet_id,amount,currency,type,name,provider,account_number,metadata.__proto__\nwal_1,1,SLE,bank,A,uba,1,x\n');
    const md = r.rows[0]!.fields.metadata as Record<string, string>;
    expect(Object.hasOwn(md, '__proto__')).toBe(true);
    const v = validatePayout(r.rows[0]!.fields, COLUMN_LABELS);
    expect(v.ok ? [] : v.problems).toEqual(['metadata: key "__proto__" is reserved; choose another name']);
  });

  it('a body never carries a prototype key', () => {
    const r = validatePayout({ ...OK, metadata: ['a=1'] });
    if (!r.ok) throw new Error(r.problems.join('; '));
    expect(JSON.parse(payoutBody(r.request)).metadata).toEqual({ a: '1' });
  });
});

describe('batch files: encoding, regular files, duplicate columns and keys', () => {
  const HEADER = 'wallet_id,amount,currency,type,name,provider,account_number\n';

  it('refuses Latin-1 text, naming the line (it was sent as U+FFFD)', async () => {
    const p = join(dir, 'latin1.csv');
    writeFileSync(
      p,
      Buffer.concat([Buffer.from(HEADER + 'wal_1,1,SLE,bank,A,uba,1\nwal_1,1,SLE,bank,'), Buffer.from([0x4a, 0x6f, 0xeb, 0x6c]), Buffer.from(',uba,1\n')]),
    );
    const e = await usageProblems(p);
    expect(e.message).toBe(`${p}: the file is not UTF-8 text (line 3 is not); save it as UTF-8 (in a spreadsheet: "CSV UTF-8"). Nothing was sent.`);
  });

  it('refuses UTF-16, accepts UTF-8 with a BOM', () => {
    expect(decodeBatchFile(Buffer.from('\ufeffa,b', 'utf16le'))).toEqual({ problem: 'the file is UTF-16 text; save it as UTF-8 (in a spreadsheet: "CSV UTF-8")' });
    expect(decodeBatchFile(Buffer.from('\ufeffa,b', 'utf8'))).toEqual({ text: 'a,b' });
  });

  it('refuses /dev/zero and a FIFO at once', async () => {
    const t0 = performance.now();
    expect((await usageProblems('/dev/zero')).message).toBe('Cannot read /dev/zero: it is not a regular file (a device, pipe or socket). Nothing was sent.');
    const fifo = join(dir, 'pipe.csv');
    execFileSync('mkfifo', [fifo]);
    expect((await usageProblems(fifo)).message).toContain('it is not a regular file');
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('refuses a CSV with two amount columns (the last one, 1000.00, was sent instead of 1.00)', async () => {
    const r = await parseBatchFile('p.csv', 'wallet_id,amount,currency,type,name,provider,account_number,amount\nwal_1,1.00,SLE,bank,A,uba,1,1000.00\n');
    expect(r.problems).toEqual(['the header row has the column "amount" more than once']);
  });

  it('refuses a JSON line with a key given twice', async () => {
    const r = await parseBatchFile('p.jsonl', '{"wallet_id":"wal_1","amount":"1.00","amount":"1000.00"}\n');
    expect(r.problems).toEqual(['row 1: the key "amount" is given more than once']);
  });

  // Issue 27: JSON.parse made 1e3 into 1000, and the row paid 1000 SLE; `--amount 1e3` is refused.
  it.each([
    ['1e3', '1000'],
    ['1E-2', '0.01'],
    ['1.5e+3', '1500'],
  ])('refuses a JSON amount written with an exponent (%s, read as %s), naming the row', async (literal) => {
    const p = join(dir, 'exp.jsonl');
    const line = (amount: string) => `{"wallet_id":"wal_1","amount":${amount},"currency":"SLE","type":"bank","name":"A","provider":"uba","account_number":"1"}`;
    writeFileSync(p, `${line('10.50')}\n${line(literal)}\n${line('"1000"')}\n`);
    const e = await usageProblems(p);
    expect(e.message).toBe(`${p}: 1 problem. Nothing was sent.`);
    expect(e.problems).toEqual(['row 2: "amount" is a number written with an exponent (as 1e3 is); write it in plain digits, e.g. 1000 or "1000.00"']);
    // An exponent inside a string, or a metadata number, is no amount: read as written.
    const r = await parseBatchFile('p.jsonl', `{"amount":"1.00","note":"${literal}","metadata":{"n":${literal}},"account_number":"5${literal}"}\n`);
    expect(r.problems).toEqual([]);
    expect(r.rows[0]!.fields).toMatchObject({ amount: '1.00', note: literal, account: `5${literal}`, metadata: { n: String(Number(literal)) } });
  });

  // Issue 27: one of the two was sent, silently.
  it.each([
    ['flat key first', '{"metadata.a":"x","metadata":{"a":"y"}}'],
    ['object first', '{"metadata":{"a":"y"},"metadata.a":"x"}'],
  ])('refuses a JSON line giving metadata.a both as a key and inside metadata (%s)', async (_order, json) => {
    const r = await parseBatchFile('p.jsonl', `${json}\n`);
    expect(r.problems).toEqual(['row 1: the metadata key "a" is given both as "metadata.a" and inside "metadata"; give it once']);
    expect(r.rows).toEqual([]);
  });

  it('the metadata conflict stops the batch: nothing is sent', async () => {
    const p = join(dir, 'meta.jsonl');
    writeFileSync(
      p,
      '{"wallet_id":"wal_1","amount":"1","currency":"SLE","type":"bank","name":"A","provider":"uba","account_number":"1","metadata.ref":"x","metadata":{"ref":"y"}}\n',
    );
    const e = await usageProblems(p);
    expect(e.message).toBe(`${p}: 1 problem. Nothing was sent.`);
    expect(e.problems).toEqual(['row 1: the metadata key "ref" is given both as "metadata.ref" and inside "metadata"; give it once']);
  });

  it('refuses a JSON line with a key given twice once spaces are trimmed (" amount" and "amount")', async () => {
    const r = await parseBatchFile('p.jsonl', '{"amount":"1.00"," amount":"1000.00","metadata.a":"x","metadata.a ":"y"}\n');
    expect(r.problems).toEqual(['row 1: the key "amount" is given more than once', 'row 1: the key "metadata.a" is given more than once']);
  });

  it('refuses U+2028 in a name read from a batch file', async () => {
    const p = join(dir, 'ls.csv');
    writeFileSync(p, `${HEADER}wal_1,1,SLE,bank,Ami\u2028nata,uba,1\n`);
    expect((await usageProblems(p)).problems).toEqual(['row 2: name must not contain invisible or direction-changing characters (U+2028)']);
  });

  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"a":{"b":1,"b":2}}', 'b'],
    ['{"a":[{"x":1},{"x":2}]}', undefined],
    ['{"a":"\\"a\\":","b":1}', undefined],
    ['{"\\u0061":1,"a":2}', 'a'],
    ['{"a" : 1, "b":{"a":1}}', undefined],
  ])('duplicateJsonKey(%s) = %s', (json, key) => {
    expect(duplicateJsonKey(json)).toBe(key);
  });
});
