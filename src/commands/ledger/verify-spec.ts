/** `payctl ledger verify` (the run is verify.ts). */
import type { CommandSpec } from '../spec.js';

export const ledgerVerifySpec: CommandSpec = {
  name: 'verify',
  summary: "check the signature of every row of the profile's shared ledger, and list who signed them",
  help:
    "Every row payctl writes to a shared ledger is signed by its writer: the person's key (payctl keys create)\n" +
    "or else the config folder's ledger key, made on first use. This reads every row and checks its signature\n" +
    'and that its look-up columns match its entry; it lists the rows that do not verify (changed, unsigned, or\n' +
    'signed by another key than the one named), which payctl refuses to act on, and the keys that signed the\n' +
    'others, with the hosts and profiles their rows name and the name of a key the policy lists or that is\n' +
    'yours. Exits 0 when every row verifies, 1 when any does not, 2 when the ledger is local (its journal is\n' +
    'checked on every read) or cannot be reached.',
  examples: ['payctl ledger verify', 'payctl ledger verify --profile team --json'],
  load: () => import('./verify.js'),
};
