/** `payctl completion <shell>` and the hidden `__complete-profiles` (both run in completion.ts). */
import type { CommandSpec } from './spec.js';

export const completionSpec: CommandSpec = {
  name: 'completion',
  summary: 'print the shell completion script (also shipped in completions/)',
  arguments: [{ name: '<shell>', description: 'shell to complete in', choices: ['bash', 'zsh', 'fish'] }],
  help: [
    'Each install line below makes its folder first (a fresh machine may not have it), so it works as',
    'printed in bash, zsh or fish. bash: the folder is the one the bash-completion package reads; without',
    'that package, add `source <(payctl completion bash)` to ~/.bashrc instead. zsh: in ~/.zshrc put',
    '`fpath=(~/.zfunc $fpath)` before `autoload -U compinit && compinit`. fish reads its folder by itself.',
  ].join('\n'),
  // `~` stays bare so the shell expands it (also in a home folder whose name has a space).
  examples: [
    'mkdir -p ~/.local/share/bash-completion/completions && payctl completion bash > ~/.local/share/bash-completion/completions/payctl',
    'mkdir -p ~/.zfunc && payctl completion zsh > ~/.zfunc/_payctl',
    'mkdir -p ~/.config/fish/completions && payctl completion fish > ~/.config/fish/completions/payctl.fish',
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
