import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { retryCommand } from '../../src/commands/payout/retry-command.js';
import { shellQuote } from '../../src/config/command-line.js';
import { payoutBody, validatePayout, type PayoutFields, type PayoutRequest } from '../../src/payouts/request.js';

/** What a real bash prints for `printf '%s\n' <quoted>`. */
function bashEcho(quoted: string): string {
  return execFileSync('bash', ['-c', `printf '%s\\n' ${quoted}`], { encoding: 'utf8' });
}

/** The shells a printed command may be pasted into, as run here (no start-up files). */
const SHELLS: Array<[string, string[]]> = [
  ['sh', ['-c']],
  ['bash', ['--norc', '--noprofile', '-c']],
  ['zsh', ['-f', '-c']],
  ['fish', ['--no-config', '-c']],
];

/** The words a real shell reads from `words` (quoted words joined by spaces), as printf gets them. */
function wordsIn(shell: string, flags: string[], words: string): string[] {
  const out = execFileSync(shell, [...flags, `/usr/bin/printf '%s\\0' ${words}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

/** The argv a real fish passes to `payctl` when it runs the command. */
function fishArgv(command: string): string[] {
  const out = execFileSync('fish', ['--no-config', '-c', `function payctl; /usr/bin/printf '%s\\0' $argv; end\n${command}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

/** The argv a real bash passes to `payctl` when it runs the command (NUL-separated). */
function bashArgv(command: string): string[] {
  const out = execFileSync('bash', ['-c', `payctl() { printf '%s\\0' "$@"; }\n${command}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

const KEY = '0b5c9d1e-1f2a-4b3c-8d4e-5f6a7b8c9d0e';

function request(over: PayoutFields): PayoutRequest {
  const r = validatePayout({
    payoutId: 'p-1',
    walletId: 'wal_1',
    amount: '1500.50',
    currency: 'SLE',
    type: 'wallet',
    name: 'Aminata Kamara',
    provider: 'orange_money',
    account: '076123456',
    phone: '+23276123456',
    ...over,
  });
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.request;
}

describe('shellQuote', () => {
  it.each([
    'wal_1',
    '1500.50',
    'orange_money',
    '+23276123456',
    'https://api.example.com/v2',
    'batch=oct',
    '50%',
    'a@b.c',
    'p-1:2,3',
    '0b5c9d1e-1f2a-4b3c-8d4e-5f6a7b8c9d0e',
  ])('leaves the safe value %s bare', (value) => {
    expect(shellQuote(value)).toBe(value);
    expect(bashEcho(shellQuote(value))).toBe(`${value}\n`);
  });

  it.each([
    ['Aminata Kamara', "'Aminata Kamara'"],
    ["O'Brien", "'O'\\''Brien'"],
    ['$HOME', "'$HOME'"],
    ['', "''"],
    // A backslash outside the quotes, escaped: fish reads \\ and \' inside single quotes as escapes.
    ['\\\\srv\\pay', "\\\\\\\\'srv'\\\\'pay'"],
    ['C:\\pay\\', "'C:'\\\\'pay'\\\\"],
    ['\\', '\\\\'],
    // Not bare: zsh reads =ls as the path of ls, fish %self as its pid.
    ['=ls', "'=ls'"],
    ['%self', "'%self'"],
  ])('quotes %j as %s', (value, quoted) => {
    expect(shellQuote(value)).toBe(quoted);
  });

  const HOSTILE = [
    'Aminata Kamara',
    "O'Brien",
    "''",
    "'",
    '$HOME',
    '${PATH}',
    '$(echo pwned)',
    '`id`',
    'a\nb',
    'trailing\n',
    'tab\there',
    '"double" quotes',
    'back\\slash',
    '\\\\srv\\pay',
    'C:\\pay\\',
    '\\',
    '\\\\',
    "\\'",
    "'\\",
    'a\\nb',
    '*',
    '~',
    '~root',
    'a;b',
    'a|b&c',
    '!x !!',
    '#comment',
    '-n',
    '--yes',
    'Zoë 李',
    '',
    ' ',
    'a=b c',
    '=ls',
    '=x',
    '%self',
    '%1',
    '<in >out',
    '(x)',
    '{a,b}',
    '$fish_pid',
    '(echo x)',
  ];

  it.each(SHELLS)('%s reads every quoted value back exactly, in one line', (shell, flags) => {
    expect(wordsIn(shell, flags, HOSTILE.map(shellQuote).join(' '))).toEqual(HOSTILE);
  });
});

describe('retryCommand', () => {
  it('holds every field, the payout id, the key and --yes, in a fixed order', () => {
    const r = request({ note: 'October stipend', metadata: ['batch=oct', 'ref=a b'] });
    expect(retryCommand(r, KEY, {})).toBe(
      'payctl payout create --wallet wal_1 --amount 1500.50 --currency SLE --type wallet ' +
        "--name 'Aminata Kamara' --provider orange_money --account 076123456 --phone +23276123456 " +
        "--note 'October stipend' --metadata batch=oct --metadata 'ref=a b' " +
        `--payout-id p-1 --idempotency-key ${KEY} --yes`,
    );
  });

  it('adds --profile and --base-url when given, and leaves out absent phone, note and metadata', () => {
    const r = request({ type: 'bank', phone: undefined, currency: 'JPY', amount: '1500', provider: 'Eco Bank' });
    expect(retryCommand(r, KEY, { profile: 'prod eu', baseUrl: 'https://api.example.com/v2' })).toBe(
      "payctl payout create --profile 'prod eu' --base-url https://api.example.com/v2 " +
        "--wallet wal_1 --amount 1500 --currency JPY --type bank --name 'Aminata Kamara' --provider eco_bank --account 076123456 " +
        `--payout-id p-1 --idempotency-key ${KEY} --yes`,
    );
  });

  it('leaves out empty profile and base URL', () => {
    expect(retryCommand(request({}), KEY, { profile: '', baseUrl: '' })).not.toMatch(/--profile|--base-url/);
  });

  it('gives bash the exact arguments, hostile text included', () => {
    // A newline is refused in metadata by validation; the quoting must survive one all the same.
    const r = {
      ...request({
        name: "O'Brien `id` $(rm -rf ~)",
        account: '$HOME;ls',
        note: 'say "hi" & <b>*</b> \\ !',
      }),
      metadata: { q: "it's $x", nl: 'a\nb' },
    };
    expect(bashArgv(retryCommand(r, KEY, { profile: "it's" }))).toEqual([
      'payout',
      'create',
      '--profile',
      "it's",
      '--wallet',
      'wal_1',
      '--amount',
      '1500.50',
      '--currency',
      'SLE',
      '--type',
      'wallet',
      '--name',
      "O'Brien `id` $(rm -rf ~)",
      '--provider',
      'orange_money',
      '--account',
      '$HOME;ls',
      '--phone',
      '+23276123456',
      '--note',
      'say "hi" & <b>*</b> \\ !',
      '--metadata',
      "q=it's $x",
      '--metadata',
      'nl=a\nb',
      '--payout-id',
      'p-1',
      '--idempotency-key',
      KEY,
      '--yes',
    ]);
  });

  it('fish and bash read a note with backslashes back alike (a UNC path, one ending in a backslash)', () => {
    for (const note of ['\\\\srv\\pay', 'C:\\pay\\']) {
      const command = retryCommand(request({ note }), KEY, { profile: "it's" });
      const argv = bashArgv(command);
      expect(argv[argv.indexOf('--note') + 1]).toBe(note);
      expect(fishArgv(command)).toEqual(argv);
    }
  });

  it('rebuilds the identical request body when its flags are read back', () => {
    const r = request({ name: " Zoë  O'Brien ", provider: 'Orange Money', phone: '+232 76-123-456', note: '  two  spaces ', metadata: ['a=1=2', 'b= x '] });
    const argv = bashArgv(retryCommand(r, KEY, {}));
    const f: PayoutFields = { metadata: [] };
    const field: Record<string, keyof PayoutFields> = {
      '--wallet': 'walletId',
      '--amount': 'amount',
      '--currency': 'currency',
      '--type': 'type',
      '--name': 'name',
      '--provider': 'provider',
      '--account': 'account',
      '--phone': 'phone',
      '--note': 'note',
      '--payout-id': 'payoutId',
    };
    let key: string | undefined;
    for (let i = 2; i < argv.length; i++) {
      const flag = argv[i]!;
      if (flag === '--yes') continue;
      const value = argv[++i]!;
      if (flag === '--metadata') (f.metadata as string[]).push(value);
      else if (flag === '--idempotency-key') key = value;
      else f[field[flag]!] = value as never;
    }
    expect(key).toBe(KEY);
    const again = validatePayout(f);
    if (!again.ok) throw new Error(again.problems.join('; '));
    expect(payoutBody(again.request)).toBe(payoutBody(r));
  });
});
