// Compiles src/ to dist/ with tsc. Kept as a script so the build step has one name
// (npm run build, run by `prepare` on npm ci) whatever the compiler becomes.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
  cwd: new URL('..', import.meta.url),
});
