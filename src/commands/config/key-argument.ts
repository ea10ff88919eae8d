/** The <key> argument of `config get|set|unset`: the settings a profile holds. */
import type { ArgumentSpec } from '../spec.js';

export const KEY_ARGUMENT: ArgumentSpec = { name: '<key>', description: 'base-url, webhook-secret or routes.<name>' };

/** `config get` reads what login keeps too (secrets masked). */
export const GET_KEY_ARGUMENT: ArgumentSpec = {
  name: '<key>',
  description: 'base-url, api-key, token, token-expires-at, webhook-secret or routes.<name> (secrets masked)',
};
