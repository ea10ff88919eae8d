/** The <key> argument of `config get|set|unset`: the settings a profile holds. */
import type { ArgumentSpec } from '../spec.js';

export const KEY_ARGUMENT: ArgumentSpec = {
  name: '<key>',
  description: 'base-url, webhook-secret, webhook-signature-header, policy, ledger or routes.<name>',
};

/** `config get` reads what login keeps too (secrets masked). */
export const GET_KEY_ARGUMENT: ArgumentSpec = {
  name: '<key>',
  description: 'base-url, api-key, webhook-secret, webhook-signature-header, policy, ledger or routes.<name> (secrets masked)',
};
