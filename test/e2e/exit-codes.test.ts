/**
 * Every exit code of README.md as the shell sees it, from the built binary: the cases of
 * test/helpers/exit-code-cases.ts marked `shell`, one for each of 0, 1, 2, 3, 4, 5 and 130 (a
 * real SIGINT), each ending with its code and no signal; and a reader that goes away (EPIPE).
 * Every case of the table (and so the behaviour behind each code) runs in process in
 * test/commands/exit-codes.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { BIN, cliEnv } from '../helpers/cli.js';
import { newKey, payctl, startCli, until, useConfigDir, writeProfile, type Run } from '../helpers/e2e.js';
import { EXIT_CODE_CASES, EXIT_CODES, type ExitCodeCase } from '../helpers/exit-code-cases.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const settling = useSandbox({ apiKey: KEY, settleAfterMs: 300 });
const cfg = useConfigDir();

beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));
afterEach(() => {
  ctx.sb.faults.clear();
  settling.sb.faults.clear();
});

async function runCase(c: ExitCodeCase): Promise<void> {
  const p = await c.prepare({ sb: ctx.sb, settling: settling.sb, dir: cfg.dir, key: KEY });
  let r: Run;
  if (p.interruptWhen) {
    // A real SIGINT to the process.
    const { child, done } = startCli(p.args, { dir: cfg.dir, env: p.env });
    await until(p.interruptWhen);
    child.kill('SIGINT');
    r = await done;
  } else {
    r = await payctl(p.args, { dir: cfg.dir, env: p.env });
  }
  // An exit with the code, never a death by a signal.
  expect(r.signal).toBeNull();
  expect(r.code, r.stderr).toBe(c.code);
  p.check(r, undefined);
}

for (const [code, meaning] of EXIT_CODES) {
  describe(`${code}: ${meaning}`, () => {
    for (const c of EXIT_CODE_CASES.filter((x) => x.code === code && x.shell)) it(c.title, () => runCase(c));
  });
}

describe('a reader that goes away', () => {
  // A pipe closed by another process.
  it('help piped to `head -1` ends quietly: exit 0, no EPIPE stack trace', () => {
    const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" sandbox start --help | head -1`], { env: cliEnv(cfg.dir), encoding: 'utf8' });
    expect(r.stdout).toBe('Usage: payctl sandbox start [options]\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
