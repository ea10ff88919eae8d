/**
 * Parser tests of the global options (README.md "Commands": they go before or after the
 * command): -p/--profile, --base-url, --json, --no-input, --no-color, -v/--verbose and
 * --timeout, read by globalsFrom(cmd, env) as main reads them, for every command of the
 * tree, given before the command and after it. Also PAYCTL_PROFILE and profile names.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import type { GlobalOptions } from '../../src/config/globals.js';
import { commandPaths, parse } from '../helpers/parse.js';
import { LEAVES, MINIMAL } from './minimal.js';

const DEFAULTS: GlobalOptions = {
  profile: 'default',
  profileChosen: false,
  baseUrl: undefined,
  json: false,
  noInput: false,
  verbose: false,
  timeoutMs: 30_000,
};

const ALL_GLOBALS = ['--profile', 'staging', '--base-url', 'http://127.0.0.1:4010/v2', '--json', '--no-input', '--no-color', '--verbose', '--timeout', '2.5'];
const ALL_SET: GlobalOptions = {
  profile: 'staging',
  profileChosen: true,
  baseUrl: 'http://127.0.0.1:4010/v2',
  json: true,
  noInput: true,
  verbose: true,
  timeoutMs: 2500,
};

describe('every command reads the global options', () => {
  it('the list of commands below is the whole tree', () => {
    expect(Object.keys(MINIMAL).sort()).toEqual(commandPaths().sort());
  });

  for (const path of LEAVES) {
    const argv = MINIMAL[path]!;
    describe(path, () => {
      it('defaults when none is given', async () => {
        const p = await parse(...argv);
        expect(p.path).toBe(path);
        expect(p.globals()).toEqual(DEFAULTS);
        expect(p.withGlobals.color).toBe(true);
      });

      it('all of them before the command', async () => {
        const p = await parse(...ALL_GLOBALS, ...argv);
        expect(p.path).toBe(path);
        expect(p.globals()).toEqual(ALL_SET);
        expect(p.withGlobals.color).toBe(false);
      });

      it('all of them after the command (and its arguments)', async () => {
        const p = await parse(...argv, ...ALL_GLOBALS);
        expect(p.path).toBe(path);
        expect(p.globals()).toEqual(ALL_SET);
        expect(p.withGlobals.color).toBe(false);
      });

      it('the short forms -p and -v', async () => {
        const p = await parse(...argv, '-p', 'ci', '-v');
        expect(p.globals()).toEqual({ ...DEFAULTS, profile: 'ci', profileChosen: true, verbose: true });
      });

      it('global options are not mixed into the options the command gets', async () => {
        const alone = await parse(...argv);
        const withGlobals = await parse(...argv, ...ALL_GLOBALS);
        // (completion's tree builder is a new function on every parse: compared by kind.)
        const plain = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'function' ? 'function' : v]));
        expect(plain(withGlobals.opts)).toEqual(plain(alone.opts));
      });
    });
  }
});

describe('global options one by one', () => {
  it('--profile and -p, in the --flag=value and -pvalue forms', async () => {
    expect((await parse('--profile=staging', 'status')).globals().profile).toBe('staging');
    expect((await parse('status', '-pstaging')).globals().profile).toBe('staging');
    expect((await parse('-p', 'prod.eu-1', 'balances')).globals().profile).toBe('prod.eu-1');
  });

  it('--base-url is kept as typed (checked when a request is made, not by the parser)', async () => {
    const p = await parse('balances', '--base-url', 'https://api.example.com/v2/');
    expect(p.globals().baseUrl).toBe('https://api.example.com/v2/');
  });

  it('--json alone sets only json', async () => {
    expect((await parse('balances', '--json')).globals()).toEqual({ ...DEFAULTS, json: true });
  });

  it('--no-input alone sets only noInput', async () => {
    expect((await parse('payout', 'create', '--no-input')).globals()).toEqual({ ...DEFAULTS, noInput: true });
  });

  it('--no-color is read as color: false (and is not one of the GlobalOptions)', async () => {
    const p = await parse('payouts', 'list', '--no-color');
    expect(p.withGlobals.color).toBe(false);
    expect(p.globals()).toEqual(DEFAULTS);
  });

  it('--verbose and -v', async () => {
    expect((await parse('--verbose', 'status')).globals().verbose).toBe(true);
    expect((await parse('-v', 'status')).globals().verbose).toBe(true);
  });

  it('-v is verbose and -V is the version: they are not confused', async () => {
    const p = await parse('status', '-v');
    expect(p.globals().verbose).toBe(true);
  });

  it('--timeout in seconds becomes milliseconds; fractions and the 0.1 s minimum are accepted', async () => {
    expect((await parse('--timeout', '5', 'status')).globals().timeoutMs).toBe(5000);
    expect((await parse('status', '--timeout', '0.1')).globals().timeoutMs).toBe(100);
    expect((await parse('status', '--timeout=1.25')).globals().timeoutMs).toBe(1250);
    expect((await parse('status', '--timeout', '600')).globals().timeoutMs).toBe(600_000);
  });

  it('a global option given twice: the last one wins, wherever each is', async () => {
    const p = await parse('--profile', 'a', '--timeout', '1', 'status', '--profile', 'b', '--timeout', '2');
    expect(p.globals()).toEqual({ ...DEFAULTS, profile: 'b', profileChosen: true, timeoutMs: 2000 });
  });

  it('global options between the group and its subcommand', async () => {
    const p = await parse('payout', '--json', '-p', 'staging', 'get', 'po_1');
    expect(p.path).toBe('payout get');
    expect(p.opts).toEqual({ id: 'po_1' });
    expect(p.globals()).toEqual({ ...DEFAULTS, json: true, profile: 'staging', profileChosen: true });
  });

  it("global options mixed in with the command's own flags and arguments", async () => {
    const p = await parse('payout', 'batch', '--json', 'rows.csv', '--concurrency', '2', '-v', '--dry-run', '--timeout', '9');
    expect(p.opts).toEqual({ file: 'rows.csv', concurrency: 2, dryRun: true });
    expect(p.globals()).toEqual({ ...DEFAULTS, json: true, verbose: true, timeoutMs: 9000 });
  });

  it('after --, a global flag is a positional argument, not an option', async () => {
    const p = await parse('payout', 'get', '--', '--json');
    expect(p.opts).toEqual({ id: '--json' });
    expect(p.globals().json).toBe(false);
  });
});

describe('the profile: flag, then PAYCTL_PROFILE, then "default"', () => {
  it('PAYCTL_PROFILE is used when no flag is given', async () => {
    const p = await parse('status');
    expect(p.globals({ PAYCTL_PROFILE: 'sandbox' }).profile).toBe('sandbox');
  });

  it('--profile beats PAYCTL_PROFILE, before or after the command', async () => {
    expect((await parse('-p', 'staging', 'status')).globals({ PAYCTL_PROFILE: 'sandbox' }).profile).toBe('staging');
    expect((await parse('status', '--profile', 'staging')).globals({ PAYCTL_PROFILE: 'sandbox' }).profile).toBe('staging');
  });

  it('an empty PAYCTL_PROFILE means "default"', async () => {
    expect((await parse('status')).globals({ PAYCTL_PROFILE: '' }).profile).toBe('default');
  });

  it('says whether the profile was chosen (history keeps to a chosen one), "default" included', async () => {
    expect((await parse('history')).globals().profileChosen).toBe(false);
    expect((await parse('history')).globals({ PAYCTL_PROFILE: '' }).profileChosen).toBe(false);
    expect((await parse('history')).globals({ PAYCTL_PROFILE: 'sandbox' }).profileChosen).toBe(true);
    expect((await parse('history', '--profile', 'default')).globals()).toMatchObject({ profile: 'default', profileChosen: true });
    expect((await parse('-pdefault', 'history')).globals()).toMatchObject({ profile: 'default', profileChosen: true });
  });

  it('only PAYCTL_PROFILE of the environment matters to the globals', async () => {
    const p = await parse('status');
    expect(p.globals({ PAYCTL_BASE_URL: 'https://x.example/v2', PAYCTL_API_KEY: 'k', NO_COLOR: '1' })).toEqual(DEFAULTS);
  });

  it('valid names: letters, digits, _ . - up to 64 characters, starting with a letter or digit', async () => {
    for (const name of ['a', '0', 'Prod_EU-1.v2', 'x'.repeat(64)]) {
      expect((await parse('status', '--profile', name)).globals().profile).toBe(name);
    }
  });

  const INVALID: Array<[string, string]> = [
    ['../etc', '"../etc" is not a valid profile name.'],
    ['-leading-dash', '"-leading-dash" is not a valid profile name.'],
    ['.hidden', '".hidden" is not a valid profile name.'],
    ['has space', '"has space" is not a valid profile name.'],
    ['a/b', '"a/b" is not a valid profile name.'],
    ['x'.repeat(65), `"${'x'.repeat(65)}" is not a valid profile name.`],
    ['café', '"caf\\u00e9" is not a valid profile name.'],
    ['ünï', '"\\u00fcn\\u00ef" is not a valid profile name.'],
    ['a\u001b[31mred', '"a\\u001b[31mred" is not a valid profile name.'],
  ];

  for (const [name, message] of INVALID) {
    it(`--profile ${JSON.stringify(name)} is a usage error naming it (control and non-ASCII characters as visible escapes)`, async () => {
      // `-p=x` is not a form commander knows; `--profile=-x` is how a dash-led value gets through.
      const p = await parse('status', `--profile=${name}`);
      let error: unknown;
      try {
        p.globals();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe(message);
      expect((error as UsageError).exitCode).toBe(2);
      expect((error as UsageError).hint).toMatch(/^A profile name has letters, digits, _ \. - /);
    });
  }

  // They meet the rule of characters, but name JavaScript's object machinery: said to be reserved, not invalid.
  for (const name of ['constructor', 'prototype', '__proto__']) {
    it(`--profile ${name} is a usage error saying the name is reserved`, async () => {
      const p = await parse('status', `--profile=${name}`);
      let error: unknown;
      try {
        p.globals();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe(`"${name}" is a reserved name: no profile may have it.`);
      expect((error as UsageError).exitCode).toBe(2);
      expect((error as UsageError).hint).toBe(
        'A profile name has letters, digits, _ . - (at most 64, starting with a letter or digit; not __proto__, constructor or prototype): choose another, e.g. --profile staging.',
      );
      const env = await parse('status');
      expect(() => env.globals({ PAYCTL_PROFILE: name })).toThrow(`"${name}" is a reserved name: no profile may have it (from PAYCTL_PROFILE).`);
    });
  }

  it('an invalid PAYCTL_PROFILE is a usage error that says it came from PAYCTL_PROFILE', async () => {
    const p = await parse('balances');
    expect(() => p.globals({ PAYCTL_PROFILE: 'bad name' })).toThrow(UsageError);
    expect(() => p.globals({ PAYCTL_PROFILE: 'bad name' })).toThrow('"bad name" is not a valid profile name (from PAYCTL_PROFILE).');
  });

  it('an invalid PAYCTL_PROFILE does not matter when --profile is given', async () => {
    const p = await parse('balances', '-p', 'ok');
    expect(p.globals({ PAYCTL_PROFILE: 'bad name' }).profile).toBe('ok');
  });

  it('--profile "" (say, an unset shell variable) is a usage error, not a silent fall back to another profile', async () => {
    // Refused as the command line is read (commands/spec.ts nonEmpty), whatever PAYCTL_PROFILE says.
    await expect(parse('status', '--profile', '')).rejects.toThrow('--profile must not be empty');
    await expect(parse('status', '--profile=')).rejects.toThrow('--profile must not be empty');
  });
});
