/**
 * Parser tests of what commander refuses (exit 2 in main): bad values, unknown options,
 * missing and extra arguments, unknown commands. Each checks the error code and exactly
 * what a user sees on stderr (the message, any suggestion, and the help hint), and that
 * no command ran.
 */
import { describe, expect, it } from 'vitest';
import { parse, refuse } from '../helpers/parse.js';
import { usageHint } from '../helpers/usage-hint.js';
import { LEAVES, MINIMAL, VARIADIC } from './minimal.js';

/**
 * What stderr holds for a usage error of `command` (as typed after payctl, '' for none):
 * the message, an optional suggestion, and the pointer to that command's help.
 */
const seen = (command: string, message: string, suggestion?: string) =>
  `error: ${message}\n${suggestion === undefined ? '' : `(Did you mean ${suggestion}?)\n`}${usageHint(command)}\n`;

describe('--timeout', () => {
  const small = ['0', '0.09', '0.0'];
  // Not plain digits: the form is named, with the range (`1e9` read "at least 0.1" before).
  const bad = (v: string) =>
    `option '--timeout <seconds>' argument '${v}' is invalid. --timeout must be ${
      small.includes(v) ? 'a number of seconds, at least 0.1.' : 'a plain number of seconds (digits and at most one ".", e.g. 30 or 2.5), at least 0.1 and at most 86400.'
    }`;

  for (const value of [...small, 'abc', '-1', '1e3', '1e9', '5s', '1,5', '', ' 5', 'Infinity', 'NaN']) {
    it(`--timeout ${JSON.stringify(value)} is refused`, async () => {
      const r = await refuse('status', '--timeout', value);
      expect(r.code).toBe('commander.invalidArgument');
      expect(r.message).toBe(bad(value));
      expect(r.stderr).toBe(seen('status', bad(value)));
    });
  }

  it('--timeout .5 is half a second, as 0.5 is', async () => {
    expect((await parse('status', '--timeout', '.5')).globals().timeoutMs).toBe(500);
  });

  it('more than a day is refused with the upper bound', async () => {
    const r = await refuse('status', '--timeout', '86401');
    expect(r.message).toBe("option '--timeout <seconds>' argument '86401' is invalid. --timeout must be at most 86400 seconds (a day).");
    expect((await parse('status', '--timeout', '86400')).globals().timeoutMs).toBe(86_400_000);
  });

  it('refused before the command too, pointing at the help of the command typed after it', async () => {
    const r = await refuse('--timeout', '0', 'payout', 'create');
    expect(r.code).toBe('commander.invalidArgument');
    expect(r.stderr).toBe(seen('payout create', bad('0')));
  });

  it('without a value', async () => {
    const r = await refuse('status', '--timeout');
    expect(r.code).toBe('commander.optionMissingArgument');
    expect(r.stderr).toBe(seen('status', "option '--timeout <seconds>' argument missing"));
  });

  // Known bug (reported): --timeout has no upper bound, and a deadline above 2^31-1 ms
  // (about 24.8 days) overflows Node's timers, which then fire after 1 ms: every request
  // times out at once, with a TimeoutOverflowWarning. Flip to `it` once the parser caps it.
  it('a time limit Node cannot keep (over 2147483 s) is refused, not turned into an instant timeout', async () => {
    const r = await refuse('status', '--timeout', '2147484');
    expect(r.code).toBe('commander.invalidArgument');
  });
});

describe('whole-number options', () => {
  const CASES: Array<[string, string[], string, string]> = [
    // [command, command line, option as commander names it, the rule (for any bad value)]
    ['payout batch', ['payout', 'batch', 'f.csv', '--concurrency'], '--concurrency <n>', '--concurrency must be a whole number from 1 to 64.'],
    ['payouts list', ['payouts', 'list', '--limit'], '--limit <n>', '--limit must be a whole number from 1 to 100.'],
    ['payouts list', ['payouts', 'list', '--page'], '--page <n>', '--page must be a whole number of at least 1.'],
    ['webhooks listen', ['webhooks', 'listen', '--port'], '--port <n>', '--port must be a whole number from 0 to 65535.'],
    ['sandbox start', ['sandbox', 'start', '--port'], '--port <n>', '--port must be a whole number from 0 to 65535.'],
  ];
  const OUT_OF_RANGE: Record<string, string[]> = {
    '--concurrency <n>': ['0', '65', '1000000'],
    '--limit <n>': ['0', '101'],
    '--page <n>': ['0'],
    '--port <n>': ['65536', '99999'],
  };

  for (const [command, argv, flag, rule] of CASES) {
    const name = flag.split(' ')[0]!;
    for (const value of OUT_OF_RANGE[flag]!) {
      it(`${argv.slice(0, -1).join(' ')} ${name} ${value}: out of range`, async () => {
        const r = await refuse(...argv, value);
        expect(r.code).toBe('commander.invalidArgument');
        expect(r.stderr).toBe(seen(command, `option '${flag}' argument '${value}' is invalid. ${rule}`));
      });
    }
    for (const value of ['abc', '1.5', '-1', '1e2', '0x10', '']) {
      it(`${argv.slice(0, -1).join(' ')} ${name} ${JSON.stringify(value)}: not a whole number`, async () => {
        const r = await refuse(...argv, value);
        expect(r.code).toBe('commander.invalidArgument');
        expect(r.stderr).toBe(seen(command, `option '${flag}' argument '${value}' is invalid. ${rule}`));
      });
    }
  }

  it('--page beyond the largest exact number: the same readable rule', async () => {
    const r = await refuse('payouts', 'list', '--page', '9007199254740992');
    expect(r.stderr).toBe(seen('payouts list', "option '--page <n>' argument '9007199254740992' is invalid. --page is too large."));
  });

  it('sandbox start --seed, --settle-after and --rate-limit take whole numbers from 0', async () => {
    for (const flag of ['--seed <n>', '--settle-after <ms>', '--rate-limit <n>']) {
      const name = flag.split(' ')[0]!;
      const r = await refuse('sandbox', 'start', name, '-5');
      expect(r.stderr).toBe(seen('sandbox start', `option '${flag}' argument '-5' is invalid. ${name} must be a whole number (0 or more).`));
      const huge = await refuse('sandbox', 'start', name, '99999999999999999999');
      expect(huge.stderr).toBe(seen('sandbox start', `option '${flag}' argument '99999999999999999999' is invalid. ${name} is too large.`));
    }
  });

  it('an option that takes a value, given none', async () => {
    const r = await refuse('payout', 'batch', 'f.csv', '--concurrency');
    expect(r.code).toBe('commander.optionMissingArgument');
    expect(r.stderr).toBe(seen('payout batch', "option '--concurrency <n>' argument missing"));
  });

  it('a value-taking option followed by another flag does not swallow the flag: the value is missing', async () => {
    const r = await refuse('balances', '--currency', '--json');
    expect(r.code).toBe('commander.optionMissingArgument');
    expect(r.stderr).toBe(seen('balances', "option '--currency <code>' argument missing"));
  });

  it('--profile without a name', async () => {
    const r = await refuse('status', '--profile');
    expect(r.code).toBe('commander.optionMissingArgument');
    expect(r.stderr).toBe(seen('status', "option '-p, --profile <name>' argument missing"));
  });
});

describe('unknown options', () => {
  for (const path of LEAVES) {
    it(`${path}: an unknown option is refused`, async () => {
      const r = await refuse(...MINIMAL[path]!, '--frobnicate');
      expect(r.code).toBe('commander.unknownOption');
      expect(r.stderr).toBe(seen(path, "unknown option '--frobnicate'"));
    });
  }

  it('a near miss gets a suggestion', async () => {
    const r = await refuse('payout', 'batch', 'f.csv', '--dryrun');
    expect(r.code).toBe('commander.unknownOption');
    expect(r.stderr).toBe(seen('payout batch', "unknown option '--dryrun'", '--dry-run'));
  });

  it('a near miss in the --flag=value form gets the same suggestion as in the spaced form', async () => {
    const r = await refuse('--profle=sandbox', 'balances');
    expect(r.code).toBe('commander.unknownOption');
    expect(r.stderr).toBe(seen('balances', "unknown option '--profle=sandbox'", '--profile'));
    expect((await refuse('payout', 'batch', 'f.csv', '--dryrun=1')).stderr).toBe(seen('payout batch', "unknown option '--dryrun=1'", '--dry-run'));
    expect((await refuse('payouts', 'list', '--currenc=SLE')).stderr).toBe(seen('payouts list', "unknown option '--currenc=SLE'", '--currency'));
    // Close to nothing: no suggestion, as in the spaced form.
    expect((await refuse('balances', '--frobnicate=1')).stderr).toBe(seen('balances', "unknown option '--frobnicate=1'"));
  });

  it("another command's flag is unknown here (balances has no --status)", async () => {
    const r = await refuse('balances', '--status', 'Pending');
    expect(r.code).toBe('commander.unknownOption');
    expect(r.stderr).toBe(seen('balances', "unknown option '--status'"));
  });

  it('--color and --input do not exist (only their --no- forms)', async () => {
    expect((await refuse('status', '--color')).stderr).toBe(seen('status', "unknown option '--color'", '--no-color'));
    expect((await refuse('status', '--input')).stderr).toBe(seen('status', "unknown option '--input'", '--no-input'));
  });

  it('a boolean flag takes no =value', async () => {
    expect((await refuse('status', '--json=1')).stderr).toBe(seen('status', "unknown option '--json=1'", '--json'));
    expect((await refuse('payout', 'create', '--yes=true')).code).toBe('commander.unknownOption');
  });

  it('an unknown short flag', async () => {
    const r = await refuse('payout', 'create', '-x');
    expect(r.stderr).toBe(seen('payout create', "unknown option '-x'"));
  });

  // Known bug (reported): short flags of two levels combined work in one order only.
  // `-vy` works (-v is the program's, the rest goes to the subcommand), `-yv` does not:
  // the subcommand takes -y and then does not know -v.
  it('-yv works as -vy does (-y of payout create with the global -v)', async () => {
    const p = await parse('payout', 'create', '-yv');
    expect(p.opts.yes).toBe(true);
    expect(p.globals().verbose).toBe(true);
  });

  it("-vy: the global -v and payout create's -y in one group", async () => {
    const p = await parse('payout', 'create', '-vy');
    expect(p.opts).toEqual({ metadata: [], yes: true });
    expect(p.globals().verbose).toBe(true);
  });
});

describe('arguments', () => {
  const MISSING: Array<[string, string[], string]> = [
    ['payout batch', ['payout', 'batch'], 'file'],
    ['payout get', ['payout', 'get'], 'id'],
    ['config get', ['config', 'get'], 'key'],
    ['config set', ['config', 'set'], 'key'],
    ['config set', ['config', 'set', 'base-url'], 'value'],
    ['config unset', ['config', 'unset'], 'key'],
    ['completion', ['completion'], 'shell'],
    ['plan merge', ['plan', 'merge', 'a.plan.json'], 'copy'],
  ];
  for (const [command, argv, name] of MISSING) {
    it(`${argv.join(' ')}: missing <${name}>`, async () => {
      const r = await refuse(...argv);
      expect(r.code).toBe('commander.missingArgument');
      expect(r.stderr).toBe(seen(command, `missing required argument '${name}'`));
    });
  }

  it('a missing argument is noticed even with global options after the command', async () => {
    const r = await refuse('payout', 'get', '--json');
    expect(r.stderr).toBe(seen('payout get', "missing required argument 'id'"));
  });

  for (const path of LEAVES.filter((p) => !VARIADIC.has(p))) {
    const argv = MINIMAL[path]!;
    const expected = argv.length - path.split(' ').length;
    const name = path.split(' ').at(-1);
    it(`${path}: an extra argument is refused`, async () => {
      const r = await refuse(...argv, 'extra');
      expect(r.code).toBe('commander.excessArguments');
      expect(r.stderr).toBe(seen(path, `too many arguments for '${name}'. Expected ${expected} argument${expected === 1 ? '' : 's'} but got ${expected + 1}.`));
    });
  }

  for (const shell of ['pwsh', 'BASH', 'sh']) {
    it(`completion ${shell}: not one of the shells`, async () => {
      const r = await refuse('completion', shell);
      expect(r.code).toBe('commander.invalidArgument');
      expect(r.stderr).toBe(seen('completion', `command-argument value '${shell}' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.`));
    });
  }
});

describe('words a chat app or word processor changed', () => {
  const dash = (w: string, typed: string) => `"${w}" starts with a dash character, not hyphens (a chat app or word processor changed them): type ${typed}.`;

  it('an option pasted with an em or en dash: refused, the word named with what to type', async () => {
    const em = await refuse('balances', '\u2014json');
    expect(em.code).toBe('commander.excessArguments');
    expect(em.stderr).toBe(`error: too many arguments for 'balances'. Expected 0 arguments but got 1.\n${dash('\u2014json', '--json')}\n${usageHint('balances')}\n`);
    const en = await refuse('payout', 'get', 'TXN-1', '\u2013-json');
    expect(en.stderr).toContain(dash('\u2013-json', '--json'));
    // The word is shown as text: an escape sequence pasted with it is not.
    const escaped = await refuse('balances', '\u2014json\u001b[2J');
    expect(escaped.stderr).toContain(dash('\u2014json', '--json'));
    expect(escaped.stderr).not.toContain('\u001b');
    const short = await refuse('\u2013p', 'sandbox', 'balances');
    expect(short.code).toBe('commander.unknownCommand');
    expect(short.stderr).toContain(dash('\u2013p', '-p'));
  });

  it('a value pasted in curly quotes, split by the shell at its space: the quotes named', async () => {
    const r = await refuse('payout', 'create', '--name', '\u2018Un', 'Known\u2019', '--yes');
    expect(r.code).toBe('commander.excessArguments');
    expect(r.stderr).toContain(
      '"\u2018Un" has curly quotes, which a shell does not treat as quotes (a chat app or word processor changed them): type straight quotes \' or ".',
    );
    // Guillemets, as a French keyboard's chat app writes quotes (the set request.ts refuses around a name too).
    const fr = await refuse('payout', 'create', '--name', '\u00abUn', 'Known\u00bb', '--yes');
    expect(fr.stderr).toContain('"\u00abUn" has curly quotes, which a shell does not treat as quotes');
  });

  it('a no-break or typographic space that made two words one: the word named, when the error names it', async () => {
    const said = (w: string, cp: string) =>
      `"${w}" is one word to the shell: it holds a no-break or typographic space (${cp}) where a space was meant (a chat app or word processor changed it): retype the spaces.`;
    const command = await refuse('balances\u00a0--json');
    expect(command.stderr).toBe(`error: unknown command 'balances\u00a0--json'\n${said('balances --json', 'U+00A0')}\n${usageHint('')}\n`);
    const option = await refuse('payout', 'create', '--wallet\u202f6643665465');
    expect(option.stderr).toContain(said('--wallet 6643665465', 'U+202F'));
    // A name may hold one on purpose: not named for an error about something else.
    const other = await refuse('payout', 'create', '--name', 'Un\u00a0Known', '--bogus');
    expect(other.stderr).toBe(`error: unknown option '--bogus'\n${usageHint('payout create')}\n`);
  });

  it('a dash or a curly quote inside a value is no word to name', async () => {
    for (const note of ['rent \u2014 November \u2018A\u2019 x', '\u2018rent\u2019', '\u2014']) {
      const r = await refuse('payout', 'get', 'TXN-1', '--note', note);
      expect(r.stderr).toBe(`error: unknown option '--note'\n${usageHint('payout get')}\n`);
    }
  });
});

describe('unknown commands', () => {
  it('a typo gets a suggestion', async () => {
    const r = await refuse('balance');
    expect(r.code).toBe('commander.unknownCommand');
    expect(r.stderr).toBe(seen('', "unknown command 'balance'", 'balances'));
  });

  it('payout vs payouts: a subcommand of the other group is unknown, and the other group is suggested', async () => {
    expect((await refuse('payout', 'list')).stderr).toBe(seen('payout', "unknown command 'list'", 'payouts list'));
    expect((await refuse('payouts', 'create')).stderr).toBe(seen('payouts', "unknown command 'create'", 'payout create'));
  });

  it('a command that does not exist at all', async () => {
    const r = await refuse('transfer', '--amount', '5');
    expect(r.code).toBe('commander.unknownCommand');
    expect(r.message).toMatch(/^unknown command 'transfer'/);
  });

  it('the hidden __complete-profiles is never offered as a suggestion', async () => {
    const r = await refuse('__complete-profile');
    expect(r.code).toBe('commander.unknownCommand');
    expect(r.stderr).not.toContain('(Did you mean __complete-profiles?)');
  });
});

describe('help and version are answered by commander, on stdout, and run nothing', () => {
  for (const path of Object.keys(MINIMAL)) {
    it(`${path} --help`, async () => {
      const r = await refuse(...path.split(' '), '--help');
      expect(r.code).toBe('commander.helpDisplayed');
      expect(r.error.exitCode).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: payctl ${path} `));
      expect(r.stderr).toBe('');
    });
  }

  it('-V and --version print the package version', async () => {
    const { version } = await import('../../src/program.js');
    for (const flag of ['-V', '--version']) {
      const r = await refuse(flag);
      expect(r.code).toBe('commander.version');
      expect(r.stdout).toBe(`${version()}\n`);
    }
    expect(version()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("help <command> shows that command's help", async () => {
    const r = await refuse('help', 'payout');
    expect(r.stdout).toMatch(/^Usage: payctl payout \[options\] \[command\]\n/);
  });
});
