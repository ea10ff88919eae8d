/**
 * Every exit code of README.md, in process (payctl's main with in-memory streams, the sandbox
 * over real HTTP): every case of the table in test/helpers/exit-code-cases.ts, the table the
 * spawned-binary tier (test/e2e/exit-codes.test.ts) runs its one-per-code cases from. Retries
 * against a sandbox that answers at once, and --wait against one that never settles in time,
 * run on a TestClock (the waits asked for are checked, not waited); Ctrl-C is the interrupt
 * payctl's main listens for.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { newKey, until, useConfigDir, writeProfile, type Run } from '../helpers/e2e.js';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
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
  const clock = c.testClock ? new TestClock() : undefined;
  const opts = { dir: cfg.dir, env: p.env, clock };
  let r: Run;
  if (p.interruptWhen) {
    const started = startPayctl(p.args, opts);
    await until(p.interruptWhen);
    started.interrupt();
    r = await started.done;
  } else {
    r = await payctl(p.args, opts);
  }
  expect(r.code, r.stderr).toBe(c.code);
  p.check(r, clock?.waits);
}

it('the table has a case for every exit code, and one from the binary for each', () => {
  expect(new Set(EXIT_CODE_CASES.map((c) => c.code))).toEqual(new Set(EXIT_CODES.map(([code]) => code)));
  expect(
    EXIT_CODE_CASES.filter((c) => c.shell)
      .map((c) => c.code)
      .sort((a, b) => a - b),
  ).toEqual(EXIT_CODES.map(([code]) => code));
});

for (const [code, meaning] of EXIT_CODES) {
  describe(`${code}: ${meaning}`, () => {
    for (const c of EXIT_CODE_CASES.filter((x) => x.code === code)) it(c.title, () => runCase(c));
  });
}
