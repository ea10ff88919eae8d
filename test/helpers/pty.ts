/**
 * Drives the built binary in a real pseudo-terminal through tmux: start a command in a
 * detached session of its own tmux server (socket per test process), send keys, and
 * poll the screen until what is expected appears (with a deadline, never fixed sleeps).
 */
import { execFileSync } from 'node:child_process';

/** POSIX shell quoting: bare when safe, else single quotes. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_\-.,:/@+=%]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Splits a command line into words as a POSIX shell would for the quoting payctl prints:
 * single quotes (nothing special inside), double quotes (backslash escapes " \\ $ `),
 * backslash outside quotes, and blanks between words. No expansions.
 */
export function shellSplit(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated single quote in: ${line}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      inWord = true;
      for (i++; ; i++) {
        if (i >= line.length) throw new Error(`unterminated double quote in: ${line}`);
        const d = line[i]!;
        if (d === '"') break;
        if (d === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) word += line[++i];
        else word += d;
      }
    } else if (c === '\\') {
      if (i + 1 < line.length) word += line[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** A tmux server of our own, so a developer's sessions are never touched. */
const SOCKET = `payctl-test-${process.pid}`;

function tmux(args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function tmuxAvailable(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface TerminalSession {
  readonly name: string;
  /** Keys as tmux names them (`Enter`, `Down`, `BSpace`, `y`). */
  keys(...keys: string[]): void;
  /** Text typed literally. */
  type(text: string): void;
  /** The visible screen (and scrollback), trailing blank lines removed. */
  screen(): string;
  /** Polls the screen until `check` passes; returns that screen. Throws with the screen on time-out. */
  waitFor(check: RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
  kill(): void;
}

let counter = 0;

/**
 * Starts `argv` (the first element is the program) with exactly `env` in a 200x50
 * terminal. After it ends the session prints `EXIT:<code>` and lingers a few seconds.
 */
export function startInTerminal(argv: string[], env: Record<string, string | undefined>): TerminalSession {
  const name = `payctl-${process.pid}-${++counter}`;
  const assignments = Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${shellQuote(v)}`);
  // `env -i` so nothing of the tmux server's environment leaks in, except TERM which tmux sets.
  const command = `env -i TERM="$TERM" ${assignments.join(' ')} ${argv.map(shellQuote).join(' ')}; echo EXIT:$?; sleep 5`;
  tmux(['new-session', '-d', '-s', name, '-x', '200', '-y', '50', command]);
  // Keep the whole history: the card and the prompts must not scroll away.
  tmux(['set-option', '-t', name, 'history-limit', '5000']);

  const screen = (): string =>
    tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', name])
      .split('\n')
      .map((l) => l.replace(/\s+$/, ''))
      .join('\n')
      .replace(/\n+$/, '');

  return {
    name,
    keys: (...keys) => void tmux(['send-keys', '-t', name, ...keys]),
    type: (text) => void tmux(['send-keys', '-t', name, '-l', text]),
    screen,
    async waitFor(check, timeoutMs = 10_000) {
      const ok = typeof check === 'function' ? check : (s: string) => check.test(s);
      const deadline = Date.now() + timeoutMs;
      let last = '';
      for (;;) {
        try {
          last = screen();
        } catch {
          // The session ended (it lingers 5 s after the command, so this is late).
        }
        if (ok(last)) return last;
        if (Date.now() > deadline) throw new Error(`terminal: ${String(check)} not seen within ${timeoutMs} ms; screen:\n${last}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    },
    kill() {
      try {
        tmux(['kill-session', '-t', name]);
      } catch {
        // already gone
      }
    },
  };
}

/** Stops this process's tmux server (after every session was killed). */
export function stopTerminalServer(): void {
  try {
    tmux(['kill-server']);
  } catch {
    // no server running
  }
}
