/**
 * Which module runs each command: the loader a command hands to the runner resolves to
 * that command's own run function (a copy-pasted action that loads a neighbour's module
 * would parse fine and run the wrong verb). Loads the command modules, so kept apart
 * from the pure parser tests.
 */
import { describe, expect, it } from 'vitest';
import { commandPaths, parse } from '../helpers/parse.js';
import { LEAVES, MINIMAL } from './minimal.js';

type Run = (...a: never[]) => unknown;
const RUNS: Record<string, () => Promise<Run>> = {
  login: async () => (await import('../../src/commands/login.js')).run,
  logout: async () => (await import('../../src/commands/logout.js')).run,
  status: async () => (await import('../../src/commands/status.js')).run,
  balances: async () => (await import('../../src/commands/balances.js')).run,
  'payout create': async () => (await import('../../src/commands/payout/create.js')).run,
  'payout batch': async () => (await import('../../src/commands/payout/batch.js')).run,
  'payout batch status': async () => (await import('../../src/commands/payout/batch-status.js')).run,
  'payout get': async () => (await import('../../src/commands/payout/get.js')).run,
  'payouts list': async () => (await import('../../src/commands/payouts/list.js')).run,
  history: async () => (await import('../../src/commands/history.js')).run,
  'history reconcile': async () => (await import('../../src/commands/history/reconcile.js')).run,
  'ledger status': async () => (await import('../../src/commands/ledger/status.js')).run,
  'ledger import': async () => (await import('../../src/commands/ledger/import.js')).run,
  'ledger verify': async () => (await import('../../src/commands/ledger/verify.js')).run,
  summary: async () => (await import('../../src/commands/summary.js')).run,
  'webhooks listen': async () => (await import('../../src/commands/webhooks/listen.js')).run,
  'config list': async () => (await import('../../src/commands/config/list.js')).run,
  'config get': async () => (await import('../../src/commands/config/get.js')).run,
  'config set': async () => (await import('../../src/commands/config/set.js')).run,
  'config unset': async () => (await import('../../src/commands/config/unset.js')).run,
  'config path': async () => (await import('../../src/commands/config/path.js')).run,
  completion: async () => (await import('../../src/commands/completion.js')).run,
  '__complete-profiles': async () => (await import('../../src/commands/completion.js')).runProfiles,
  'sandbox start': async () => (await import('../../src/commands/sandbox/start.js')).run,
  'sandbox stop': async () => (await import('../../src/commands/sandbox/stop.js')).run,
  'sandbox status': async () => (await import('../../src/commands/sandbox/status.js')).run,
  'plan create': async () => (await import('../../src/commands/plan/create.js')).run,
  'plan show': async () => (await import('../../src/commands/plan/show.js')).run,
  'plan approve': async () => (await import('../../src/commands/plan/approve.js')).run,
  'plan merge': async () => (await import('../../src/commands/plan/merge.js')).run,
  'plan send': async () => (await import('../../src/commands/plan/send.js')).run,
  'keys create': async () => (await import('../../src/commands/keys/create.js')).run,
  'keys show': async () => (await import('../../src/commands/keys/show.js')).run,
  'policy check': async () => (await import('../../src/commands/policy/check.js')).run,
  'policy propose': async () => (await import('../../src/commands/policy/propose.js')).run,
  'policy approve': async () => (await import('../../src/commands/policy/approve.js')).run,
  'policy show': async () => (await import('../../src/commands/policy/show.js')).run,
};

describe('each command loads its own module', () => {
  it('every command that runs something is in this table', () => {
    expect(Object.keys(RUNS).sort()).toEqual([...LEAVES].sort());
    expect(LEAVES.every((p) => commandPaths().includes(p))).toBe(true);
  });

  for (const path of LEAVES) {
    it(`${path} runs ${path === '__complete-profiles' ? 'completion.runProfiles' : 'its run'}`, async () => {
      const p = await parse(...MINIMAL[path]!);
      const mod = await p.load();
      expect(typeof mod.run).toBe('function');
      expect(mod.run).toBe(await RUNS[path]!());
    });
  }

  it('the runs differ from one another (no two commands share one by mistake)', async () => {
    const runs = await Promise.all(LEAVES.map(async (path) => (await (await parse(...MINIMAL[path]!)).load()).run));
    expect(new Set(runs).size).toBe(LEAVES.length);
  });
});
