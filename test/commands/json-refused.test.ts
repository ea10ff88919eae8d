/**
 * `--json` where no JSON can be given (probe C53, 4 and 7): a group typed without its command
 * (`payctl payout --json`, bare `payctl --json`), help (`help ...`, `--help`) and `completion`
 * are refused with exit 2 and one USAGE_ERROR document on stderr, never text with exit 0 (a
 * group printed nothing at all). `--version --json` answers `{"version":...}`. Without --json,
 * a group alone still shows its help on stderr with exit 0.
 */
import { describe, expect, it } from 'vitest';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { useConfigDir } from '../helpers/e2e.js';
import { version } from '../../src/program.js';

const cfg = useConfigDir();
const run = (...args: string[]): Promise<Run> => payctl(args, { dir: cfg.dir });

interface ErrorDoc {
  message: string;
  code: string;
  errors: Array<{ field: string; message: string }>;
  hint: string | null;
}

/** Exit 2, nothing on stdout, one USAGE_ERROR document on stderr. */
function refused(r: Run): ErrorDoc {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  const e = (JSON.parse(r.stderr) as { error: ErrorDoc }).error;
  expect(e.code).toBe('USAGE_ERROR');
  return e;
}

describe('a group without its command, with --json', () => {
  it.each([
    ['payout', 'create, batch, get'],
    ['plan', 'create, show, approve, merge, send'],
    ['keys', 'create, show'],
    ['policy', 'check, propose, approve, show'],
    ['config', 'list, get, set, unset, path'],
    ['ledger', 'status, import, verify'],
    ['webhooks', 'listen'],
    ['sandbox', 'start, stop, status'],
  ])('payctl %s --json: exit 2, the hint names its commands', async (group, verbs) => {
    const e = refused(await run(group, '--json'));
    expect(e.message).toBe(`payctl ${group} needs a command.`);
    expect(e.hint).toBe(`Its commands: ${verbs}. Run \`payctl ${group} --help\` for usage.`);
  });

  it('bare payctl --json: exit 2, the hint names the commands', async () => {
    const e = refused(await run('--json'));
    expect(e.message).toBe('payctl needs a command.');
    expect(e.hint).toMatch(/^Its commands: login, logout, status, balances, payout, payouts, .*sandbox\. Run `payctl --help` for usage\.$/);
  });

  it('without --json: the help on stderr, exit 0, as before', async () => {
    const r = await run('payout');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: payctl payout \[options\] \[command\]/);
  });
});

describe('help and completion refuse --json; --version answers in JSON', () => {
  it.each([
    [['help', 'payout', 'create', '--json'], 'payctl payout create'],
    [['payout', 'create', '--help', '--json'], 'payctl payout create'],
  ])('%j: exit 2, --json named', async (args, command) => {
    const e = refused(await run(...args));
    expect(e.message).toBe('--json cannot be used with help: help is text for people.');
    expect(e.errors).toEqual([{ field: '--json', message: 'cannot be used with help: help is text for people.' }]);
    expect(e.hint).toBe(`Leave out --json to read it. Run \`${command} --help\` for usage.`);
  });

  it('completion bash --json: exit 2, no script on stdout', async () => {
    const e = refused(await run('completion', 'bash', '--json'));
    expect(e.errors).toEqual([{ field: '--json', message: 'cannot be used with completion: it prints a shell script' }]);
    expect(e.hint).toContain('Leave out --json');
  });

  it.each([[['--version', '--json']], [['--json', '-V']]])('%j: {"version":...} on stdout, exit 0', async (args) => {
    const r = await run(...args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ version: version() });
  });

  it('--version without --json: the version as a line, as before', async () => {
    const r = await run('--version', '--no-color');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${version()}\n`);
  });
});
