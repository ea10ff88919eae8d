/**
 * A shell script run in a real terminal of a given size (tmux, a server of its own per
 * test process), for the width tests: the screen as the person sees it, wrapped lines
 * joined back (so a line wider than the terminal shows as one long line), and every byte
 * written to the terminal (to count redraws). Started only on `go()`, so nothing written
 * is missed. pty.ts holds the 200x50 sessions of the other terminal tests.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { shellQuote } from './pty.js';

const SOCKET = `payctl-width-${process.pid}`;

function tmux(args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface SizedTerminal {
  /** Starts the script (it waits for this, so the recording misses nothing). */
  go(): void;
  /** The screen and its scrollback, wrapped lines joined, trailing blanks removed. */
  screen(): string;
  /** Every byte the script wrote to the terminal, as text. */
  written(): string;
  /** Waits for `EXIT:<code>` (printed after the script) and returns the code. */
  exitCode(timeoutMs?: number): Promise<number>;
  kill(): void;
}

let counter = 0;

/**
 * `script` (sh) in a `columns` x `rows` terminal, in `cwd`, with exactly `env` (and TERM).
 * After it, the session prints `EXIT:<code>` and lingers a few seconds.
 */
export function startSized(script: string, o: { columns: number; rows: number; cwd: string; env: Record<string, string>; record: string }): SizedTerminal {
  const name = `width-${process.pid}-${++counter}`;
  const assignments = Object.entries(o.env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  // `read` holds the script until go(): pipe-pane is recording by then.
  const command = `read -r _ ; env -i TERM="$TERM" ${assignments.join(' ')} sh -c ${shellQuote(script)}; echo EXIT:$?; sleep 5`;
  tmux(['new-session', '-d', '-s', name, '-x', String(o.columns), '-y', String(o.rows), '-c', o.cwd, command]);
  tmux(['set-option', '-t', name, 'history-limit', '5000']);
  tmux(['pipe-pane', '-o', '-t', name, `cat >> ${shellQuote(o.record)}`]);
  const screen = (): string =>
    tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', name])
      .split('\n')
      .map((l) => l.replace(/\s+$/, ''))
      .join('\n')
      .replace(/\n+$/, '');
  return {
    go: () => void tmux(['send-keys', '-t', name, 'Enter']),
    screen,
    written: () => {
      try {
        return readFileSync(o.record, 'utf8');
      } catch {
        return '';
      }
    },
    async exitCode(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      for (;;) {
        try {
          last = screen();
        } catch {
          // ended
        }
        const m = /^EXIT:(\d+)$/m.exec(last);
        if (m) return Number(m[1]);
        if (Date.now() > deadline) throw new Error(`terminal: no EXIT within ${timeoutMs} ms; screen:\n${last}`);
        await new Promise((r) => setTimeout(r, 50));
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

/** Stops this process's tmux server of sized terminals. */
export function stopSizedServer(): void {
  try {
    tmux(['kill-server']);
  } catch {
    // none running
  }
}
