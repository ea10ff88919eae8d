// Writes completions/ from the built binary (run `npm run build` first): the same bytes
// that `payctl completion <shell>` prints. With --check, writes nothing and exits 1 when a
// committed file differs (test/completion/generate.test.ts checks the same).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FILES = { bash: 'payctl.bash', zsh: '_payctl', fish: 'payctl.fish' };
const bin = fileURLToPath(new URL('../bin/payctl.js', import.meta.url));
const check = process.argv.includes('--check');
let stale = 0;
for (const [shell, name] of Object.entries(FILES)) {
  const file = new URL(`../completions/${name}`, import.meta.url);
  const script = execFileSync(process.execPath, [bin, 'completion', shell], { encoding: 'utf8' });
  let current = null;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // not written yet
  }
  if (current === script) continue;
  if (check) {
    console.error(`completions/${name} is out of date: run npm run completions`);
    stale += 1;
  } else {
    writeFileSync(file, script);
    console.log(`wrote completions/${name}`);
  }
}
process.exitCode = stale ? 1 : 0;
