/**
 * A prompter for the in-process tier that answers from a script and fails on any
 * question it was not told to expect (docs/architecture.md, "Tests"): each step names the kind of
 * prompt, a pattern its message must match, and the answer.
 */
import type { Choice, Prompter } from '../../src/output/prompter.js';

export type Step =
  | { confirm: RegExp; answer: boolean }
  | { input: RegExp; answer: string }
  | { password: RegExp; answer: string }
  | { suggest: RegExp; answer: string }
  /** The choice whose name matches `pick` (or the default when `pick` is omitted). */
  | { select: RegExp; pick?: RegExp };

export class UnexpectedPrompt extends Error {}

export interface ScriptedPrompter extends Prompter {
  /** Every message asked, in order. */
  readonly asked: string[];
  /** Steps not asked yet. */
  readonly pending: Step[];
}

export function scriptedPrompter(script: Step[]): ScriptedPrompter {
  const steps = [...script];
  const asked: string[] = [];
  const next = <K extends 'confirm' | 'input' | 'password' | 'suggest' | 'select'>(kind: K, message: string, check?: (answer: string) => true | string) => {
    asked.push(message);
    const step = steps.shift();
    if (!step || !(kind in step)) {
      throw new UnexpectedPrompt(`unexpected ${kind} prompt: ${JSON.stringify(message)} (next scripted: ${step ? JSON.stringify(Object.keys(step)[0]) : 'none'})`);
    }
    const pattern = (step as Record<string, unknown>)[kind] as RegExp;
    if (!pattern.test(message)) throw new UnexpectedPrompt(`${kind} prompt ${JSON.stringify(message)} does not match ${pattern}`);
    if (check && 'answer' in step && typeof step.answer === 'string') {
      const ok = check(step.answer);
      if (ok !== true) throw new UnexpectedPrompt(`scripted answer ${JSON.stringify(step.answer)} to ${JSON.stringify(message)} was refused: ${ok}`);
    }
    return step;
  };
  return {
    asked,
    get pending() {
      return steps;
    },
    async confirm(o) {
      return (next('confirm', o.message) as { answer: boolean }).answer;
    },
    async input(o) {
      return (next('input', o.message, o.validate) as { answer: string }).answer;
    },
    async password(o) {
      return (next('password', o.message, o.validate) as { answer: string }).answer;
    },
    async suggest(o) {
      const typed = (next('suggest', o.message, o.validate) as { answer: string }).answer;
      return typed;
    },
    async select<T>(o: { message: string; choices: Choice<T>[]; default?: T }) {
      const step = next('select', o.message) as { pick?: RegExp };
      if (!step.pick) {
        if (o.default !== undefined) return o.default;
        return o.choices[0]!.value;
      }
      const found = o.choices.find((c) => step.pick!.test(c.name));
      if (!found) throw new UnexpectedPrompt(`no choice matching ${step.pick} among ${o.choices.map((c) => c.name).join(', ')}`);
      return found.value;
    },
  };
}
