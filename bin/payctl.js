#!/usr/bin/env node
// Entry point, CommonJS (bin/package.json): answer --version, else run dist/cli.cjs compiled
// through V8's code cache, flush, exit with the code. CommonJS because an ES module entry
// makes every start set up Node's ES module loader, and because Node 20 can reuse compiled
// code only for scripts (vm.Script cachedData; it has no module.enableCompileCache).
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS file (bin/package.json): require() is how it loads */

const args = process.argv.slice(2);
// The name of the code cache to use: the first plain word that is not the value of the
// program's options -p, --profile, --base-url, --timeout (`balances`, `payout`). It only names
// a cache, so a wrong reading costs speed, never behaviour: a cache made by another command
// holds little of this one's code (`balances --json` 14 ms slower with `history`'s), and a
// command's own cache is what makes the bundle start fast (docs/performance.md).
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
    else if (err.code !== 'EPIPE') {
      // As any command says it (src/cli.ts), never a stack trace: `payctl --version > /dev/full`.
      const words = { ENOSPC: 'no space left on device', EDQUOT: 'the disk quota is exceeded', EBADF: 'standard output is closed' };
      const why = words[err.code] ? `${words[err.code]} (${err.code})` : String(err.code || err.message);
      try {
        fs.writeSync(
          2,
          `Error: The output could not be written: ${why}; what was printed is incomplete.\nNothing was sent. Free the space, or write the output elsewhere, and run the same command again.\n`,
        );
      } catch {
        // stderr refused too: the exit code says it
      }
      process.exitCode = 1;
    }
  }
} else {
  // Node makes process.stdout and process.stderr on first use, and a pipe's stream costs a few
  // ms (node:net and its socket) that a run need not pay: stdout's first kilobytes are written
  // straight to the descriptor (src/output/direct-stdout.ts), and `balances --json` writes
  // nothing to stderr. Each stream's guard is attached when the stream is made, and only a
  // stream that was made is drained. A reader that went away (`payctl payouts list --all |
  // head`) ends the run quietly, as in any pipeline; anything payctl had to record was
  // journaled before it printed.
  const made = { stdout: undefined, stderr: undefined };
  const guards = {
    stdout: (err) => {
      if (err.code === 'EPIPE') process.exit(0);
    },
    stderr: () => {},
  };
  for (const name of ['stdout', 'stderr']) {
    const own = Object.getOwnPropertyDescriptor(process, name);
    if (own?.get && own.configurable) {
      Object.defineProperty(process, name, {
        configurable: true,
        enumerable: own.enumerable,
        get() {
          if (made[name] === undefined) {
            made[name] = own.get.call(process);
            made[name].on('error', guards[name]);
          }
          return made[name];
        },
      });
    } else {
      made[name] = process[name];
      made[name].on('error', guards[name]);
    }
  }
  const cli = load(require('node:path').join(__dirname, '..', 'dist', 'cli.cjs'));
  // main is told that the process ends when it resolves (src/cli.ts, Seams.exits).
  void cli.exports.main(process, { exits: true }).then(async (code) => {
    if (code === 0) cli.saveCache();
    // Let stdout and stderr drain (pipes are asynchronous) before exiting.
    const streams = [made.stdout, made.stderr].filter((s) => s !== undefined);
    await Promise.all(streams.map((s) => new Promise((resolve) => s.write('', resolve))));
    process.exit(code);
  });
}

/**
 * Compiles and runs the bundle as Node runs a CommonJS module, with V8's compiled code from
 * the last run of the same command when there is one. The cache is only ever a shortcut: it
 * is named by the bundle's content hash (its first line, written by scripts/build.mjs), Node's
 * version and the platform; V8 refuses one made by another V8, with other flags or for a
 * source of another length, and with --verify-snapshot-checksum a damaged one (that flag makes
 * V8 checksum the caches it writes and check them when it reads: without it, a corrupt cache
 * can crash the process). A cache that is missing, refused or unreadable means the source is
 * compiled as without one, and a new cache is written after a successful run, to a temp file
 * renamed into place, beside the bundle or else in the user's cache folder; where neither can
 * be written (a read-only install, no home), payctl just runs uncached.
 *
 * A cache file starts with one line, `payctl-cache <builtins>`: the Node builtins the run that
 * wrote it required from the bundle. They are loaded before V8's flags are set: a flag set at
 * run time changes the hash V8 checks code caches against, Node's own included, so a builtin
 * loaded after it is compiled from its source, and so are its functions when first called
 * (node:crypto with node:fs/promises, 4 ms from Node's cache, took 11 for a payout). Each
 * command's cache so says what that command needs, and no list here has to.
 */
function load(filename) {
  const fs = require('node:fs');
  const path = require('node:path');
  const v8 = require('node:v8');
  const vm = require('node:vm');
  // The bundle is ASCII (esbuild's charset: 'ascii'): latin1 is the cheapest exact decoding.
  // It is written as the function to call, wrapper included (scripts/build.mjs): compiled as
  // read, without a copy.
  const source = fs.readFileSync(filename, 'latin1');
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
  let preloaded = '';
  for (const dir of name ? dirs : []) {
    let file;
    try {
      file = fs.readFileSync(path.join(dir, name));
    } catch {
      continue; // not there: the next folder, or none
    }
    const end = file.indexOf(10);
    const line = end > 0 && end < 1024 ? /^payctl-cache ((?:node:[a-z_/]+,?)*)$/.exec(file.toString('latin1', 0, end)) : null;
    try {
      for (const id of line ? line[1].split(',') : []) if (id) require(id);
    } catch {
      break; // a builtin this Node does not have: the cache is not used, and is replaced
    }
    if (line) {
      preloaded = line[1].split(',').sort().join(',');
      cachedData = file.subarray(end + 1);
    }
    break;
  }
  // The flags are part of what V8 checks a cache against: set before compiling, every run.
  // --liftoff-only: see src/api/http.ts (undici's WebAssembly parser stays on the baseline compiler).
  v8.setFlagsFromString('--liftoff-only');
  v8.setFlagsFromString('--verify-snapshot-checksum');
  // A batch (payout batch, plan send) makes garbage at every row and keeps a little per row:
  // V8's defaults, made for servers, let its young generation grow to 32 MB and its old one
  // grow by up to four times what survives, and a 10,000-row batch peaked at 130-150 MB of
  // memory. Kept at its start size and grown by 30% at a time, it peaks under 100 MB for
  // about the same CPU (`npm run bench`). `payouts list --all` reads a page of answers after
  // another: with the defaults, the socket's read buffers of pages already written waited
  // for a collection that a large young generation made rare (120 MB at 100,000 records);
  // with these, 70 MB. Both flags are read when the heap grows, so they apply though the
  // heap is already made; for every run, since a short one hardly grows its heap (0.8 ms of
  // `balances --json`, within the noise).
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  v8.setFlagsFromString('--heap-growing-percent=30');
  const script = new vm.Script(source, { filename, cachedData });
  // V8 has taken what it needs from the cache: its buffer (1 MB for `payout`) is not kept
  // alive for the whole run by saveCache below.
  const hadCache = cachedData !== undefined;
  cachedData = undefined;
  const mod = { exports: {} };
  // The bundle's require: builtins through this file's own, each noted for the cache's first
  // line; anything else (./vendor/*.cjs, the keyring's native module) resolved against dist/,
  // by a require made on first use (making one, as module.constructor.createRequire, costs a
  // start that needs none). And its import.meta.url, made when first read.
  const builtins = new Set();
  let fromDist;
  const bundleRequire = (id) => {
    if (!id.startsWith('node:')) return (fromDist ??= module.constructor.createRequire(filename))(id);
    builtins.add(id);
    return require(id);
  };
  let url;
  const meta = {
    get url() {
      return (url ??= require('node:url').pathToFileURL(filename).href);
    },
  };
  script.runInThisContext().call(mod.exports, mod.exports, bundleRequire, mod, filename, path.dirname(filename), meta);
  const saveCache = () => {
    // The builtins this run needed, with those the cache already preloads, sorted: commands
    // under one word (payout create, get and batch) need different builtins, and each had
    // rewritten the word's megabyte of cache in turn (28 times in one test run), its next start
    // loading the other's builtins from source. A cache is rewritten only for a builtin it did
    // not preload, and then for all of them: it settles after each command has run once.
    const needs = [...new Set([...builtins, ...(preloaded ? preloaded.split(',') : [])])]
      .filter((id) => /^node:[a-z_/]+$/.test(id))
      .sort()
      .join(',');
    if (!name || (hadCache && !script.cachedDataRejected && needs === preloaded)) return;
    let data;
    try {
      data = Buffer.concat([Buffer.from(`payctl-cache ${needs}\n`, 'latin1'), script.createCachedData()]);
    } catch {
      return;
    }
    // Caches of this bundle from other builds for this Node version and platform (another
    // Node's caches stay: one install run by two Node versions keeps a cache for each).
    const stale = new RegExp(`^${base}-[0-9a-f]{16}-${`${process.version}-${process.arch}-`.replace(/\./g, '\\.')}.*\\.v8$`);
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
