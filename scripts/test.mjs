// `npm test` (and so .ci/run): everything a change must pass, on a fresh machine.
//
//   1. The Debian packages the suite drives (scripts/test-prereqs.mjs: installs them as root).
//   2. The bundle (`npm run build`): the end-to-end tests run the built binary.
//   3. At once: the tests (vitest, given npm test's extra arguments, e.g. `npm test -- --reporter=json`)
//      and the checks of `npm run lint` and `npm run typecheck` (oxlint with its type-aware rules,
//      oxfmt --check, redocly lint, tsc --noEmit), the checks at a lower priority (nice 10).
//
// The checks take about 10 s of CPU together (oxlint 5, tsc 4); the tests use both cores, and
// the checks fill what the tests leave. The tests' output streams as it comes; after them, a
// failed check's output, and every check's time. Exits with the tests' code when they fail,
// else 1 when a check failed, else 0.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const vitestArgs = process.argv.slice(2);

function runNow(label, cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`npm test: ${label} failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status || 1);
  }
}

/** Runs a check with its output kept for later; resolves to its label, code, output and seconds. */
function check(label, cmd, args) {
  const started = Date.now();
  const nice = existsSync('/usr/bin/nice') || existsSync('/bin/nice');
  const child = spawn(nice ? 'nice' : cmd, nice ? ['-n', '10', cmd, ...args] : args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env,
  });
  const out = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => out.push(d));
  return new Promise((resolve) => {
    child.on('error', (err) => resolve({ label, code: 1, output: `cannot run ${cmd}: ${err.message}\n`, seconds: 0 }));
    child.on('close', (code, signal) =>
      resolve({ label, code: code ?? (signal ? 1 : 0), output: Buffer.concat(out).toString('utf8'), seconds: (Date.now() - started) / 1000 }),
    );
  });
}

/** Checks in one lane run one after another; the lanes run side by side. */
async function lane(steps) {
  const results = [];
  for (const [label, cmd, args] of steps) results.push(await check(label, cmd, args));
  return results;
}

runNow('installing what the tests need', process.execPath, [join(root, 'scripts', 'test-prereqs.mjs')]);
runNow('the build', process.execPath, [join(root, 'scripts', 'build.mjs')]);

const checks = Promise.all([
  lane([
    ['oxlint', bin('oxlint'), ['--report-unused-disable-directives-severity=error']],
    ['oxfmt --check', bin('oxfmt'), ['--check']],
    ['redocly lint', bin('redocly'), ['lint', 'openapi/v2.yaml', '--format=stylish']],
  ]),
  lane([['tsc --noEmit', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']]]),
]).then((lanes) => lanes.flat());

const tests = await new Promise((resolve) => {
  const child = spawn(bin('vitest'), ['run', ...vitestArgs], { cwd: root, stdio: 'inherit' });
  child.on('error', (err) => {
    console.error(`npm test: cannot run vitest: ${err.message}`);
    resolve(1);
  });
  child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
});

const results = await checks;
const failed = results.filter((r) => r.code !== 0);
for (const r of results) {
  const text = r.output.trimEnd();
  if (r.code !== 0) console.log(`\n── ${r.label} (${r.seconds.toFixed(1)} s): FAILED, exit ${r.code}\n${text}`);
}
console.log(`\nChecks: ${results.map((r) => `${r.label} ${r.code === 0 ? 'passed' : 'FAILED'} (${r.seconds.toFixed(1)} s)`).join(', ')}.`);
if (tests !== 0) process.exit(tests);
if (failed.length) {
  console.error(`npm test: ${failed.map((r) => r.label).join(', ')} failed (above).`);
  process.exit(1);
}
