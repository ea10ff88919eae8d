/**
 * Probe O, findings 2 and 6, in process: where `login` takes its key from is never silent.
 * PAYCTL_API_KEY is said (masked) on stderr before it is sent, and at a terminal it is asked
 * about (default no: then the key is asked for, and the key exported in the shell is never
 * sent). `--json` names the source. `--api-key-stdin` with a terminal for standard input asks
 * with the hidden prompt, or is refused (exit 2, nothing sent) where no prompt may be shown.
 */
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { expectNoSecrets, newKey, oneJson, readProfile, useConfigDir, writeLoggedIn } from '../helpers/e2e.js';
import { printed } from '../helpers/printed.js';
import { shellSplit } from '../helpers/pty.js';
import { payctl } from '../helpers/in-process.js';
import { stderrDocs } from '../helpers/stderr-json.js';
import { scriptedPrompter } from '../helpers/prompts.js';

const KEY = newKey();
const STAGING = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();

/** Bearers the sandbox got since `from`. */
function bearersSince(from: number): string[] {
  return ctx.sb
    .requests()
    .slice(from)
    .map((r) => r.headers.authorization ?? '');
}

describe('login with PAYCTL_API_KEY set', () => {
  it('without a terminal: says which key it uses, masked, before the login; --json names the source', async () => {
    const r = await payctl(['login', '--base-url', ctx.sb.baseUrl, '--insecure-storage'], { dir: cfg.dir, env: { PAYCTL_API_KEY: ` ${KEY}\n` } });
    expect(r.code, r.stderr).toBe(0);
    const said = r.stderr.indexOf(`Using the API key from PAYCTL_API_KEY (****${KEY.slice(-4)}).`);
    expect(said, r.stderr).toBeGreaterThanOrEqual(0);
    expect(said).toBeLessThan(r.stderr.indexOf('Logged in to'));
    expectNoSecrets(r, [KEY]);

    const j = await payctl(['login', '--base-url', ctx.sb.baseUrl, '--insecure-storage', '--json'], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(j.code, j.stderr).toBe(0);
    // Under --json, a JSON line (src/output/log.ts): stderr's documents only, the script reads stdout.
    expect(stderrDocs(j.stderr)).toEqual([{ notice: `Using the API key from PAYCTL_API_KEY (****${KEY.slice(-4)}).` }]);
    expect(oneJson(j.stdout)).toMatchObject({ api_key_source: 'PAYCTL_API_KEY', storage: 'file' });
  });

  it('at a terminal, answered no: the exported key is never sent; the typed one is stored, and the shell is warned its variable still wins', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['login', '--profile', 'prod', '--base-url', ctx.sb.baseUrl, '--insecure-storage'], {
      dir: cfg.dir,
      env: { PAYCTL_API_KEY: STAGING },
      prompts: [
        {
          confirm: new RegExp(`^Log in to ${ctx.sb.baseUrl.replace(/[.]/g, '\\.')} with the API key from PAYCTL_API_KEY \\(\\*{4}${STAGING.slice(-4)}\\)\\?$`),
          answer: false,
        },
        { password: /^API key:$/, answer: KEY },
      ],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(bearersSince(from)).toEqual([`Bearer ${KEY}`]);
    expect(readProfile(cfg.dir, 'prod')).toMatchObject({ apiKey: KEY });
    expect(r.stderr).toContain('Warning: PAYCTL_API_KEY is set in this shell and is sent instead of the key just stored: unset it to use profile "prod".');
    expect(r.stderr).not.toContain('Using the API key from PAYCTL_API_KEY');
  });

  it('at a terminal, answered yes: that key is checked and stored', async () => {
    const from = ctx.sb.requests().length;
    const prompts = scriptedPrompter([{ confirm: /with the API key from PAYCTL_API_KEY/, answer: true }]);
    const r = await payctl(['login', '--base-url', ctx.sb.baseUrl, '--insecure-storage'], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY }, prompts });
    expect(r.code, r.stderr).toBe(0);
    expect(prompts.pending).toEqual([]);
    expect(bearersSince(from)).toEqual([`Bearer ${KEY}`]);
    expect(readProfile(cfg.dir)).toMatchObject({ apiKey: KEY });
    expect(r.stderr).not.toContain('sent instead of the key just stored');
  });
});

describe('login --api-key-stdin with a terminal for standard input', () => {
  it('asks with the hidden prompt (a line read from a terminal would be echoed)', async () => {
    const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl, '--insecure-storage'], {
      dir: cfg.dir,
      prompts: [{ password: /^API key:$/, answer: KEY }],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readProfile(cfg.dir)).toMatchObject({ apiKey: KEY });
  });

  it('where no prompt may be shown (--json at a terminal): exit 2, pipe it in, nothing sent', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['login', '--api-key-stdin', '--json', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, tty: { stdin: true, stdout: true } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({
      error: {
        message: '--api-key-stdin reads the API key from a pipe, not a terminal, where it would be shown as typed.',
        // The printed login keeps --json (probe B53, 3): a script reading JSON gets JSON again.
        hint: `Pipe it in: printf '%s\\n' "$API_KEY" | payctl login --base-url ${ctx.sb.baseUrl} --api-key-stdin --json`,
      },
    });
    expect(ctx.sb.requests().slice(from)).toEqual([]);
    expect(readProfile(cfg.dir)).toBeUndefined();
  });

  it('--no-input --insecure-storage at a terminal: the printed login keeps --insecure-storage (probe B53, 3)', async () => {
    const r = await payctl(['login', '--api-key-stdin', '--no-input', '--base-url', ctx.sb.baseUrl, '--profile', 'newp', '--insecure-storage'], {
      dir: cfg.dir,
      tty: { stdin: true, stdout: true },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Pipe it in: printf '%s\\n' "$API_KEY" | payctl login --profile newp --base-url ${ctx.sb.baseUrl} --api-key-stdin --insecure-storage\n`);
  });

  it('from a pipe, --json names standard input as the source', async () => {
    const r = await payctl(['login', '--api-key-stdin', '--json', '--base-url', ctx.sb.baseUrl, '--insecure-storage'], { dir: cfg.dir, input: `${KEY}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(oneJson(r.stdout)).toMatchObject({ api_key_source: 'stdin' });
  });
});

describe('login over a profile logged in to another base URL', () => {
  // The same sandbox under another name: another base URL to payctl (a second service).
  const other = () => ctx.sb.baseUrl.replace('127.0.0.1', 'localhost');

  it('at a terminal, answered no: nothing sent, the profile unchanged, the login of a profile of its own printed, which runs as printed', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY, 'default');
    const from = ctx.sb.requests().length;
    const r = await payctl(['login', '--base-url', other(), '--insecure-storage'], {
      dir: cfg.dir,
      prompts: [
        {
          confirm: new RegExp(
            `^Profile "default" is logged in to ${ctx.sb.baseUrl.replace(/[.]/g, '\\.')}\\. Point it at ${other().replace(/[.]/g, '\\.')} and replace its key\\?$`,
          ),
          answer: false,
        },
      ],
    });
    expect(r.code, r.stderr).toBe(2);
    expect(ctx.sb.requests().length).toBe(from);
    expect(readProfile(cfg.dir, 'default')).toMatchObject({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    expect(r.stderr).toContain(`Nothing was changed: profile "default" still points at ${ctx.sb.baseUrl}.`);
    const own = printed(r.stderr, 'login');
    expect(own).toEqual(['login', '--profile', 'localhost', '--base-url', other(), '--insecure-storage']);
    const again = await payctl(own, { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(again.code, again.stderr).toBe(0);
    expect(readProfile(cfg.dir, 'default')).toMatchObject({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    expect(readProfile(cfg.dir, 'localhost')).toMatchObject({ baseUrl: other(), apiKey: KEY });
  });

  it('at a terminal, answered yes: moved, the key typed stored; without a terminal: moved and warned, as before', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, STAGING, 'default');
    const yes = await payctl(['login', '--base-url', other(), '--insecure-storage'], {
      dir: cfg.dir,
      prompts: [
        { confirm: /^Profile "default" is logged in to .* Point it at .* and replace its key\?$/, answer: true },
        { password: /^API key:$/, answer: KEY },
      ],
    });
    expect(yes.code, yes.stderr).toBe(0);
    expect(readProfile(cfg.dir, 'default')).toMatchObject({ baseUrl: other(), apiKey: KEY });
    const back = await payctl(['login', '--base-url', ctx.sb.baseUrl, '--insecure-storage'], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toContain(`Warning: Profile "default" pointed at ${other()} with a key for it; it now points at ${ctx.sb.baseUrl}, and that key is replaced.`);
  });
});

describe('an API key longer than 1024 characters: refused, exit 2, nothing sent (probe B53, 7)', () => {
  const long = 'a'.repeat(20_000);

  it('login from stdin, from PAYCTL_API_KEY, and at the prompt (asked again)', async () => {
    const from = ctx.sb.requests().length;
    const piped = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl, '--insecure-storage'], { dir: cfg.dir, input: `${long}\n` });
    expect(piped.code, piped.stderr).toBe(2);
    expect(piped.stderr).toContain('The API key from standard input is 20,000 characters long: an API key is at most 1,024. Nothing was sent.');
    const env = await payctl(['login', '--base-url', ctx.sb.baseUrl, '--insecure-storage'], { dir: cfg.dir, env: { PAYCTL_API_KEY: long } });
    expect(env.code, env.stderr).toBe(2);
    expect(env.stderr).toContain('PAYCTL_API_KEY is 20,000 characters long');
    // At the prompt the key is refused by its check (the prompt asks again; the scripted one fails the run, saying why).
    const typed = await payctl(['login', '--base-url', ctx.sb.baseUrl, '--insecure-storage'], { dir: cfg.dir, prompts: [{ password: /^API key:$/, answer: long }] });
    expect(typed.code).not.toBe(0);
    expect(typed.stderr).toContain('was refused: The API key is 20,000 characters long: an API key is at most 1,024.');
    expect(ctx.sb.requests().slice(from)).toEqual([]);
    expect(readProfile(cfg.dir)).toBeUndefined();
  });

  it('PAYCTL_API_KEY on any command: exit 2 before anything is sent', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances'], { dir: cfg.dir, env: { PAYCTL_API_KEY: long } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('PAYCTL_API_KEY is 20,000 characters long: an API key is at most 1,024. Nothing was sent.');
    expect(ctx.sb.requests().slice(from)).toEqual([]);
  });
});

describe('a login printed after a refused key under --json (probe E54, 4)', () => {
  it('keeps --insecure-storage, not --json: run at a terminal as printed, it can ask for the key', async () => {
    const r = await payctl(['login', '--json', '--base-url', ctx.sb.baseUrl, '--insecure-storage', '--profile', 'e54'], {
      dir: cfg.dir,
      env: { PAYCTL_API_KEY: newKey() },
    });
    expect(r.code, r.stderr).toBe(3);
    const hint = (JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { error: { hint: string } }).error.hint;
    const login = shellSplit(/`(payctl login[^`]*)`/.exec(hint)![1]!).slice(1);
    expect(login).toContain('--insecure-storage');
    expect(login).not.toContain('--json');
    const typed = await payctl(login, { dir: cfg.dir, prompts: [{ password: /^API key:$/, answer: KEY }] });
    expect(typed.code, typed.stderr).toBe(0);
  });
});
