/**
 * Profiles (issue #28), in process: a profile chosen by name (--profile or PAYCTL_PROFILE)
 * that does not exist stops every command that reads a profile with exit 2, naming the
 * profiles there are and the closest one, before anything is sent; login (which makes
 * profiles), logout (its own message) and sandbox start (its own profile) are the exceptions,
 * and the default profile stays "not logged in" (exit 3) before the first login.
 * `sandbox start` says how to use its profile, and on a machine with no other profile makes
 * it the default; every command it prints is run here as printed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { configFile, newKey, oneJson, readProfile, readProfiles, since, useConfigDir, writeLoggedIn, writeProfiles } from '../helpers/e2e.js';
import { payctl, startPayctl, type Started } from '../helpers/in-process.js';
import { batchRows, toCsv } from '../helpers/batch.js';
import { TestClock } from '../helpers/clock.js';
import { closestProfiles, UnknownProfile } from '../../src/config/known-profiles.js';
import { openConfigStore } from '../../src/config/store.js';
import { bankArgs } from '../helpers/payout-fixtures.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();

const run = (args: string[], env?: Record<string, string | undefined>) => payctl(args, { dir: cfg.dir, clock: new TestClock(), ...(env ? { env } : {}) });

/** Profiles default and sandbox, both logged in to the test's sandbox. */
async function twoProfiles(): Promise<void> {
  await writeLoggedIn(ctx.sb, cfg.dir, KEY);
  await writeLoggedIn(ctx.sb, cfg.dir, KEY, 'sandbox');
}

describe('closestProfiles', () => {
  it('finds a slip of a letter or two, ignoring case; nothing for an unrelated name', () => {
    const known = ['default', 'sandbox', 'staging'];
    expect(closestProfiles('sandbx', known)).toEqual(['sandbox']);
    expect(closestProfiles('Sandbox', known)).toEqual(['sandbox']);
    expect(closestProfiles('stagign', known)).toEqual(['staging']);
    expect(closestProfiles('defualt', known)).toEqual(['default']);
    expect(closestProfiles('prod', known)).toEqual([]);
    expect(closestProfiles('x', known)).toEqual([]);
    expect(closestProfiles('ops', ['ops1', 'ops2'])).toEqual(['ops1', 'ops2']);
  });
});

describe('the store: a profile read by a name that is no profile', () => {
  it('is UnknownProfile (exit 2), except the default profile and a read that may make it (login)', async () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: cfg.dir });
    expect(store.getProfile('default')).toBeUndefined();
    expect(() => store.getProfile('staging')).toThrow('No profile "staging": there are no profiles yet.');
    await store.updateProfile('sandbox', { baseUrl: ctx.sb.baseUrl });
    let caught: unknown;
    try {
      store.getProfile('sandbx', { readSecrets: false });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UnknownProfile);
    expect(caught).toMatchObject({ exitCode: 2, profile: 'sandbx', known: ['sandbox'] });
    expect(store.getProfile('sandbx', { mayBeNew: true })).toBeUndefined();
    expect(store.getProfile('sandbox')).toEqual({ baseUrl: ctx.sb.baseUrl });
  });
});

describe('an unknown profile is an error (exit 2) naming the known ones', () => {
  it('done when: `balances --profile sandbx` exits 2 naming sandbox, sends nothing, and does not offer to log in as the typo', async () => {
    await twoProfiles();
    const from = ctx.sb.requests().length;
    const r = await run(['balances', '--profile', 'sandbx']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('Error: No profile "sandbx". Known profiles: default, sandbox. Did you mean sandbox?\nRun it again with --profile sandbox.\n');
    expect(r.stderr).not.toContain('Not logged in');
    expect(r.stderr).not.toContain('login --profile sandbx');
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('from PAYCTL_PROFILE: the same, and how to change the variable', async () => {
    await twoProfiles();
    const r = await run(['balances'], { PAYCTL_PROFILE: 'sandbx' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('Error: No profile "sandbx". Known profiles: default, sandbox. Did you mean sandbox?\n');
    expect(r.stderr).toContain('PAYCTL_PROFILE is "sandbx" in this environment: export PAYCTL_PROFILE=sandbox, or unset it to use the default profile.');
  });

  it('a name close to none: the known ones, and how to create it by logging in', async () => {
    await twoProfiles();
    const r = await run(['balances', '--profile', 'prod']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      'Error: No profile "prod". Known profiles: default, sandbox.\nPick one with --profile NAME. To create profile "prod", log in to it: payctl login --profile prod\n',
    );
  });

  it('--json: a USAGE_ERROR on stderr, nothing on stdout', async () => {
    await twoProfiles();
    const r = await run(['balances', '--profile', 'sandbx', '--json']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'USAGE_ERROR',
      message: 'No profile "sandbx". Known profiles: default, sandbox. Did you mean sandbox?',
      hint: 'Run it again with --profile sandbox.',
    });
  });

  it('a name that is a property of every object (toString) is no profile either', async () => {
    await twoProfiles();
    const r = await run(['balances', '--profile', 'toString']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('No profile "toString". Known profiles: default, sandbox.');
  });

  it('history (which reads the journal, not a profile): a name no profile and no journal entry has exits 2; a removed profile still shows what it journaled', async () => {
    await twoProfiles();
    const made = await run(['payout', 'create', '--yes', '--profile', 'sandbox', ...bankArgs(ctx.sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id)]);
    expect(made.code, made.stderr).toBe(0);
    const typo = await run(['history', '--profile', 'sandbx']);
    expect(typo.code, typo.stderr).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toContain('No profile "sandbx". Known profiles: default, sandbox. Did you mean sandbox?');
    // The profile removed from the config: its journal entries still answer to its name.
    const profiles = readProfiles(cfg.dir);
    delete profiles.sandbox;
    writeProfiles(cfg.dir, profiles);
    const removed = await run(['history', '--profile', 'sandbox', '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    expect((oneJson(removed.stdout) as { count: number }).count).toBe(1);
    const still = await run(['history', '--profile', 'sandbx']);
    expect(still.code).toBe(2);
    expect(still.stderr).toContain('Known profiles: default, sandbox.');
  });

  describe('every command that reads a profile', () => {
    const ID = 'TXN-BOK-00000000000000000000000000';
    const commands: Array<[string, (dir: string) => string[]]> = [
      ['balances', () => ['balances']],
      ['status', () => ['status']],
      ['payout get', () => ['payout', 'get', ID]],
      ['payout get --wait', () => ['payout', 'get', ID, '--wait']],
      ['payout create', () => ['payout', 'create', '--yes', ...bankArgs('1000000001')]],
      ['payout batch', (dir) => ['payout', 'batch', batchFile(dir), '--yes']],
      ['payouts list', () => ['payouts', 'list']],
      ['summary', () => ['summary']],
      ['history reconcile', () => ['history', 'reconcile']],
      ['ledger status', () => ['ledger', 'status']],
      ['ledger import', () => ['ledger', 'import']],
      ['plan create', (dir) => ['plan', 'create', batchFile(dir), '-o', join(dir, 'p.plan.json')]],
      ['policy check', (dir) => ['policy', 'check', batchFile(dir)]],
      ['webhooks listen', () => ['webhooks', 'listen', '--port', '0']],
      ['config list', () => ['config', 'list']],
      ['config get', () => ['config', 'get', 'base-url']],
      ['config set (profiles are made by login, not by config set)', () => ['config', 'set', 'base-url', 'https://api.example.com/v2']],
      ['config unset', () => ['config', 'unset', 'base-url']],
    ];

    function batchFile(dir: string): string {
      const file = join(dir, 'rows.csv');
      writeFileSync(file, toCsv(batchRows(2, ctx.sb.wallets()[0]!.wallet_id, 'profiles')));
      return file;
    }

    it.each(commands)('%s: exit 2, known profiles named, nothing sent, the config file unchanged', async (_name, args) => {
      await twoProfiles();
      // plan create signs the plan: a signing key of this machine's (keys read no profile).
      expect((await run(['keys', 'create', '--name', 'Fatmata Sesay'])).code).toBe(0);
      const before = readFileSync(configFile(cfg.dir), 'utf8');
      const from = ctx.sb.requests().length;
      const r = await run([...args(cfg.dir), '--profile', 'sandbx']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('No profile "sandbx". Known profiles: default, sandbox. Did you mean sandbox?');
      expect(since(ctx.sb, from)).toEqual([]);
      expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
    });
  });

  it('logout keeps its own message, and gains the closest name', async () => {
    await twoProfiles();
    const r = await run(['logout', '--profile', 'sandbx']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      'Error: There is no profile "sandbx": nothing to log out of.\nKnown profiles: default, sandbox. Did you mean sandbox? Pick one with --profile NAME.\n',
    );
  });
});

describe('what keeps working', () => {
  it('login --profile NEW makes the profile (that is how profiles are made), and then it is known', async () => {
    await twoProfiles();
    const r = await run(['login', '--profile', 'staging', '--base-url', ctx.sb.baseUrl, '--insecure-storage'], { PAYCTL_API_KEY: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(readProfile(cfg.dir, 'staging')).toMatchObject({ baseUrl: ctx.sb.baseUrl });
    const b = await run(['balances', '--profile', 'staging']);
    expect(b.code, b.stderr).toBe(0);
  });

  it('a profile that exists works by flag and by PAYCTL_PROFILE', async () => {
    await twoProfiles();
    expect((await run(['balances', '--profile', 'sandbox'])).code).toBe(0);
    expect((await run(['balances'], { PAYCTL_PROFILE: 'sandbox' })).code).toBe(0);
  });

  it('the default profile is never unknown: before any login it is "not logged in" (exit 3), chosen or not', async () => {
    writeProfiles(cfg.dir, { staging: { baseUrl: ctx.sb.baseUrl, apiKey: KEY } });
    for (const args of [['balances'], ['balances', '--profile', 'default']]) {
      const r = await run(args);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain('Not logged in: profile "default" has no base URL.');
    }
    // config set on the default profile makes it, as before.
    const set = await run(['config', 'set', 'base-url', ctx.sb.baseUrl]);
    expect(set.code, set.stderr).toBe(0);
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl });
  });
});

describe('a fresh machine (no profile at all)', () => {
  it('plain balances: "Not logged in — run payctl login" as before (exit 3)', async () => {
    const r = await run(['balances']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('Error: Not logged in: profile "default" has no base URL.');
    expect(r.stderr).toContain('payctl login');
  });

  it('a named profile: it does not exist, and how to create it; the printed login works as printed', async () => {
    const r = await run(['balances', '--profile', 'staging']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe('Error: No profile "staging": there are no profiles yet.\nCreate it by logging in: payctl login --profile staging\n');
    const printed = /Create it by logging in: (payctl .*)$/m.exec(r.stderr)![1]!;
    const login = await run([...printed.split(' ').slice(1), '--base-url', ctx.sb.baseUrl], { PAYCTL_API_KEY: KEY });
    expect(login.code, login.stderr).toBe(0);
    expect((await run(['balances', '--profile', 'staging'])).code).toBe(0);
  });

  it('from PAYCTL_PROFILE: says where the name came from', async () => {
    const r = await run(['status'], { PAYCTL_PROFILE: 'staging' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('No profile "staging": there are no profiles yet.');
    expect(r.stderr).toContain('payctl login --profile staging (it comes from PAYCTL_PROFILE; unset it to use the default profile).');
  });
});

describe('sandbox start: how to use its profile', () => {
  const started: Started[] = [];
  afterEach(async () => {
    for (const s of started.splice(0)) {
      s.interrupt();
      await s.done.catch(() => {});
    }
  });

  /** A foreground `sandbox start` in process, once its start-up lines are out. */
  async function sandboxStart(args: string[] = [], env?: Record<string, string>): Promise<{ s: Started; baseUrl: string; apiKey: string }> {
    const s = startPayctl(['sandbox', 'start', '--port', '0', ...args], { dir: cfg.dir, ...(env ? { env } : {}) });
    started.push(s);
    let ended = false;
    void s.done.finally(() => (ended = true));
    const deadline = Date.now() + 10_000;
    while (!/Press Ctrl-C to stop\./.test(s.stderr()) && !ended) {
      if (Date.now() > deadline) throw new Error(`sandbox start: ${s.stderr()}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    if (ended) throw new Error(`sandbox start ended early: ${s.stderr()}`);
    const m = /^Sandbox running at (\S+)\nAPI key: (\S+)$/m.exec(s.stdout());
    return { s, baseUrl: m![1]!, apiKey: m![2]! };
  }

  /** Runs a line payctl printed: `payctl …`, or `export NAME=value` (then the command it is for). */
  async function asPrinted(line: string, then: string[] = ['balances']): Promise<Awaited<ReturnType<typeof run>>> {
    const exported = /^export (PAYCTL_PROFILE)=(\S+)$/.exec(line);
    if (exported) return run(then, { [exported[1]!]: exported[2]! });
    expect(line).toMatch(/^payctl /);
    return run(line.split(' ').slice(1));
  }

  it('a fresh machine: the sandbox is made the default too, and says so; every printed command works as printed', async () => {
    const { s, baseUrl, apiKey } = await sandboxStart();
    const err = s.stderr();
    expect(err).toBe(
      'Profile "sandbox" saved, and the default profile points at this sandbox too (until `payctl login` sets up your account). Try: payctl balances\n' +
        'By name: payctl balances --profile sandbox; or for this shell: export PAYCTL_PROFILE=sandbox\n' +
        'Press Ctrl-C to stop.\n',
    );
    expect(readProfiles(cfg.dir)).toEqual({
      sandbox: { baseUrl, apiKey, webhookSecret: 'whsec_sandbox' },
      default: { baseUrl, apiKey, webhookSecret: 'whsec_sandbox' },
    });
    const printed = [/Try: (payctl .*)$/m.exec(err)![1]!, /By name: (payctl [^;]*);/.exec(err)![1]!, /or for this shell: (export .*)$/m.exec(err)![1]!];
    expect(printed).toEqual(['payctl balances', 'payctl balances --profile sandbox', 'export PAYCTL_PROFILE=sandbox']);
    for (const line of printed) {
      const r = await asPrinted(line);
      expect(r.code, `${line}: ${r.stderr}`).toBe(0);
      expect(r.stdout.split('\n').length, line).toBeGreaterThan(2);
    }
  });

  it('run options in force are carried (--timeout); no base URL (the profile has its own)', async () => {
    const { s } = await sandboxStart(['--timeout', '5']);
    expect(s.stderr()).toContain('Try: payctl balances --timeout 5\n');
    expect(s.stderr()).toContain('By name: payctl balances --profile sandbox --timeout 5;');
    const r = await asPrinted(/Try: (payctl .*)$/m.exec(s.stderr())![1]!);
    expect(r.code, r.stderr).toBe(0);
  });

  it('a default profile pointing at the service is never replaced: the sandbox is used by name', async () => {
    writeProfiles(cfg.dir, { default: { baseUrl: 'https://api.bokumonie.com/v2', apiKey: 'sk_live_real_account_0001' } });
    const before = readProfile(cfg.dir);
    const { s } = await sandboxStart();
    expect(readProfile(cfg.dir)).toEqual(before);
    const err = s.stderr();
    expect(err).toBe(
      'Profile "sandbox" saved. Try: payctl balances --profile sandbox\n' +
        'Or for this shell, so that commands need no --profile: export PAYCTL_PROFILE=sandbox\n' +
        'Press Ctrl-C to stop.\n',
    );
    for (const line of [/Try: (payctl .*)$/m.exec(err)![1]!, /: (export .*)$/m.exec(err)![1]!]) {
      const r = await asPrinted(line);
      expect(r.code, `${line}: ${r.stderr}`).toBe(0);
    }
  });

  it('another profile but no default: no default is made', async () => {
    writeProfiles(cfg.dir, { staging: { baseUrl: 'https://staging.example.com/v2' } });
    const { s } = await sandboxStart();
    expect(Object.keys(readProfiles(cfg.dir)).sort()).toEqual(['sandbox', 'staging']);
    expect(s.stderr()).toContain('Profile "sandbox" saved. Try: payctl balances --profile sandbox\n');
  });

  it('started again (another port): a default that follows the sandbox follows it there', async () => {
    const first = await sandboxStart();
    first.s.interrupt();
    await first.s.done;
    writeProfiles(cfg.dir, { ...readProfiles(cfg.dir), staging: { baseUrl: 'https://staging.example.com/v2' } });
    const second = await sandboxStart();
    expect(second.baseUrl).not.toBe(first.baseUrl);
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: second.baseUrl, apiKey: second.apiKey, webhookSecret: 'whsec_sandbox' });
    expect(second.s.stderr()).toContain('the default profile points at this sandbox too');
    expect((await run(['balances'])).code).toBe(0);
  });

  it('PAYCTL_PROFILE=sandbox exported on a fresh machine: sandbox start still works (it makes its own profile)', async () => {
    const { s } = await sandboxStart([], { PAYCTL_PROFILE: 'sandbox' });
    expect(s.stderr()).toContain('Profile "sandbox" saved');
    expect((await run(['balances'], { PAYCTL_PROFILE: 'sandbox' })).code).toBe(0);
  });

  it('names the variables of this shell that would send the printed commands elsewhere', async () => {
    const { s } = await sandboxStart([], { PAYCTL_API_KEY: 'sk_live_other_0000000001', PAYCTL_BASE_URL: 'https://api.bokumonie.com/v2' });
    expect(s.stderr()).toContain("Warning: PAYCTL_BASE_URL is set in this shell and overrides the profile's base URL: unset it to reach the sandbox.\n");
    expect(s.stderr()).toContain(
      "Warning: PAYCTL_API_KEY is set in this shell and is sent instead of the sandbox's key, which the sandbox refuses: unset it to use the sandbox.\n",
    );
  });

  it('login of the default profile then sets up the account: the sandbox URL is not reused, its webhook secret is dropped, profile sandbox stays', async () => {
    const sb = await sandboxStart();
    // Without a base URL, login does not send the account's key to the sandbox's address.
    const bare = await run(['login', '--no-input'], { PAYCTL_API_KEY: KEY });
    expect(bare.code, bare.stderr).toBe(2);
    expect(bare.stderr).toContain('No base URL to log in to.');
    // The service's own URL, in a command as it runs (not "https://…/v2" to fill in).
    expect(bare.stderr).toContain('To log in to Bokumonie: payctl login --base-url https://api.bokumonie.com/v2 (or set PAYCTL_BASE_URL).');
    const r = await run(['login', '--base-url', ctx.sb.baseUrl], { PAYCTL_API_KEY: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Profile "default" pointed at the sandbox until now; profile "sandbox" still does.');
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    expect(readProfile(cfg.dir, 'sandbox')).toEqual({ baseUrl: sb.baseUrl, apiKey: sb.apiKey, webhookSecret: 'whsec_sandbox' });
    const status = await run(['status', '--json']);
    expect(oneJson(status.stdout)).toMatchObject({ profile: 'default', base_url: ctx.sb.baseUrl });
  });
});

describe('profile names edited into the config file that no --profile takes (an escape sequence, a line break)', () => {
  const HOSTILE = 'x\u001b]0;OWNED\u0007\u001b[2J';
  const SHOWN = 'x\\u001b]0;OWNED\\u0007\\u001b[2J';
  const BROKEN = 'sandbox\nrm';

  function hostileFile(): void {
    writeProfiles(cfg.dir, { default: { baseUrl: ctx.sb.baseUrl }, [HOSTILE]: { baseUrl: ctx.sb.baseUrl }, [BROKEN]: { baseUrl: ctx.sb.baseUrl } });
  }

  it('config list offers none of them, and warns of them escaped; an unknown --profile lists them apart, unusable until renamed, and suggests none of them (probe B53, 8)', async () => {
    hostileFile();
    const list = await run(['config', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(list.stderr).not.toContain('Other profiles:');
    expect(list.stderr).toContain(`Warning: The config file ${configFile(cfg.dir)} has profile names no --profile takes: sandbox\\u000arm, ${SHOWN}.`);
    const typo = await run(['balances', '--profile', 'sandbox']);
    expect(typo.code, typo.stderr).toBe(2);
    expect(typo.stderr).toContain(`Known profiles: default. Not usable until renamed in config.json (--profile refuses these names): sandbox\\u000arm, ${SHOWN}.`);
    expect(typo.stderr).not.toContain('Did you mean');
    expect(typo.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
  });

  it('a space or a leading "-" in a name: not among "Other profiles" nor "Known profiles", named apart (probe B53, 8)', async () => {
    writeProfiles(cfg.dir, {
      prod: { baseUrl: ctx.sb.baseUrl },
      'has space': { baseUrl: ctx.sb.baseUrl },
      '-flag': { baseUrl: ctx.sb.baseUrl },
      demo: { baseUrl: ctx.sb.baseUrl },
    });
    const list = await run(['config', 'list', '--profile', 'prod']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toContain('Other profiles: demo (use --profile NAME).');
    expect(list.stderr).toContain('has profile names no --profile takes: -flag, has space.');
    const unknown = await run(['balances', '--profile', 'nosuch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Known profiles: demo, prod. Not usable until renamed in config.json (--profile refuses these names): -flag, has space.');
  });

  it('__complete-profiles offers only names --profile takes: no control character reaches the shell', async () => {
    hostileFile();
    const r = await run(['__complete-profiles']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('default\n');
  });
});
