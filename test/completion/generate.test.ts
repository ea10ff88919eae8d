/**
 * The completion scripts are generated from the command tree: the committed files in
 * completions/ must be exactly what the tree generates (and what `payctl completion
 * <shell>` prints), so they never go stale. Also: what the model takes from the tree,
 * and `__complete-profiles`.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { Argument, type Option } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { COMPLETION_FILES, SHELLS, generateCompletion } from '../../src/completion/index.js';
import { buildModel, walk, type CommandSpec } from '../../src/completion/model.js';
import { PAYOUT_STATUSES, RECIPIENT_TYPES } from '../../src/completion/values.js';
import { runProfiles } from '../../src/commands/completion.js';
import { READABLE, SETTABLE } from '../../src/config/settings.js';
import { openConfigStore, type ConfigStore } from '../../src/config/store.js';
import { validatePayout } from '../../src/payouts/request.js';
import { FLAG_LABELS } from '../../src/commands/payout/fields.js';
import { STATUSES } from '../../src/sandbox/state.js';
import type { Deps } from '../../src/deps.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { ROOT_COMMANDS } from '../helpers/root-commands.js';

const COMPLETIONS = resolve(__dirname, '../../completions');
const REGENERATE = 'run `npm run build && node scripts/completions.mjs` and commit completions/';

const program = () => buildProgram(async () => {});

describe('committed completion scripts', () => {
  for (const shell of SHELLS) {
    const file = COMPLETION_FILES[shell];

    it(`completions/${file} is what the command tree generates`, () => {
      const committed = readFileSync(join(COMPLETIONS, file), 'utf8');
      expect(committed, `completions/${file} is stale: ${REGENERATE}`).toBe(generateCompletion(shell, program()));
    });

    it(`payctl completion ${shell} (built binary) prints completions/${file} byte for byte`, async () => {
      const { dir, cleanup } = tempConfigDir();
      try {
        const res = await runCli(['completion', shell], { configDir: dir });
        expect(res.stderr).toBe('');
        expect(res.code).toBe(0);
        const committed = readFileSync(join(COMPLETIONS, file));
        expect(Buffer.from(res.stdout, 'utf8').equals(committed), `payctl completion ${shell} differs from completions/${file}: ${REGENERATE}`).toBe(true);
      } finally {
        cleanup();
      }
    });
  }

  it('payctl completion rejects an unknown shell (exit 2)', async () => {
    const res = await runCli(['completion', 'tcsh']);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/tcsh/);
  });
});

describe('completion model', () => {
  const model = buildModel(program());
  const at = (path: string): CommandSpec => {
    const found = walk(model.root).find((c) => c.path.join(' ') === path);
    if (!found) throw new Error(`no command "${path}" in the model`);
    return found;
  };
  const option = (path: string, long: string) => {
    const found = at(path).options.find((o) => o.long === long) ?? model.globals.find((o) => o.long === long);
    if (!found) throw new Error(`no option ${long} at "${path}"`);
    return found;
  };

  it('has every visible command and subcommand, and no hidden one', () => {
    expect(model.root.commands.map((c) => c.name)).toEqual([...ROOT_COMMANDS, 'help']);
    expect(at('plan').commands.map((c) => c.name)).toEqual(['create', 'show', 'approve', 'merge', 'send', 'help']);
    expect(at('keys').commands.map((c) => c.name)).toEqual(['create', 'show', 'help']);
    expect(at('policy').commands.map((c) => c.name)).toEqual(['check', 'propose', 'approve', 'show', 'help']);
    expect(at('payout').commands.map((c) => c.name)).toEqual(['create', 'batch', 'get', 'help']);
    expect(at('payouts').commands.map((c) => c.name)).toEqual(['list', 'help']);
    // A command that runs by itself and has a verb below it: no implicit help verb.
    expect(at('history').commands.map((c) => c.name)).toEqual(['reconcile']);
    expect(at('payout batch').commands.map((c) => c.name)).toEqual(['status']);
    expect(at('history').options.map((o) => o.long)).toEqual(['--since', '--until', '--status', '--batch-id', '--csv', '--help']);
    expect(at('config').commands.map((c) => c.name)).toEqual(['list', 'get', 'set', 'unset', 'path', 'help']);
    expect(at('sandbox').commands.map((c) => c.name)).toEqual(['start', 'stop', 'status', 'help']);
    expect(at('webhooks').commands.map((c) => c.name)).toEqual(['listen', 'help']);
    expect(walk(model.root).some((c) => c.name.startsWith('__'))).toBe(false);
  });

  it('takes the global options from the root; --version only at the top', () => {
    expect(model.globals.map((o) => [o.short, o.long])).toEqual([
      ['-p', '--profile'],
      [undefined, '--base-url'],
      [undefined, '--json'],
      [undefined, '--no-input'],
      [undefined, '--no-color'],
      ['-v', '--verbose'],
      [undefined, '--timeout'],
    ]);
    expect(model.root.options.map((o) => o.long)).toEqual(['--version', '--help']);
    expect(at('payout create').options.map((o) => o.long)).not.toContain('--version');
    expect(at('payout create').options.map((o) => o.long)).toContain('--help');
  });

  it('knows the values: choices, hints, profiles and files', () => {
    expect(option('payout create', '--type').value).toEqual({ kind: 'words', words: RECIPIENT_TYPES });
    expect(option('payouts list', '--status').value).toEqual({ kind: 'words', words: PAYOUT_STATUSES });
    expect(option('history', '--status').value).toEqual({ kind: 'words', words: ['accepted', 'rejected', 'unknown', 'not-made'] });
    expect(option('', '--profile').value).toEqual({ kind: 'profiles' });
    expect(option('payout batch', '--report').value).toEqual({ kind: 'files' });
    expect(option('sandbox start', '--state').value).toEqual({ kind: 'files' });
    expect(option('payout create', '--amount').value).toEqual({ kind: 'any' });
    expect(option('payout create', '--yes').value).toBeUndefined();
    expect(at('payout batch').arguments[0]?.value).toEqual({ kind: 'files' });
    expect(at('payout batch status').arguments[0]?.value).toEqual({ kind: 'files' });
    for (const path of ['plan create', 'plan show', 'plan approve', 'plan merge', 'plan send', 'policy check'])
      expect(at(path).arguments[0]?.value, path).toEqual({ kind: 'files' });
    expect(option('plan create', '--out').value).toEqual({ kind: 'files' });
    expect(at('completion').arguments[0]?.value).toEqual({ kind: 'words', words: ['bash', 'zsh', 'fish'] });
    for (const path of ['config set', 'config unset']) {
      expect(at(path).arguments[0]?.value).toEqual({ kind: 'words', words: SETTABLE });
    }
    // config get reads what login keeps too (probe 51-I: api-key was never offered).
    expect(at('config get').arguments[0]?.value).toEqual({ kind: 'words', words: READABLE });
    expect(READABLE).toContain('api-key');
    expect(option('sandbox start', '--list-shape').value).toEqual({ kind: 'words', words: ['paginator', 'resource', 'array', 'items'] });
    expect(option('sandbox start', '--error-shape').value).toEqual({ kind: 'words', words: ['laravel', 'envelope', 'error', 'problem'] });
    expect(at('help').arguments[0]?.value).toEqual({ kind: 'words', words: ROOT_COMMANDS });
  });

  it('offers the statuses the service has, and the recipient types payout create accepts', () => {
    expect([...PAYOUT_STATUSES]).toEqual([...STATUSES]);
    const typeProblems = (type: string) => ((r) => (r.ok ? [] : r.problems.filter((p) => p.startsWith('--type'))))(validatePayout({ type }, FLAG_LABELS));
    for (const type of RECIPIENT_TYPES) expect(typeProblems(type)).toEqual([]);
    expect(typeProblems('cheque')).toHaveLength(1);
  });

  it('fails to generate when a value hint names an option that is gone', () => {
    const p = program();
    const list = p.commands.find((c) => c.name() === 'payouts')!.commands.find((c) => c.name() === 'list')!;
    const options = list.options as Option[];
    options.splice(
      options.findIndex((o) => o.long === '--status'),
      1,
    );
    expect(() => buildModel(p)).toThrow(/hints match nothing in the command tree: payouts list --status \(/);
  });

  it('refuses words a script would have to quote', () => {
    const p = program();
    p.command('x').addArgument(new Argument('<mode>', 'mode').choices(['fine', 'not fine']));
    expect(() => buildModel(p)).toThrow(/not fine/);
  });
});

describe('__complete-profiles', () => {
  let cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups) c();
    cleanups = [];
  });
  const tmp = () => {
    const t = tempConfigDir();
    cleanups.push(t.cleanup);
    return t.dir;
  };

  function fakeDeps(config: () => ConfigStore): { deps: Deps; out: () => string } {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (d: Buffer) => (text += d.toString('utf8')));
    return { deps: { io: { stdout }, config } as unknown as Deps, out: () => text };
  }

  it('prints the profile names, one a line', async () => {
    const { deps, out } = fakeDeps(() => ({ profileNames: () => ['sandbox', 'staging'] }) as unknown as ConfigStore);
    expect(await runProfiles({}, deps)).toBe(0);
    expect(out()).toBe('sandbox\nstaging\n');
  });

  it('prints nothing and exits 0 when the config cannot be read', async () => {
    const { deps, out } = fakeDeps(() => {
      throw new Error('damaged');
    });
    expect(await runProfiles({}, deps)).toBe(0);
    expect(out()).toBe('');
  });

  it('built binary: names from PAYCTL_CONFIG_DIR; nothing (exit 0) without profiles or with a damaged file', async () => {
    const dir = tmp();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    await store.updateProfile('staging', { baseUrl: 'https://api.example.com/v2' });
    await store.updateProfile('sandbox', { baseUrl: 'http://127.0.0.1:4010/v2' });
    expect(await runCli(['__complete-profiles'], { configDir: dir })).toMatchObject({ code: 0, stdout: 'sandbox\nstaging\n', stderr: '' });

    expect(await runCli(['__complete-profiles'], { configDir: tmp() })).toMatchObject({ code: 0, stdout: '', stderr: '' });

    const damaged = tmp();
    mkdirSync(damaged, { recursive: true });
    writeFileSync(join(damaged, 'config.json'), '{"profiles": oops');
    expect(await runCli(['__complete-profiles'], { configDir: damaged })).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('is not listed in help', async () => {
    const res = await runCli(['--help']);
    expect(res.stdout).toMatch(/completion/);
    expect(res.stdout).not.toMatch(/__complete-profiles/);
  });
});
