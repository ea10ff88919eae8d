/**
 * Commands payctl printed for a person to run, taken back from its output as a person pastes
 * them: the line holding `payctl <words>`, split as a POSIX shell splits it (pty.ts shellSplit).
 */
import { expect } from 'vitest';
import { shellSplit } from './pty.js';

/** The printed line holding `payctl <words>`, as argv (without `payctl`); fails the test when there is none. */
export function printed(out: string, words: string): string[] {
  const line = out.split('\n').find((l) => l.includes(`payctl ${words}`));
  expect(line, `no "payctl ${words}" in:\n${out}`).toBeDefined();
  const argv = shellSplit(line!.slice(line!.indexOf('payctl ')));
  expect(argv[0]).toBe('payctl');
  return argv.slice(1);
}
