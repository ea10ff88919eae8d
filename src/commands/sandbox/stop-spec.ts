/** `payctl sandbox stop` (the run is stop.ts). */
import type { CommandSpec } from '../spec.js';

export const stopSpec: CommandSpec = {
  name: 'stop',
  summary: 'stop the background sandbox',
  load: () => import('./stop.js'),
};
