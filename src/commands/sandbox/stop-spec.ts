/** `payctl sandbox stop` (the run is stop.ts). */
import type { CommandSpec } from '../spec.js';

export const stopSpec: CommandSpec = {
  name: 'stop',
  summary: 'stop the background sandbox',
  examples: ['payctl sandbox stop'],
  load: () => import('./stop.js'),
};
