// Compiles src/ to dist/ with tsc. The output is built in a fresh folder and swapped in
// with a rename, so a build never leaves a half-empty dist/ for a process running from it.
import { execFileSync } from 'node:child_process';
import { renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
const out = join(root, `dist.build-${process.pid}`);
const old = join(root, `dist.old-${process.pid}`);
try {
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out], { stdio: 'inherit', cwd: root });
  try {
    renameSync(join(root, 'dist'), old);
  } catch {
    // no previous dist
  }
  renameSync(out, join(root, 'dist'));
} finally {
  rmSync(out, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}
