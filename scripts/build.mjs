// Builds dist/ from src/ with esbuild: one CommonJS bundle, dist/cli.cjs, that bin/payctl.js
// compiles through V8's code cache (start-up is measured by `npm run bench`). Commands and
// heavy dependencies stay lazy inside it: a module reached only through import() is wrapped
// by esbuild and runs only when its command does, and with the code cache its source is
// never even parsed. (esbuild splits code into chunks only for ES modules, and Node 20 can
// cache compiled code only for CommonJS: one bundle is what keeps both.)
// The first line of the bundle names its content hash: the code cache is keyed by it.
// Type-checking is `npm run typecheck` (tsc). The output is built in a fresh folder and
// swapped in with a rename, so a build never leaves a half-empty dist/ for a running process.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

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

// undici requires node:assert in most of its modules and only ever calls assert(value, message).
// Loading node:assert makes Node create process.stderr (its colour check reads stderr.isTTY),
// a pipe's socket that `balances --json`, writing nothing there, need not make. undici gets an
// assert that hands any falsy value to node:assert, loaded then, to throw as it would.
const undiciLazyAssert = {
  name: 'undici-lazy-assert',
  setup(b) {
    b.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
      args.importer.includes(join('node_modules', 'undici', 'lib')) ? { path: 'assert', namespace: 'payctl-assert' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'payctl-assert' }, () => ({
      contents: "module.exports = function assert(...args) { if (!args[0]) require('node:assert')(...args); };",
      loader: 'js',
    }));
  },
};

// commander requires node:child_process (with node:net and more) at load, for executable
// subcommands, which payctl does not have: it is required when first used instead, which
// never happens. Only that one line of commander's source is rewritten; the build fails if
// a new commander no longer has it.
const lazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const eager = "const childProcess = require('node:child_process');";
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(eager)) throw new Error(`${args.path}: no "${eager}" to make lazy (scripts/build.mjs)`);
      const lazy = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
      return { contents: source.replace(eager, lazy), loader: 'js' };
    });
  },
};

// Two dependencies only some commands load, and most of the bundle's bytes (conf with its
// JSON-schema validator, for writing the config; the prompts with their encodings, at a
// terminal) are bundles of their own in dist/vendor/, required when first imported: every
// run reads the main bundle, and half its size was theirs. Each is given to payctl as a
// CommonJS module whose exports are what payctl imports (conf's default export; the prompts'
// named exports), and neither shares a module with payctl's own code.
const VENDOR = {
  conf: "module.exports = require('conf').default;",
  '@inquirer/prompts': "module.exports = require('@inquirer/prompts');",
};
const vendorFile = (name) => `vendor/${name.replace(/^@/, '').replace(/\//g, '-')}.cjs`;
const vendored = {
  name: 'vendored',
  setup(b) {
    b.onResolve({ filter: /^(conf|@inquirer\/prompts)$/ }, (args) => ({ path: `./${vendorFile(args.path)}`, external: true }));
  },
};

const common = {
  absWorkingDir: root,
  write: false,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.18',
  // ASCII only (non-ASCII characters escaped): bin/payctl.js reads the bundle as latin1.
  charset: 'ascii',
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'linked',
  logLevel: 'warning',
};

const out = join(root, `dist.build-${process.pid}`);
const old = join(root, `dist.old-${process.pid}`);
try {
  const result = await build({
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: join(out, 'cli.cjs'),
    plugins: [noHttp2, undiciLazyAssert, lazyChildProcess, vendored],
    // import() of a vendor bundle becomes require(): the bundle runs as a script, where Node 20
    // has no loader for import().
    supported: { 'dynamic-import': false },
    // The sources are ES modules: import.meta.url is the bundle's file URL, which bin/payctl.js
    // passes beside __filename to the function it wraps the bundle in. The version is written
    // in, so that no run reads package.json for it (src/program.ts, version()).
    define: { 'import.meta.url': '__payctl_module_url', __PAYCTL_VERSION__: JSON.stringify(pkg.version) },
  });
  const vendor = await Promise.all(
    Object.entries(VENDOR).map(([name, contents]) =>
      build({ ...common, stdin: { contents, resolveDir: root, sourcefile: `${name}.cjs`, loader: 'js' }, outfile: join(out, vendorFile(name)) }),
    ),
  );
  mkdirSync(join(out, 'vendor'), { recursive: true });
  for (const file of [...vendor, result].flatMap((r) => r.outputFiles)) {
    if (!file.path.endsWith(join(out, 'cli.cjs'))) {
      writeFileSync(file.path, file.contents);
      continue;
    }
    const hash = createHash('sha256').update(file.contents).digest('hex').slice(0, 16);
    writeFileSync(file.path, `// payctl-build ${hash}\n` + file.text);
  }
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
