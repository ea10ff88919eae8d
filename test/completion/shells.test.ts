/**
 * The committed completion scripts driven by the real shells, non-interactively:
 * - bash: the script sourced in `bash --norc --noprofile`, COMP_WORDS/COMP_CWORD/COMP_LINE/
 *   COMP_POINT set as readline sets them (it splits `--type=w` at "="), _payctl called,
 *   COMPREPLY printed;
 * - fish: `fish --no-config`, the script sourced, `complete -C LINE`;
 * - zsh: an interactive `zsh -f` in a pseudo-terminal (zpty) with the real completion system
 *   (compinit, the script autoloaded from $fpath, or sourced / eval'd after compinit); Tab runs the
 *   completion widget and an override of compadd records what would be offered
 *   (`builtin compadd -O` matches against the word as zsh does, without adding).
 * A missing shell fails these tests (it is never skipped): npm test installs zsh and fish first (scripts/test-prereqs.mjs).
 * `payctl` on PATH is a wrapper that runs bin/payctl.js; profiles come from a temp
 * PAYCTL_CONFIG_DIR holding two.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../src/config/store.js';
import { READABLE } from '../../src/config/settings.js';
import { ROOT_COMMANDS as TREE_ROOT } from '../helpers/root-commands.js';

type Shell = 'bash' | 'zsh' | 'fish';
const SHELLS: Shell[] = ['bash', 'zsh', 'fish'];
const ROOT = resolve(__dirname, '../..');
const SCRIPT: Record<Shell, string> = {
  bash: join(ROOT, 'completions/payctl.bash'),
  zsh: join(ROOT, 'completions/_payctl'),
  fish: join(ROOT, 'completions/payctl.fish'),
};

const ROOT_COMMANDS = [...TREE_ROOT, 'help'];
const PAYOUTS_LIST_LONG = [
  '--status',
  '--wallet',
  '--currency',
  '--from',
  '--to',
  '--limit',
  '--page',
  '--all',
  '--csv',
  '--help',
  '--profile',
  '--base-url',
  '--json',
  '--no-input',
  '--no-color',
  '--verbose',
  '--timeout',
];

interface Case {
  /** The command line up to the cursor. */
  line: string;
  /** What is offered (any order), the same in every shell or per shell. */
  want: string[] | Record<Shell, string[]>;
}

const CASES: Case[] = [
  // commands and subcommands
  { line: 'payctl pa', want: ['payout', 'payouts'] },
  { line: 'payctl payout c', want: ['create'] },
  { line: 'payctl ', want: ROOT_COMMANDS }, // the hidden __complete-profiles is not offered
  { line: 'payctl __', want: [] },
  { line: 'payctl config ', want: ['list', 'get', 'set', 'unset', 'path', 'help'] },
  { line: 'payctl sandbox st', want: ['start', 'stop', 'status'] },
  { line: 'payctl help pay', want: ['payout', 'payouts'] },
  // flags, with the global ones, before or after the command
  { line: 'payctl payout create --ty', want: ['--type'] },
  { line: 'payctl payouts list --status Pending --', want: PAYOUTS_LIST_LONG },
  { line: 'payctl --ver', want: ['--verbose', '--version'] },
  { line: 'payctl config path --ver', want: ['--verbose'] },
  // values that are known
  { line: 'payctl payout create --type ', want: ['bank', 'wallet'] },
  { line: 'payctl payouts list --status ', want: ['Pending', 'Successful', 'Failed'] },
  { line: 'payctl history --status not', want: ['not-made'] },
  { line: 'payctl history rec', want: ['reconcile'] },
  { line: 'payctl payout create --provider or', want: ['orange_money'] },
  { line: 'payctl completion ', want: ['bash', 'zsh', 'fish'] },
  { line: 'payctl config get ', want: READABLE },
  { line: 'payctl config get api', want: ['api-key'] },
  { line: 'payctl sandbox start --list-shape ', want: ['paginator', 'resource', 'array', 'items'] },
  { line: 'payctl config unset routes.payoutG', want: ['routes.payoutGet'] },
  { line: 'payctl payout create --type=w', want: { bash: ['wallet'], zsh: ['wallet'], fish: ['--type=wallet'] } },
  // profile names, read at completion time
  { line: 'payctl --profile ', want: ['sandbox', 'staging'] },
  { line: 'payctl payout create -p st', want: ['staging'] },
  // an option's value is not a subcommand
  { line: 'payctl --profile payout ', want: ROOT_COMMANDS },
  { line: 'payctl --timeout 5 pay', want: ['payout', 'payouts'] },
  { line: 'payctl --json payouts l', want: ['list'] },
  // file names where a file is expected, and nowhere else
  { line: 'payctl payout batch sti', want: ['stipends.csv'] },
  { line: 'payctl payout batch stipends.csv --report rep', want: ['report-old.jsonl'] },
  // payout batch runs and has a verb: both are offered; status takes a report (a file)
  { line: 'payctl payout batch sta', want: ['state.json', 'status'] },
  { line: 'payctl payout batch status rep', want: ['report-old.jsonl'] },
  { line: 'payctl payout batch status report-old.jsonl --failed-out rep', want: ['report-old.jsonl'] },
  { line: 'payctl sandbox start --state sta', want: ['state.json'] },
  { line: 'payctl payout create --amount ', want: [] },
  { line: 'payctl payout get ', want: [] },
  { line: 'payctl login ', want: [] },
];

let tmp: string;
let env: NodeJS.ProcessEnv;
let cwd: string;
const results = new Map<Shell, Promise<Map<string, string[]> | Error>>();

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'payctl-completion-'));
  const bin = join(tmp, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'payctl'), `#!/bin/sh\nexec ${shq(process.execPath)} ${shq(join(ROOT, 'bin/payctl.js'))} "$@"\n`);
  chmodSync(join(bin, 'payctl'), 0o755);
  const configDir = join(tmp, 'config');
  const store = openConfigStore({ PAYCTL_CONFIG_DIR: configDir });
  await store.updateProfile('staging', { baseUrl: 'https://api.example.com/v2' });
  await store.updateProfile('sandbox', { baseUrl: 'http://127.0.0.1:4010/v2' });
  cwd = join(tmp, 'work');
  mkdirSync(cwd);
  for (const f of ['stipends.csv', 'report-old.jsonl', 'state.json']) writeFileSync(join(cwd, f), '');
  mkdirSync(join(tmp, 'home'));
  env = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: join(tmp, 'home'),
    PAYCTL_CONFIG_DIR: configDir,
    LANG: 'C.UTF-8',
    TERM: 'xterm',
    NO_COLOR: '1',
  };
  // The three shells run their batches at the same time; each test awaits its own.
  for (const shell of SHELLS)
    results.set(
      shell,
      run(
        shell,
        CASES.map((c) => c.line),
      ).catch((e: Error) => e),
    );
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Fails (never skips) when the shell is not installed. */
function requireShell(shell: Shell): void {
  const r = spawnSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' });
  if (r.error || r.status !== 0) {
    throw new Error(`${shell} is not installed, so its completion cannot be tested: apt-get install -y ${shell} (npm test installs them: scripts/test-prereqs.mjs)`);
  }
}

function exec(cmd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** Output of a batch: the candidates of each case, then a line __END__. */
function parseBatch(shell: Shell, lines: string[], out: { code: number | null; stdout: string; stderr: string }): Map<string, string[]> {
  const chunks = out.stdout.split('__END__\n');
  if (out.code !== 0 || chunks.length !== lines.length + 1) {
    throw new Error(`${shell} completion run failed (exit ${out.code}):\n${out.stderr}\n${out.stdout}`);
  }
  return new Map(lines.map((line, i) => [line, chunks[i]!.split('\n').filter(Boolean)]));
}

async function run(shell: Shell, lines: string[]): Promise<Map<string, string[]>> {
  requireShell(shell);
  if (shell === 'bash') return runBash(lines);
  if (shell === 'fish') return runFish(lines);
  return runZsh(lines, 'fpath');
}

/** Words as readline gives them to bash: split at blanks, and at "=" (COMP_WORDBREAKS). */
function bashWords(line: string): string[] {
  const words = line.split(' ');
  return words.flatMap((w, i) => {
    if (w === '') return i === words.length - 1 ? [''] : [];
    if (!w.includes('=')) return [w];
    const at = w.indexOf('=');
    return [w.slice(0, at), '=', w.slice(at + 1)].filter((part) => part !== '');
  });
}

const BASH_DRIVER = `
source "$1" || exit 3
shift
complete -p payctl >/dev/null || { echo "payctl.bash registered no completion for payctl" >&2; exit 3; }
for spec in "$@"; do
  line=\${spec%%$'\\x1e'*}
  mapfile -t -d $'\\x1f' COMP_WORDS < <(printf '%s\\x1f' "\${spec#*$'\\x1e'}")
  COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
  COMP_LINE=$line
  COMP_POINT=\${#line}
  COMPREPLY=()
  _payctl payctl "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
  (( \${#COMPREPLY[@]} )) && printf '%s\\n' "\${COMPREPLY[@]}"
  echo __END__
done
`;

async function runBash(lines: string[]): Promise<Map<string, string[]>> {
  const specs = lines.map((l) => `${l}\x1e${bashWords(l).join('\x1f')}`);
  const out = await exec('bash', ['--norc', '--noprofile', '-c', BASH_DRIVER, 'bash', SCRIPT.bash, ...specs]);
  return parseBatch('bash', lines, out);
}

const FISH_DRIVER = `
source $argv[1]; or exit 3
for line in $argv[2..-1]
    complete -C "$line" | string replace -r '\\t.*' ''
    echo __END__
end
`;

async function runFish(lines: string[]): Promise<Map<string, string[]>> {
  const out = await exec('fish', ['--no-config', '-c', FISH_DRIVER, SCRIPT.fish, ...lines]);
  return parseBatch('fish', lines, out);
}

/** Runs inside the interactive zsh: compinit, and a compadd that records instead of adding. */
const ZSH_SETUP = `
PS1='' PROMPT='' RPROMPT=''
fpath=($HARNESS_FPATH $fpath)
autoload -Uz compinit && compinit -u -D
case $HARNESS_MODE in
  (source) source $HARNESS_SCRIPT ;;
  (eval) eval "$(<$HARNESS_SCRIPT)" ;;
esac
compadd() {
  # compsys helpers collect with -O/-A/-D themselves: let those through
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then
    builtin compadd "$@"
    return
  fi
  local -a __hits
  builtin compadd -O __hits "$@"
  (( $#__hits )) && print -rl -- $__hits >> $HARNESS_OUT
  (( $#__hits ))
}
__harness_tab() {
  zle complete-word
  print -r -- __END__ >> $HARNESS_OUT
}
zle -N __harness_tab
bindkey '^I' __harness_tab
print -r -- __READY__ >> $HARNESS_OUT
`;

/** Types each line and Tab into that zsh, one at a time, waiting for the harness between. */
const ZSH_DRIVER = `
zmodload zsh/zpty zsh/zselect || { print -u2 'zsh has no zpty module'; exit 3 }
export HARNESS_OUT=$1
shift
: > $HARNESS_OUT
zpty z zsh -f -i
await() {
  integer t
  local junk
  local -a seen
  for (( t = 0; t < 1000; t++ )); do
    while zpty -rt z junk; do :; done
    seen=(\${(M)\${(f)"$(<$HARNESS_OUT)"}:#$2})
    (( $#seen >= $1 )) && return 0
    zselect -t 1
  done
  print -u2 "zsh: timed out waiting for $2 number $1"
  cat $HARNESS_OUT >&2
  zpty -d z
  exit 4
}
zpty -w z "source \${(q)HARNESS_SETUP}"
await 1 __READY__
integer n=0
for line in "$@"; do
  zpty -n -w z "$line"$'\\t'
  await $(( ++n )) __END__
  zpty -n -w z $'\\C-u'
done
zpty -d z
print -rn -- "\${$(<$HARNESS_OUT)#__READY__$'\\n'}"$'\\n'
`;

/** fpath: completions/_payctl autoloaded from $fpath; source / eval: loaded after compinit. */
async function runZsh(lines: string[], mode: 'fpath' | 'source' | 'eval'): Promise<Map<string, string[]>> {
  const dir = mkdtempSync(join(tmp, `zsh-${mode}-`));
  writeFileSync(join(dir, 'setup.zsh'), ZSH_SETUP);
  writeFileSync(join(dir, 'driver.zsh'), ZSH_DRIVER);
  const fpathDir = join(dir, 'functions');
  mkdirSync(fpathDir);
  if (mode === 'fpath') copyFileSync(SCRIPT.zsh, join(fpathDir, '_payctl'));
  const out = await exec('zsh', ['-f', join(dir, 'driver.zsh'), join(dir, 'out'), ...lines], {
    HARNESS_SETUP: join(dir, 'setup.zsh'),
    HARNESS_FPATH: mode === 'fpath' ? fpathDir : '',
    HARNESS_MODE: mode,
    HARNESS_SCRIPT: SCRIPT.zsh,
  });
  return parseBatch('zsh', lines, out);
}

const sorted = (xs: readonly string[]) => [...new Set(xs)].sort();

for (const shell of SHELLS) {
  describe(`${shell} completion (${shell === 'zsh' ? 'autoloaded from $fpath, ' : ''}driven in a real ${shell})`, () => {
    for (const c of CASES) {
      it(`${JSON.stringify(c.line)} offers ${JSON.stringify(Array.isArray(c.want) ? c.want : c.want[shell])}`, async () => {
        const got = await results.get(shell)!;
        if (got instanceof Error) throw got;
        const want = Array.isArray(c.want) ? c.want : c.want[shell];
        expect(sorted(got.get(c.line) ?? []), c.line).toEqual(sorted(want));
      });
    }
  });
}

describe('zsh completion loaded after compinit', () => {
  for (const mode of ['source', 'eval'] as const) {
    it(`${mode === 'source' ? 'source completions/_payctl' : 'eval "$(<completions/_payctl)"'}: offers commands and values`, async () => {
      requireShell('zsh');
      const got = await runZsh(['payctl pa', 'payctl payout create --type ', 'payctl -p st'], mode);
      expect(sorted(got.get('payctl pa')!)).toEqual(['payout', 'payouts']);
      expect(sorted(got.get('payctl payout create --type ')!)).toEqual(['bank', 'wallet']);
      expect(sorted(got.get('payctl -p st')!)).toEqual(['staging']);
    });
  }
});

describe('scripts parse', () => {
  it('zsh -n and fish -n accept the scripts; bash -n too', () => {
    for (const [shell, args] of [
      ['bash', ['-n', SCRIPT.bash]],
      ['zsh', ['-n', SCRIPT.zsh]],
      ['fish', ['-n', SCRIPT.fish]],
    ] as const) {
      requireShell(shell);
      const r = spawnSync(shell, args, { encoding: 'utf8' });
      expect(r.stderr, `${shell} -n`).toBe('');
      expect(r.status, `${shell} -n`).toBe(0);
    }
  });
});

/**
 * The install lines of `payctl completion --help`, each pasted as printed into its own shell (and
 * into bash) on a fresh machine: a HOME that is an empty folder (its name has a space and a
 * quote). Each writes the script where its shell loads it from, making the folder first.
 */
describe('install lines of payctl completion --help, run as printed on a fresh HOME', () => {
  const WHERE: Record<Shell, string> = {
    bash: '.local/share/bash-completion/completions/payctl',
    zsh: '.zfunc/_payctl',
    fish: '.config/fish/completions/payctl.fish',
  };

  async function installLines(): Promise<Map<Shell, string>> {
    const help = await exec('payctl', ['completion', '--help']);
    expect(help.code, help.stderr).toBe(0);
    // Each example as printed: its `$ ` line and the lines that continue it (after a trailing `\`).
    const examples = (help.stdout.split('\nExamples:\n')[1] ?? '').split(/^ {2}\$ /m).slice(1);
    const joined = (e: string) => e.replace(/\s*\\\n\s*/g, ' ');
    return new Map(SHELLS.map((shell) => [shell, examples.find((e) => joined(e).includes(`payctl completion ${shell} `)) ?? '']));
  }

  for (const shell of SHELLS) {
    for (const runIn of shell === 'bash' ? (['bash'] as const) : ([shell, 'bash'] as const)) {
      it(`the ${shell} line, run in ${runIn}, writes the script to ~/${WHERE[shell]}`, async () => {
        requireShell(runIn);
        const line = (await installLines()).get(shell)!;
        expect(line, `an install line for ${shell}`).not.toBe('');
        const home = mkdtempSync(join(tmp, "fresh home's-"));
        const out = await exec(runIn, ['-c', line], { HOME: home });
        expect(out.stderr, line).toBe('');
        expect(out.code, line).toBe(0);
        expect(readFileSync(join(home, WHERE[shell]), 'utf8')).toBe(readFileSync(SCRIPT[shell], 'utf8'));
      });
    }
  }
});
