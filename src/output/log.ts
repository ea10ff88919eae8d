/**
 * The run's Log: what payctl tells people on stderr, made once per run from its IO by cli.ts.
 * Every message of every command goes through it, so the form of stderr is decided here only.
 *
 * Without --json: text lines (a yellow "Warning:", a green ✓, --verbose lines dimmed).
 * Under --json, everything on stderr is a JSON line, one document a line, so that a script can
 * read stderr with `jq` and find the error (written by cli.ts, always the last line) as the line
 * with "error": a warning is `{"warning":"…"}`, any other message (a notice, a success, a block
 * such as a plan or a result) `{"notice":"…"}`, and a --verbose line `{"verbose":"…"}`. The
 * text is the one a person reads, without colour (there is none under --json) or the
 * "Warning:" and ✓ marks; secrets are masked by the stream, as in text (secrets.ts masks
 * their JSON-escaped forms too).
 */
import type { IO, Log } from './io.js';
import type { Style } from './style.js';

/** One message as a JSON line of stderr under --json; a block's final newline is not part of it. */
function jsonMessage(kind: 'warning' | 'notice' | 'verbose', text: string): string {
  return JSON.stringify({ [kind]: text.replace(/\n+$/, '') }) + '\n';
}

/** Messages for people on stderr: plain, warnings, successes, blocks, and --verbose lines. */
export function logOf(io: IO, o: { json: boolean; verbose: boolean }, style: Style): Log {
  const say = (text: string) => void io.stderr.write(text);
  if (o.json) {
    return {
      info: (line) => say(jsonMessage('notice', line)),
      block: (text) => {
        if (text.trim() !== '') say(jsonMessage('notice', text));
      },
      warn: (line) => say(jsonMessage('warning', line)),
      success: (line) => say(jsonMessage('notice', line)),
      verbose: (line) => {
        if (o.verbose) say(jsonMessage('verbose', line));
      },
    };
  }
  return {
    info: (line) => say(line + '\n'),
    block: (text) => say(text),
    warn: (line) => say(`${style.yellow('Warning:')} ${line}\n`),
    success: (line) => say(`${style.green('✓')} ${line}\n`),
    verbose: (line) => {
      if (o.verbose) say(style.dim(line) + '\n');
    },
  };
}
