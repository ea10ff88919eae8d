/**
 * Values the command tree cannot tell by itself. commander's argChoices are used where
 * they exist (`completion <shell>`), and `<file>` placeholders mean file names; these
 * hints cover options that are validated later on purpose (`--type` is not a commander
 * choice so that a bad value is listed with every other problem) and values that are
 * only known at completion time (profile names). A hint that names an option or
 * argument that no longer exists makes generation fail (model.ts), so none goes stale.
 */
import { READABLE, SETTABLE } from '../config/settings.js';
import { ERROR_SHAPES, LIST_SHAPES } from '../sandbox/shapes.js';
import { KNOWN_PROVIDERS } from '../payouts/providers.js';
import { OUTCOME_WORDS } from '../payouts/history-lines.js';
import { PAYOUT_STATUSES } from '../payouts/filters.js';

export type ValueSource =
  /** Fixed words. */
  | { kind: 'words'; words: readonly string[] }
  /** Profile names, read at completion time with `payctl __complete-profiles`. */
  | { kind: 'profiles' }
  /** File names. */
  | { kind: 'files' }
  /** Free text: nothing to offer (and no file names either). */
  | { kind: 'any' };

/** Recipient types that `payout create --type` accepts (validatePayout in payouts/request.ts). */
export const RECIPIENT_TYPES = ['bank', 'wallet'] as const;
/** Payout statuses of the service (docs/service.md), as `payouts list --status` sends them (kept with the filter that checks them). */
export { PAYOUT_STATUSES };

/** Keyed by command path and long flag: `payout create --type`; a global option by its flag alone. */
export const OPTION_HINTS: Readonly<Record<string, ValueSource>> = {
  '--profile': { kind: 'profiles' },
  'payout create --type': { kind: 'words', words: RECIPIENT_TYPES },
  'payout create --provider': { kind: 'words', words: KNOWN_PROVIDERS },
  'payouts list --status': { kind: 'words', words: PAYOUT_STATUSES },
  'history --status': { kind: 'words', words: OUTCOME_WORDS },
  'sandbox start --list-shape': { kind: 'words', words: LIST_SHAPES },
  'sandbox start --error-shape': { kind: 'words', words: ERROR_SHAPES },
};

/** Keyed by command path and argument: `config get <key>`. */
export const ARGUMENT_HINTS: Readonly<Record<string, ValueSource>> = {
  // What login keeps (api-key) is read, never set, by config.
  'config get <key>': { kind: 'words', words: READABLE },
  'config set <key>': { kind: 'words', words: SETTABLE },
  'config unset <key>': { kind: 'words', words: SETTABLE },
};
