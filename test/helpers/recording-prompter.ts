/**
 * A scripted prompter (prompts.ts) that also records what each prompt was given (its
 * choices, default, validate and suggestions) and what stdout and stderr held when it was
 * asked, so an in-process test can check what a terminal would have shown: the default
 * answer, the validation of a value typed at the prompt, and that the card or warning came
 * before the question.
 */
import type { Choice, Validate } from '../../src/output/prompter.js';
import { scriptedPrompter, type ScriptedPrompter, type Step } from './prompts.js';

export interface Asked {
  kind: 'confirm' | 'input' | 'password' | 'suggest' | 'select';
  message: string;
  default?: unknown;
  validate?: Validate;
  choices?: Array<Choice<unknown>>;
  suggestions?: string[];
  normalize?: (typed: string) => string;
  /** stdout and stderr as they were when the prompt was asked. */
  stdout: string;
  stderr: string;
}

export interface RecordingPrompter extends ScriptedPrompter {
  readonly calls: Asked[];
  /** What has been written so far (set once the run is started: startPayctl's stdout/stderr). */
  output?: { stdout(): string; stderr(): string };
  /** The one recorded prompt whose message matches. */
  call(message: RegExp): Asked;
}

export function recordingPrompter(script: Step[]): RecordingPrompter {
  const inner = scriptedPrompter(script);
  const calls: Asked[] = [];
  const rec: RecordingPrompter = {
    calls,
    get asked() {
      return inner.asked;
    },
    get pending() {
      return inner.pending;
    },
    call(message) {
      const found = calls.filter((c) => message.test(c.message));
      if (found.length !== 1) throw new Error(`${found.length} prompts match ${message}: ${JSON.stringify(calls.map((c) => c.message))}`);
      return found[0]!;
    },
    async confirm(o) {
      note('confirm', o);
      return inner.confirm(o);
    },
    async input(o) {
      note('input', o);
      return inner.input(o);
    },
    async password(o) {
      note('password', o);
      return inner.password(o);
    },
    async suggest(o) {
      note('suggest', o);
      return inner.suggest(o);
    },
    async select<T>(o: { message: string; choices: Choice<T>[]; default?: T }) {
      note('select', o);
      return inner.select(o);
    },
  };
  function note(kind: Asked['kind'], o: Omit<Asked, 'kind' | 'stdout' | 'stderr'>): void {
    calls.push({
      kind,
      message: o.message,
      default: o.default,
      validate: o.validate,
      choices: o.choices,
      suggestions: o.suggestions,
      normalize: o.normalize,
      stdout: rec.output?.stdout() ?? '',
      stderr: rec.output?.stderr() ?? '',
    });
  }
  return rec;
}
