/**
 * Profiles (issue #28) as a person meets them, from the built binary: on a fresh machine
 * `payctl sandbox start --detach` makes the sandbox the default profile and says how to use
 * it; each command it prints, pasted into a real shell (bash, `payctl` on PATH), works as
 * printed, `export PAYCTL_PROFILE=sandbox` included. A typo of the profile's name exits 2
 * naming it. (In process: test/commands/profiles.test.ts.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payctlShim, runAsPrinted, runCli, tempConfigDir } from '../helpers/cli.js';
import { readProfiles } from '../helpers/e2e.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let shim: { dir: string; cleanup: () => void };
beforeAll(() => {
  shim = payctlShim();
});
afterAll(() => shim?.cleanup());

describe('sandbox start --detach on a fresh machine', () => {
  it('makes the sandbox the default, says how to use it, and every printed command works in a shell as printed; --profile sandbx exits 2 naming sandbox', async () => {
    const { dir, cleanup } = tempConfigDir();
    cleanups.push(cleanup);
    const start = await runCli(['sandbox', 'start', '--detach', '--port', '0'], { configDir: dir });
    cleanups.push(() => runCli(['sandbox', 'stop'], { configDir: dir }));
    expect(start.code, start.stderr).toBe(0);
    const baseUrl = /^Sandbox running at (\S+)$/m.exec(start.stdout)![1]!;
    expect(readProfiles(dir).default).toMatchObject({ baseUrl });
    expect(readProfiles(dir).sandbox).toMatchObject({ baseUrl });
    expect(start.stderr).toContain('the default profile points at this sandbox too');

    const printed = [
      /Try: (payctl .*)$/m.exec(start.stderr)![1]!,
      /By name: (payctl [^;]*);/.exec(start.stderr)![1]!,
      // The variable, then a bare command in the same shell.
      `${/or for this shell: (export .*)$/m.exec(start.stderr)![1]!}; payctl balances --json`,
    ];
    expect(printed).toEqual(['payctl balances', 'payctl balances --profile sandbox', 'export PAYCTL_PROFILE=sandbox; payctl balances --json']);
    for (const line of printed) {
      const r = await runAsPrinted(line, { shim: shim.dir, configDir: dir });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      expect(r.stdout.trim().length, line).toBeGreaterThan(0);
    }

    const typo = await runCli(['balances', '--profile', 'sandbx'], { configDir: dir });
    expect(typo.code, typo.stderr).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toBe('Error: No profile "sandbx". Known profiles: default, sandbox. Did you mean sandbox?\nRun it again with --profile sandbox.\n');
    const byEnv = await runCli(['balances'], { configDir: dir, env: { PAYCTL_PROFILE: 'sandbx' } });
    expect(byEnv.code, byEnv.stderr).toBe(2);
    expect(byEnv.stderr).toContain('export PAYCTL_PROFILE=sandbox');
  });
});
