/**
 * Prompts for people (inquirer), used only when io.interactive. Loaded lazily.
 * Ctrl-C or Ctrl-D at a prompt becomes InterruptedError (exit 130); a command that asks before
 * it sends says that nothing was sent (nothingSentOnInterrupt).
 */
import { InterruptedError } from '../errors.js';
import type { IO } from './io.js';

export type Validate = (value: string) => true | string;

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

export interface Prompter {
  input(opts: { message: string; default?: string; validate?: Validate; required?: boolean }): Promise<string>;
  password(opts: { message: string; validate?: Validate }): Promise<string>;
  select<T>(opts: { message: string; choices: Choice<T>[]; default?: T }): Promise<T>;
  /** Free text with suggestions: the suggestions are offered, any other value accepted. */
  suggest(opts: { message: string; suggestions: string[]; validate?: Validate; normalize?: (typed: string) => string }): Promise<string>;
  confirm(opts: { message: string; default: boolean }): Promise<boolean>;
}

/**
 * Why a run that may not prompt needs --yes, naming the real cause: the flag that turned
 * prompts off (`--json`, `--no-input`, even at a terminal), else the missing terminal.
 * For runs where io.interactive is false.
 */
export function yesRequired(globals: { json: boolean; noInput: boolean }): string {
  const cause = globals.json ? 'with --json' : globals.noInput ? 'with --no-input' : 'without a terminal';
  return `--yes is required ${cause}: money never moves without an explicit yes`;
}

/**
 * Ctrl-C at a prompt, as inquirer reports it: ExitPromptError (Ctrl-C typed at the prompt: the
 * terminal is in raw mode, so it reaches the prompt, not the process, as a signal),
 * AbortPromptError or AbortError (the run's abort signal: SIGINT or SIGTERM to the process).
 */
export function isPromptInterrupt(err: unknown): boolean {
  const name = (err as { name?: string } | undefined)?.name;
  return name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'AbortError';
}

function interrupted(err: unknown): never {
  if (isPromptInterrupt(err)) throw new InterruptedError();
  throw err;
}

/**
 * The error of a Ctrl-C before anything was sent (at a prompt, or while the balances were read):
 * still exit 130, saying "Nothing was sent." (on stderr, as every error). Anything else is
 * returned as it is. For the callers that know nothing has left yet.
 */
export function nothingSentOnInterrupt(err: unknown): unknown {
  if (!(err instanceof InterruptedError) && !isPromptInterrupt(err)) return err;
  const said = err instanceof InterruptedError ? err.message : 'Interrupted.';
  return new InterruptedError(`${said.replace(/\.$/, '')}. Nothing was sent.`, err instanceof InterruptedError ? err.hint : undefined);
}

type Context = { input: IO['stdin']; output: IO['stdout']; signal: AbortSignal; clearPromptOnDone: boolean };

/**
 * Runs one inquirer prompt, ended as by Ctrl-C when its readline closes without an answer.
 * Ctrl-D on an empty line (and the end of the terminal's input) closes inquirer's readline, which
 * leaves the prompt pending: nothing keeps the process alive then, so it ran out of work and
 * exited 0, saying "Error: Interrupted." only from its exit hook (`payctl payout create … &&
 * next` went on). A closed readline pauses its input and takes the terminal out of raw mode; one
 * paused so with the prompt unsettled (seen a turn later) aborts the prompt: inquirer's
 * AbortPromptError, exit 130 as for Ctrl-C. `fg` after Ctrl-Z pauses the input too, and sets raw
 * mode again: that prompt goes on.
 */
export function ask<T>(input: IO['stdin'], signal: AbortSignal, prompt: (ctx: Context) => Promise<T>, output: IO['stdout']): Promise<T> {
  const closed = new AbortController();
  const ctx = { input, output, signal: AbortSignal.any([signal, closed.signal]), clearPromptOnDone: false };
  let settled = false;
  const stream = input as NodeJS.ReadableStream & { isRaw?: boolean; isPaused?: () => boolean };
  const onPause = () =>
    setImmediate(() => {
      if (settled || stream.isPaused?.() === false) return;
      // Back from Ctrl-Z (raw again): readline paused its input and leaves the resume to its
      // user, which inquirer is not; without it the run ran out of work as above.
      if (stream.isRaw === true) stream.resume();
      else closed.abort();
    });
  stream.on('pause', onPause);
  const restoreRawMode = keepRawMode(stream, () => settled);
  return prompt(ctx)
    .finally(() => {
      settled = true;
      stream.removeListener('pause', onPause);
      restoreRawMode();
    })
    .catch(interrupted);
}

/**
 * Ctrl-Z where no shell does job control (a command run by tmux, `ssh -t host payctl login`,
 * `docker run -it`): readline takes the terminal out of raw mode and stops the process, but the
 * kernel discards a stop signal to a process group no shell controls, and the prompt read on with
 * the terminal echoing what was typed: the rest of a hidden key shown in clear (probe E54, finding
 * 2). Raw mode turned off while the prompt is unsettled and its input not paused (a closing
 * readline pauses it; one stopped pauses it when continued) is that case: raw mode is set again.
 * Returns what puts the stream's own setRawMode back.
 */
function keepRawMode(stream: NodeJS.ReadableStream & { isRaw?: boolean; isPaused?: () => boolean }, settled: () => boolean): () => void {
  const tty = stream as unknown as { setRawMode?: (raw: boolean) => unknown };
  const own = Object.prototype.hasOwnProperty.call(tty, 'setRawMode');
  const setRaw = tty.setRawMode;
  if (typeof setRaw !== 'function') return () => {};
  tty.setRawMode = function (raw: boolean) {
    const r = setRaw.call(this, raw);
    if (!raw) {
      setImmediate(() => {
        if (!settled() && stream.isRaw === false && stream.isPaused?.() === false) setRaw.call(stream, true);
      });
    }
    return r;
  };
  return () => {
    if (own) tty.setRawMode = setRaw;
    else delete tty.setRawMode;
  };
}

export async function createPrompter(io: IO, signal: AbortSignal): Promise<Prompter> {
  const p = await import('@inquirer/prompts');
  const run = <T>(prompt: (ctx: Context) => Promise<T>): Promise<T> => ask(io.stdin, signal, prompt, io.stdout);
  return {
    input: (o) => run((ctx) => p.input({ message: o.message, default: o.default, validate: o.validate, required: o.required ?? true }, ctx)),
    password: (o) => run((ctx) => p.password({ message: o.message, mask: false, validate: o.validate }, ctx)),
    select: <T>(o: { message: string; choices: Choice<T>[]; default?: T }) =>
      run((ctx) => p.select<T>({ message: o.message, choices: o.choices, default: o.default, pageSize: 10 }, ctx)),
    suggest: (o) =>
      run((ctx) =>
        p.search<string>(
          {
            message: o.message,
            source: (term) => {
              const t = (term ?? '').trim();
              const keys = [t.toLowerCase(), o.normalize?.(t) ?? t.toLowerCase()];
              const matches = o.suggestions.filter((s) => keys.some((k) => s.toLowerCase().includes(k)));
              // Suggestions first (Enter takes the best match); what was typed is offered last.
              const exact = matches.some((m) => keys.includes(m.toLowerCase()));
              const list = matches.map((v) => ({ name: v, value: v }));
              if (t && !exact) list.push({ name: `${t} (as typed)`, value: t });
              return list;
            },
            validate: o.validate ? (v: string) => o.validate!(v) : undefined,
          },
          ctx,
        ),
      ),
    confirm: (o) => run((ctx) => p.confirm({ message: o.message, default: o.default }, ctx)),
  };
}
