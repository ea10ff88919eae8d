// `node bench/ledger.mjs`: the ledger's local store (src/payouts/ledger/local.ts) against the same
// interface on SQLite (bench/ledger-sqlite.mjs), in one run, interleaved round by round (the order
// rotates every round), medians reported (docs/architecture.md, "The ledger"). Needs
// better-sqlite3 installed (`npm install --no-save better-sqlite3@12`; it builds from source).
//
//   batch    the journal operations of a batch at concurrency 8: every row looked up (get, and
//            find by fingerprint) as the batch is loaded, then claimed in the run's group
//            (begin with log), an answer awaited (one turn of the event loop, no network; then
//            again with answers in 2 ms, about the sandbox's on this machine), its outcome
//            recorded; the group closed. Rows a second, CPU, and how long the event loop was
//            held while rows were in flight (a real batch reads its answers that much later),
//            in a fresh config folder each round.
//   create   start-up of `payout create`: a fresh Node process that loads the store, opens the
//            ledger (holding the 2,000 entries of a batch already) and claims one payout with a
//            random key (begin, durable), against `node -e 0`.
//   crash    a batch process killed with SIGKILL while claims and outcomes are in flight; then
//            every payout it claimed (begin resolved: its request could have left) is looked for
//            with its key, outcomes it recorded are counted, and a rerun claims every row again.
//   race     two terminals: two processes claiming the same rows at once (random keys); each
//            must end with the same key for every row.
//   lines    the lines of code of each store.
//
//   LEDGER_ROWS         rows of the batch case (default 10,000)
//   LEDGER_ROUNDS       rounds of each batch case (default 7)
//   LEDGER_CREATE_ROUNDS  rounds of the create case (default 61, after 3 warm-up rounds; as
//                       bench/run.mjs, since processes start fast or slow in spells here)
//   LEDGER_KILLS        SIGKILL trials per store (default 6)
//   LEDGER_RACES        two-terminal trials per store (default 3)
//   LEDGER_BASELINE     a folder holding an earlier src/ (e.g. `git worktree`): its
//                       src/payouts/journal.ts runs as a third store, "local (before)"
//   BENCH_DIR           where config folders go (default: $HOME): the ordinary disk, never tmpfs
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync, writeSync } from 'node:fs';
import { homedir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const BASE = 'https://api.example.com/v2';
const T0 = new Date('2026-11-27T10:00:00.000Z');
const body = (id, i) => `{"amount":${(i % 997) + 1}.50,"currency":"SLE","payoutId":"${id}","walletId":"w-1","recipient":{"name":"R ${i}"}}`;

// ---- the worker: one store, one case, in its own process ----------------------------------

async function open(store, bundle, dir) {
  const mod = await import(pathToFileURL(bundle).href);
  if (store === 'sqlite') return new mod.SqliteLedger(dir, createRequire(join(root, 'package.json'))('better-sqlite3'));
  return new mod.Journal(dir);
}

/**
 * The journal operations of a batch of `rows` at `concurrency`, each answer awaited `answerMs`
 * (0: one turn of the event loop); `say` is told each claim and outcome. How long the event loop
 * is held while rows are in flight is measured too: a real batch's answers wait that long to be
 * read.
 */
async function batchOps(ledger, rows, concurrency, answerMs, say = () => {}, claim = { absent: true }) {
  const ids = Array.from({ length: rows }, (_, i) => `b-${i}`);
  const t0 = performance.now();
  for (const [i, id] of ids.entries()) {
    await ledger.get(BASE, id);
    await ledger.find(BASE, 'fingerprint', `fp-${i}`);
  }
  const loaded = performance.now();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const answer = () => new Promise((r) => (answerMs > 0 ? setTimeout(r, answerMs) : setImmediate(r)));
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const i = next++;
      const id = ids[i];
      const e = await ledger.begin({
        baseUrl: BASE,
        payoutId: id,
        body: body(id, i),
        now: T0,
        log: true,
        ...claim,
        profile: 'bench',
        origin: { batch: { id: 'bench-batch', file: '/tmp/bench.csv', row: i + 1 }, fingerprint: `fp-${i}` },
      });
      say(`c ${id} ${e.idempotencyKey}`);
      await answer();
      await ledger.record(e, { kind: 'accepted', status: 200, transactionId: `TXN-${i}`, fee: '0.10', replayed: false, at: T0.toISOString() });
      say(`r ${id}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  loop.disable();
  await ledger.closeLog();
  return { loadMs: loaded - t0, sendMs: performance.now() - loaded, loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6 };
}

async function worker([what, store, bundle, dir, arg, answerMs]) {
  if (what === 'batch') {
    const ledger = await open(store, bundle, dir);
    const cpu = process.cpuUsage();
    const t = await batchOps(ledger, Number(arg), 8, Number(answerMs));
    const used = process.cpuUsage(cpu);
    process.stdout.write(JSON.stringify({ ...t, cpuMs: (used.user + used.system) / 1000 }) + '\n');
  } else if (what === 'create') {
    const ledger = await open(store, bundle, dir);
    await ledger.begin({
      baseUrl: BASE,
      payoutId: arg,
      body: body(arg, 1),
      now: new Date(),
      randomKey: true,
      origin: { fingerprint: `f-${arg}`, repeatKey: `r-${arg}` },
    });
  } else if (what === 'race') {
    // Another terminal's batch of the same rows, started at the same moment, with random keys.
    const ledger = await open(store, bundle, dir);
    const keys = {};
    const t = await batchOps(
      ledger,
      Number(arg),
      8,
      0,
      (line) => {
        const [kind, id, key] = line.split(' ');
        if (kind === 'c') keys[id] = key;
      },
      { randomKey: true },
    );
    process.stdout.write(JSON.stringify({ keys, loopMaxMs: t.loopMaxMs }) + '\n');
  } else if (what === 'crash') {
    const ledger = await open(store, bundle, dir);
    // Written at once (each line whole), as payctl would let a request leave.
    await batchOps(ledger, Number(arg), 8, 0, (line) => writeSync(1, line + '\n'));
  }
}

// ---- the harness --------------------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const log = (s) => process.stderr.write(s + '\n');
const self = fileURLToPath(import.meta.url);

function bundles(work) {
  const { buildSync } = createRequire(join(root, 'package.json'))('esbuild');
  const out = {};
  const stores = { local: join(root, 'src/payouts/journal.ts'), sqlite: join(root, 'bench/ledger-sqlite.mjs') };
  if (process.env.LEDGER_BASELINE) stores['local (before)'] = join(process.env.LEDGER_BASELINE, 'src/payouts/journal.ts');
  for (const [name, entry] of Object.entries(stores)) {
    const file = join(work, `${name.replace(/\W+/g, '-')}.mjs`);
    buildSync({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outfile: file,
      logLevel: 'warning',
      external: ['better-sqlite3'],
    });
    out[name] = file;
  }
  return out;
}

function runWorker(args) {
  const r = spawnSync(process.execPath, [self, '--worker', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`worker ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function batchCase(work, stores, rows, rounds, answerMs) {
  const names = Object.keys(stores);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = -1; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + Math.max(r, 0)) % names.length];
      const dir = mkdtempSync(join(work, 'batch-'));
      const res = JSON.parse(runWorker(['batch', name === 'sqlite' ? 'sqlite' : 'local', stores[name], dir, String(rows), String(answerMs)]));
      rmSync(dir, { recursive: true, force: true });
      if (r >= 0) samples[name].push(res);
    }
    log(`batch (answers in ${answerMs} ms) round ${r + 1}/${rounds}`);
  }
  return Object.fromEntries(
    names.map((n) => {
      const s = samples[n];
      const sendMs = median(s.map((x) => x.sendMs));
      return [
        n,
        {
          rowsPerSecond: Math.round(rows / (median(s.map((x) => x.loadMs + x.sendMs)) / 1000)),
          loadMs: median(s.map((x) => x.loadMs)),
          sendMs,
          cpuMs: median(s.map((x) => x.cpuMs)),
          loopP99Ms: median(s.map((x) => x.loopP99Ms)),
          loopMaxMs: median(s.map((x) => x.loopMaxMs)),
          samples: s,
        },
      ];
    }),
  );
}

async function createCase(work, stores, rounds) {
  const names = Object.keys(stores);
  const dirs = {};
  for (const n of names) {
    dirs[n] = mkdtempSync(join(work, 'create-'));
    runWorker(['batch', n === 'sqlite' ? 'sqlite' : 'local', stores[n], dirs[n], '2000']);
  }
  const variants = ['node -e 0', ...names];
  const samples = Object.fromEntries(variants.map((v) => [v, []]));
  for (let r = -3; r < rounds; r++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + Math.max(r, 0)) % variants.length];
      const args = v === 'node -e 0' ? ['-e', '0'] : [self, '--worker', 'create', v === 'sqlite' ? 'sqlite' : 'local', stores[v], dirs[v], `c-${r}-${k}`];
      const t = performance.now();
      const res = spawnSync(process.execPath, args);
      const ms = performance.now() - t;
      if (res.status !== 0) throw new Error(`create ${v}: ${res.stderr}`);
      if (r >= 0) samples[v].push(ms);
    }
  }
  return Object.fromEntries(variants.map((v) => [v, { ms: median(samples[v]), samples: samples[v] }]));
}

/** One SIGKILL trial: the batch killed after `after` claims; what survives. */
async function crashTrial(work, store, bundle, rows, after) {
  const dir = mkdtempSync(join(work, 'crash-'));
  const child = spawn(process.execPath, [self, '--worker', 'crash', store === 'sqlite' ? 'sqlite' : 'local', bundle, dir, String(rows)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const claimed = new Map();
  const recorded = new Set();
  let buf = '';
  await new Promise((resolve) => {
    child.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const [kind, id, key] = buf.slice(0, nl).split(' ');
        buf = buf.slice(nl + 1);
        if (kind === 'c') claimed.set(id, key);
        else recorded.add(id);
      }
      if (claimed.size >= after && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    child.on('exit', resolve);
  });
  const ledger = await open(store === 'sqlite' ? 'sqlite' : 'local', bundle, dir);
  let lostClaims = 0;
  let otherKey = 0;
  let lostOutcomes = 0;
  for (const [id, key] of claimed) {
    const e = await ledger.get(BASE, id);
    if (!e) lostClaims++;
    else if (e.idempotencyKey !== key) otherKey++;
    if (recorded.has(id) && e?.outcome?.kind !== 'accepted') lostOutcomes++;
  }
  let entries = 0;
  let damaged = 0;
  for await (const it of ledger.scan()) {
    if ('error' in it) damaged++;
    else entries++;
  }
  // The rerun: every row claimed again; a claimed one must come back with its key.
  let rerunOtherKey = 0;
  for (let i = 0; i < rows; i++) {
    const id = `b-${i}`;
    const e = await ledger.begin({ baseUrl: BASE, payoutId: id, body: body(id, i), now: T0, log: true, origin: { fingerprint: `fp-${i}` } });
    if (claimed.has(id) && claimed.get(id) !== e.idempotencyKey) rerunOtherKey++;
  }
  await ledger.closeLog();
  ledger.close?.();
  rmSync(dir, { recursive: true, force: true });
  return { after, claimed: claimed.size, recorded: recorded.size, entries, damaged, lostClaims, otherKey, lostOutcomes, rerunOtherKey };
}

function lines() {
  const count = (files) => {
    let all = 0;
    let code = 0;
    for (const f of files) {
      const text = readFileSync(join(root, f), 'utf8');
      all += text.split('\n').length - 1;
      code += text.split('\n').filter((l) => l.trim() && !/^\s*(\/\/|\/\*\*?|\*)/.test(l)).length;
    }
    return { files: files.length, lines: all, code };
  };
  const ledger = 'src/payouts/ledger/';
  const shared = ['ledger.ts', 'entries.ts', 'base-url.ts', 'mac.ts'].map((f) => ledger + f);
  const local = ['local.ts', 'names.ts', 'atomic-files.ts', 'markers.ts', 'gaps.ts', 'owners.ts', 'stored.ts', 'log.ts', 'log-reader.ts'].map((f) => ledger + f);
  return { shared: count(shared), local: count(local), sqlite: count(['bench/ledger-sqlite.mjs']) };
}

/** Two processes claiming the same rows at once, random keys: one key per row, the same for both. */
async function raceTrial(work, store, bundle, rows) {
  const dir = mkdtempSync(join(work, 'race-'));
  const run = () =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [self, '--worker', 'race', store === 'sqlite' ? 'sqlite' : 'local', bundle, dir, String(rows)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('exit', (code) => resolve({ code, out, err }));
    });
  const [a, b] = await Promise.all([run(), run()]);
  const failed = [a, b].filter((r) => r.code !== 0).map((r) => r.err.split('\n').find((l) => /Error/.test(l)) ?? `exit ${r.code}`);
  let differ = 0;
  let loopMaxMs = 0;
  if (!failed.length) {
    const [x, y] = [JSON.parse(a.out), JSON.parse(b.out)];
    differ = Object.keys(x.keys).filter((id) => x.keys[id] !== y.keys[id]).length + Math.abs(Object.keys(x.keys).length - rows);
    loopMaxMs = Math.max(x.loopMaxMs, y.loopMaxMs);
  }
  rmSync(dir, { recursive: true, force: true });
  return { rows, failed, differ, loopMaxMs };
}

async function main() {
  const rows = Number(process.env.LEDGER_ROWS ?? 10_000);
  const rounds = Number(process.env.LEDGER_ROUNDS ?? 7);
  const kills = Number(process.env.LEDGER_KILLS ?? 6);
  const work = mkdtempSync(join(process.env.BENCH_DIR ?? homedir(), 'payctl-ledger-bench-'));
  if (statfsSync(work).type === 0x01021994) log(`warning: ${work} is on tmpfs: fsyncs cost nothing there`);
  try {
    const stores = bundles(work);
    log(`stores: ${Object.keys(stores).join(', ')}; ${rows} rows, ${rounds} rounds, in ${work}`);
    const batch = await batchCase(work, stores, rows, rounds, 0);
    const batchAnswers = await batchCase(work, stores, rows, rounds, 2);
    const create = await createCase(work, stores, Number(process.env.LEDGER_CREATE_ROUNDS ?? 61));
    const crash = {};
    for (const name of Object.keys(stores)) crash[name] = [];
    for (let t = 0; t < kills; t++) {
      const after = Math.round(((t + 1) * rows) / 4 / (kills + 1)) + 7;
      for (const name of Object.keys(stores)) crash[name].push(await crashTrial(work, name, stores[name], Math.round(rows / 4), after));
      log(`crash trial ${t + 1}/${kills}`);
    }
    const race = {};
    for (const name of Object.keys(stores)) race[name] = [];
    for (let t = 0; t < Number(process.env.LEDGER_RACES ?? 3); t++) {
      for (const name of Object.keys(stores)) race[name].push(await raceTrial(work, name, stores[name], Math.round(rows / 4)));
    }
    const result = {
      at: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadavg: loadavg(),
      rows,
      rounds,
      batch,
      batchAnswers,
      create,
      crash,
      race,
      lines: lines(),
    };
    writeFileSync(join(root, 'bench', 'ledger-results.json'), JSON.stringify(result, null, 2) + '\n');
    for (const [n, b] of [...Object.entries(batch), ...Object.entries(batchAnswers).map(([k, v]) => [`${k}, answers in 2 ms`, v])])
      log(
        `batch ${n}: ${b.rowsPerSecond} rows/s (load ${b.loadMs.toFixed(0)} ms, send ${b.sendMs.toFixed(0)} ms), CPU ${b.cpuMs.toFixed(0)} ms, loop held p99 ${b.loopP99Ms.toFixed(1)} ms, max ${b.loopMaxMs.toFixed(1)} ms`,
      );
    for (const [n, c] of Object.entries(create)) log(`create ${n}: ${c.ms.toFixed(1)} ms`);
    for (const [n, trials] of Object.entries(crash)) log(`crash ${n}: ${JSON.stringify(trials.map(({ after: _a, ...t }) => t))}`);
    for (const [n, r] of Object.entries(race)) log(`race ${n}: ${JSON.stringify(r)}`);
    log(`lines: ${JSON.stringify(result.lines)}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--worker') await worker(process.argv.slice(3));
else await main();
