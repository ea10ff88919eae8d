/**
 * `payctl sandbox start`, in process: what it refuses before it starts (an API key no client
 * could send, a settle delay no timer can wait), that it prints its own key and secret whole on
 * a second start (though the default profile, whose secrets the run masks, already holds them),
 * and that of two detached starts at the same moment only one runs: the other's child exits 2
 * without leaving a sandbox behind, and its parent says which one runs.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readProfile } from '../helpers/e2e.js';
import { fakeDeps } from '../helpers/fake-deps.js';
import { startPayctl, type Started } from '../helpers/in-process.js';
import { startSandbox } from '../helpers/sandbox.js';
import { run as startRun } from '../../src/commands/sandbox/start.js';
import { exitCodeOf, UsageError } from '../../src/errors.js';
import { useCleanups } from '../helpers/cleanups.js';

const { cleanups, configDir } = useCleanups();

/** `payctl sandbox start …` in process, interrupted (Ctrl-C) after the test. */
function start(args: string[], opts: { dir: string; env?: Record<string, string> }): Started {
  const run = startPayctl(['sandbox', 'start', '--port', '0', ...args], opts);
  cleanups.push(async () => {
    run.interrupt();
    await run.done.catch(() => {});
  });
  return run;
}

/** Whether the run ended within `ms` (else it is serving). */
async function endsWithin(run: Started, ms: number): Promise<boolean> {
  const ended = await Promise.race([run.done.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), ms))]);
  return ended;
}

/** Resolves once the run is serving (its profile lines are out, a JSON line under --json); fails if it ends first. */
async function serving(run: Started): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!/Profile \\?"sandbox\\?" saved/.test(run.stderr())) {
    if (Date.now() > deadline) throw new Error(`not serving: ${run.stderr()}`);
    if (await endsWithin(run, 5)) throw new Error(`ended early: ${run.stderr()}`);
  }
}

describe('sandbox start: its own key and secret, whole on every start', () => {
  it('a second start (the default profile already holds its key and secret) prints them unmasked, text and --json', async () => {
    const dir = configDir();
    const env = { PAYCTL_SANDBOX_API_KEY: 'sk_sandbox_pinned_key_0001' };
    const first = start([], { dir, env });
    await serving(first);
    first.interrupt();
    expect((await first.done).code).toBe(130);
    expect(readProfile(dir)).toMatchObject({ apiKey: 'sk_sandbox_pinned_key_0001', webhookSecret: 'whsec_sandbox' });

    const text = start([], { dir, env });
    await serving(text);
    expect(text.stdout()).toMatch(/^Sandbox running at http:\/\/127\.0\.0\.1:\d+\/v2\nAPI key: sk_sandbox_pinned_key_0001\nWebhook secret: whsec_sandbox\n$/);
    text.interrupt();
    expect((await text.done).code).toBe(130);

    const json = start(['--json'], { dir, env });
    await serving(json);
    expect(JSON.parse(json.stdout())).toMatchObject({ api_key: 'sk_sandbox_pinned_key_0001', webhook_secret: 'whsec_sandbox' });
    expect(json.stdout()).not.toContain('***');
  });
});

describe('sandbox start: refused before it starts (exit 2)', () => {
  it.each([
    ['PAYCTL_SANDBOX_API_KEY', 'my key', 'PAYCTL_SANDBOX_API_KEY contains a space (U+0020) at character 3'],
    ['--api-key', 'sk_\u001b[31mred', '--api-key contains an escape character (U+001B) at character 4'],
    ['PAYCTL_SANDBOX_API_KEY', 'sk_sandbox_caf\u00e9', 'PAYCTL_SANDBOX_API_KEY contains a character that is not plain ASCII (U+00E9) at character 15'],
  ])('an API key from %s that is not visible ASCII (%j): named, never printed, nothing started', async (from, key, said) => {
    const dir = configDir();
    const args = from === '--api-key' ? ['--api-key', key] : [];
    const env: Record<string, string> = from === '--api-key' ? {} : { PAYCTL_SANDBOX_API_KEY: key };
    const run = start(args, { dir, env });
    expect(await endsWithin(run, 3000), run.stderr()).toBe(true);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${said}: the sandbox's API key is the bearer token, visible ASCII characters only. The sandbox was not started.`);
    expect(r.stderr).not.toContain(key);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stdout).toBe('');
    expect(readProfile(dir, 'sandbox')).toBeUndefined();
  });

  it('white space around the key is dropped, as for every key payctl reads', async () => {
    const run = start(['--json'], { dir: configDir(), env: { PAYCTL_SANDBOX_API_KEY: '  sk_sandbox_trimmed_0001\n' } });
    await serving(run);
    expect(JSON.parse(run.stdout())).toMatchObject({ api_key: 'sk_sandbox_trimmed_0001' });
  });

  it('--settle-after above what a timer can wait (2147483647 ms) is a usage error naming the maximum; the maximum itself starts', async () => {
    const dir = configDir();
    const run = start(['--settle-after', '3000000000'], { dir });
    expect(await endsWithin(run, 3000), run.stderr()).toBe(true);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--settle-after is at most 2147483647 ms');
    expect(r.stdout).toBe('');

    const max = start(['--settle-after', '2147483647'], { dir });
    await serving(max);
    expect(max.stderr()).not.toContain('TimeoutOverflowWarning');
  });
});

describe('two detached starts at the same moment', () => {
  it('as two detached children: one claims the folder and runs, the other exits 2 naming it, before saving any profile', async () => {
    const dir = configDir();
    const env = { PAYCTL_SANDBOX_DETACHED: '1' };
    const runs = [start(['--json'], { dir, env }), start(['--json'], { dir, env })];
    const ended = await Promise.race([...runs.map((run, i) => run.done.then(() => i)), new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000))]);
    expect(ended, 'one of the two must give way').toBeDefined();
    const loser = await runs[ended!]!.done;
    const winner = runs[1 - ended!]!;
    await serving(winner);
    const info = JSON.parse(winner.stdout()) as { base_url: string; pid: number };
    expect(loser.code, loser.stderr).toBe(2);
    expect(loser.stderr).toContain(`A sandbox is already running at ${info.base_url} (pid ${process.pid}).`);
    expect(loser.stderr).toContain('Stop it first with: payctl sandbox stop');
    expect(loser.stdout).toBe('');
    const record = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({ baseUrl: info.base_url });
    expect(record).not.toHaveProperty('starting');
    expect(readProfile(dir, 'sandbox')).toMatchObject({ baseUrl: info.base_url });

    winner.interrupt();
    expect((await winner.done).code).toBe(0);
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
  });

  it('the parent whose child gave way (exit 2) says which sandbox runs and how to stop it (exit 2), not that the child failed', async () => {
    const dir = configDir();
    const sb = await startSandbox({ pid: process.pid, instance: 'the-winner' });
    cleanups.push(() => sb.close());
    const winner = { pid: process.pid, port: sb.port, baseUrl: sb.baseUrl, apiKey: sb.apiKey, webhookSecret: 'whsec_sandbox', startedAt: '', instance: 'the-winner' };
    writeFileSync(join(dir, 'winner.json'), JSON.stringify(winner));
    // The stand-in child: the other start's child claimed the record first, so this one gives way as the real child does.
    const script = join(dir, 'fake-node.sh');
    writeFileSync(script, '#!/bin/sh\ncp "$PAYCTL_CONFIG_DIR/winner.json" "$PAYCTL_CONFIG_DIR/sandbox.json"\necho "Error: A sandbox is already running"\nexit 2\n');
    chmodSync(script, 0o755);
    const fd = fakeDeps({ dir });
    cleanups.push(() => fd.close());
    fd.deps.host = { ...fd.deps.host, execPath: script };
    const err = await startRun({ detach: true }, fd.deps).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect(exitCodeOf(err)).toBe(2);
    expect((err as UsageError).message).toBe(`A sandbox is already running at ${sb.baseUrl} (pid ${process.pid}).`);
    expect((err as UsageError).hint).toBe('Stop it first with: payctl sandbox stop');
    expect(fd.stdout()).toBe('');
  });
});
