#!/usr/bin/env node
// Entry point, CommonJS (bin/package.json): answer --version, else run dist/cli.cjs compiled
// through V8's code cache, flush, exit with the code. CommonJS because an ES module entry
// makes every start set up Node's ES module loader, and because Node 20 can reuse compiled
// code only for scripts (vm.Script cachedData; it has no module.enableCompileCache).
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS file (bin/package.json): require() is how it loads */

const args = process.argv.slice(2);
// The command's word, as far as a glance can tell (the first plain word that is not the value
// of the program's options -p, --profile, --base-url, --timeout): names the bundle to load and
// its code cache. Only a guess: the bundle says whether it serves the words (src/program.ts, covers).
const word = args.find((a, i) => /^[a-z]{1,24}$/.test(a) && !/^(-p|--profile|--base-url|--timeout)$/.test(args[i - 1] ?? '')) ?? 'none';
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // The version needs nothing else: answer before loading the CLI, written straight to the
  // file descriptor (making process.stdout loads Node's stream modules, most of this answer's
  // time); through the stream only if the descriptor is non-blocking and full, and quietly
  // not at all to a reader that went away.
  const fs = require('node:fs');
  const line = JSON.parse(fs.readFileSync(`${__dirname}/../package.json`, 'utf8')).version + '\n';
  try {
    fs.writeSync(1, line);
  } catch (err) {
    if (err.code === 'EAGAIN') process.stdout.write(line);
    else if (err.code !== 'EPIPE') throw err;
  }
} else {
  // A reader that went away (`payctl payouts list --all | head`) ends the run quietly, as in
  // any pipeline; anything payctl had to record was journaled before it printed.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  // Node makes process.stderr on first use, and a pipe's stream costs a few ms (node:net and
  // its socket) that a run writing nothing there (--help, balances --json) need not pay: the
  // guard is attached when the stream is made, and only a stream that was made is drained.
  const made = Object.getOwnPropertyDescriptor(process, 'stderr');
  let stderr;
  if (made?.get && made.configurable) {
    Object.defineProperty(process, 'stderr', {
      configurable: true,
      enumerable: made.enumerable,
      get() {
        if (stderr === undefined) {
          stderr = made.get.call(process);
          stderr.on('error', () => {});
        }
        return stderr;
      },
    });
  } else {
    stderr = process.stderr;
    stderr.on('error', () => {});
  }
  // A top-level command that is no group has a bundle of its own (dist/cli-balances.cjs), built
  // without the other commands' code, and so has the program's help (dist/cli-none.cjs, for
  // words that name no command) (scripts/build.mjs). The bundle says whether it serves these
  // words (a value such as `--profile status` can look like a command), and the whole bundle,
  // dist/cli.cjs, runs any it does not.
  const dist = require('node:path').join(__dirname, '..', 'dist');
  let cli = load(`${dist}/cli-${word}.cjs`, true);
  if (cli !== undefined && !cli.exports.covers(args)) cli = undefined;
  cli ??= load(`${dist}/cli.cjs`);
  // main is told that the process ends when it resolves (src/cli.ts, Seams.exits).
  void cli.exports.main(process, { exits: true }).then(async (code) => {
    if (code === 0) cli.saveCache();
    // Let stdout and stderr drain (pipes are asynchronous) before exiting.
    const streams = stderr === undefined ? [process.stdout] : [process.stdout, stderr];
    await Promise.all(streams.map((s) => new Promise((resolve) => s.write('', resolve))));
    process.exit(code);
  });
}

/**
 * Compiles and runs a bundle as Node runs a CommonJS module, with V8's compiled code from
 * the last run of the same command when there is one (`optional`: undefined when there is no
 * such bundle). The cache is only ever a shortcut: it is named by the bundle's name and
 * content hash (its first line, written by scripts/build.mjs), Node's version and the
 * platform; V8 refuses one made by another V8, with other flags or for a source of another
 * length, and with --verify-snapshot-checksum a damaged one (that flag makes V8 checksum the
 * caches it writes and check them when it reads: without it, a corrupt cache can crash the
 * process). A cache that is missing, refused or unreadable means the source is compiled as
 * without one, and a new cache is written after a successful run, to a temp file renamed
 * into place, beside the bundle or else in the user's cache folder; where neither can be
 * written (a read-only install, no home), payctl just runs uncached.
 */
function load(filename, optional = false) {
  const fs = require('node:fs');
  const path = require('node:path');
  const v8 = require('node:v8');
  // The V8 flags set here change the hash V8 checks code caches against, Node's own included:
  // a builtin module loaded after them is compiled from its source, and so are its functions
  // when first called (`balances --json` took 5 ms more; node:crypto with node:fs/promises,
  // 4 ms from Node's cache, took 11). So the builtins a run will load are loaded first: every
  // command's run loads node:tty (with node:net and node:stream), and the commands that journal
  // or sign payouts node:crypto and node:fs/promises. (Loading one a run does not use costs its
  // cached load time; leaving one out, only speed.)
  require('node:vm');
  if (word !== 'none') require('node:tty');
  if (word === 'payout' || word === 'plan' || word === 'history') {
    require('node:crypto');
    require('node:fs/promises');
  }
  // The flags are part of what V8 checks a cache against: set before compiling, every run.
  // --liftoff-only: see src/api/http.ts (undici's WebAssembly parser stays on the baseline compiler).
  v8.setFlagsFromString('--liftoff-only');
  v8.setFlagsFromString('--verify-snapshot-checksum');
  if (word === 'payout' || word === 'plan' || word === 'payouts') {
    // A batch (payout batch, plan send) makes garbage at every row and keeps a little per row:
    // V8's defaults, made for servers, let its young generation grow to 32 MB and its old one
    // grow by up to four times what survives, and a 10,000-row batch peaked at 130-150 MB of
    // memory. Kept at its start size and grown by 30% at a time, it peaks under 100 MB for
    // about the same CPU (`npm run bench`). `payouts list --all` reads a page of answers after
    // another: with the defaults, the socket's read buffers of pages already written waited
    // for a collection that a large young generation made rare (120 MB at 100,000 records);
    // with these, 70 MB. Both flags are read when the heap grows, so they apply though the
    // heap is already made; the code cache is per command word, made with the same flags.
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    v8.setFlagsFromString('--heap-growing-percent=30');
  }
  // The bundle is ASCII (esbuild's charset: 'ascii'): latin1 is the cheapest exact decoding.
  // It is written as the function to call, wrapper included (scripts/build.mjs): compiled as
  // read, without a copy.
  let source;
  try {
    source = fs.readFileSync(filename, 'latin1');
  } catch (err) {
    if (optional && err.code === 'ENOENT') return undefined;
    throw err;
  }
  const header = /^\(function \(exports, require, module, __filename, __dirname, __payctl_meta\) \{\/\/ payctl-build ([0-9a-f]{16})\n/.exec(source.slice(0, 128));
  const base = path.basename(filename, '.cjs');
  const prefix = header && `${base}-${header[1]}-${process.version}-${process.arch}-`;
  // A run that shows a command's help compiles little of it: its cache is kept apart, so that
  // `payctl balances --help` run first does not leave `payctl balances` a cache without its code.
  const help = args.some((a) => a === '-h' || a === '--help');
  const name = prefix && `${prefix}${word}${help ? '+help' : ''}.v8`;
  const dirs = [path.join(path.dirname(filename), '.cache')];
  const home = process.env.XDG_CACHE_HOME || (process.env.HOME && path.join(process.env.HOME, '.cache'));
  if (home && path.isAbsolute(home)) dirs.push(path.join(home, 'payctl'));
  let cachedData;
  for (const dir of name ? dirs : []) {
    try {
      cachedData = fs.readFileSync(path.join(dir, name));
      break;
    } catch {
      // not there: the next folder, or none
    }
  }
  const vm = require('node:vm');
  const script = new vm.Script(source, { filename, cachedData });
  const mod = { exports: {} };
  // The bundle's require: builtins through this file's own; anything else (./vendor/*.cjs, the
  // keyring's native module) resolved against dist/, by a require made on first use (making
  // one, as module.constructor.createRequire, costs a start that needs none). And its
  // import.meta.url, made when first read.
  let fromDist;
  const bundleRequire = (id) => (id.startsWith('node:') ? require(id) : (fromDist ??= module.constructor.createRequire(filename))(id));
  let url;
  const meta = {
    get url() {
      return (url ??= require('node:url').pathToFileURL(filename).href);
    },
  };
  script.runInThisContext().call(mod.exports, mod.exports, bundleRequire, mod, filename, path.dirname(filename), meta);
  const saveCache = () => {
    if (!name || (cachedData !== undefined && !script.cachedDataRejected)) return;
    let data;
    try {
      data = script.createCachedData();
    } catch {
      return;
    }
    // Caches of this bundle from other builds or Node versions (not those of the other bundles).
    const stale = new RegExp(`^${base}-[0-9a-f]{16}-.*\\.v8$`);
    for (const dir of dirs) {
      const tmp = path.join(dir, `${name}.${process.pid}.tmp`);
      try {
        fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
        fs.writeFileSync(tmp, data, { mode: 0o644 });
        fs.renameSync(tmp, path.join(dir, name));
        for (const f of fs.readdirSync(dir)) if (stale.test(f) && !f.startsWith(prefix)) fs.rmSync(path.join(dir, f), { force: true });
        return;
      } catch {
        try {
          fs.rmSync(tmp, { force: true });
        } catch {
          // nothing was written there
        }
      }
    }
  };
  return { exports: mod.exports, saveCache };
}
