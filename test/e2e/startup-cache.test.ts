/**
 * The start-up path of the built binary: --version without the CLI, and V8's code cache of
 * dist/cli.cjs (bin/payctl.js), which is only ever a shortcut: a damaged, stale or
 * unwritable cache changes nothing but speed. Each case runs a copy of the install in a
 * temp folder, so its cache starts empty and can be broken at will.
 */
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv } from '../helpers/cli.js';
import { newKey } from '../helpers/e2e.js';
import { useSandbox } from '../helpers/sandbox.js';

const ROOT = resolve(__dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A copy of the installed package (bin, dist, package.json; node_modules linked). */
function install(): { dir: string; bin: string; cacheDir: string; bundle: string } {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-install-'));
  temps.push(dir);
  mkdirSync(join(dir, 'bin'));
  for (const f of ['payctl.js', 'package.json']) copyFileSync(join(ROOT, 'bin', f), join(dir, 'bin', f));
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.cache') });
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return { dir, bin: join(dir, 'bin', 'payctl.js'), cacheDir: join(dir, 'dist', '.cache'), bundle: join(dir, 'dist', 'cli.cjs') };
}

/** A home of its own, so no cache from another run is found there. */
function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-home-'));
  temps.push(dir);
  return dir;
}

function run(bin: string, args: string[], env: Record<string, string | undefined> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { env: cliEnv(undefined, { HOME: home(), XDG_CACHE_HOME: undefined, ...env }), encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const caches = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.v8')) : []);

/** The help of the program and of a command: what a run through the cache must still print. */
const expected = run(BIN, ['--help']);
const expectedCreate = run(BIN, ['payout', 'create', '--help']);

/** A cache file's first line (bin/payctl.js): the builtins its run required from the bundle. */
const firstLine = (file: string) => {
  const bytes = readFileSync(file);
  return bytes.toString('latin1', 0, bytes.indexOf(10));
};

describe('--version', () => {
  it("prints package.json's version and nothing else", () => {
    for (const flag of ['--version', '-V']) {
      const r = run(BIN, [flag]);
      expect(r).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  it('is the version payctl reports elsewhere (the user agent comes from the same package.json)', () => {
    const r = run(BIN, ['--version', '--json']);
    // Not the early answer (two arguments): the bundle's --version, as JSON under --json (probe C53, 7).
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ version: VERSION });
  });
});

describe('the code cache', () => {
  it('is written beside the bundle after a successful run, then used as it is', () => {
    expect(expected.code).toBe(0);
    expect(expected.stdout).toMatch(/^Usage: payctl/);
    const i = install();
    expect(run(i.bin, ['--help'])).toEqual(expected);
    const [file] = caches(i.cacheDir);
    expect(file).toMatch(/^cli-[0-9a-f]{16}-v\d+\.\d+\.\d+-\w+-none\+help\.v8$/);
    const written = statSync(join(i.cacheDir, file!));
    expect(run(i.bin, ['--help'])).toEqual(expected);
    // Accepted by V8, so not written again.
    expect(statSync(join(i.cacheDir, file!)).mtimeMs).toBe(written.mtimeMs);
    expect(readFileSync(join(i.cacheDir, file!)).length).toBe(written.size);
    // A command of its own has a cache of its own; a failed run writes none.
    expect(run(i.bin, ['payout', 'create', '--help'])).toEqual(expectedCreate);
    expect(run(i.bin, ['nosuchcommand']).code).toBe(2);
    expect(
      caches(i.cacheDir)
        .map((f) => f.replace(/^.*-/, ''))
        .sort(),
    ).toEqual(['none+help.v8', 'payout+help.v8']);
  });

  it('falls back to compiling when the cache is corrupt, empty or garbage, and replaces it', () => {
    const i = install();
    expect(run(i.bin, ['--help']).code).toBe(0);
    const [file] = caches(i.cacheDir);
    const path = join(i.cacheDir, file!);
    const good = readFileSync(path);
    const flipped = Buffer.from(good);
    for (let k = flipped.length >> 1; k < (flipped.length >> 1) + 256; k++) flipped[k]! ^= 0x5a;
    for (const bad of [flipped, Buffer.alloc(0), Buffer.from('not a code cache'), good.subarray(0, good.length >> 1)]) {
      writeFileSync(path, bad);
      expect(run(i.bin, ['--help'])).toEqual(expected);
      const now = readFileSync(path);
      expect(now.equals(bad)).toBe(false);
      expect(now.length).toBeGreaterThan(1000);
    }
  });

  it("falls back when the cache was made for another source under this build's name (stale)", () => {
    const other = install();
    // The same header (so the same cache name) over a different bundle: what a hand-edited dist/ would be.
    writeFileSync(other.bundle, readFileSync(other.bundle, 'latin1') + '\n// edited\n', 'latin1');
    expect(run(other.bin, ['--help'])).toEqual(expected);
    const [file] = caches(other.cacheDir);
    const i = install();
    mkdirSync(i.cacheDir);
    copyFileSync(join(other.cacheDir, file!), join(i.cacheDir, file!));
    expect(run(i.bin, ['--help'])).toEqual(expected);
    expect(readFileSync(join(i.cacheDir, file!)).equals(readFileSync(join(other.cacheDir, file!)))).toBe(false);
  });

  it("keeps a command's help apart: its cache does not stand in for the command's own run", () => {
    const i = install();
    const config = { PAYCTL_CONFIG_DIR: join(i.dir, 'config') };
    expect(run(i.bin, ['history', '--help'], config).code).toBe(0);
    expect(run(i.bin, ['history', '--json'], config)).toMatchObject({ code: 0, stdout: '{"data":[],"count":0}\n' });
    expect(
      caches(i.cacheDir)
        .map((f) => f.replace(/^.*-/, ''))
        .sort(),
    ).toEqual(['history+help.v8', 'history.v8']);
  });

  it("ignores a cache of another build and removes it when it writes its own, but keeps another Node version's", () => {
    const i = install();
    mkdirSync(i.cacheDir);
    const otherBuild = `cli-0123456789abcdef-${process.version}-${process.arch}-none+help.v8`;
    const otherNode = `cli-0123456789abcdef-v99.0.0-${process.arch}-none+help.v8`;
    for (const f of [otherBuild, otherNode]) writeFileSync(join(i.cacheDir, f), 'old build');
    expect(run(i.bin, ['--help'])).toEqual(expected);
    expect(existsSync(join(i.cacheDir, otherBuild))).toBe(false);
    // One install run by two Node versions keeps a cache for each.
    expect(existsSync(join(i.cacheDir, otherNode))).toBe(true);
    expect(caches(i.cacheDir)).toHaveLength(2);
  });

  it("uses the user's cache folder when the install cannot be written", () => {
    const i = install();
    writeFileSync(i.cacheDir, 'a file where the cache folder would be');
    const xdg = home();
    expect(run(i.bin, ['--help'], { XDG_CACHE_HOME: xdg })).toEqual(expected);
    const [file] = caches(join(xdg, 'payctl'));
    expect(file).toMatch(/-none\+help\.v8$/);
    const written = statSync(join(xdg, 'payctl', file!)).mtimeMs;
    expect(run(i.bin, ['--help'], { XDG_CACHE_HOME: xdg })).toEqual(expected);
    expect(statSync(join(xdg, 'payctl', file!)).mtimeMs).toBe(written);
  });

  it('runs without any cache where nothing can be written (a read-only install, no home)', () => {
    const i = install();
    writeFileSync(i.cacheDir, 'a file where the cache folder would be');
    const blocked = join(home(), 'file');
    writeFileSync(blocked, '');
    for (let k = 0; k < 2; k++) {
      expect(run(i.bin, ['--help'], { XDG_CACHE_HOME: blocked, HOME: blocked })).toEqual(expected);
      expect(run(i.bin, ['payout', 'create', '--help'], { XDG_CACHE_HOME: undefined, HOME: undefined })).toEqual(expectedCreate);
    }
    expect(readFileSync(i.cacheDir, 'utf8')).toBe('a file where the cache folder would be');
    expect(readdirSync(join(i.dir, 'dist')).filter((f) => f.endsWith('.v8'))).toEqual([]);
  });
});

describe("the cache's first line: the builtins its command required", () => {
  it('lists what the run required from the bundle (a payout journal: node:crypto; no terminal: no node:tty), and is kept while it holds', () => {
    const i = install();
    const config = { PAYCTL_CONFIG_DIR: join(i.dir, 'config') };
    expect(run(i.bin, ['history', '--json'], config)).toMatchObject({ code: 0, stdout: '{"data":[],"count":0}\n' });
    expect(run(i.bin, ['--help'])).toEqual(expected);
    const [history] = caches(i.cacheDir).filter((f) => f.endsWith('-history.v8'));
    const [help] = caches(i.cacheDir).filter((f) => f.endsWith('-none+help.v8'));
    const historyNeeds = firstLine(join(i.cacheDir, history!)).split(/[ ,]/);
    expect(historyNeeds[0]).toBe('payctl-cache');
    expect(historyNeeds).toEqual(expect.arrayContaining(['node:crypto', 'node:fs/promises']));
    // Its stdin, stdout and stderr are pipes: fstat says they are no terminals, without
    // node:tty (which brings node:net).
    expect(historyNeeds).not.toContain('node:tty');
    expect(firstLine(join(i.cacheDir, help!))).toMatch(/^payctl-cache (node:[a-z_/]+,?)*$/);
    expect(firstLine(join(i.cacheDir, help!))).not.toContain('node:tty');
    // Nor the journal's (node:crypto, node:fs/promises): a command's spec that imported its run
    // (team-specs.ts once took a constant from team.ts, and with it the ledger) loaded them for
    // every start, 5 ms of `--help` and 6 of `balances --json`.
    expect(firstLine(join(i.cacheDir, help!))).not.toMatch(/node:crypto|node:fs\/promises/);
    // Used as it is: not written again.
    const written = statSync(join(i.cacheDir, history!)).mtimeMs;
    expect(run(i.bin, ['history', '--json'], config).code).toBe(0);
    expect(statSync(join(i.cacheDir, history!)).mtimeMs).toBe(written);
    // The same builtins in another order (as two commands under one word, payout create and
    // payout batch, require them): the same cache, not rewritten.
    const bytes = readFileSync(join(i.cacheDir, history!));
    const reversed = `payctl-cache ${historyNeeds.slice(1).reverse().join(',')}\n`;
    writeFileSync(join(i.cacheDir, history!), Buffer.concat([Buffer.from(reversed, 'latin1'), bytes.subarray(bytes.indexOf(10) + 1)]));
    const rewrittenAt = statSync(join(i.cacheDir, history!)).mtimeMs;
    expect(run(i.bin, ['history', '--json'], config).code).toBe(0);
    expect(statSync(join(i.cacheDir, history!)).mtimeMs).toBe(rewrittenAt);
    expect(firstLine(join(i.cacheDir, history!))).toBe(reversed.trimEnd());
    // A cache that preloads more than this run needs (made by another command under the same
    // word): used as it is, not rewritten for the command that needs less.
    const withLine = (line: string) =>
      writeFileSync(join(i.cacheDir, history!), Buffer.concat([Buffer.from(`${line}\n`, 'latin1'), bytes.subarray(bytes.indexOf(10) + 1)]));
    const more = `payctl-cache ${[...historyNeeds.slice(1), 'node:zlib'].sort().join(',')}`;
    withLine(more);
    const moreAt = statSync(join(i.cacheDir, history!)).mtimeMs;
    expect(run(i.bin, ['history', '--json'], config).code).toBe(0);
    expect(statSync(join(i.cacheDir, history!)).mtimeMs).toBe(moreAt);
    expect(firstLine(join(i.cacheDir, history!))).toBe(more);
    // One that lacks a builtin the run needed: rewritten once, preloading both commands' needs.
    withLine(`payctl-cache ${[...historyNeeds.slice(1).filter((id) => id !== 'node:crypto'), 'node:zlib'].sort().join(',')}`);
    expect(run(i.bin, ['history', '--json'], config).code).toBe(0);
    expect(firstLine(join(i.cacheDir, history!))).toBe(more);
  });

  it('reads that take no lock and read one page (balances, payouts list) require no node:crypto: it cost each start 2-4 ms', async () => {
    const i = install();
    // Asynchronously: the sandbox answers from this process.
    const env = cliEnv(undefined, { HOME: home(), XDG_CACHE_HOME: undefined, PAYCTL_CONFIG_DIR: join(i.dir, 'config'), PAYCTL_API_KEY: KEY });
    for (const [word, args] of [
      ['balances', ['balances']],
      ['payouts', ['payouts', 'list', '--limit', '3']],
    ] as const) {
      const r = await new Promise<{ code: number; stdout: string }>((done) => {
        execFile(process.execPath, [i.bin, ...args, '--json', '--base-url', ctx.sb.baseUrl], { env, encoding: 'utf8' }, (err, stdout) =>
          done({ code: err ? Number(err.code) : 0, stdout }),
        );
      });
      expect(r.code, word).toBe(0);
      expect(JSON.parse(r.stdout).data, word).toBeTruthy();
      const [cache] = caches(i.cacheDir).filter((f) => f.endsWith(`-${word}.v8`));
      const needs = firstLine(join(i.cacheDir, cache!)).split(/[ ,]/);
      expect(needs, word).toEqual(expect.arrayContaining(['payctl-cache', 'node:net']));
      expect(needs, word).not.toContain('node:crypto');
    }
  });

  it('a first line that names no builtin, or one this Node lacks, or that is not ours: the cache is not used, and is replaced', () => {
    const i = install();
    expect(run(i.bin, ['--help']).code).toBe(0);
    const [file] = caches(i.cacheDir);
    const path = join(i.cacheDir, file!);
    const good = readFileSync(path);
    const v8 = good.subarray(good.indexOf(10) + 1);
    for (const line of ['payctl-cache node:nosuchbuiltin', 'payctl-cache node:child_process;touch /tmp/x', 'something else', '']) {
      writeFileSync(path, Buffer.concat([Buffer.from(`${line}\n`), v8]));
      expect(run(i.bin, ['--help'])).toEqual(expected);
      expect(firstLine(path)).toMatch(/^payctl-cache (node:[a-z_/]+,?)*$/);
      expect(firstLine(path)).not.toContain('nosuch');
    }
  });

  it('dist/ holds one bundle, and neither bin/payctl.js nor scripts/build.mjs names a command', async () => {
    expect(readdirSync(join(ROOT, 'dist')).filter((f) => f.endsWith('.cjs'))).toEqual(['cli.cjs']);
    const { TREE } = await import('../../src/commands/tree.js');
    for (const file of ['bin/payctl.js', 'scripts/build.mjs']) {
      // The code, without its comments (which may give a command as an example).
      const text = readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .filter((l) => !/^\s*(\/\/|\/\*|\*)/.test(l))
        .map((l) => l.replace(/\s\/\/ .*$/, ''))
        .join('\n');
      for (const spec of TREE) expect(text, `${file} names '${spec.name}'`).not.toMatch(new RegExp(`['"\`]${spec.name}['"\`]`));
    }
  });
});

describe('the bundle', () => {
  it("reads undici's HTTP parser from dist/vendor, as the WebAssembly undici ships (scripts/build.mjs, llhttpFiles)", () => {
    for (const [js, wasm] of [
      ['llhttp_simd-wasm.js', 'llhttp_simd.wasm'],
      ['llhttp-wasm.js', 'llhttp.wasm'],
    ] as const) {
      const shipped = createRequire(import.meta.url)(join(ROOT, 'node_modules', 'undici', 'lib', 'llhttp', js)) as Buffer;
      const ours = readFileSync(join(ROOT, 'dist', 'vendor', wasm));
      expect(ours.equals(shipped)).toBe(true);
      expect(ours.subarray(0, 4).toString('latin1')).toBe('\0asm');
    }
    // No copy of it left in any bundle (its base64 begins with the WebAssembly magic, AGFzbQ).
    for (const f of readdirSync(join(ROOT, 'dist')).filter((n) => n.endsWith('.cjs'))) expect(readFileSync(join(ROOT, 'dist', f), 'latin1')).not.toContain("'AGFzbQ");
  });

  it("loads the PostgreSQL client from dist/vendor without Node's fetch (scripts/build.mjs, pgOnNode)", () => {
    // pg asks whether it runs in a Cloudflare Worker by making a web Response, which loads
    // Node's fetch with its HTTP client (50-70 ms); the bundle answers no. It still connects:
    // test/e2e/team-ledger.test.ts.
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        "const pg = require(process.argv[1]); console.log(JSON.stringify({ pool: typeof pg.Pool, client: typeof pg.Client, fetch: process.moduleLoadList.some((m) => m.includes('undici')) }))",
        join(ROOT, 'dist', 'vendor', 'pg.cjs'),
      ],
      { env: { PATH: process.env.PATH }, encoding: 'utf8' },
    );
    expect(probe.stderr).toBe('');
    expect(JSON.parse(probe.stdout)).toEqual({ pool: 'function', client: 'function', fetch: false });
    // The main bundle hands import('pg') to it.
    expect(readFileSync(join(ROOT, 'dist', 'cli.cjs'), 'latin1')).toContain('require("./vendor/pg.cjs")');
  });

  it("gives undici Node's own default header-size limit without loading node:http (scripts/build.mjs, NODE_HTTP_MAX_HEADER_SIZE)", () => {
    const limit = /maxHeaderSize:(\d+)\}/.exec(readFileSync(join(ROOT, 'dist', 'cli.cjs'), 'latin1'));
    expect(limit).not.toBeNull();
    const node = spawnSync(process.execPath, ['-p', "require('node:http').maxHeaderSize"], { env: { PATH: process.env.PATH }, encoding: 'utf8' });
    expect(node.stdout.trim()).toBe(limit![1]);
  });
});
