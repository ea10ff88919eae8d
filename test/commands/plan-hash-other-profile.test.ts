/**
 * A plan named by hash under a profile without a shared ledger (probe M57, F3), in process: the
 * `plan approve sha256:…` plan create prints carries no --profile, and on an approver's machine
 * whose team profile is not the default it ran under the default, which has the local journal
 * only. The refusal (exit 2) names the profile the run used and, when other profiles of this
 * config folder have a shared ledger, the same command with `--profile NAME` for each, before
 * the advice to set a ledger up (before: no profile named, only that advice). The other
 * profile's ledger is never opened: a URL where no database listens does not matter.
 */
import { describe, expect, it } from 'vitest';
import { newKey, useConfigDir, writeProfiles } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';

const cfg = useConfigDir();
const HASH = `sha256:${'5aa111f884ef'.repeat(5)}abcd`;
const LEDGER = 'postgresql://payctl:pw@127.0.0.1:9/payctl';
const profile = { baseUrl: 'http://127.0.0.1:9/v2', apiKey: newKey() };

describe('plan approve by hash under a profile whose ledger is the local journal', () => {
  it('names the profile used and the command with each profile of this config folder that has a shared ledger', async () => {
    writeProfiles(cfg.dir, { default: profile, team: { ...profile, ledger: LEDGER }, ops: { ...profile, ledger: LEDGER }, old: { ...profile, ledger: 'local' } });
    for (const [verb, extra] of [
      ['approve', ['--yes']],
      ['show', []],
    ] as const) {
      const r = await payctl(['plan', verb, HASH, ...extra], { dir: cfg.dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('plans by hash need a shared ledger (profile "default", which this run used, has none');
      expect(r.stderr).toContain('Profiles "ops", "team" of this config folder have a shared ledger; run it with --profile NAME:');
      expect(r.stderr).toContain(`  payctl plan ${verb} ${HASH} --profile ops\n  payctl plan ${verb} ${HASH} --profile team\n`);
      // Then how to set one up, last.
      expect(r.stderr.indexOf('--profile team')).toBeLessThan(r.stderr.indexOf('payctl config set ledger --stdin'));
      expect(r.stderr).not.toContain('--profile old');
    }
  });

  it('under a named profile: that profile named, the others offered, never itself', async () => {
    writeProfiles(cfg.dir, { default: { ...profile, ledger: LEDGER }, mine: profile });
    const r = await payctl(['plan', 'approve', HASH, '--yes', '--profile', 'mine'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('(profile "mine", which this run used, has none');
    expect(r.stderr).toContain('Profile "default" of this config folder has a shared ledger; run it with --profile NAME:');
    expect(r.stderr).toContain(`  payctl plan approve ${HASH} --profile default\n`);
    expect(r.stderr).toContain('payctl config set ledger --profile mine --stdin');
  });

  it('no profile with a shared ledger: the profile named, and how to set one up', async () => {
    writeProfiles(cfg.dir, { default: profile });
    const r = await payctl(['plan', 'approve', HASH, '--yes'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('(profile "default", which this run used, has none');
    expect(r.stderr).not.toContain('--profile');
    expect(r.stderr).toContain('Give the plan file, or point profile "default" at the team\'s ledger (the URL on standard input):\n  payctl config set ledger --stdin\n');
  });
});
