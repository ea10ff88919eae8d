/** The <key> argument of `config get|set|unset`: the settings a profile holds. */
import type { ArgumentSpec } from '../spec.js';

export const KEY_ARGUMENT: ArgumentSpec = { name: '<key>', description: 'base-url, webhook-secret or routes.<name>' };
