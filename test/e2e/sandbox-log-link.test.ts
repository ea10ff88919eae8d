/**
 * `payctl sandbox start --detach` writes the child's output, which holds the sandbox's API key
 * and webhook secret, to `<config>/sandbox.log`. A symlink planted there had its target
 * overwritten with them and left 0644: it is refused, the target untouched, no sandbox started.
 * A log left by an earlier start with wider permissions is made 0600. The built binary: a
 * detached start is a real background process.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { stackLines } from '../helpers/e2e.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function folder(): string {
  const t = tempConfigDir();
  // A sandbox a test started (on the code before the fix: the one the symlink let through) is stopped.
  cleanups.push(async () => {
    await runCli(['sandbox', 'stop'], { configDir: t.dir });
    t.cleanup();
  });
  return t.dir;
}

describe('sandbox start --detach: the log', () => {
  it('a symlink at sandbox.log: refused (exit 2), its target untouched, no sandbox started', async () => {
    const dir = folder();
    const other = tempConfigDir();
    cleanups.push(other.cleanup);
    const victim = join(other.dir, 'notes.txt');
    writeFileSync(victim, 'precious\n');
    chmodSync(victim, 0o600);
    const log = join(dir, 'sandbox.log');
    symlinkSync(victim, log);
    const r = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--json'], { configDir: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Cannot write the sandbox log ${log}: it is a symbolic link. The sandbox was not started.`);
    expect(r.stdout).toBe('');
    expect(stackLines(r.stderr)).toEqual([]);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(statSync(victim).mode & 0o777).toBe(0o600);
    const status = await runCli(['sandbox', 'status'], { configDir: dir });
    expect(status.stderr + status.stdout).toContain('No sandbox is running');
    // The command printed moves the link away, as printed; the next start then writes a log of its own.
    // --json: the error is a JSON document on stderr, its hint a field.
    const hint = (JSON.parse(r.stderr) as { error: { hint: string } }).error.hint;
    const mv = hint.split('\n').find((l) => l.startsWith('  mv '))!;
    execFileSync('sh', ['-c', mv]);
    const again = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--json'], { configDir: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(lstatSync(log).isFile()).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('a log left 0644 by someone: made 0600 before the keys are written to it', async () => {
    const dir = folder();
    const log = join(dir, 'sandbox.log');
    writeFileSync(log, 'old\n');
    chmodSync(log, 0o644);
    const r = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--json'], { configDir: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(log).mode & 0o777).toBe(0o600);
  });
});
