import { describe, expect, it } from 'vitest';
import { isUuid, payoutBody, validatePayout, type PayoutFields, type PayoutRequest } from '../../src/payouts/request.js';
import { normalizeProvider } from '../../src/payouts/providers.js';
import { COLUMN_LABELS } from '../../src/payouts/batch-file.js';
import { FLAG_LABELS } from '../../src/commands/payout/fields.js';
import { parseAmount } from '../../src/money/amount.js';

/** A complete, valid wallet payout; tests override single fields. */
const WALLET: PayoutFields = {
  payoutId: 'p-1',
  walletId: 'wal_1',
  amount: '1500.50',
  currency: 'SLE',
  type: 'wallet',
  name: 'Aminata Kamara',
  provider: 'orange_money',
  account: '076123456',
  phone: '+23276123456',
};

const BANK: PayoutFields = {
  payoutId: 'p-2',
  walletId: 'wal_2',
  amount: '2500.75',
  currency: 'NGN',
  type: 'bank',
  name: 'Chinedu Okafor',
  provider: 'uba',
  account: '0123456789',
};

function ok(f: PayoutFields): PayoutRequest {
  const r = validatePayout(f);
  if (!r.ok) throw new Error(`expected a valid payout, got: ${r.problems.join('; ')}`);
  return r.request;
}

function problems(f: PayoutFields, labels = FLAG_LABELS): string[] {
  const r = validatePayout(f, labels);
  if (r.ok) throw new Error('expected problems, got a valid payout');
  return r.problems;
}

const NOT_PLAIN = (v: string) => `--amount: "${v}" is not a plain decimal amount (use digits and at most one ".", e.g. 1500.50)`;

describe('validatePayout: required fields', () => {
  const ALL_MISSING = [
    '--wallet is required (the source wallet id)',
    '--amount is required (a decimal amount such as 1500.50)',
    '--currency is required (an ISO 4217 code such as SLE)',
    '--type is required (bank or wallet)',
    "--name is required (the recipient's full name)",
    '--provider is required (e.g. orange_money, afrimoney, ecobank)',
    "--account is required (the recipient's account number)",
  ];

  it('lists every missing field at once, each naming its flag', () => {
    expect(problems({})).toEqual(ALL_MISSING);
  });

  it('treats blank and whitespace-only values as missing', () => {
    expect(problems({ walletId: '', amount: ' ', currency: '\t', type: '', name: '   ', provider: '', account: ' ' })).toEqual(ALL_MISSING);
  });

  it('names one missing field alone when the rest are valid', () => {
    expect(problems({ ...WALLET, account: undefined })).toEqual(["--account is required (the recipient's account number)"]);
    expect(problems({ ...WALLET, name: '' })).toEqual(["--name is required (the recipient's full name)"]);
  });

  it('names CSV columns instead of flags with COLUMN_LABELS', () => {
    expect(problems({}, COLUMN_LABELS)).toEqual([
      'wallet_id is required (the source wallet id)',
      'amount is required (a decimal amount such as 1500.50)',
      'currency is required (an ISO 4217 code such as SLE)',
      'type is required (bank or wallet)',
      "name is required (the recipient's full name)",
      'provider is required (e.g. orange_money, afrimoney, ecobank)',
      "account_number is required (the recipient's account number)",
    ]);
    expect(problems({ ...WALLET, phone: undefined, payoutId: 'a/b', metadata: ['x'] }, COLUMN_LABELS)).toEqual([
      'phone_number is required for wallet recipients',
      'payout_id: "a/b" may only hold letters, digits and _ . : - (at most 128)',
      'metadata: "x" is not key=value',
    ]);
    expect(problems({ ...WALLET, name: 'a\u0000b', phone: 'abc' }, COLUMN_LABELS)).toEqual([
      'name must not contain control characters',
      'phone_number: "abc" is not a phone number (6 to 15 digits, optionally after a +)',
    ]);
  });

  it('accepts a complete wallet payout and trims the text fields', () => {
    expect(ok({ ...WALLET, walletId: ' wal_1 ', name: '  Aminata Kamara ', account: ' 076123456 ', payoutId: ' p-1 ' })).toEqual({
      payoutId: 'p-1',
      walletId: 'wal_1',
      currency: 'SLE',
      amountMinor: 150050n,
      digits: 2,
      amount: '1500.50',
      type: 'wallet',
      name: 'Aminata Kamara',
      provider: 'orange_money',
      account: '076123456',
      phone: '+23276123456',
      note: undefined,
      metadata: undefined,
    });
  });
});

describe('validatePayout: type and phone', () => {
  it.each(['card', 'cash', 'banks', 'mobile'])('refuses --type %s', (type) => {
    expect(problems({ ...BANK, type })).toEqual([`--type must be bank or wallet (got "${type}")`]);
  });

  it('accepts bank and wallet in any case, stored lowercase', () => {
    expect(ok({ ...WALLET, type: ' WALLET ' }).type).toBe('wallet');
    expect(ok({ ...BANK, type: 'Bank' }).type).toBe('bank');
  });

  it('requires a phone for wallet recipients only', () => {
    expect(problems({ ...WALLET, phone: undefined })).toEqual(['--phone is required for wallet recipients']);
    expect(problems({ ...WALLET, phone: '  ' })).toEqual(['--phone is required for wallet recipients']);
    expect(ok(BANK).phone).toBeUndefined();
  });

  it('keeps a phone given for a bank recipient', () => {
    expect(ok({ ...BANK, phone: '0803 123 4567' }).phone).toBe('08031234567');
  });

  it.each([
    ['+232 76 123 456', '+23276123456'],
    ['+232-76-123-456', '+23276123456'],
    ['(076) 123.456', '076123456'],
    [' 076123456 ', '076123456'],
    ['123456', '123456'],
    ['+123456789012345', '+123456789012345'],
  ])('strips spaces, dashes, dots and brackets: %j -> %s', (phone, expected) => {
    expect(ok({ ...WALLET, phone }).phone).toBe(expected);
  });

  it.each(['07612345a', 'phone', '+232 76 ABC', '++23276123456', '12345', '1234567890123456', '076#123456', '+'])('refuses the phone %j', (phone) => {
    // The format problem alone: a phone was given, so "required" is not added.
    expect(problems({ ...WALLET, phone })).toEqual([`--phone: "${phone}" is not a phone number (6 to 15 digits, optionally after a +)`]);
  });
});

describe('provider', () => {
  it.each([
    ['Orange Money', 'orange_money'],
    ['  UBA ', 'uba'],
    ['orange-money', 'orange_money'],
    ['Orange  --  Money!', 'orange_money'],
    ['_afrimoney_', 'afrimoney'],
    ['QMoney', 'qmoney'],
    ['Eco Bank 2', 'eco_bank_2'],
  ])('normalizeProvider(%j) is %s', (input, expected) => {
    expect(normalizeProvider(input)).toBe(expected);
    expect(ok({ ...WALLET, provider: input }).provider).toBe(expected);
  });

  it.each(['---', '!!', ' _ ', 'ñ'])('refuses the provider %j, which has no letters or digits', (provider) => {
    expect(normalizeProvider(provider)).toBe('');
    expect(problems({ ...WALLET, provider })).toEqual([`--provider: "${provider}" has no letters or digits`]);
  });
});

describe('validatePayout: amounts', () => {
  it.each([
    ['SLE', '1500.50', 150050n, 2, '1500.50'],
    ['SLE', '1500.5', 150050n, 2, '1500.50'],
    ['SLE', '0.30', 30n, 2, '0.30'],
    ['SLE', '007', 700n, 2, '7.00'],
    ['NGN', '2500.75', 250075n, 2, '2500.75'],
    ['NGN', '1', 100n, 2, '1.00'],
    ['JPY', '1500', 1500n, 0, '1500'],
    ['KWD', '0.001', 1n, 3, '0.001'],
    ['KWD', '12.5', 12500n, 3, '12.500'],
    ['SLE', '1234567890123.45', 123456789012345n, 2, '1234567890123.45'],
    ['SLE', '100000000000000000000', 10000000000000000000000n, 2, '100000000000000000000.00'],
  ])('%s %s -> %s minor units (%d digits), shown as %s', (currency, amount, minor, digits, decimal) => {
    const r = ok({ ...WALLET, currency, amount });
    expect(r.amountMinor).toBe(minor);
    expect(r.digits).toBe(digits);
    expect(r.amount).toBe(decimal);
    expect(r.currency).toBe(currency);
  });

  // A JSON number read as an IEEE double keeps 15 significant digits (RFC 7493): more could pay another amount.
  it.each([
    ['SLE', '12345678901234.56', 16],
    ['SLE', '1234567890123456.78', 18],
    ['JPY', '9007199254740993', 16],
    ['NGN', '12345678901234567.89', 19],
  ])('refuses %s %s: %d significant digits', (currency, amount, n) => {
    const p = problems({ ...WALLET, currency, amount });
    expect(p).toHaveLength(1);
    expect(p[0]).toBe(
      `--amount: "${amount}" has ${n} significant digits; a JSON number carries at most 15 exactly (a service that reads numbers as binary floats, as most do, would pay another amount)`,
    );
  });

  it.each([
    ['SLE', '9999999999999.99'],
    ['JPY', '999999999999999'],
    ['SLE', '120000000000000000.00'],
  ])('accepts %s %s (at most 15 significant digits)', (currency, amount) => {
    expect(ok({ ...WALLET, currency, amount }).currency).toBe(currency);
  });

  it.each(['1e3', '1E3', '0x10', '+5', '-5', '-0.50', '1.', '.5', '1.2.3', 'abc', 'Infinity', 'NaN'])('refuses the SLE amount %j', (amount) => {
    expect(problems({ ...WALLET, amount })).toEqual([NOT_PLAIN(amount)]);
  });

  it.each([
    ['1 500', '--amount: "1 500" has a space between its digits: write 1500'],
    [' 15', '--amount: " 15" has a space at its start: write 15'],
    ['15 ', '--amount: "15 " has a space at its end: write 15'],
    ['١٢', NOT_PLAIN('\\u0661\\u0662')],
  ])('refuses the SLE amount %j, naming its space or writing out what is not ASCII', (amount, problem) => {
    expect(problems({ ...WALLET, amount })).toEqual([problem]);
  });

  it.each([
    ['SLE', '0'],
    ['SLE', '0.00'],
    ['NGN', '0.0'],
    ['JPY', '0'],
    ['KWD', '0.000'],
  ])('refuses a zero %s amount %j', (currency, amount) => {
    expect(problems({ ...WALLET, currency, amount })).toEqual([`--amount: amount must be greater than zero: "${amount}"`]);
  });

  it.each([
    ['SLE', '1.234', '--amount: "1.234" has 3 decimal places, more than SLE has (2)'],
    ['NGN', '10.001', '--amount: "10.001" has 3 decimal places, more than NGN has (2)'],
    ['KWD', '1.2345', '--amount: "1.2345" has 4 decimal places, more than KWD has (3)'],
    ['JPY', '1500.5', '--amount: "1500.5" has 1 decimal place; JPY has no minor units (whole numbers only)'],
    ['JPY', '1500.0', '--amount: "1500.0" has 1 decimal place; JPY has no minor units (whole numbers only): its extra digits are zeros, write 1500'],
    ['sle', '0.001', '--amount: "0.001" has 3 decimal places, more than SLE has (2)'],
  ])('refuses too many decimals for %s: %s', (currency, amount, problem) => {
    expect(problems({ ...WALLET, currency, amount })).toEqual([problem]);
  });

  it.each(['1e3', '0x10', '-5'])('refuses the KWD and JPY amount %j as not plain', (amount) => {
    expect(problems({ ...WALLET, currency: 'KWD', amount })).toEqual([NOT_PLAIN(amount)]);
    expect(problems({ ...WALLET, currency: 'JPY', amount })).toEqual([NOT_PLAIN(amount)]);
  });

  it('an amount copied as payctl prints it ("1,500.50") is refused with the plain one to write; none is guessed where "," could be the decimal point', () => {
    expect(problems({ ...WALLET, amount: '1,500.50' })).toEqual([`--amount: "1,500.50" has ',' between thousands: write 1500.50`]);
    expect(problems({ ...WALLET, amount: '12,345,678.9' })).toEqual([`--amount: "12,345,678.9" has ',' between thousands: write 12345678.9`]);
    expect(problems({ ...WALLET, currency: 'JPY', amount: '1,500' })).toEqual([`--amount: "1,500" has ',' between thousands: write 1500`]);
    // 1.500 or 1500 dinars: the same as a batch file (README "Batch files").
    expect(problems({ ...WALLET, currency: 'KWD', amount: '1,500' })).toEqual([NOT_PLAIN('1,500')]);
    expect(problems({ ...WALLET, amount: '1,5' })).toEqual([`--amount: "1,5" uses ',' as the decimal point; write 1.5`]);
    expect(problems({ ...WALLET, amount: '12,34,567' })).toEqual([
      `--amount: "12,34,567" has ',' between digits that are not groups of three; write digits with '.' as the decimal point (1250.00), and ',' only between groups of three digits if at all (1,250.00)`,
    ]);
  });

  it('accepts a lowercase or padded currency and upper-cases it', () => {
    const r = ok({ ...WALLET, currency: ' sle ', amount: '10.5' });
    expect(r.currency).toBe('SLE');
    expect(r.amountMinor).toBe(1050n);
    expect(ok({ ...WALLET, currency: 'kwd', amount: '1.5' })).toMatchObject({ currency: 'KWD', amountMinor: 1500n, digits: 3 });
  });

  it('refuses an unknown currency, naming it as given', () => {
    expect(problems({ ...WALLET, currency: 'XYZ' })).toEqual(['--currency: "XYZ" is not an ISO 4217 currency code']);
    expect(problems({ ...WALLET, currency: 'dollars' })).toEqual(['--currency: "dollars" is not an ISO 4217 currency code']);
  });

  it('still checks the amount is a plain decimal when the currency is unknown or missing', () => {
    expect(problems({ ...WALLET, currency: 'XYZ', amount: '1e3' })).toEqual(['--currency: "XYZ" is not an ISO 4217 currency code', NOT_PLAIN('1e3')]);
    expect(problems({ ...WALLET, currency: undefined, amount: '-5' })).toEqual(['--currency is required (an ISO 4217 code such as SLE)', NOT_PLAIN('-5')]);
    // Decimals cannot be judged without the currency's digits.
    expect(problems({ ...WALLET, currency: 'XYZ', amount: '1.23456' })).toEqual(['--currency: "XYZ" is not an ISO 4217 currency code']);
  });
});

describe('validatePayout: metadata', () => {
  it('splits key=value pairs at the first "=", keeping "=" in the value', () => {
    expect(ok({ ...WALLET, metadata: ['batch=oct-stipends', 'url=https://x.test/?a=1&b=2', ' ref =', 'a.b_c-d=v'] }).metadata).toEqual({
      batch: 'oct-stipends',
      url: 'https://x.test/?a=1&b=2',
      ref: '',
      'a.b_c-d': 'v',
    });
  });

  it('leaves metadata undefined when none is given', () => {
    expect(ok({ ...WALLET, metadata: [] }).metadata).toBeUndefined();
    expect(ok({ ...WALLET, metadata: {} }).metadata).toBeUndefined();
  });

  it('refuses pairs without "=" or without a key', () => {
    expect(problems({ ...WALLET, metadata: ['batch', '=value', 'ok=1'] })).toEqual(['--metadata: "batch" is not key=value', '--metadata: "=value" is not key=value']);
  });

  it('refuses bad keys', () => {
    const long = 'k'.repeat(65);
    expect(problems({ ...WALLET, metadata: ['bad key=1', 'émoji=2', `${long}=3`, 'a/b=4', ' =5'] })).toEqual([
      '--metadata: key "bad key" may only hold letters, digits and _ . - (at most 64)',
      '--metadata: key "émoji" may only hold letters, digits and _ . - (at most 64)',
      `--metadata: key "${long}" may only hold letters, digits and _ . - (at most 64)`,
      '--metadata: key "a/b" may only hold letters, digits and _ . - (at most 64)',
      '--metadata: key "" may only hold letters, digits and _ . - (at most 64)',
    ]);
    expect(ok({ ...WALLET, metadata: [`${'k'.repeat(64)}=x`] }).metadata).toEqual({ ['k'.repeat(64)]: 'x' });
  });

  it('refuses a key given twice', () => {
    expect(problems({ ...WALLET, metadata: ['a=1', 'b=2', 'a=3', ' b =4'] })).toEqual(['--metadata: key "a" is given twice', '--metadata: key "b" is given twice']);
  });

  it('accepts metadata already split (from files) and checks its keys', () => {
    expect(ok({ ...WALLET, metadata: { batch: 'oct', note: 'a=b' } }).metadata).toEqual({ batch: 'oct', note: 'a=b' });
    expect(problems({ ...WALLET, metadata: { 'bad key': 'x', good: 'y' } })).toEqual(['--metadata: key "bad key" may only hold letters, digits and _ . - (at most 64)']);
  });
});

describe('validatePayout: payout id', () => {
  it('defaults to a new UUID per call', () => {
    const a = ok({ ...WALLET, payoutId: undefined }).payoutId;
    const b = ok({ ...WALLET, payoutId: '  ' }).payoutId;
    expect(isUuid(a)).toBe(true);
    expect(isUuid(b)).toBe(true);
    expect(a).not.toBe(b);
  });

  it.each(['pay-1', 'PAY_2026.11:0001', '0b5c9d1e-1f2a-4b3c-8d4e-5f6a7b8c9d0e', 'x'])('accepts %s', (payoutId) => {
    expect(ok({ ...WALLET, payoutId }).payoutId).toBe(payoutId);
  });

  it('accepts 128 characters and refuses 129', () => {
    const id128 = 'a'.repeat(128);
    expect(ok({ ...WALLET, payoutId: id128 }).payoutId).toBe(id128);
    const id129 = 'a'.repeat(129);
    expect(problems({ ...WALLET, payoutId: id129 })).toEqual([`--payout-id: "${id129}" may only hold letters, digits and _ . : - (at most 128)`]);
  });

  it.each(['pay/1', 'pay 1', 'pay#1', 'päy', 'pay\n1', '../etc'])('refuses %j', (payoutId) => {
    expect(problems({ ...WALLET, payoutId })).toEqual([`--payout-id: "${payoutId}" may only hold letters, digits and _ . : - (at most 128)`]);
  });

  // Only allowed characters, but not a letter or digit first: said as such, not as a character it may not hold.
  it.each(['-pay', '_pay', '.pay', ':pay', '-'])('refuses %j, naming its first character', (payoutId) => {
    expect(problems({ ...WALLET, payoutId })).toEqual([`--payout-id: "${payoutId}" must start with a letter or digit, not "${payoutId[0]}"`]);
  });
});

describe('validatePayout: text fields', () => {
  it.each(['\u0000', '\u0007', '\t', '\n', '\r', '\u001b[31m', '\u007f', '\u0085', '\u009b'])('refuses the control character %j in name, account and note', (c) => {
    expect(problems({ ...WALLET, name: `Ami${c}nata`, account: `076${c}123`, note: `Oct${c}ober` })).toEqual([
      '--name must not contain control characters',
      '--account must not contain control characters',
      '--note must not contain control characters',
    ]);
  });

  it('refuses a control character in the wallet id', () => {
    expect(problems({ ...WALLET, walletId: 'wal\u0000_1' })).toEqual(['--wallet must not contain control characters']);
  });

  it("limits lengths: name 200, account 64, note 255 (the service's own limit: a longer one was refused after it left), wallet 128", () => {
    expect(ok({ ...WALLET, name: 'n'.repeat(200), account: '1'.repeat(64), note: 'x'.repeat(255), walletId: 'w'.repeat(128) }).name).toHaveLength(200);
    expect(problems({ ...WALLET, name: 'n'.repeat(201), account: '1'.repeat(65), note: 'x'.repeat(256), walletId: 'w'.repeat(129) })).toEqual([
      '--wallet is longer than 128 characters',
      '--name is longer than 200 characters',
      '--account is longer than 64 characters',
      '--note is longer than 255 characters',
    ]);
  });

  it('counts characters, not UTF-16 units, as the service does: 200 characters outside the BMP pass, 201 do not', () => {
    expect(ok({ ...WALLET, name: '😀'.repeat(200) }).name).toHaveLength(400);
    expect(problems({ ...WALLET, name: '😀'.repeat(201) })).toEqual(['--name is longer than 200 characters']);
  });

  it('keeps a note as given and drops a blank one', () => {
    expect(ok({ ...WALLET, note: 'October stipend' }).note).toBe('October stipend');
    expect(ok({ ...WALLET, note: '   ' }).note).toBeUndefined();
  });

  it('accepts non-ASCII names', () => {
    expect(ok({ ...WALLET, name: 'Zoë Ñúñez 李' }).name).toBe('Zoë Ñúñez 李');
  });

  it('refuses a name or note wrapped whole in curly quotes (straight quotes a chat app changed); quotes inside pass', () => {
    const said = (label: string, open: string, close: string) =>
      `${label} is wrapped in curly quotes (${open}...${close}), most likely straight quotes changed by a chat app or word processor: type it without them`;
    expect(problems({ ...WALLET, name: '\u2018Fatmata\u2019', note: '\u201cNov rent\u201d' })).toEqual([
      said('--name', '\u2018', '\u2019'),
      said('--note', '\u201c', '\u201d'),
    ]);
    expect(problems({ ...WALLET, name: ' \u201eAminata Kamara\u201c ' }, COLUMN_LABELS)).toEqual([said('name', '\u201e', '\u201c')]);
    expect(ok({ ...WALLET, name: 'Aminata \u201cAmi\u201d Kamara', note: '\u2018Nov\u2019 rent' }).name).toBe('Aminata \u201cAmi\u201d Kamara');
    expect(ok({ ...WALLET, name: 'O\u2019Brien', note: '\u2019' }).name).toBe('O\u2019Brien');
  });

  // Issue 27: the line and paragraph separators passed; a terminal shows them as nothing or as a line break.
  it.each([
    ['\u2028', 'U+2028'],
    ['\u2029', 'U+2029'],
  ])('refuses %j (%s) in the wallet, name, account, provider, phone and note, and in metadata values (U+2027 and U+2030 pass)', (c, cp) => {
    expect(problems({ ...WALLET, walletId: `wal${c}1`, name: `Ami${c}nata`, account: `076${c}1`, provider: `orange${c}`, phone: `+232${c}76`, note: `Oct${c}` })).toEqual(
      [
        `--wallet must not contain invisible or direction-changing characters (${cp})`,
        `--name must not contain invisible or direction-changing characters (${cp})`,
        `--account must not contain invisible or direction-changing characters (${cp})`,
        `--note must not contain invisible or direction-changing characters (${cp})`,
        `--provider must not contain invisible or direction-changing characters (${cp})`,
        `--phone must not contain invisible or direction-changing characters (${cp})`,
        `--phone: "+232${c}76" is not a phone number (6 to 15 digits, optionally after a +)`,
      ],
    );
    expect(problems({ ...WALLET, metadata: [`ref=a${c}b`] })).toEqual([
      `--metadata: the value of "ref" must not contain invisible or direction-changing characters (${cp})`,
    ]);
    expect(problems({ ...WALLET, metadata: { ref: `a${c}b` } }, COLUMN_LABELS)).toEqual([
      `metadata: the value of "ref" must not contain invisible or direction-changing characters (${cp})`,
    ]);
    // The characters next to them are still accepted.
    expect(ok({ ...WALLET, name: 'Ami\u2027nata \u2030' }).name).toBe('Ami\u2027nata \u2030');
  });
});

describe('validatePayout: many problems at once', () => {
  it('lists every kind of problem together, in a fixed order', () => {
    expect(
      problems({
        payoutId: 'bad id',
        walletId: 'wal_1',
        amount: '1,5',
        currency: 'SLE',
        type: 'card',
        name: 'A\u0007',
        provider: '---',
        account: '1',
        phone: 'x',
        metadata: ['nokey'],
      }),
    ).toEqual([
      '--name must not contain control characters',
      `--amount: "1,5" uses ',' as the decimal point; write 1.5`,
      '--type must be bank or wallet (got "card")',
      '--provider: "---" has no letters or digits',
      '--phone: "x" is not a phone number (6 to 15 digits, optionally after a +)',
      '--payout-id: "bad id" may only hold letters, digits and _ . : - (at most 128)',
      '--metadata: "nokey" is not key=value',
    ]);
  });
});

describe('isUuid', () => {
  it('accepts UUIDs in either case and refuses anything else', () => {
    expect(isUuid('0b5c9d1e-1f2a-4b3c-8d4e-5f6a7b8c9d0e')).toBe(true);
    expect(isUuid('0B5C9D1E-1F2A-4B3C-8D4E-5F6A7B8C9D0E')).toBe(true);
    expect(isUuid('0b5c9d1e1f2a4b3c8d4e5f6a7b8c9d0e')).toBe(false);
    expect(isUuid('0b5c9d1e-1f2a-4b3c-8d4e-5f6a7b8c9d0')).toBe(false);
    expect(isUuid('0b5c9d1e-1f2a-4b3c-8d4e-5f6a7b8c9d0e ')).toBe(false);
    expect(isUuid('gb5c9d1e-1f2a-4b3c-8d4e-5f6a7b8c9d0e')).toBe(false);
    expect(isUuid('')).toBe(false);
  });
});

describe('payoutBody', () => {
  it('writes the exact JSON text in contract key order', () => {
    const r = ok({ ...WALLET, provider: 'Orange Money', note: 'October stipend', metadata: ['batch=oct-stipends'] });
    expect(payoutBody(r)).toBe(
      '{"amount":1500.5,"currency":"SLE","payoutId":"p-1","walletId":"wal_1",' +
        '"recipient":{"type":"wallet","accountDetails":{"name":"Aminata Kamara","provider":"orange_money",' +
        '"accountNumber":"076123456","phoneNumber":"+23276123456","note":"October stipend"}},' +
        '"metadata":{"batch":"oct-stipends"}}',
    );
  });

  it('writes phoneNumber null for a bank without phone, and leaves out note and metadata when not given', () => {
    expect(payoutBody(ok(BANK))).toBe(
      '{"amount":2500.75,"currency":"NGN","payoutId":"p-2","walletId":"wal_2",' +
        '"recipient":{"type":"bank","accountDetails":{"name":"Chinedu Okafor","provider":"uba",' +
        '"accountNumber":"0123456789","phoneNumber":null}}}',
    );
  });

  it.each([
    ['SLE', '1500.50', '1500.5'],
    ['SLE', '0.30', '0.3'],
    ['SLE', '0.01', '0.01'],
    ['SLE', '100', '100'],
    ['SLE', '100.00', '100'],
    ['SLE', '10.10', '10.1'],
    ['NGN', '2500.75', '2500.75'],
    ['JPY', '1500', '1500'],
    ['KWD', '0.001', '0.001'],
    ['KWD', '1.100', '1.1'],
    ['SLE', '12345678901234.56', '12345678901234.56'],
    ['SLE', '99999999999990.01', '99999999999990.01'],
    ['JPY', '9007199254740993', '9007199254740993'],
    ['SLE', '123456789012345678901234.99', '123456789012345678901234.99'],
  ])('writes %s %s as the JSON number %s, digit for digit', (currency, amount, literal) => {
    // Built past validation (which refuses more than 15 significant digits): the body itself is exact for any amount.
    const a = parseAmount(amount, currency);
    if (!a.ok) throw new Error(a.problem);
    const body = payoutBody({ ...ok({ ...BANK, currency, amount: '1' }), amountMinor: a.minor, digits: a.digits, amount: a.decimal });
    expect(body.startsWith(`{"amount":${literal},"currency":"${currency}",`)).toBe(true);
    expect(body).not.toContain('__payctl_amount__');
  });

  it('is parseable JSON whose amount reads back as the number', () => {
    const parsed = JSON.parse(payoutBody(ok({ ...BANK, amount: '1500.50', currency: 'SLE' }))) as { amount: unknown };
    expect(parsed.amount).toBe(1500.5);
  });

  it('splices only the amount when a field holds the placeholder text', () => {
    const r = ok({ ...WALLET, name: '__payctl_amount__', note: '"__payctl_amount__"', metadata: ['k=__payctl_amount__'] });
    expect(payoutBody(r)).toBe(
      '{"amount":1500.5,"currency":"SLE","payoutId":"p-1","walletId":"wal_1",' +
        '"recipient":{"type":"wallet","accountDetails":{"name":"__payctl_amount__","provider":"orange_money",' +
        '"accountNumber":"076123456","phoneNumber":"+23276123456","note":"\\"__payctl_amount__\\""}},' +
        '"metadata":{"k":"__payctl_amount__"}}',
    );
  });

  it('escapes quotes, backslashes and non-ASCII text as JSON', () => {
    const body = payoutBody(ok({ ...BANK, name: 'O"Brien \\ Zoë', note: 'a $1 & <b>' }));
    expect(body).toContain('"name":"O\\"Brien \\\\ Zoë"');
    expect(body).toContain('"note":"a $1 & <b>"');
    expect((JSON.parse(body) as { recipient: { accountDetails: { name: string } } }).recipient.accountDetails.name).toBe('O"Brien \\ Zoë');
  });

  it('writes the same text for the same request (the journal compares it)', () => {
    const r = ok({ ...WALLET, metadata: ['b=2', 'a=1'] });
    expect(payoutBody(r)).toBe(payoutBody(ok({ ...WALLET, metadata: ['b=2', 'a=1'] })));
    expect(payoutBody(r).endsWith('"metadata":{"b":"2","a":"1"}}')).toBe(true);
  });
});
