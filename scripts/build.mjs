// Builds dist/ from src/ with esbuild: one small entry (dist/cli.js) and lazily loaded
// chunks, one per command and heavy dependency, so a command loads only what it uses
// (start-up is measured by `npm run bench`). Type-checking is `npm run typecheck` (tsc).
// The output is built in a fresh folder and swapped in with a rename, so a build never
// leaves a half-empty dist/ for a process running from it.
import { build } from 'esbuild';
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// payctl speaks HTTP/1.1 only (its Agent sets allowH2: false, so TLS never negotiates h2),
// and undici's HTTP/2 client is never reached; left in, it loads node:http2 on every run.
const noHttp2 = {
  name: 'undici-without-http2',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      args.importer.includes(join('undici', 'lib', 'dispatcher')) ? { path: 'client-h2', namespace: 'payctl-stub' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'payctl-stub' }, () => ({
      contents: "module.exports = function connectH2() { throw new Error('payctl does not use HTTP/2'); };",
      loader: 'js',
    }));
  },
};
const out = join(root, `dist.build-${process.pid}`);
const old = join(root, `dist.old-${process.pid}`);
try {
  await build({
    absWorkingDir: root,
    entryPoints: ['src/cli.ts'],
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.18',
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: 'linked',
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
    plugins: [noHttp2],
    // CommonJS dependencies call require() for Node's modules; give each chunk a real one.
    banner: { js: "import { createRequire as __payctlRequire } from 'node:module'; const require = __payctlRequire(import.meta.url);" },
  });
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
