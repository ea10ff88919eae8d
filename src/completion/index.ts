/**
 * Shell completion scripts generated from the commander command tree: `payctl
 * completion <shell>` prints one, and completions/ holds the same bytes
 * (scripts/completions.mjs writes them; a test fails when they differ).
 */
import type { Command } from 'commander';
import { renderBash } from './bash.js';
import { buildModel } from './model.js';
import { renderFish } from './fish.js';
import { renderZsh } from './zsh.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** File names in completions/, as each shell looks them up. */
export const COMPLETION_FILES: Readonly<Record<Shell, string>> = {
  bash: 'payctl.bash',
  zsh: '_payctl',
  fish: 'payctl.fish',
};

export function isShell(value: string): value is Shell {
  return (SHELLS as readonly string[]).includes(value);
}

/** The completion script for `shell`, from the command tree of `program`. */
export function generateCompletion(shell: Shell, program: Command): string {
  const model = buildModel(program);
  switch (shell) {
    case 'bash':
      return renderBash(model);
    case 'zsh':
      return renderZsh(model);
    case 'fish':
      return renderFish(model);
  }
}
