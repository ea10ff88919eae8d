/**
 * `--json` errors name what failed (issue #15): in process (payctl's main with in-memory
 * streams, the sandbox over real HTTP). Each problem of payctl's own validation is one
 * entry of `error.errors` with the flag (`--amount`) or column (`amount`, with the batch
 * file's `row`) in `field` and the message without it; what to do next is `error.hint`,
 * never part of `error.message`, for commander's own usage errors too; and the text a person
 * reads is as it was.
 */
import { describe, expect, it } from 'vitest';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { batchRows, payoutPosts, toCsv, toJsonl, writeFile } from '../helpers/batch.js';
import { useSandbox } from '../helpers/sandbox.js';
import { UsageError, fieldProblem, problemOf, rowProblem } from '../../src/errors.js';
import { renderErrorJson, renderErrorText } from '../../src/output/error-report.js';
import { makeStyle } from '../../src/output/style.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';

const ctx = useSandbox();

interface ErrorDoc {
  error: { message: string; status: null; code: string; request_id: null; errors: Array<{ field: string; message: string; row?: number }>; hint: string | null };
}

const setup = useBatchFolders(ctx);

const run = (args: string[]): Promise<Run> => payctl(args, { dir: setup.dir });

/** The one JSON document on stderr, with nothing on stdout and exit 2. */
function usageJson(r: Run): ErrorDoc['error'] {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  const doc = JSON.parse(r.stderr) as ErrorDoc;
  expect(Object.keys(doc.error)).toEqual(['message', 'status', 'code', 'request_id', 'errors', 'hint']);
  expect(doc.error.code).toBe('USAGE_ERROR');
  return doc.error;
}

/** The "  - ..." lines of a text error. */
const listedLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('  - '));

// Several bad flags at once: a bad amount, an unknown currency, a bad type, a bad phone,
// metadata without "=", a bad idempotency key, and no --name or --account.
const BAD_FLAGS = [
  '--wallet',
  'wal_x',
  '--amount',
  '12,50',
  '--currency',
  'SLX',
  '--type',
  'card',
  '--provider',
  'orange_money',
  '--phone',
  'abc',
  '--metadata',
  'nokey',
  '--idempotency-key',
  'not-a-uuid',
  '--yes',
];

describe('payout create --json: one entry per problem, naming the flag', () => {
  it('each bad or missing flag is an entry with the flag in field and the message without it; the hint is error.hint', async () => {
    const e = usageJson(await run(['payout', 'create', '--json', ...BAD_FLAGS]));
    expect(e.message).toBe('Cannot send this payout: 8 problems. Nothing was sent.');
    expect(e.errors).toEqual([
      { field: '--name', message: "is required (the recipient's full name)" },
      { field: '--account', message: "is required (the recipient's account number)" },
      { field: '--currency', message: '"SLX" is not an ISO 4217 currency code' },
      { field: '--amount', message: '"12,50" is not a plain decimal amount (use digits and at most one ".", e.g. 1500.50)' },
      { field: '--type', message: 'must be bank or wallet (got "card")' },
      { field: '--phone', message: '"abc" is not a phone number (6 to 15 digits, optionally after a +)' },
      { field: '--metadata', message: '"nokey" is not key=value' },
      { field: '--idempotency-key', message: '"not-a-uuid" is not a UUID' },
    ]);
    for (const err of e.errors) expect(err.message).not.toContain(err.field);
    expect(e.hint).toMatch(/payctl payout create --help/);
    expect(e.message).not.toContain('--help');
    expect(payoutPosts(ctx.sb)).toEqual([]);
  });

  it('an amount with more digits than the currency has names --amount', async () => {
    const e = usageJson(
      await run([
        'payout',
        'create',
        '--json',
        '--yes',
        '--wallet',
        setup.sleWallet,
        '--amount',
        '1.005',
        '--currency',
        'SLE',
        '--type',
        'bank',
        '--name',
        'A B',
        '--provider',
        'uba',
        '--account',
        '1',
      ]),
    );
    expect(e.errors).toHaveLength(1);
    expect(e.errors).toEqual([{ field: '--amount', message: '"1.005" has 3 decimal places, more than SLE has (2)' }]);
  });

  it('--yes missing off a terminal names --yes', async () => {
    const e = usageJson(
      await run([
        'payout',
        'create',
        '--json',
        '--wallet',
        setup.sleWallet,
        '--amount',
        '1',
        '--currency',
        'SLE',
        '--type',
        'bank',
        '--name',
        'A B',
        '--provider',
        'uba',
        '--account',
        '1',
      ]),
    );
    expect(e.errors).toEqual([{ field: '--yes', message: expect.stringMatching(/^is required .*: money never moves without an explicit yes$/) }]);
  });

  it('the text a person reads is unchanged: each line names its flag as before', async () => {
    const r = await run(['payout', 'create', ...BAD_FLAGS]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe('Error: Cannot send this payout: 8 problems. Nothing was sent.');
    expect(listedLines(r.stderr)).toEqual([
      "  - --name is required (the recipient's full name)",
      "  - --account is required (the recipient's account number)",
      '  - --currency: "SLX" is not an ISO 4217 currency code',
      '  - --amount: "12,50" is not a plain decimal amount (use digits and at most one ".", e.g. 1500.50)',
      '  - --type must be bank or wallet (got "card")',
      '  - --phone: "abc" is not a phone number (6 to 15 digits, optionally after a +)',
      '  - --metadata: "nokey" is not key=value',
      '  - --idempotency-key: "not-a-uuid" is not a UUID',
    ]);
    expect(r.stderr).toMatch(/payctl payout create --help/);
    expect(r.stderr).not.toContain('{');
  });
});

describe('payout batch --json: entries name the row and the column', () => {
  it('bad CSV rows: field is the column, row the spreadsheet row; the hint is error.hint, not in the message', async () => {
    const rows = batchRows(6, setup.sleWallet, `jbad-${Date.now()}`);
    rows[0]!.currency = 'XYZ'; // row 2
    rows[1]!.wallet_id = ''; // row 3
    rows[1]!.phone_number = ''; // row 3
    rows[3]!.type = 'card'; // row 5
    rows[4]!.payout_id = rows[2]!.payout_id!; // row 6 repeats row 4's id
    rows[5]!.amount = '0.001'; // row 7
    const file = writeFile(setup.work.file('bad.csv'), toCsv(rows));

    const e = usageJson(await run(['payout', 'batch', file, '--yes', '--json']));
    expect(e.message).toBe(`${file}: 6 problems. Nothing was sent.`);
    expect(e.errors).toEqual([
      { field: 'currency', row: 2, message: '"XYZ" is not an ISO 4217 currency code' },
      { field: 'wallet_id', row: 3, message: 'is required (the source wallet id)' },
      { field: 'phone_number', row: 3, message: 'is required for wallet recipients' },
      { field: 'type', row: 5, message: 'must be bank or wallet (got "card")' },
      { field: 'payout_id', row: 6, message: `"${rows[2]!.payout_id}" is also used on row 4` },
      { field: 'amount', row: 7, message: '"0.001" has 3 decimal places, more than SLE has (2)' },
    ]);
    expect(e.hint).toBe('Fix the rows above and run the same command again.');
    expect(e.message).not.toContain('Fix the rows');
    expect(ctx.sb.requests()).toEqual([]);
  });

  it('bad JSON lines: an unknown key, a non-object line and a repeated key', async () => {
    const rows = batchRows(3, setup.sleWallet, `jl-${Date.now()}`);
    const lines = toJsonl(rows).trimEnd().split('\n');
    lines[0] = lines[0]!.replace('{', '{"colour":"red",');
    lines[1] = '[1, 2]';
    lines[2] = lines[2]!.replace('{', '{"amount":"1.00",');
    const file = writeFile(setup.work.file('bad.jsonl'), lines.join('\n') + '\n');

    const e = usageJson(await run(['payout', 'batch', file, '--yes', '--json']));
    expect(e.errors).toEqual([
      { field: 'colour', row: 1, message: expect.stringMatching(/^unknown column \(columns: payout_id, /) },
      { field: '', row: 2, message: 'not a JSON object' },
      { field: 'amount', row: 3, message: 'is given more than once' },
    ]);
  });

  it('a CSV header with a column twice and one missing: the column in field, no row (the rows lacking it have theirs)', async () => {
    const file = writeFile(setup.work.file('header.csv'), `wallet_id,amount,currency,type,name,provider,amount\n${setup.sleWallet},1.00,SLE,bank,A B,uba,2.00\n`);
    const e = usageJson(await run(['payout', 'batch', file, '--yes', '--json']));
    expect(e.errors).toEqual([
      { field: 'amount', message: 'the header row has this column more than once' },
      { field: 'account_number', message: 'the header row lacks column account_number' },
      { field: 'account_number', row: 2, message: "is required (the recipient's account number)" },
    ]);
  });

  it('the text a person reads is unchanged: "row N: column ..." lines and the hint after them', async () => {
    const rows = batchRows(3, setup.sleWallet, `jtext-${Date.now()}`);
    rows[0]!.currency = 'XYZ'; // row 2
    rows[2]!.type = 'card'; // row 4
    const file = writeFile(setup.work.file('text.csv'), toCsv(rows));
    const r = await run(['payout', 'batch', file, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        `Error: ${file}: 2 problems. Nothing was sent.`,
        '  - row 2: currency: "XYZ" is not an ISO 4217 currency code',
        '  - row 4: type must be bank or wallet (got "card")',
        'Fix the rows above and run the same command again.',
        '',
      ].join('\n'),
    );
  });

  it('rows checked against the live wallets: an unknown wallet names wallet_id, another currency names currency', async () => {
    const usd = ctx.sb.wallets().find((w) => w.currency !== 'SLE')!;
    const rows = batchRows(3, setup.sleWallet, `jwal-${Date.now()}`);
    rows[0]!.wallet_id = 'wal_nobody'; // row 2
    rows[2]!.wallet_id = usd.wallet_id; // row 4: an SLE row from a wallet in another currency
    const file = writeFile(setup.work.file('wallets.csv'), toCsv(rows));

    const e = usageJson(await run(['payout', 'batch', file, '--yes', '--json']));
    expect(e.errors).toEqual([
      { field: 'wallet_id', row: 2, message: expect.stringMatching(/^"wal_nobody" is not one of your wallets \(see payctl .*balances\)$/) },
      { field: 'currency', row: 4, message: `wallet ${usd.wallet_id} holds ${usd.currency.toUpperCase()}, not SLE` },
    ]);
    expect(e.hint).toBe('Fix the rows above and run the same command again.');
    expect(payoutPosts(ctx.sb)).toEqual([]);
  });

  it('a row sent before with other details names payout_id and its row', async () => {
    const rows = batchRows(1, setup.sleWallet, `jconf-${Date.now()}`);
    const first = await run(['payout', 'batch', writeFile(setup.work.file('first.csv'), toCsv(rows)), '--yes']);
    expect(first.code, first.stderr).toBe(0);
    rows[0]!.amount = '99.99';
    const e = usageJson(await run(['payout', 'batch', writeFile(setup.work.file('changed.csv'), toCsv(rows)), '--yes', '--json']));
    expect(e.errors).toEqual([{ field: 'payout_id', row: 2, message: `"${rows[0]!.payout_id}" was already sent with other details` }]);
  });
});

describe('other commands: a problem that starts with a flag names it', () => {
  it('payouts list: --from and --currency by field, a problem about two flags by none', async () => {
    const e = usageJson(await run(['payouts', 'list', '--json', '--from', '2026-11-02', '--to', '2026-11-01', '--csv', '--currency', 'XXQ']));
    expect(e.errors).toEqual([
      { field: '--from', message: 'is later than --to' },
      { field: '', message: '--csv and --json cannot be used together' },
      { field: '--currency', message: '"XXQ" is not an ISO 4217 currency code' },
    ]);
  });
});

describe('usage errors found while the command line is read: the same shape', () => {
  it("an option's value refused names the flag in errors; the hint is a sentence, not part of the message", async () => {
    const e = usageJson(await run(['payouts', 'list', '--limit', '150', '--json']));
    expect(e.message).toBe("option '--limit <n>' argument '150' is invalid. --limit must be a whole number from 1 to 100.");
    expect(e.errors).toEqual([{ field: '--limit', message: '"150" is invalid: must be a whole number from 1 to 100.' }]);
    expect(e.hint).toBe('Run `payctl payouts list --help` for usage.');
    const missing = usageJson(await run(['payouts', 'list', '--json', '--limit']));
    expect(missing.errors).toEqual([{ field: '--limit', message: 'needs a value (--limit <n>)' }]);
  });

  it('an unknown command or option: the suggestion is in the hint, the message one line', async () => {
    const cmd = usageJson(await run(['payout', 'lst', '--json']));
    expect(cmd).toMatchObject({ message: "unknown command 'lst'", errors: [{ field: '', message: "unknown command 'lst'" }] });
    expect(cmd.hint).toBe('Did you mean payouts list? Run `payctl payout --help` for usage.');
    const option = usageJson(await run(['payouts', 'list', '--limt', '3', '--json']));
    expect(option).toMatchObject({ message: "unknown option '--limt'", errors: [{ field: '--limt', message: 'is not an option of payctl payouts list' }] });
    expect(option.hint).toBe('Did you mean --limit? Run `payctl payouts list --help` for usage.');
    const keyed = usageJson(await run(['payouts', 'list', '--api-key=sk_live_Zx81abcdef123456', '--json']));
    expect(keyed.errors).toEqual([{ field: '--api-key', message: 'is not an option of payctl payouts list' }]);
  });

  it("a command's own check: the hint that points at the help is a sentence too; the text a person reads is unchanged", async () => {
    const e = usageJson(await run(['payouts', 'list', '--status', 'bogus', '--json']));
    expect(e.errors).toEqual([{ field: '--status', message: '"bogus" is not a payout status (Pending, Successful, Failed)' }]);
    expect(e.hint).toBe('Run `payctl payouts list --help` for usage.');
    expect((await run(['payouts', 'list', '--status', 'bogus'])).stderr).toBe(
      'Error: Invalid options for payouts list.\n  - --status: "bogus" is not a payout status (Pending, Successful, Failed)\n(run `payctl payouts list --help` for usage)\n',
    );
    expect((await run(['payout', 'lst'])).stderr).toBe("error: unknown command 'lst'\n(Did you mean payouts list?)\n(run `payctl payout --help` for usage)\n");
  });
});

describe('a refusal of one flag said in one line: the flag in field, the message without it (probe M57, F2)', () => {
  /** The flag's entry under --json, and the text a person reads (stderr without --json). */
  async function both(args: string[]): Promise<{ e: ErrorDoc['error']; text: string }> {
    const e = usageJson(await payctl([...args, '--json'], { dir: setup.dir, input: '' }));
    const t = await payctl(args, { dir: setup.dir, input: '' });
    expect(t.code, t.stderr).toBe(2);
    return { e, text: t.stderr };
  }

  it('--base-url, --forward-to, --profile: field is the flag; the text is as it was', async () => {
    const ftp = await both(['--base-url', 'ftp://x', 'balances']);
    expect(ftp.e.errors).toEqual([{ field: '--base-url', message: 'The base URL must use https:// (got ftp:).' }]);
    expect(ftp.text).toBe('Error: The base URL must use https:// (got ftp:).\n(run `payctl balances --help` for usage)\n');
    const notUrl = await both(['--base-url', 'notaurl', 'balances']);
    expect(notUrl.e.errors).toEqual([{ field: '--base-url', message: '"notaurl" is not a valid base URL.' }]);
    expect(notUrl.text).toBe('Error: "notaurl" is not a valid base URL.\nGive a full URL such as https://api.bokumonie.com/v2.\n');
    const fwd = await both(['webhooks', 'listen', '--forward-to', 'notaurl']);
    expect(fwd.e.errors).toEqual([{ field: '--forward-to', message: '"notaurl" is not a URL.' }]);
    expect(fwd.text).toBe('Error: --forward-to: "notaurl" is not a URL.\n(run `payctl webhooks listen --help` for usage)\n');
    const scheme = await both(['webhooks', 'listen', '--forward-to', 'ftp://127.0.0.1/x']);
    expect(scheme.e.errors).toEqual([{ field: '--forward-to', message: 'must be an http:// or https:// URL.' }]);
    expect(scheme.text).toBe('Error: --forward-to must be an http:// or https:// URL.\n(run `payctl webhooks listen --help` for usage)\n');
    const profile = await both(['-p', 'nosuch', 'balances']);
    expect(profile.e.errors).toEqual([{ field: '--profile', message: profile.e.message }]);
    expect(profile.text).toMatch(/^Error: No profile "nosuch"\. [^\n]*\n[^-]/);
    // PAYCTL_PROFILE's name is of no flag.
    const env = usageJson(await payctl(['balances', '--json'], { dir: setup.dir, env: { PAYCTL_PROFILE: 'nosuch' } }));
    expect(env.errors).toEqual([{ field: '', message: env.message }]);
  });

  it('--batch-id, --report, --failed-out: field is the flag, the message without it; the text is as it was', async () => {
    const file = writeFile(setup.work.file('one.csv'), toCsv(batchRows(1, setup.sleWallet, `jflag-${Date.now()}`)));
    const id = await both(['payout', 'batch', file, '--batch-id', 'bad id', '--yes']);
    const rule = '"bad id" may only hold letters, digits and _ . : - (at most 64, starting with a letter or digit)';
    expect(id.e.errors).toEqual([{ field: '--batch-id', message: rule }]);
    expect(id.text).toBe(`Error: Cannot send this batch: --batch-id: ${rule}. Nothing was sent.\n(run \`payctl payout batch --help\` for usage)\n`);
    const report = await both(['payout', 'batch', file, '--report', '/nonexist/x.csv', '--yes']);
    expect(report.e.errors).toEqual([{ field: '--report', message: '/nonexist/x.csv: the folder /nonexist does not exist' }]);
    expect(listedLines(report.text)).toEqual(['  - --report /nonexist/x.csv: the folder /nonexist does not exist']);
    const sent = await run(['payout', 'batch', file, '--yes']);
    expect(sent.code, sent.stderr).toBe(0);
    const reportFile = file.replace(/\.csv$/, '.report.csv');
    const out = await both(['payout', 'batch', 'status', reportFile, '--failed-out', setup.work.file('x.txt')]);
    expect(out.e.errors).toHaveLength(1);
    expect(out.e.errors[0]!.field).toBe('--failed-out');
    expect(out.e.errors[0]!.message).toMatch(/^\/\S+\/x\.txt: payctl writes a batch file as \.csv or \.jsonl/);
    expect(listedLines(out.text)).toEqual([`  - --failed-out ${out.e.errors[0]!.message}`]);
    // Never led by the flag again (--failed-out's advice ends with the name to give it).
    for (const err of [...id.e.errors, ...report.e.errors, ...out.e.errors]) expect(err.message.startsWith(err.field)).toBe(false);
  });
});

describe('a refusal of no single flag or cell: one entry, field ""', () => {
  // Probe E54, finding 5: these gave "errors":[], and a script reading errors[0] got nothing.
  it('a plan that cannot be read, a setting payctl does not know, a login without a key', async () => {
    for (const args of [
      ['plan', 'send', 'nosuch.json', '--json'],
      ['config', 'set', 'nosuch', '--stdin', '--json'],
      ['login', '--profile', 'q1', '--base-url', ctx.sb.baseUrl, '--json'],
    ]) {
      const e = usageJson(await payctl(args, { dir: setup.dir, input: '' }));
      expect(e.errors, args.join(' ')).toEqual([{ field: '', message: e.message }]);
    }
  });
});

describe('an empty value given to a flag (probe R58b, F1 and F2)', () => {
  // `--base-url "$U"` with $U unset was taken as not given: a payout went to the default profile's service.
  it('is refused before anything is sent, naming the flag: --base-url, --profile, --forward-to, --report, --failed-out', async () => {
    const from = ctx.sb.requests().length;
    const create = ['payout', 'create', '--wallet', '6643665465', '--amount', '1', '--currency', 'SLE', '--type', 'bank', '--name', 'Ibrahim Bangura'];
    const cases: Array<[string, string[]]> = [
      ['--base-url', ['--json', '--base-url=', ...create, '--provider', 'ecobank', '--account', '4410001235', '--yes']],
      ['--base-url', ['--json', 'balances', '--base-url', '']],
      ['--profile', ['--json', 'balances', '--profile=']],
      ['--forward-to', ['--json', 'webhooks', 'listen', '--forward-to=']],
      ['--report', ['--json', 'payout', 'batch', 'pay.csv', '--report=', '--yes']],
      ['--failed-out', ['--json', 'payout', 'batch', 'status', 'pay.report.csv', '--failed-out=']],
    ];
    for (const [flag, args] of cases) {
      const e = usageJson(await run(args));
      expect(e.errors, args.join(' ')).toEqual([{ field: flag, message: '"" is invalid: must not be empty: give a value, or leave the option out.' }]);
    }
    expect(ctx.sb.requests().slice(from)).toEqual([]);
    expect((await run(['balances', '--base-url='])).stderr).toContain(`--base-url must not be empty: give a value, or leave the option out.`);
  });
});

describe('the error shape', () => {
  const plain = makeStyle(false);

  it('hint is null when there is none, and a row only where a problem has one', () => {
    const err = new UsageError('Bad.', [
      fieldProblem('--amount', 'is required', ' '),
      rowProblem(3, fieldProblem('amount', '"x" is not an amount')),
      'a problem of the whole file',
    ]);
    expect(JSON.parse(renderErrorJson(err))).toEqual({
      error: {
        message: 'Bad.',
        status: null,
        code: 'USAGE_ERROR',
        request_id: null,
        errors: [
          { field: '--amount', message: 'is required' },
          { field: 'amount', message: '"x" is not an amount', row: 3 },
          { field: '', message: 'a problem of the whole file' },
        ],
        hint: null,
      },
    });
    expect(err.problems).toEqual(['--amount is required', 'row 3: amount: "x" is not an amount', 'a problem of the whole file']);
    expect(renderErrorText(err, plain)).toBe('Error: Bad.\n  - --amount is required\n  - row 3: amount: "x" is not an amount\n  - a problem of the whole file\n');
  });

  it('problemOf: a leading flag that is what the line is about; otherwise no field', () => {
    expect(problemOf('--from: "x" is not a date')).toEqual({ field: '--from', message: '"x" is not a date', text: '--from: "x" is not a date' });
    expect(problemOf('--since is later than --until')).toMatchObject({ field: '--since', message: 'is later than --until' });
    expect(problemOf('--all and --page cannot be used together')).toMatchObject({ field: '', message: '--all and --page cannot be used together' });
    expect(problemOf('route payoutGet must contain {id}')).toMatchObject({ field: '' });
  });
});

describe('an unknown option written with its value', () => {
  it('is named without the value, in text and --json: a key typed as --api-key=… is never printed (probe 49-F)', async () => {
    const key = 'sk_live_Zx81abcdef123456';
    const secret = 'whsec_Q2abcdef987654';
    const login = await payctl(['login', `--api-key=${key}`], { dir: setup.dir });
    expect(login.code).toBe(2);
    expect(login.stderr).toContain("unknown option '--api-key=…'");
    const listen = await payctl(['webhooks', 'listen', `--webhook-secret=${secret}`, '--json'], { dir: setup.dir });
    expect(listen.code).toBe(2);
    expect(JSON.parse(listen.stderr)).toMatchObject({ error: { message: "unknown option '--webhook-secret=…'" } });
    // Short flags with the value run on, several run together, and a value holding a quote (probe 51-H).
    const short = await payctl(['login', `-k${key}`], { dir: setup.dir });
    expect(short.stderr).toContain("unknown option '-k…'");
    const together = await payctl(['balances', `-yk${key}`], { dir: setup.dir });
    expect(together.stderr).toContain("unknown option '-y…'");
    const quoted = await payctl(['login', `--api-key=ab'${key}`], { dir: setup.dir });
    expect(quoted.stderr).toContain("unknown option '--api-key=…'");
    for (const r of [login, listen, short, together, quoted]) expect(r.stdout + r.stderr).not.toMatch(/Zx81abcdef|Q2abcdef/);
  });
});

describe('webhooks listen: an empty --secret-stdin', () => {
  it('is refused with the same listener to run, its options kept (probe 49-F: the hint dropped --port and --forward-to)', async () => {
    const args = ['webhooks', 'listen', '--secret-stdin', '--port', '47646', '--forward-to', 'http://127.0.0.1:3000/hooks', '--tolerance', '60'];
    const r = await payctl(args, { dir: setup.dir, input: '\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('The webhook secret from standard input is empty.');
    expect(r.stderr).toContain(
      'Pipe it in: printf %s "$SECRET" | payctl webhooks listen --secret-stdin --port 47646 --tolerance 60 --forward-to http://127.0.0.1:3000/hooks\n',
    );
    // A forward URL with a password is never printed.
    const secretUrl = await payctl(['webhooks', 'listen', '--secret', ' ', '--forward-to', 'http://app:Pw-991x@127.0.0.1:3000/hooks'], { dir: setup.dir });
    expect(secretUrl.code).toBe(2);
    expect(secretUrl.stderr).toContain('payctl webhooks listen --secret-stdin --forward-to "$FORWARD_TO"');
    expect(secretUrl.stderr).not.toContain('Pw-991x');
  });
});
