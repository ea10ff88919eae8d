/**
 * The `payctl config set|get` commands payctl prints carry the run's profile (probe X, F2): a
 * run with `--profile ops` refused because the profile names no policy printed `payctl config
 * set policy <path>`, which pasted set the default profile's policy, and the run was refused
 * again. Each such hint, pasted as printed (a placeholder filled in), changes or shows the run's
 * profile: the policy named for plan send and policy check, the policy in force when it cannot
 * be read, a signature header in config set's example and in the listener's refusal of an event
 * without one, and the ledger URL of a config file others can read. In process, against the
 * sandbox over real HTTP.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { configFile, oneJson, readProfile, writeLoggedIn, writeProfiles, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { tempWorkDir } from '../helpers/batch.js';
import { postRaw } from '../helpers/listener.js';
import { listenInProcess, stopLeftoverListeners } from '../helpers/listen-in-process.js';
import { shellSplit } from '../helpers/pty.js';
import { event, isoAt } from '../helpers/webhook-events.js';
import { planBatchFile, planPathOf } from '../helpers/four-eyes.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const work = tempWorkDir();
const cfg = tempConfigDir();
let policy: string;

const run = (args: string[], dir = cfg.dir): Promise<Run> => payctl(args, { dir });

/** The command printed after `intro` on stderr, as argv (without `payctl`), `<path>`/`NAME` put in as `value`. */
function pasted(stderr: string, intro: string, value?: string): string[] {
  const line = stderr.split('\n').find((l) => l.includes(intro));
  expect(line, stderr).toBeDefined();
  const cmd = line!.slice(line!.indexOf('payctl ')).replace(/`.*$/, '');
  const filled = value === undefined ? cmd : cmd.replace(/<path>|NAME/, value);
  return shellSplit(filled).slice(1);
}

beforeAll(async () => {
  await writeLoggedIn(ctx.sb, cfg.dir);
  await writeLoggedIn(ctx.sb, cfg.dir, ctx.sb.apiKey, 'ops');
  const key = await run(['keys', 'create', '--name', 'Maker', '--json']);
  expect(key.code, key.stderr).toBe(0);
  const { public_key } = oneJson(key.stdout) as { public_key: string };
  policy = join(work.dir, 'pol.json');
  writeFileSync(policy, JSON.stringify({ members: { Maker: { keys: [public_key], roles: ['maker'] } }, approvals: { SLE: [{ from: '0', required: 0 }] } }));
});

afterEach(() => stopLeftoverListeners());

afterAll(() => {
  cfg.cleanup();
  work.cleanup();
});

describe('printed config commands carry the run profile', () => {
  it('plan send and policy check --profile ops, no policy: the config set policy printed names ops; pasted, both go on (before: it set the default profile)', async () => {
    const file = planBatchFile(work.dir, freshWallet(ctx.sb, '1000.00', 'SLE'), ['10']);
    const made = await run(['plan', 'create', file, '--profile', 'ops', '--batch-id', 'p-1']);
    expect(made.code, made.stderr).toBe(0);
    const send = await run(['plan', 'send', planPathOf(file), '--profile', 'ops', '--timeout', '20', '--yes']);
    expect(send.code).toBe(2);
    expect(send.stderr).toContain('the profile names no policy to judge its approvals by');
    const check = await run(['policy', 'check', file, '--profile', 'ops']);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain("Name your team's policy file with: payctl config set policy <path> --profile ops\n");
    const set = pasted(send.stderr, "Name your team's policy file with:", policy);
    expect(set).toEqual(['config', 'set', 'policy', policy, '--profile', 'ops', '--timeout', '20']);
    const done = await run(set);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain('Set policy in profile "ops"');
    expect(readProfile(cfg.dir, 'ops')?.policy).toBe(policy);
    expect(readProfile(cfg.dir)?.policy).toBeUndefined();
    const again = await run(['policy', 'check', file, '--profile', 'ops']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const sent = await run(['plan', 'send', planPathOf(file), '--profile', 'ops', '--yes']);
    expect(sent.code, sent.stderr).toBe(0);
  });

  it("a policy that cannot be read: the config get policy printed shows ops's (before: the default profile's)", async () => {
    const dir = tempConfigDir();
    try {
      const broken = join(work.dir, 'broken.json');
      writeFileSync(broken, JSON.stringify({ members: {}, approvals: { SLE: [] } }));
      writeProfiles(dir.dir, { default: { baseUrl: ctx.sb.baseUrl, apiKey: ctx.sb.apiKey }, ops: { baseUrl: ctx.sb.baseUrl, apiKey: ctx.sb.apiKey, policy: broken } });
      writeFileSync(broken, '{"members":');
      const file = planBatchFile(work.dir, freshWallet(ctx.sb, '1000.00', 'SLE'), ['10']);
      const r = await run(['policy', 'check', file, '--profile', 'ops'], dir.dir);
      expect(r.code).toBe(2);
      const get = pasted(r.stderr, 'see the policy in force with:');
      expect(get).toEqual(['config', 'get', 'policy', '--profile', 'ops']);
      const shown = await run(get, dir.dir);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(broken);
    } finally {
      dir.cleanup();
    }
  });

  it("config set webhook-signature-header --profile ops with no header name: its example sets ops's (before: the default profile's)", async () => {
    const r = await run(['config', 'set', 'webhook-signature-header', 'X Sig', '--profile', 'ops']);
    expect(r.code).toBe(2);
    const example = pasted(r.stderr, 'For example:');
    expect(example).toEqual(['config', 'set', 'webhook-signature-header', 'X-Signature', '--profile', 'ops']);
    expect((await run(example)).code).toBe(0);
    expect(readProfile(cfg.dir, 'ops')?.webhookSignatureHeader).toBe('X-Signature');
    expect(readProfile(cfg.dir)?.webhookSignatureHeader).toBeUndefined();
    expect((await run(['config', 'unset', 'webhook-signature-header', '--profile', 'ops'])).code).toBe(0);
  });

  it('webhooks listen --profile ops, an event without the signature header: the config set printed names ops (before: the default profile)', async () => {
    const dir = tempConfigDir();
    try {
      writeProfiles(dir.dir, { default: { baseUrl: ctx.sb.baseUrl }, ops: { baseUrl: ctx.sb.baseUrl, webhookSecret: 'whsec_ops_hints_1' } });
      const l = await listenInProcess(['--profile', 'ops'], { dir: dir.dir });
      const body = event({ timestamp: isoAt() });
      const res = await postRaw(l.url, body, { 'content-type': 'application/json', 'x-sig': 'abc' });
      expect(res.status).toBe(400);
      await l.waitFor(() => l.stderr().includes('missing signature header'), 'the refusal');
      expect(l.stderr()).toContain('name it with --signature-header NAME or payctl config set webhook-signature-header NAME --profile ops.');
      await l.stop();
    } finally {
      dir.cleanup();
    }
  });

  it('a config file others can read keeping profile "team"\'s ledger password: the config set ledger printed names team', async () => {
    const dir = tempConfigDir();
    try {
      writeProfiles(dir.dir, { default: { baseUrl: ctx.sb.baseUrl }, team: { baseUrl: ctx.sb.baseUrl, ledger: 'postgres://payctl:pw_secret9@db.example.com/payctl' } });
      chmodSync(configFile(dir.dir), 0o644);
      const r = await run(['config', 'list'], dir.dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("change the ledger's database password and give the new URL to `payctl config set ledger --profile team --stdin`.");
    } finally {
      dir.cleanup();
    }
  });
});

describe('config set and --base-url (probe 56-K finding 6)', () => {
  it('a run with --base-url and PAYCTL_API_KEY, no policy: the config set policy printed takes no --base-url; pasted, the run goes on', async () => {
    const dir = tempConfigDir();
    try {
      const withKey = (args: string[]) => payctl(args, { dir: dir.dir, env: { PAYCTL_API_KEY: ctx.sb.apiKey } });
      const file = planBatchFile(work.dir, freshWallet(ctx.sb, '1000.00', 'SLE'), ['10']);
      const check = await withKey(['policy', 'check', file, '--base-url', ctx.sb.baseUrl]);
      expect(check.code).toBe(2);
      // Before: `payctl config set policy <path> --base-url URL`, whose --base-url was ignored without a word.
      expect(check.stderr).toContain("Name your team's policy file with: payctl config set policy <path>\n");
      const set = pasted(check.stderr, "Name your team's policy file with:", policy);
      expect(set).toEqual(['config', 'set', 'policy', policy]);
      const done = await withKey(set);
      expect(done.code, done.stderr).toBe(0);
      // The profile a run with --base-url and no --profile goes by: its policy is now named.
      const again = await withKey(['policy', 'check', file, '--base-url', ctx.sb.baseUrl]);
      expect(again.code, again.stdout + again.stderr).toBe(0);
    } finally {
      dir.cleanup();
    }
  });

  it('config set (and unset) with --base-url: refused, exit 2, nothing saved, with --profile to use instead (before: set in a new "default" profile)', async () => {
    const dir = tempConfigDir();
    try {
      writeProfiles(dir.dir, { teama: { baseUrl: ctx.sb.baseUrl, apiKey: ctx.sb.apiKey } });
      const r = await run(['config', 'set', 'policy', policy, '--base-url', ctx.sb.baseUrl], dir.dir);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain("config set changes a profile's settings, and --base-url chooses no profile");
      expect(r.stderr).toContain('Nothing was saved.');
      expect(r.stderr).toContain(`Name the profile with --profile instead; the profiles with that base URL:\n  payctl config set policy ${policy} --profile teama`);
      expect(readProfile(dir.dir)).toBeUndefined();
      expect(readProfile(dir.dir, 'teama')?.policy).toBeUndefined();
      const json = await run(['config', 'set', 'policy', policy, '--base-url', ctx.sb.baseUrl, '--json'], dir.dir);
      expect(json.code).toBe(2);
      expect(json.stdout + json.stderr).toContain('"--base-url"');
      // As the hint says, with the profile named: set there.
      const named = await run(['config', 'set', 'policy', policy, '--profile', 'teama'], dir.dir);
      expect(named.code, named.stderr).toBe(0);
      const unset = await run(['config', 'unset', 'policy', '--base-url', ctx.sb.baseUrl], dir.dir);
      expect(unset.code, unset.stderr).toBe(2);
      expect(unset.stderr).toContain('payctl config unset policy --profile teama');
      expect(readProfile(dir.dir, 'teama')?.policy).toBe(policy);
    } finally {
      dir.cleanup();
    }
  });

  it('config set (and unset) with PAYCTL_BASE_URL, no --profile: refused as --base-url is, the typed path and each profile of that URL printed (probe K57 finding 5)', async () => {
    const dir = tempConfigDir();
    try {
      writeProfiles(dir.dir, { teama: { baseUrl: ctx.sb.baseUrl, apiKey: ctx.sb.apiKey }, teamb: { baseUrl: ctx.sb.baseUrl, apiKey: ctx.sb.apiKey } });
      const env = { PAYCTL_BASE_URL: ctx.sb.baseUrl };
      // Before: "Set policy in profile "default"", exit 0, a new profile with no base URL or key.
      const r = await payctl(['config', 'set', 'policy', policy], { dir: dir.dir, env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`and PAYCTL_BASE_URL (${ctx.sb.baseUrl}) chooses no profile`);
      expect(r.stderr).toContain('Nothing was saved.');
      expect(r.stderr).toContain(`  payctl config set policy ${policy} --profile teama\n  payctl config set policy ${policy} --profile teamb`);
      expect(readProfile(dir.dir)).toBeUndefined();
      const unset = await payctl(['config', 'unset', 'policy'], { dir: dir.dir, env });
      expect(unset.code, unset.stderr).toBe(2);
      // Pasted as printed, the variable still exported: set in teama.
      const named = await payctl(pasted(r.stderr, '--profile teama'), { dir: dir.dir, env });
      expect(named.code, named.stderr).toBe(0);
      expect(readProfile(dir.dir, 'teama')?.policy).toBe(policy);
      expect(readProfile(dir.dir, 'teamb')?.policy).toBeUndefined();
    } finally {
      dir.cleanup();
    }
  });

  it('config set with a PAYCTL_BASE_URL no profile has: each profile and the login that makes one printed runnable, never --profile NAME (probe R58a finding 5)', async () => {
    const dir = tempConfigDir();
    try {
      writeProfiles(dir.dir, { teama: { baseUrl: 'http://127.0.0.1:9/v2', apiKey: ctx.sb.apiKey } });
      const env = { PAYCTL_BASE_URL: ctx.sb.baseUrl };
      const r = await payctl(['config', 'set', 'policy', policy], { dir: dir.dir, env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('Nothing was saved.');
      // Before: "Name the profile with --profile instead: payctl config set policy <file> --profile NAME".
      expect(r.stderr).not.toContain('NAME');
      expect(r.stderr).toContain(`the profiles there are (at other base URLs):\n  payctl config set policy ${policy} --profile teama\n`);
      const fresh = new URL(ctx.sb.baseUrl).hostname;
      expect(r.stderr).toContain(
        `To make a profile with that base URL, log one in, then name it:\n  payctl login --profile ${fresh} --base-url ${ctx.sb.baseUrl}\n  payctl config set policy ${policy} --profile ${fresh}\n`,
      );
      expect(readProfile(dir.dir, 'teama')?.policy).toBeUndefined();
      // Pasted as printed, the variable still exported: set in teama.
      const named = await payctl(pasted(r.stderr, '--profile teama'), { dir: dir.dir, env });
      expect(named.code, named.stderr).toBe(0);
      expect(readProfile(dir.dir, 'teama')?.policy).toBe(policy);
    } finally {
      dir.cleanup();
    }
  });
});
