/**
 * `payctl payout get <payout id>` without the profile that sent the payout (the run's profile on
 * another base URL; in process, two sandboxes over real HTTP): the journal has the payout under
 * the other base URL, so it is never "no payout" (exit 1 NOT_FOUND, which invites a resend). Of
 * unknown outcome: exit 4, OUTCOME_UNKNOWN, naming the base URL and profile, with the reconcile
 * and look-up commands carrying that profile, which work as printed. Accepted: exit 2 with the
 * `payout get` that shows it. And an id copied with a trailing comma whose cleaned form is
 * journaled with an unknown outcome exits 4 saying so.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { heldFor, loginInProcess, payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet, startSandbox, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { shellSplit } from '../helpers/pty.js';

let dir: string;
let cleanup: () => void;
const run = (args: string[], opts: { clock?: TestClock; env?: NodeJS.ProcessEnv } = {}): Promise<Run> => payctl(args, { dir, ...opts });

/** The printed command of the stderr line starting with `lead`, as a shell splits it (without `payctl`). */
function printed(stderr: string, lead: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith(lead));
  expect(line, stderr).toBeDefined();
  const argv = shellSplit(line!.slice(line!.indexOf('payctl ')));
  expect(argv[0]).toBe('payctl');
  return argv.slice(1);
}

describe('payout get of a payout journaled under another base URL', () => {
  const ctx = useSandbox();
  let other: Sandbox;
  beforeAll(async () => {
    other = await startSandbox({ settleAfterMs: 60_000 });
  });
  afterAll(async () => {
    await other?.close();
  });
  beforeEach(async () => {
    ({ dir, cleanup } = tempConfigDir());
    // The default profile on the first sandbox; profile "far" on the second.
    await loginInProcess(ctx.sb, dir);
    const r = await payctl(['login', '--api-key-stdin', '--base-url', other.baseUrl, '--profile', 'far'], { dir, input: other.apiKey + '\n' });
    expect(r.code, r.stderr).toBe(0);
  });
  afterEach(() => {
    ctx.sb.faults.clear();
    other.faults.clear();
    cleanup();
  });

  it('of unknown outcome: exit 4 OUTCOME_UNKNOWN naming profile and base URL, never 1 NOT_FOUND; the printed commands work', async () => {
    const wallet = freshWallet(other, '10000.00');
    const id = randomUUID();
    other.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: 10 });
    expect((await run([...payoutArgs(wallet, id), '--profile', 'far'], { clock: new TestClock() })).code).toBe(4);
    other.faults.clear();
    const from = [ctx.sb.requests().length, other.requests().length];

    const r = await run(['payout', 'get', id]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('NOT_FOUND');
    expect(r.stderr).not.toContain('No payout');
    expect(r.stderr).toContain(
      `Payout ${id} is not journaled for ${ctx.sb.baseUrl}, this run's base URL; this config folder's journal has it for ${other.baseUrl} (sent with profile far). Its outcome is unknown there`,
    );
    const j = await run(['payout', 'get', id, '--json']);
    expect(j.code).toBe(4);
    expect(JSON.parse(j.stderr).error).toMatchObject({ code: 'OUTCOME_UNKNOWN', payout_id: id });
    // --wait too: never 1, which says Failed.
    expect((await run(['payout', 'get', id, '--wait'])).code).toBe(4);
    expect([ctx.sb.requests().length, other.requests().length]).toEqual(from);

    // The look-up printed, run as printed: the profile that sent it, the same exit 4.
    const get = printed(r.stderr, 'Look it up');
    expect(get).toEqual(['payout', 'get', id, '--profile', 'far']);
    const g = await run(get);
    expect(g.code, g.stderr).toBe(4);
    expect(g.stderr).toContain(`No transaction id for payout ${id}`);
    // The reconcile printed resolves it at the other sandbox, once.
    const rec = printed(r.stderr, 'Find out what became of it');
    expect(rec).toEqual(['history', 'reconcile', '--profile', 'far', '--payout-id', id]);
    const done = await run(rec);
    expect(done.code, done.stderr).toBe(0);
    expect(heldFor(other, id)).toHaveLength(1);
    expect(heldFor(ctx.sb, id)).toHaveLength(0);

    // Accepted now: still not "no payout"; exit 2, and the printed payout get shows it.
    const a = await run(['payout', 'get', id]);
    expect(a.code, a.stderr).toBe(2);
    expect(a.stderr).not.toContain('No payout');
    expect(a.stderr).toContain(`Payout ${id} is not journaled for ${ctx.sb.baseUrl}`);
    const shown = await run(printed(a.stderr, 'Look it up'));
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^Payout ID\\s+${id}$`, 'm'));

    // The run's base URL from PAYCTL_BASE_URL (which wins over a profile's): the printed command carries the payout's.
    const env = { PAYCTL_BASE_URL: ctx.sb.baseUrl };
    const e = await run(['payout', 'get', id], { env });
    expect(e.code, e.stderr).toBe(2);
    const withBase = printed(e.stderr, 'Look it up');
    expect(withBase).toEqual(['payout', 'get', id, '--profile', 'far', '--base-url', other.baseUrl]);
    const ok = await run(withBase, { env });
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('sent with --base-url and PAYCTL_API_KEY (no profile has that base URL): the login of a profile of its own comes first, and every command after it works as printed (probe Q 2)', async () => {
    // Before: "history reconcile --base-url …" was printed first and exited 3 as printed (the
    // default profile's key is not sent there), and the login offered pointed the default
    // profile, which is the first sandbox's, at the other service.
    const wallet = freshWallet(other, '10000.00');
    const id = randomUUID();
    const key = { PAYCTL_API_KEY: other.apiKey };
    other.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: 10 });
    expect((await run([...payoutArgs(wallet, id), '--base-url', other.baseUrl], { clock: new TestClock(), env: key })).code).toBe(4);
    other.faults.clear();
    // No profile has the other sandbox's base URL now.
    for (const args of [
      ['logout', '--profile', 'far'],
      ['config', 'unset', 'base-url', '--profile', 'far'],
    ])
      expect((await run(args)).code).toBe(0);
    const r = await run(['payout', 'get', id]);
    expect(r.code, r.stderr).toBe(4);
    const hint = r.stderr.split('\n').filter((l) => l.includes('payctl '));
    expect(hint[0], r.stderr).toMatch(/^No profile of this config folder has .* now: first log in a profile of its own to it: payctl login --profile /);
    const login = printed(r.stderr, 'No profile of this config folder');
    expect(login[login.indexOf('--profile') + 1]).not.toBe('default');
    // As printed, with the key the payout was sent with (at a terminal it would be asked for).
    const l = await run(login, { env: key });
    expect(l.code, l.stderr).toBe(0);
    // The default profile still points at the first sandbox.
    const b = await run(['balances']);
    expect(b.code, b.stderr).toBe(0);
    const rec = await run(printed(r.stderr, 'Find out what became of it'));
    expect(rec.code, rec.stderr).toBe(0);
    expect(heldFor(other, id)).toHaveLength(1);
    const shown = await run(printed(r.stderr, 'Look it up'));
    expect(shown.code, shown.stderr).toBe(0);
  });

  it('the profile that sent it renamed in the file to a name --profile refuses: never printed; the login of a profile of its own instead', async () => {
    const wallet = freshWallet(other, '10000.00');
    const id = randomUUID();
    other.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: 10 });
    expect((await run([...payoutArgs(wallet, id), '--profile', 'far'], { clock: new TestClock() })).code).toBe(4);
    other.faults.clear();
    // Edited by hand: "far" is now a name with an escape sequence in it.
    const file = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, unknown> };
    config.profiles['far\u001b[2J'] = config.profiles.far;
    delete config.profiles.far;
    writeFileSync(file, JSON.stringify(config));
    const r = await run(['payout', 'get', id]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('--profile far');
    expect(r.stderr).not.toContain('\u001b');
    const login = printed(r.stderr, 'No profile of this config folder');
    expect(login.slice(0, 2)).toEqual(['login', '--profile']);
    expect((await run(login, { env: { PAYCTL_API_KEY: other.apiKey } })).code).toBe(0);
    const shown = await run(printed(r.stderr, 'Look it up'));
    expect(shown.code, shown.stderr).toBe(4);
    expect(shown.stderr).toContain(`No transaction id for payout ${id}`);
  });

  it('an id copied with a trailing comma, its cleaned form journaled with an unknown outcome: exit 4 saying so', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: 10 });
    expect((await run(payoutArgs(wallet, id), { clock: new TestClock() })).code).toBe(4);
    ctx.sb.faults.clear();
    for (const profile of [[], ['--profile', 'far']]) {
      const r = await run(['payout', 'get', ` ${id},`, ...profile]);
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).not.toContain('No payout');
      expect(r.stderr).not.toContain('NOT_FOUND');
      expect(r.stderr).toContain(`${id}, reads ${id} without the characters copied with it.`);
      expect(r.stderr).toMatch(/its outcome is unknown/i);
    }
  });
});
