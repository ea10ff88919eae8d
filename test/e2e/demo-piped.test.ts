/**
 * Issue 15: `npm run demo` piped to a file or another program writes plain text. The
 * demo (scripts/demo.mjs, run directly: the suite has built dist/ already) runs a whole
 * session against a detached sandbox; with its stdout a pipe, even under FORCE_COLOR,
 * neither its own headers nor the payctl it runs may write an ESC byte, a carriage
 * return (progress redrawn in place) or any other control character.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const DEMO = resolve(__dirname, '../../scripts/demo.mjs');

function runDemo(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; stdout: Buffer; stderr: Buffer }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [DEMO], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    // Bounded: the demo's own steps end in a few seconds; a hang is killed and fails the test.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
  });
}

describe('npm run demo, piped', () => {
  it('writes no escape sequence, carriage return or other control byte, even with FORCE_COLOR set', { timeout: 60_000 }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'payctl-demo-home-'));
    try {
      const r = await runDemo({ PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', TERM: 'xterm-256color', FORCE_COLOR: '1', TMPDIR: tmpdir() }, 50_000);
      const stdout = r.stdout.toString('utf8');
      expect(r.code, stdout + r.stderr.toString('utf8')).toBe(0);
      expect(r.stderr.toString('utf8')).toBe('');

      // Not one ESC byte, and no control character but newlines.
      expect(r.stdout.includes(0x1b)).toBe(false);
      expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);

      // The whole session ran, its headers as plain lines.
      expect(stdout).toMatch(/^\$ payctl sandbox start --detach\nSandbox running at http:\/\/127\.0\.0\.1:\d+\/v2 \(pid \d+\)\n/);
      for (const header of ['$ payctl status', '$ payctl balances', '$ payctl summary', '$ payctl payout batch ', '$ payctl sandbox stop']) {
        expect(stdout).toContain(`\n${header}`);
      }
      expect(stdout).toMatch(/Successful|Pending/);
      expect(stdout.trimEnd().endsWith('Sandbox stopped.')).toBe(true);
      // Nothing a newcomer would have to interpret: no warning (the demo's login keeps the throwaway key in the 0600 file).
      expect(stdout).not.toMatch(/^Warning:/m);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
