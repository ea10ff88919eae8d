// Builds dist/ from src/ with esbuild: one CommonJS bundle, dist/cli.cjs, that bin/payctl.js
// compiles through V8's code cache (start-up is measured by `npm run bench`). Commands and
// heavy dependencies stay lazy inside it: a module reached only through import() is wrapped
// by esbuild and runs only when its command does, and with the code cache its source is
// never even parsed. (esbuild splits code into chunks only for ES modules, and Node 20 can
// cache compiled code only for CommonJS: one bundle is what keeps both.) Earlier builds also
// made a bundle per top-level command and one for the program's help, which saved 0.6-4 ms a
// start for 2.4 MB of bundles and a guess in bin/payctl.js of which one to run; the code cache,
// kept per command (bin/payctl.js), is what pays (docs/performance.md).
// The bundle is written as the function bin/payctl.js calls (a CommonJS module's wrapper, and
// import.meta.url's value), so that the file is the very source V8 compiles: no copy of its
// megabyte to wrap it at every start. Its first line names its content hash: the code cache is
// keyed by it.
// Type-checking is `npm run typecheck` (tsc). The output is built in a fresh folder and
// swapped in with a rename, so a build never leaves a half-empty dist/ for a running process.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
// never happens. It also requires node:process, a builtin module of its own that only hands
// back the global process: the global is used. Only those lines of commander's source are
// rewritten; the build fails if a new commander no longer has them.
const lazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      let source = readFileSync(args.path, 'utf8');
      for (const [eager, lazy] of [
        ["const childProcess = require('node:child_process');", "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };"],
        ["const process = require('node:process');", 'const process = globalThis.process;'],
      ]) {
        if (!source.includes(eager)) throw new Error(`${args.path}: no "${eager}" to rewrite (scripts/build.mjs)`);
        source = source.replace(eager, lazy);
      }
      return { contents: source, loader: 'js' };
    });
  },
};

// Two builtins payctl's own modules import for a call most runs never make, but which Node
// loads with the module, at every start: node:module (it brings part of Node's ES module
// loader) for createRequire(import.meta.url), which in the bundle is the bundle's own require
// (bin/payctl.js makes it for dist/cli.cjs, the file import.meta.url names); and node:os for
// userInfo(), read only when HOME is unset, empty or relative (src/config/paths.ts). Each import from src/ gets a
// module with those names, which loads the builtin when first called; the build fails if src/
// imports another name from them.
const LAZY_BUILTINS = {
  'node:module': {
    createRequire: '(url) => (url === __payctl_meta.url ? require : require("node:module").createRequire(url))',
  },
  'node:os': {
    userInfo: '() => require("node:os").userInfo()',
    hostname: '() => require("node:os").hostname()',
    uptime: '() => require("node:os").uptime()',
    // webhooks listen --host 0.0.0.0 --forward-to: this machine's addresses (src/webhooks/addresses.ts).
    networkInterfaces: '() => require("node:os").networkInterfaces()',
  },
};
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:(module|os)$/ }, (args) =>
      args.importer.startsWith(join(root, 'src')) ? { path: args.path, namespace: 'payctl-lazy-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'payctl-lazy-builtin' }, (args) => ({
      contents: Object.entries(LAZY_BUILTINS[args.path])
        .map(([name, fn]) => `export const ${name} = ${fn};`)
        .join('\n'),
      loader: 'js',
    }));
  },
};

// undici requires node:http (with its client, server and parser: about a millisecond and a half
// of every run that makes a request) for two things only: IncomingMessage, to recognise one of
// its streams in destroy(), and http.maxHeaderSize, the default header-size limit, which is
// Node's --max-http-header-size. A stream made by node:http exists only once node:http is
// loaded, so the class is compared by name first and node:http required only for one of that
// name; the limit is read from node:http only when that option is given (on the command line or
// in NODE_OPTIONS), and is otherwise Node's default (NODE_HTTP_MAX_HEADER_SIZE, checked against
// node:http by test/e2e/startup-cache.test.ts). The build fails if a new undici no longer has
// these lines.
const NODE_HTTP_MAX_HEADER_SIZE = 16384;
const undiciWithoutHttp = {
  name: 'undici-without-node-http',
  setup(b) {
    const rewrites = {
      [join('undici', 'lib', 'core', 'util.js')]: [
        [
          "const { IncomingMessage } = require('node:http')",
          "const isIncomingMessage = (C) => typeof C === 'function' && C.name === 'IncomingMessage' && C === require('node:http').IncomingMessage",
        ],
        ['if (Object.getPrototypeOf(stream).constructor === IncomingMessage) {', 'if (isIncomingMessage(Object.getPrototypeOf(stream).constructor)) {'],
        // A search tree of the ~100 well-known header names, built at load (0.35 ms of every run
        // that makes a request), only to hand back a known name as the one lower-cased string
        // the record holds; without it, the name read as latin1 and lower-cased is that same
        // string (a known name is ASCII; the tree matches letters in either case).
        ["const { tree } = require('./tree')", 'const tree = { lookup: () => null }'],
      ],
      [join('undici', 'lib', 'dispatcher', 'client.js')]: [
        [
          "const http = require('node:http')",
          `const http = { get maxHeaderSize () { return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('max-http-header-size')) ? require('node:http').maxHeaderSize : ${NODE_HTTP_MAX_HEADER_SIZE} } }`,
        ],
      ],
    };
    b.onLoad({ filter: /[\\/]undici[\\/]lib[\\/](core[\\/]util|dispatcher[\\/]client)\.js$/ }, (args) => {
      const file = Object.keys(rewrites).find((f) => args.path.endsWith(f));
      if (!file) return undefined;
      let source = readFileSync(args.path, 'utf8');
      for (const [from, to] of rewrites[file]) {
        if (source.split(from).length !== 2) throw new Error(`${args.path}: no single "${from}" to rewrite (scripts/build.mjs)`);
        source = source.replace(from, to);
      }
      return { contents: source, loader: 'js' };
    });
  },
};

// undici's HTTP/1 client reads two tables of llhttp's constants (TYPE.RESPONSE, the ERROR
// codes); the module builds about thirty at load, maps of methods, statuses and characters
// (0.3-0.7 ms of every run that makes a request). The client gets those two, copied from the
// module at build time; the build fails if it reads any other.
const llhttpConstants = {
  name: 'llhttp-constants-used',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/llhttp\/constants\.js$/ }, (args) =>
      args.importer.endsWith(join('undici', 'lib', 'dispatcher', 'client-h1.js')) ? { path: args.importer, namespace: 'payctl-llhttp-constants' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'payctl-llhttp-constants' }, (args) => {
      // Every `constants.NAME` but the require's own path.
      const used = new Set(readFileSync(args.path, 'utf8').match(/\bconstants\.(?!js')[A-Za-z_]+/g) ?? []);
      const other = [...used].filter((u) => u !== 'constants.ERROR' && u !== 'constants.TYPE');
      if (other.length > 0) throw new Error(`${args.path} reads ${other.join(', ')} of llhttp's constants (scripts/build.mjs)`);
      const { ERROR, TYPE } = createRequire(import.meta.url)(join(root, 'node_modules', 'undici', 'lib', 'llhttp', 'constants.js'));
      return { contents: `module.exports = { ERROR: ${JSON.stringify(ERROR)}, TYPE: ${JSON.stringify(TYPE)} };`, loader: 'js' };
    });
  },
};

// Two parts of undici payctl never reaches, left out of the bundle (whose every kilobyte is read
// and its code cache deserialized at every start): the fetch API's body machinery (webidl,
// FormData and its parser, data: URLs; 42 KB), which the HTTP/1 client loads only to send a
// FormData body (payctl sends JSON text), and the SOCKS5 proxy agent (11 KB), for socks:// and
// socks5:// proxies, which payctl refuses before making a dispatcher (src/api/http.ts proxyFrom).
// Each is replaced by a module that throws if ever used; the build fails if undici no longer
// requires them where expected.
const UNREACHED = {
  [join('dispatcher', 'client-h1.js')]: ['../web/fetch/body.js', "{ extractBody () { throw new Error('payctl sends no FormData body (scripts/build.mjs)') } }"],
  [join('dispatcher', 'proxy-agent.js')]: [
    './socks5-proxy-agent',
    "class Socks5ProxyAgent { constructor () { throw new Error('payctl uses no SOCKS proxy (scripts/build.mjs)') } }",
  ],
};
const undiciUnreached = {
  name: 'undici-unreached',
  setup(b) {
    const seen = new Set();
    b.onResolve({ filter: /^(\.\.\/web\/fetch\/body\.js|\.\/socks5-proxy-agent)$/ }, (args) => {
      const file = Object.keys(UNREACHED).find((f) => args.importer.endsWith(join('undici', 'lib', f)));
      if (!file || UNREACHED[file][0] !== args.path) return undefined;
      seen.add(file);
      return { path: file, namespace: 'payctl-unreached' };
    });
    b.onLoad({ filter: /.*/, namespace: 'payctl-unreached' }, (args) => ({ contents: `module.exports = ${UNREACHED[args.path][1]};`, loader: 'js' }));
    b.onEnd((result) => {
      const missing = Object.keys(UNREACHED).filter((f) => !seen.has(f));
      if (result.errors.length === 0 && missing.length > 0)
        throw new Error(`undici no longer requires ${missing.map((f) => UNREACHED[f][0]).join(', ')} from ${missing.join(', ')} (scripts/build.mjs)`);
    });
  },
};

// undici's HTTP/1 parser is llhttp compiled to WebAssembly, which undici ships as base64 in
// JavaScript, twice (with SIMD, and without for machines that lack it). In the bundle the copy
// in use was a 72 KB string that V8 keeps in every code cache, and both were read at every
// start. They are written to dist/vendor/ as the bytes they decode to, and each is read from
// its file when undici first asks for it (at a run's first connection). The build fails if a
// new undici no longer has them.
const LLHTTP = { 'llhttp_simd-wasm.js': 'llhttp_simd.wasm', 'llhttp-wasm.js': 'llhttp.wasm' };
const llhttpFiles = {
  name: 'llhttp-from-files',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/llhttp\/llhttp(_simd)?-wasm\.js$/ }, (args) =>
      args.importer.includes(join('undici', 'lib')) ? { path: LLHTTP[args.path.slice('../llhttp/'.length)], namespace: 'payctl-llhttp' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'payctl-llhttp' }, (args) => ({
      contents: `module.exports = require('node:fs').readFileSync(__dirname + '/vendor/${args.path}');`,
      loader: 'js',
    }));
  },
};
/** The WebAssembly the bundles read (llhttpFiles), from undici's own modules. */
function writeLlhttp(dir) {
  const undici = join(root, 'node_modules', 'undici', 'lib', 'llhttp');
  for (const [js, wasm] of Object.entries(LLHTTP)) {
    const bytes = createRequire(import.meta.url)(join(undici, js));
    if (!Buffer.isBuffer(bytes) || bytes.subarray(0, 4).toString('latin1') !== '\0asm') throw new Error(`${join(undici, js)}: no WebAssembly module (scripts/build.mjs)`);
    writeFileSync(join(dir, wasm), bytes);
  }
}

// Three dependencies only some commands load, each a bundle of its own in dist/vendor/, required
// when first imported: conf with its JSON-schema validator, for writing the config; the
// prompts with their encodings, at a terminal; and pg, the PostgreSQL client, for a shared
// ledger. Every run reads the main bundle, and half its size was conf's and the prompts'. Each
// is given to payctl as a CommonJS module whose exports are what payctl imports (conf's default
// export; the prompts' named exports; pg's exports), and none shares a module with payctl's own
// code. pg as npm installs it is 30 files found one by one, and at load it asks whether it runs
// in a Cloudflare Worker by making a web Response, which loads Node's fetch with its HTTP
// client: 50-70 ms of every run that opens a shared ledger. Bundled, with that question
// answered (payctl runs on Node), it loads in a few. pg-native, pg's optional native binding,
// is left to be required if ever named.
const VENDOR = {
  conf: "module.exports = require('conf').default;",
  '@inquirer/prompts': "module.exports = require('@inquirer/prompts');",
  pg: "module.exports = require('pg');",
};
const vendorFile = (name) => `vendor/${name.replace(/^@/, '').replace(/\//g, '-')}.cjs`;
const vendored = {
  name: 'vendored',
  setup(b) {
    b.onResolve({ filter: /^(conf|@inquirer\/prompts|pg)$/ }, (args) => ({ path: `./${vendorFile(args.path)}`, external: true }));
  },
};
// The one line of pg's source rewritten (the build fails if a new pg no longer has it).
const pgOnNode = {
  name: 'pg-on-node',
  setup(b) {
    b.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const probe = "if (typeof Response === 'function') {";
      if (!source.includes(probe)) throw new Error(`${args.path}: no "${probe}" to rewrite (scripts/build.mjs)`);
      return { contents: source.replace(probe, 'if (false) {'), loader: 'js' };
    });
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
  // Short local names: 663 KB of bundle instead of 904 KB, and a smaller code cache to read at
  // every start (`--help`'s 305 KB instead of 353 KB): `--help` 4.8 ms sooner, interleaved
  // (docs/performance.md). Nothing in payctl reads a function's or class's name.
  minifyIdentifiers: true,
  legalComments: 'linked',
  logLevel: 'warning',
};

// bin/payctl.js reads the hash after it (its first line) and calls the function the file evaluates to.
const WRAPPER = '(function (exports, require, module, __filename, __dirname, __payctl_meta) {';

/**
 * Node gives a latin1 text read from a file longer than 1,031,913 bytes (its EXTERN_APEX) as an
 * external string, outside V8's heap; a shorter one is copied into the young generation, where a
 * 1 MB bundle is most of what a short run may allocate before its first collection. At 1,018 KB
 * the bundle made `balances --json` collect three times instead of two (`--trace-gc`, 6 runs of 6)
 * and took 2.6 ms longer (41 interleaved rounds, 58.8 against 56.2 ms): a bundle shorter than that
 * ends in a comment of spaces that takes it past it. Nothing else reads the padding.
 */
const EXTERN_APEX = 0xfbee9;
function externalPadding(length) {
  const short = EXTERN_APEX + 64 - (length + 4);
  return short > 0 ? `//${' '.repeat(short)}\n` : '';
}

const out = join(root, `dist.build-${process.pid}`);
const old = join(root, `dist.old-${process.pid}`);

const main = {
  ...common,
  entryPoints: ['src/cli.ts'],
  plugins: [noHttp2, undiciLazyAssert, undiciWithoutHttp, llhttpConstants, undiciUnreached, llhttpFiles, lazyChildProcess, lazyBuiltins, vendored],
  // import() of a vendor bundle becomes require(): the bundle runs as a script, where Node 20
  // has no loader for import().
  supported: { 'dynamic-import': false },
  // The sources are ES modules: import.meta.url is the bundle's file URL, which bin/payctl.js
  // passes beside __filename to the function it wraps the bundle in (as a getter: few runs
  // read it). The version is written in, so that no run reads package.json for it
  // (src/program.ts, version()).
  define: { 'import.meta.url': '__payctl_meta.url', __PAYCTL_VERSION__: JSON.stringify(pkg.version) },
};

try {
  mkdirSync(join(out, 'vendor'), { recursive: true });
  const bundles = [await build({ ...main, outfile: join(out, 'cli.cjs') })];
  const vendor = await Promise.all(
    Object.entries(VENDOR).map(([name, contents]) =>
      build({
        ...common,
        stdin: { contents, resolveDir: root, sourcefile: `${name}.cjs`, loader: 'js' },
        external: ['pg-native'],
        plugins: [pgOnNode],
        outfile: join(out, vendorFile(name)),
      }),
    ),
  );
  for (const file of vendor.flatMap((r) => r.outputFiles)) writeFileSync(file.path, file.contents);
  writeLlhttp(join(out, 'vendor'));
  for (const file of bundles.flatMap((r) => r.outputFiles)) {
    if (!file.path.endsWith('.cjs')) {
      writeFileSync(file.path, file.contents);
      continue;
    }
    const hash = createHash('sha256').update(file.contents).digest('hex').slice(0, 16);
    const text = `${WRAPPER}// payctl-build ${hash}\n${file.text}\n`;
    writeFileSync(file.path, `${text}${externalPadding(text.length)}})`);
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
