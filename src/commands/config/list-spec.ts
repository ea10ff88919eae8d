/** `payctl config list` (the run is list.ts). */
import type { CommandSpec } from '../spec.js';

export const listSpec: CommandSpec = {
  name: 'list',
  summary: "the profile's settings, secrets masked",
  load: () => import('./list.js'),
};
