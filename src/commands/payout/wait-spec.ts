/**
 * `--wait` and `--wait-timeout`, as `payout create` and `payout get` declare them (the
 * waiting itself is payouts/settle.ts; what a wait prints is wait.ts beside this file).
 */
import { secondsOption, type OptionSpec } from '../spec.js';

/** How long `--wait` waits when --wait-timeout is not given (seconds). */
export const DEFAULT_WAIT_TIMEOUT_S = 600;
/** The longest --wait-timeout: a day. */
export const MAX_WAIT_TIMEOUT_S = 86_400;

export const WAIT_OPTIONS: readonly OptionSpec[] = [
  { flags: '--wait', description: 'then wait until the payout is Successful (exit 0) or Failed (exit 1); exit 5 if still Pending at the limit' },
  {
    flags: '--wait-timeout <seconds>',
    description: `how long --wait waits, in seconds (default: ${DEFAULT_WAIT_TIMEOUT_S}, at most ${MAX_WAIT_TIMEOUT_S})`,
    parse: secondsOption('--wait-timeout', { max: MAX_WAIT_TIMEOUT_S, maxLabel: 'a day' }),
  },
];

/** --wait-timeout means nothing without --wait. */
export function checkWait(opts: Record<string, unknown>): string | undefined {
  return opts.waitTimeout !== undefined && opts.wait !== true ? '--wait-timeout needs --wait.' : undefined;
}

/** The lines of a command's help about waiting (exit codes included). */
export const WAIT_HELP =
  'With --wait, the payout is checked again (after 1 s, 2 s, 4 s, ... at most every 15 s) until it is\n' +
  'Successful (exit 0, the final record on stdout) or Failed (exit 1, the reason on stderr), for at most\n' +
  `--wait-timeout seconds (default ${DEFAULT_WAIT_TIMEOUT_S}); still Pending then: exit 5, with the command to keep waiting.`;
