/**
 * What a person sees when asking for help or typing a command payctl does not have
 * (src/commands/help.ts, issue #15): examples in the help of every command, `payctl help
 * <command> [<sub>]` giving that command's own help (an unknown one is exit 2), suggestions
 * across the noun forms, usage errors pointing at the help of the command typed, no
 * "(default: [])", bounds a person can read, and wallet ids in examples that `payctl sandbox
 * start` has (seed 1), so that an example pasted against it runs. Parser tier (test/helpers/parse.ts) for
 * the texts; in-process runs of main (test/helpers/in-process.ts) for the exit codes.
 */
import { describe, expect, it } from 'vitest';
import { buildProgram, allCommands } from '../../src/program.js';
import { suggestions } from '../../src/commands/help.js';
import { commandPaths, pathOf, refuse } from '../helpers/parse.js';
import { useConfigDir } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { usageHint } from '../helpers/usage-hint.js';
import { shellSplit } from '../helpers/pty.js';
import { demoData } from '../../src/sandbox/seed.js';

const cfg = useConfigDir();
const run = (...args: string[]) => payctl(args, { dir: cfg.dir });

/** Every command a person can ask help for (the hidden __complete-profiles is no one's). */
const VISIBLE = commandPaths().filter((p) => !p.startsWith('__'));
const GROUPS = ['payout', 'payouts', 'webhooks', 'config', 'sandbox'];
const LEAVES = VISIBLE.filter((p) => !GROUPS.includes(p));

/** What `payctl <words> --help` prints on stdout. */
async function helpOf(path: string): Promise<string> {
  const r = await refuse(...(path === '' ? [] : path.split(' ')), '--help');
  expect(r.code).toBe('commander.helpDisplayed');
  expect(r.stderr).toBe('');
  return r.stdout;
}

/** The lines of the "Examples:" block of a help text. */
function examplesOf(help: string): string[] {
  const block = help.split('\nExamples:\n')[1];
  if (block === undefined) return [];
  const lines: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('  $ ')) lines.push(line.slice(4));
    else if (!line.startsWith('      ')) break; // a continued example is indented further
  }
  return lines;
}

/** The examples of a help text whole: an example wrapped over lines (ending in `\\`) as one line. */
function wholeExamplesOf(help: string): string[] {
  const lines: string[] = [];
  for (const line of (help.split('\nExamples:\n')[1] ?? '').split('\n')) {
    if (line.startsWith('  $ ')) lines.push(line.slice(4));
    else if (line.startsWith('      ') && lines.length > 0) lines.push(`${lines.pop()!.replace(/\s*\\$/, '')} ${line.trim()}`);
    else break;
  }
  return lines;
}

describe('the config examples run as printed', () => {
  it('the route override example of config --help and config set --help exits 0 (it named {id}, which a route must not)', async () => {
    for (const path of ['config', 'config set']) {
      const line = examplesOf(await helpOf(path)).find((l) => l.startsWith('payctl config set routes.'));
      expect(line, path).toBeDefined();
      const r = await run(...shellSplit(line!).slice(1));
      expect(r.code, `${line!}\n${r.stderr}`).toBe(0);
    }
  });
});

describe('every command has examples in its help', () => {
  it('the list covers the tree (a command added later is checked too)', () => {
    expect(LEAVES).toEqual(expect.arrayContaining(['config list', 'config get', 'config set', 'config unset', 'config path', 'sandbox stop', 'sandbox status']));
    expect(LEAVES.length).toBeGreaterThanOrEqual(22);
  });

  for (const path of [...LEAVES, ...GROUPS]) {
    it(`payctl ${path} --help has an "Examples:" block of payctl command lines`, async () => {
      const examples = examplesOf(await helpOf(path));
      expect(examples.length, `payctl ${path} --help has no examples`).toBeGreaterThanOrEqual(1);
      for (const line of examples) expect(line).toContain('payctl ');
      // At least one runs the command itself (at the start, after VAR=value, or after a pipe).
      const runsIt = (line: string) => [`payctl ${path} `, `payctl ${path}\n`].some((w) => ` ${line}\n`.replace(/ \| | \w+=\S+ /g, ' ').includes(` ${w}`));
      expect(examples.filter(runsIt), examples.join('\n')).not.toEqual([]);
    });
  }

  it("every --wallet of an example is a wallet of the sandbox's demo data, holding the example's --currency", async () => {
    const wallets = new Map(demoData(1, Date.now(), false).wallets.map((w) => [w.id, w.currency]));
    const seen: string[] = [];
    for (const path of LEAVES) {
      for (const line of wholeExamplesOf(await helpOf(path))) {
        const words = shellSplit(line);
        const after = (flag: string) => (words.includes(flag) ? words[words.indexOf(flag) + 1] : undefined);
        const wallet = after('--wallet');
        if (wallet === undefined) continue;
        seen.push(wallet);
        expect(wallets.get(wallet), `payctl ${path} --help: ${line}`).toBe(after('--currency') ?? wallets.get(wallet));
      }
    }
    expect(seen.length).toBeGreaterThanOrEqual(3);
  });

  it('config path and sandbox status: the examples as printed', async () => {
    expect(examplesOf(await helpOf('config path'))).toEqual(['payctl config path', 'PAYCTL_CONFIG_DIR=./ci-config payctl config path']);
    expect(await helpOf('sandbox status')).toContain('\nExits 0 when the background sandbox runs, 1 when it does not.\n\nExamples:\n  $ payctl sandbox status\n');
  });
});

describe('payctl help <command> [<sub>]', () => {
  for (const path of VISIBLE) {
    it(`help ${path} prints what ${path} --help prints`, async () => {
      const r = await refuse('help', ...path.split(' '));
      expect(r.code).toBe('commander.help');
      expect(r.error.exitCode).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(await helpOf(path));
    });
  }

  it('help payout create: exit 0, the help of payout create itself (not of the payout group)', async () => {
    const r = await run('help', 'payout', 'create');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: payctl payout create \[options\]\n/);
    expect(r.stdout).toBe((await run('payout', 'create', '--help')).stdout);
  });

  it('help alone, and help inside a group, as commander has them', async () => {
    expect((await refuse('help')).stdout).toBe(await helpOf(''));
    expect((await refuse('payout', 'help', 'create')).stdout).toBe(await helpOf('payout create'));
    expect((await refuse('payout', 'help')).stdout).toBe(await helpOf('payout'));
    expect((await refuse('help', 'payout', 'batch', 'status')).stdout).toBe(await helpOf('payout batch status'));
  });

  it('global options around it change nothing', async () => {
    // (--json is no such option: help refuses it, test/commands/json-refused.test.ts.)
    expect((await refuse('--profile', 'staging', 'help', 'payouts', 'list', '--no-color')).stdout).toBe(await helpOf('payouts list'));
    // An option no command has, before help: help is not taken for its value.
    expect((await refuse('--xyz', 'help', 'balances')).stdout).toBe(await helpOf('balances'));
  });

  it('help nosuch: an unknown command, exit 2, pointing at payctl --help', async () => {
    const r = await run('help', 'nosuch');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: unknown command 'nosuch'\n${usageHint()}\n`);
  });

  it('help with a typo: exit 2 with a suggestion, pointing at the help of the group typed', async () => {
    const r = await run('help', 'sandbox', 'stat');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: unknown command 'stat'\n(Did you mean one of sandbox status, sandbox start?)\n${usageHint('sandbox')}\n`);

    const top = await run('help', 'wallets');
    expect(top.code).toBe(2);
    expect(top.stderr).toBe(`error: unknown command 'wallets'\n(Did you mean balances?)\n${usageHint()}\n`);
  });

  it('help below a command that has no such verb is an unknown command too', async () => {
    const r = await refuse('help', 'payout', 'create', 'now');
    expect(r.code).toBe('commander.unknownCommand');
    expect(r.stderr).toBe(`error: unknown command 'now'\n${usageHint('payout create')}\n`);
  });
});

describe('suggestions for an unknown command, across the noun forms', () => {
  const CASES: Array<[string[], string, string]> = [
    // [as typed, the command whose help the error names, the suggestion]
    [['payout', 'list'], 'payout', 'payouts list'],
    [['payouts', 'get', 'po_1'], 'payouts', 'payout get'],
    [['payouts', 'create'], 'payouts', 'payout create'],
    [['payout', 'ls'], 'payout', 'payouts list'],
    [['payouts', 'ls'], 'payouts', 'payouts list'],
    [['payouts', 'lst'], 'payouts', 'payouts list'],
    [['config', 'ls'], 'config', 'config list'],
    [['wallets'], '', 'balances'],
    [['wallet'], '', 'balances'],
    [['balance'], '', 'balances'],
    [['webhook', 'listen'], '', 'webhooks'],
    [['stat'], '', 'status'],
    [['sandbox', 'stat'], 'sandbox', 'one of sandbox status, sandbox start'],
    [['sandbox', 'stp'], 'sandbox', 'sandbox stop'],
    // A verb typed without its group: the verbs of that name further down, in the order help lists them.
    [['create'], '', 'one of payout create, plan create, keys create'],
    [['creat'], '', 'one of payout create, plan create, keys create'],
    [['get', 'TXN-1'], '', 'one of payout get, config get'],
    [['list'], '', 'one of payouts list, config list'],
    [['ls'], '', 'one of payouts list, config list'],
    [['show'], '', 'one of plan show, keys show, policy show, payout get, config get'],
    [['batch', 'x.csv'], '', 'payout batch'],
    [['reconcile', '--payout-id', 'x'], '', 'history reconcile'],
    [['reconcil'], '', 'history reconcile'],
    [['payout', 'status', 'r.csv'], 'payout', 'payout batch status'],
    // A command that takes no arguments, given a word close to one of its verbs: that verb, not "too many arguments".
    [['history', 'reconsile'], 'history', 'history reconcile'],
    [['history', 'reconcil', '--payout-id', 'x'], 'history', 'history reconcile'],
  ];
  for (const [argv, command, suggestion] of CASES) {
    it(`payctl ${argv.join(' ')}: "Did you mean ${suggestion}?"`, async () => {
      const r = await refuse(...argv);
      expect(r.code).toBe('commander.unknownCommand');
      const word = argv.find((w, i) => i === command.split(' ').filter(Boolean).length)!;
      expect(r.stderr).toBe(`error: unknown command '${word}'\n(Did you mean ${suggestion}?)\n${usageHint(command)}\n`);
    });
  }

  it('history reconsile and ls, run: exit 2, nothing on stdout', async () => {
    const r = await run('history', 'reconsile');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: unknown command 'reconsile'\n(Did you mean history reconcile?)\n${usageHint('history')}\n`);
    const ls = await run('ls');
    expect(ls.code).toBe(2);
    expect(ls.stderr).toBe(`error: unknown command 'ls'\n(Did you mean one of payouts list, config list?)\n${usageHint()}\n`);
  });

  it('payout list, run: exit 2, nothing on stdout', async () => {
    const r = await run('payout', 'list');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: unknown command 'list'\n(Did you mean payouts list?)\n${usageHint('payout')}\n`);
  });

  it('sandbox stat: the command it starts (status) comes before the one a letter away (start)', () => {
    const sandbox = allCommands(buildProgram(async () => {})).find((c) => pathOf(c) === 'sandbox')!;
    expect(suggestions(sandbox, 'stat')).toEqual(['sandbox status', 'sandbox start']);
  });

  it('nothing close: no suggestion; hidden commands are never offered', async () => {
    expect((await refuse('transfer')).stderr).toBe(`error: unknown command 'transfer'\n${usageHint()}\n`);
    const program = buildProgram(async () => {});
    expect(suggestions(program, '__complete-profile')).toEqual([]);
    expect(suggestions(program, 'complete-profiles')).toEqual([]);
  });
});

describe('usage errors point at the help of the command typed, not at payctl --help', () => {
  const CASES: Array<[string[], string, string]> = [
    // [as typed, the command whose help is named, the message]
    [['payouts', 'list', '--page', '0'], 'payouts list', "option '--page <n>' argument '0' is invalid. --page must be a whole number of at least 1."],
    [['balances', '--bogus'], 'balances', "unknown option '--bogus'"],
    [['config', 'set', 'base-url'], 'config set', "missing required argument 'value'"],
    [['payout', 'get', 'a', 'b'], 'payout get', "too many arguments for 'get'. Expected 1 argument but got 2."],
    // A word close to none of its verbs stays too many arguments.
    [['history', 'nov'], 'history', "too many arguments for 'history'. Expected 0 arguments but got 1."],
    [['balances', 'list'], 'balances', "too many arguments for 'balances'. Expected 0 arguments but got 1."],
    // An option no command has: the word after it is its value when a command follows (the profile "sandbox" is no command here).
    [['--profle', 'sandbox', 'balances'], 'balances', "unknown option '--profle'\n(Did you mean --profile?)"],
    [['--profle', 'sandbox', 'payouts', 'list'], 'payouts list', "unknown option '--profle'\n(Did you mean --profile?)"],
    [['--base-ur', 'http://127.0.0.1:1/v2', 'payouts', 'list'], 'payouts list', "unknown option '--base-ur'\n(Did you mean --base-url?)"],
    [['--profle', 'balances'], 'balances', "unknown option '--profle'\n(Did you mean --profile?)"],
    [['--profle', 'sandbox'], 'sandbox', "unknown option '--profle'\n(Did you mean --profile?)"],
    [['--profle', 'ops'], '', "unknown option '--profle'\n(Did you mean --profile?)"],
    [['payout', 'create', '--wait-timeout', '5'], 'payout create', '--wait-timeout needs --wait.'],
    // A global option's problem, given after the command (or before it): that command's help, which lists it.
    [['status', '--timeout', '0'], 'status', "option '--timeout <seconds>' argument '0' is invalid. --timeout must be a number of seconds, at least 0.1."],
    [
      ['--profile', 'x', '--timeout', '0', 'payouts', 'list'],
      'payouts list',
      "option '--timeout <seconds>' argument '0' is invalid. --timeout must be a number of seconds, at least 0.1.",
    ],
    // An option of the command above, given to the verb below it.
    [['history', '--status', 'unknown', 'reconcile'], 'history reconcile', "--status is an option of 'history', not of 'history reconcile'"],
    [
      ['payout', 'batch', 'status', 'r.csv', '--concurrency', '0'],
      'payout batch status',
      "option '--concurrency <n>' argument '0' is invalid. --concurrency must be a whole number from 1 to 64.",
    ],
  ];
  for (const [argv, command, message] of CASES) {
    it(`payctl ${argv.join(' ')}: (run \`payctl ${command} --help\` for usage)`, async () => {
      const r = await refuse(...argv);
      expect(r.stderr).toBe(`error: ${message}\n${usageHint(command)}\n`);
    });
  }

  it.each([
    [['summary', '--from', 'yesterday'], 'summary'],
    [['balances', '--currency', 'XYZ'], 'balances'],
    [['history', '--since', 'yesterday'], 'history'],
    [['payouts', 'list', '--currency', ''], 'payouts list'],
  ])('a usage error the command finds itself (%j) ends with the pointer at its help too', async (argv, command) => {
    const r = await run(...argv);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.endsWith(`${usageHint(command)}\n`), r.stderr).toBe(true);
  });

  it('payouts list --page 0, run: exit 2, the readable rule and the pointer', async () => {
    const r = await run('payouts', 'list', '--page', '0');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      "error: option '--page <n>' argument '0' is invalid. --page must be a whole number of at least 1.\n(run `payctl payouts list --help` for usage)\n",
    );
  });

  it('no usage message names the largest exact number', async () => {
    for (const argv of [
      ['payouts', 'list', '--page', 'x'],
      ['sandbox', 'start', '--seed', '-1'],
      ['sandbox', 'start', '--settle-after', '1e99'],
      ['sandbox', 'start', '--rate-limit', '99999999999999999999'],
    ]) {
      expect((await refuse(...argv)).stderr).not.toContain(String(Number.MAX_SAFE_INTEGER));
    }
  });
});

describe('option defaults in help', () => {
  it('payout create --help: --metadata without "(default: [])", still repeatable', async () => {
    const help = await helpOf('payout create');
    expect(help).toMatch(/^ {2}--metadata <key=value> +metadata pair \(repeatable\)$/m);
    expect(help).not.toContain('(default: [])');
  });

  it('no command shows an empty list as a default', async () => {
    for (const path of ['', ...VISIBLE]) expect(await helpOf(path), path).not.toContain('(default: [])');
  });

  it('defaults worth knowing are still shown', async () => {
    expect(await helpOf('payout batch')).toMatch(/--concurrency <n> +payouts in flight at once \(default: 4\)/);
    expect(await helpOf('')).toMatch(/--timeout <seconds> +per-request time limit in seconds \(default: 30\)/);
  });
});
