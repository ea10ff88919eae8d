/** `payctl completion <shell>` and the hidden `__complete-profiles` (both run in completion.ts). */
import type { CommandSpec } from './spec.js';

export const completionSpec: CommandSpec = {
  name: 'completion',
  summary: 'print the shell completion script (also shipped in completions/)',
  arguments: [{ name: '<shell>', description: 'shell to complete in', choices: ['bash', 'zsh', 'fish'] }],
  examples: [
    'payctl completion bash > ~/.local/share/bash-completion/completions/payctl',
    'payctl completion zsh > "${fpath[1]}/_payctl"',
    'payctl completion fish > ~/.config/fish/completions/payctl.fish',
  ],
  // The tree is built afresh for the script (never from this run's argv), and handed in:
  // the completion command needs no import of the program.
  tree: true,
  load: () => import('./completion.js'),
};

/** Used by the completion scripts to offer profile names. */
export const completeProfilesSpec: CommandSpec = {
  name: '__complete-profiles',
  summary: '',
  hidden: true,
  load: async () => ({ run: (await import('./completion.js')).runProfiles }),
};
