// Writes completions/ from the built command tree (run `npm run build` first): the same
// bytes that `payctl completion <shell>` prints. With --check, writes nothing and exits 1
// when a committed file differs (test/completion/generate.test.ts checks the same).
import { readFileSync, writeFileSync } from 'node:fs';
import { buildProgram } from '../dist/cli.js';
import { COMPLETION_FILES, SHELLS, generateCompletion } from '../dist/completion/index.js';

const check = process.argv.includes('--check');
const program = buildProgram(async () => {});
let stale = 0;
for (const shell of SHELLS) {
  const file = new URL(`../completions/${COMPLETION_FILES[shell]}`, import.meta.url);
  const script = generateCompletion(shell, program);
  let current = null;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // not written yet
  }
  if (current === script) continue;
  if (check) {
    console.error(`completions/${COMPLETION_FILES[shell]} is out of date: run npm run build && node scripts/completions.mjs`);
    stale += 1;
  } else {
    writeFileSync(file, script);
    console.log(`wrote completions/${COMPLETION_FILES[shell]}`);
  }
}
process.exitCode = stale ? 1 : 0;
