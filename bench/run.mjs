// `npm run bench`: the built payctl against the floors it cannot beat and against what a user
// would use instead, each case interleaved with its baselines round by round (the order rotates
// every round), medians reported. Prints every ratio and writes bench/results.json. No timing
// assertion lives in the test suite.
//
// Every process runs with the variables that change Node's start cleared (NODE_EXTRA_CA_CERTS,
// NODE_OPTIONS, NODE_COMPILE_CACHE, NODE_V8_COVERAGE, every other NODE_* and UV_*), and without
// proxy variables (the floors use none), as on a user's machine.
//
//   BENCH_ROUNDS        rounds of the start-up cases (default 61, after 3 warm-up rounds)
//   BENCH_LIST_ROUNDS   rounds of the list case (default 3: the curl + jq loop takes a minute a round)
//   BENCH_BATCH_ROUNDS  rounds of each batch case (default 5)
//   BENCH_QUICK=1       3 and 1 rounds, small sizes: checks that the script works, measures nothing
//   BENCH_DIR           where config folders, journals and batch files go (default: $HOME);
//                       the ordinary disk, never tmpfs, since journal fsyncs are part of the cost
//   BENCH_BASELINE      a previous build of payctl (a folder with bin/payctl.js and its built
//                       dist/, e.g. a `git worktree` of an earlier commit after `npm run build`):
//                       its start-up cases run interleaved with this build's, in the same rounds,
//                       and the median of the round-by-round differences is printed beside them
//   BENCH_BASELINE_TOKEN=1  give that build the key as PAYCTL_TOKEN too (builds before the
//                       documented API, 25 November and earlier, read a key as it is only there)
//
// Why so many rounds: this machine starts a process in about 23 or about 30 ms, in spells, and
// a median of 21 start-up rounds moved by up to 0.2x from one run to the next when one command
// happened to get more slow rounds than its baseline (8 of 21 fast rounds against 16 of 21, in
// one run); 61 interleaved rounds give each command nearly the same mix. The latency case's
// median of 3 rounds moved between 78.8% and 82.9% of the bound over nine runs; 5 narrow it.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg, totalmem, release } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchPostgres } from './pg-cluster.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = join(root, 'bench');
const bin = join(root, 'bin', 'payctl.js');
const baselineBin = process.env.BENCH_BASELINE ? join(process.env.BENCH_BASELINE, 'bin', 'payctl.js') : undefined;
if (baselineBin && !existsSync(baselineBin)) throw new Error(`BENCH_BASELINE: no ${baselineBin}`);
const node = process.execPath;
const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 3 : 61));
const LIST_ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? (QUICK ? 1 : 3));
const BATCH_ROUNDS = Number(process.env.BENCH_BATCH_ROUNDS ?? (QUICK ? 1 : 5));
const WARMUP = QUICK ? 1 : 3;
const LIST_RECORDS = QUICK ? 2_000 : 100_000;
const BATCH = { rows: QUICK ? 300 : 10_000, concurrency: 8 };
const LATENCY_BATCH = { rows: QUICK ? 200 : 1_000, concurrency: 32, latencyMs: 50 };
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
/** BENCH_CASES=startup,list,batch,postgres (default: all): the cases to run; a partial run writes nothing. */
const CASES = new Set((process.env.BENCH_CASES ?? 'startup,list,batch,postgres').split(',').map((c) => c.trim()));
const ALL_CASES = ['startup', 'list', 'batch', 'postgres'].every((c) => CASES.has(c));
const TMPFS = 0x01021994;

// ---- environment: what every measured process gets ----------------------------------------

const cleared = [];
const baseEnv = {};
for (const [k, v] of Object.entries(process.env)) {
  if (/^(NODE_|UV_)/.test(k) || /^(http|https|all|no)_proxy$/i.test(k) || /^PAYCTL_/.test(k) || /^npm_/.test(k)) {
    if (!/^npm_/.test(k)) cleared.push(k);
  } else baseEnv[k] = v;
}
baseEnv.NO_COLOR = '1';

const work = mkdtempSync(join(process.env.BENCH_DIR ?? homedir(), 'payctl-bench-'));
const onTmpfs = statfsSync(work).type === TMPFS;
const template = join(work, 'config');
mkdirSync(template, { mode: 0o700 });
const envFor = (configDir) => ({ ...baseEnv, PAYCTL_CONFIG_DIR: configDir, PAYCTL_PROFILE: 'sandbox' });
const env = envFor(template);

// ---- statistics ---------------------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x, d = 1) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null);
const log = (s) => process.stderr.write(s + '\n');

/** Runs each variant once per round, the starting variant rotating every round; returns samples per variant. */
async function interleave(rounds, variants, warmup = 0) {
  const samples = Object.fromEntries(variants.map((v) => [v.name, []]));
  for (let r = -warmup; r < rounds; r++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + Math.max(r, 0)) % variants.length];
      const s = await v.run(r);
      if (r >= 0) samples[v.name].push(s);
    }
    if (r >= 0 && process.stderr.isTTY) process.stderr.write(`\r  round ${r + 1}/${rounds}`);
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
  return samples;
}

/** Medians of each numeric field of a list of samples. */
function medians(samples) {
  const out = {};
  for (const k of Object.keys(samples[0])) if (typeof samples[0][k] === 'number') out[k] = median(samples.map((s) => s[k]));
  return out;
}

// ---- running processes --------------------------------------------------------------------

/** Wall time of one short run (start-up cases), without a wrapper process. */
function quickRun(cmd, args, extraEnv = {}) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms };
}

/**
 * One long run under GNU time: wall time, CPU seconds (user + system, children included) and
 * peak RSS of the process; stdout is counted (bytes, time to the first byte) and kept if asked.
 */
function timedRun(cmd, args, { env: runEnv = env, keepStdout = false } = {}) {
  return new Promise((resolve, reject) => {
    const timeFile = join(work, `time-${randomUUID()}`);
    const [c, a] = TIME ? [TIME, ['-f', '%U %S %M', '-o', timeFile, cmd, ...args]] : [cmd, args];
    const t0 = process.hrtime.bigint();
    const child = spawn(c, a, { env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let firstByte;
    let bytes = 0;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      firstByte ??= process.hrtime.bigint();
      bytes += d.length;
      if (keepStdout) stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr}`));
      let cpuS = NaN;
      let rssMb = NaN;
      if (TIME) {
        const [u, s, kb] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
        rmSync(timeFile, { force: true });
        cpuS = u + s;
        rssMb = kb / 1024;
      }
      resolve({ ms, cpuS, rssMb, bytes, firstByteMs: firstByte === undefined ? NaN : Number(firstByte - t0) / 1e6, stdout, stderr });
    });
  });
}

function payctl(args, input) {
  const r = spawnSync(node, [bin, ...args], { env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`payctl ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

async function admin(sb, method, path, body, retried = false) {
  let res;
  try {
    res = await fetch(`${sb.root}/_sandbox/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    // A pooled keep-alive connection the sandbox has just closed: try once more on a new one.
    if (retried) throw err;
    return admin(sb, method, path, body, true);
  }
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

// ---- batch inputs: one row function, written as CSV for payctl and as bodies for the others ----

const CSV_HEAD = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';
function row(tag, i, walletId) {
  return {
    payoutId: `bench-${tag}-${i}`,
    walletId,
    amount: `${(i % 90) + 10}.50`,
    name: `Bench Recipient ${i}`,
    accountNumber: `0761${String(i).padStart(5, '0')}`,
    phoneNumber: `+2327600${String(i).padStart(4, '0')}`,
  };
}
const csvLine = (r) => `${r.payoutId},${r.walletId},${r.amount},SLE,wallet,${r.name},orange_money,${r.accountNumber},${r.phoneNumber},bench\n`;
/** The body payctl sends for a row (checked against what it really sent before the batch cases). */
const body = (r) =>
  JSON.stringify({
    amount: Number(r.amount),
    currency: 'SLE',
    payoutId: r.payoutId,
    walletId: r.walletId,
    recipient: {
      type: 'wallet',
      accountDetails: { name: r.name, provider: 'orange_money', accountNumber: r.accountNumber, phoneNumber: r.phoneNumber, note: 'bench' },
    },
  });

function writeCsv(tag, rows, walletId) {
  const file = join(work, `${tag}.csv`);
  let s = CSV_HEAD;
  for (let i = 0; i < rows; i++) s += csvLine(row(tag, i, walletId));
  writeFileSync(file, s);
  return file;
}
function writeBodies(tag, rows, walletId) {
  const file = join(work, `${tag}.jsonl`);
  let s = '';
  for (let i = 0; i < rows; i++) s += body(row(tag, i, walletId)) + '\n';
  writeFileSync(file, s);
  return file;
}
function writeXargsArgs(tag, rows, walletId) {
  const file = join(work, `${tag}.args`);
  let s = '';
  for (let i = 0; i < rows; i++) s += `-H\0Idempotency-Key: ${randomUUID()}\0--data-raw\0${body(row(tag, i, walletId))}\0`;
  writeFileSync(file, s);
  return file;
}
/** A fresh config folder for one batch run: the logged-in profile, no journal. */
function freshConfig(tag) {
  const dir = join(work, `config-${tag}`);
  mkdirSync(dir, { mode: 0o700 });
  copyFileSync(join(template, 'config.json'), join(dir, 'config.json'));
  return dir;
}

// ---- the cases --------------------------------------------------------------------------------

const results = {
  when: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_gb: round(totalmem() / 2 ** 30), kernel: release(), node: process.version },
  load_average_at_start: loadavg().map((x) => round(x, 2)),
  environment: { cleared, work_dir_tmpfs: onTmpfs, peak_rss_and_cpu_by: TIME ? 'GNU time' : 'unavailable' },
  rounds: { startup: ROUNDS, startup_warmup: WARMUP, list: LIST_ROUNDS, batch: BATCH_ROUNDS },
  quick: QUICK,
  cases: [],
};

async function startup(sb, token) {
  const balancesUrl = `${sb.base_url}/wallets/balances`;
  const s = await interleave(
    ROUNDS,
    [
      { name: 'node -e 0', run: () => quickRun(node, ['-e', '0']) },
      { name: 'payctl --version', run: () => quickRun(node, [bin, '--version']) },
      { name: 'payctl --help', run: () => quickRun(node, [bin, '--help']) },
      { name: 'node http.get', run: () => quickRun(node, [join(here, 'floor-get.cjs')], { BENCH_URL: balancesUrl, BENCH_TOKEN: token }) },
      { name: 'payctl balances --json', run: () => quickRun(node, [bin, 'balances', '--json']) },
      ...(baselineBin
        ? [
            { name: 'previous build --version', run: () => quickRun(node, [baselineBin, '--version']) },
            { name: 'previous build --help', run: () => quickRun(node, [baselineBin, '--help']) },
            {
              name: 'previous build balances --json',
              run: () => quickRun(node, [baselineBin, 'balances', '--json'], process.env.BENCH_BASELINE_TOKEN === '1' ? { PAYCTL_TOKEN: token } : {}),
            },
          ]
        : []),
    ],
    WARMUP,
  );
  const m = (name) => round(median(s[name].map((x) => x.ms)));
  const samples = (name) => s[name].map((x) => round(x.ms));
  const nodeMs = m('node -e 0');
  const getMs = m('node http.get');
  const add = (name, baselines) =>
    results.cases.push({
      case: name,
      unit: 'ms',
      payctl: { median_ms: m(name), samples_ms: samples(name) },
      baselines: baselines.map(([b, bm]) => ({
        name: b,
        median_ms: bm,
        samples_ms: samples(b),
        ratio: round(m(name) / bm, 2),
        // Against the previous build, each round's difference (the two ran in the same round): its
        // median moves less from one run to the next than the ratio of two medians does.
        ...(b.startsWith('previous build') ? { paired_difference_ms: round(median(s[name].map((x, i) => x.ms - s[b][i].ms)), 2) } : {}),
      })),
    });
  // Against the previous build (BENCH_BASELINE), when there is one: same rounds, same machine.
  const previous = (what) => (baselineBin ? [[`previous build ${what}`, m(`previous build ${what}`)]] : []);
  add('payctl --version', [['node -e 0', nodeMs], ...previous('--version')]);
  add('payctl --help', [['node -e 0', nodeMs], ...previous('--help')]);
  add('payctl balances --json', [['node http.get', getMs], ['node -e 0', nodeMs], ...previous('balances --json')]);
}

async function list(sb, headerFile) {
  await admin(sb, 'POST', 'payouts/generate', { count: LIST_RECORDS });
  const total = (await admin(sb, 'GET', 'health')).data.payouts;
  const haveCurlJq = ['curl', 'jq'].every((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0);
  const variants = [{ name: 'payctl', run: () => timedRun(node, [bin, 'payouts', 'list', '--all', '--json']) }];
  if (haveCurlJq) variants.push({ name: 'curl + jq page loop', run: () => timedRun('bash', [join(here, 'curl-jq-list.sh'), sb.base_url, headerFile]) });
  const s = await interleave(LIST_ROUNDS, variants);
  const p = medians(s.payctl);
  const entry = {
    case: `payctl payouts list --all --json (${total.toLocaleString('en-US')} records)`,
    unit: 'ms',
    payctl: {
      median_ms: round(p.ms, 0),
      peak_rss_mb: round(p.rssMb),
      cpu_s: round(p.cpuS, 2),
      first_output_ms: round(p.firstByteMs, 0),
      output_mb: round(p.bytes / 2 ** 20),
      samples_ms: s.payctl.map((x) => round(x.ms, 0)),
    },
    baselines: [],
  };
  if (haveCurlJq) {
    const c = medians(s['curl + jq page loop']);
    entry.baselines.push({
      name: 'curl + jq page loop',
      median_ms: round(c.ms, 0),
      cpu_s: round(c.cpuS, 2),
      samples_ms: s['curl + jq page loop'].map((x) => round(x.ms, 0)),
      ratio: round(p.ms / c.ms, 2),
    });
  } else entry.note = 'curl or jq not found: the curl + jq page loop was skipped';
  results.cases.push(entry);
}

/** The batches' wallet, funded for every round of every batch case. */
function fundWallet(sb, walletId) {
  return admin(sb, 'POST', 'wallets', { wallet_id: walletId, wallet_name: 'Bench', currency: 'SLE', balance: '100000000000.00' });
}

async function batchSetup(sb, token, walletId) {
  await fundWallet(sb, walletId);
  // Warm-up, and the honesty check: the floors must post exactly the bodies payctl posts.
  await admin(sb, 'DELETE', 'requests');
  const tag = 'check';
  payctl(['payout', 'batch', writeCsv(tag, 5, walletId), '--concurrency', '8', '--yes', '--report', join(work, 'report-check.csv')]);
  const sent = (await admin(sb, 'GET', 'requests')).data.filter((r) => r.method === 'POST' && r.path === '/v2/payout');
  const ours = new Set(Array.from({ length: 5 }, (_, i) => body(row(tag, i, walletId))));
  const same = sent.length === 5 && sent.every((r) => ours.has(r.body));
  if (!same) throw new Error(`the floors' bodies differ from payctl's: payctl sent ${sent.map((r) => r.body).join('\n')}`);
  // The floor exits 1 unless every answer is 201.
  await timedRun(node, [join(here, 'floor-batch.cjs'), writeBodies('check-floor', 5, walletId), '8'], {
    env: { ...env, BENCH_URL: `${sb.base_url}/payout`, BENCH_TOKEN: token },
  });
}

/** Medians of one variant's batch runs: rows a second (of the bound, if any), CPU, peak memory. */
function batchSummary(samples, rows, bound) {
  const m = medians(samples);
  const perS = rows / (m.ms / 1000);
  return {
    median_ms: round(m.ms, 0),
    rows_per_s: round(perS),
    of_bound: bound ? round(perS / bound, 2) : undefined,
    cpu_s: round(m.cpuS, 2),
    cpu_ms_per_row: round((m.cpuS * 1000) / rows, 2),
    peak_rss_mb: round(m.rssMb),
    samples_ms: samples.map((x) => round(x.ms, 0)),
  };
}

/** One payout batch run in a fresh config folder (`extraEnv`: the ledger setting); checks every row was accepted. */
async function payctlBatch(tag, rows, concurrency, walletId, extraEnv = {}) {
  const file = writeCsv(tag, rows, walletId);
  const report = join(work, `report-${tag}.csv`);
  const r = await timedRun(node, [bin, 'payout', 'batch', file, '--concurrency', String(concurrency), '--yes', '--report', report], {
    env: { ...envFor(freshConfig(tag)), ...extraEnv },
  });
  const n = (readFileSync(report, 'utf8').match(/,accepted,/g) ?? []).length;
  if (n !== rows) throw new Error(`payctl (${tag}): ${n} of ${rows} payouts accepted\n${r.stdout}\n${r.stderr}`);
  return r;
}

/**
 * The shared ledger (issue #30): the 10,000-row batch at concurrency 8 with the profile's ledger
 * in PostgreSQL on loopback (a fresh database each round; fsync on, its data on the ordinary disk,
 * bench/pg-cluster.mjs) against the same batch on the local ledger, interleaved. Goal: at least
 * half the local ledger's rate, peak memory unchanged.
 */
async function postgresBatch(sb, walletId) {
  const { rows, concurrency } = BATCH;
  await fundWallet(sb, walletId);
  const pg = await startBenchPostgres(root, process.env.BENCH_PG_DIR ?? '/var/tmp');
  try {
    const s = await interleave(BATCH_ROUNDS, [
      { name: 'payctl', run: async (i) => payctlBatch(`pg-${i}`, rows, concurrency, walletId, { PAYCTL_LEDGER_URL: await pg.freshDatabase(`bench${i}`) }) },
      { name: 'payctl, local ledger', run: (i) => payctlBatch(`pgl-${i}`, rows, concurrency, walletId) },
    ]);
    const p = batchSummary(s.payctl, rows, null);
    const local = batchSummary(s['payctl, local ledger'], rows, null);
    results.cases.push({
      case: `payctl payout batch ${rows.toLocaleString('en-US')} rows, concurrency ${concurrency}, PostgreSQL ledger on loopback`,
      unit: 'rows/s',
      bound_rows_per_s: null,
      payctl: p,
      baselines: [{ name: 'payctl, local ledger', ...local, share: round(p.rows_per_s / local.rows_per_s, 2), cpu_ratio: round(p.cpu_s / local.cpu_s, 1) }],
    });
  } finally {
    await pg.stop();
  }
}

async function batch(sb, token, headerFile, walletId, { rows, concurrency, latencyMs }) {
  await admin(sb, 'DELETE', 'faults');
  if (latencyMs) await admin(sb, 'POST', 'faults', { path: '/v2/payout', kind: 'delay', delayMs: latencyMs, times: -1 });
  const label = `payctl payout batch ${rows.toLocaleString('en-US')} rows, concurrency ${concurrency}, +${latencyMs} ms latency`;
  const key = `c${concurrency}-l${latencyMs}`;
  const floorEnv = { ...env, BENCH_URL: `${sb.base_url}/payout`, BENCH_TOKEN: token };
  const haveCurl = latencyMs > 0 && spawnSync('sh', ['-c', 'command -v curl']).status === 0;
  const check = (name, r, n) => {
    if (n !== rows) throw new Error(`${name}: ${n} of ${rows} payouts accepted\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  const variants = [
    {
      name: 'payctl',
      run: (i) => payctlBatch(`${key}-p${i}`, rows, concurrency, walletId),
    },
    {
      name: 'node http floor',
      run: async (i) => {
        const r = await timedRun(node, [join(here, 'floor-batch.cjs'), writeBodies(`${key}-f${i}`, rows, walletId), String(concurrency)], {
          env: floorEnv,
          keepStdout: true,
        });
        return check('floor', r, Number(r.stdout.split(' ')[0]));
      },
    },
  ];
  if (haveCurl) {
    variants.push({
      name: `xargs -P${concurrency} curl`,
      run: async (i) => {
        const args = writeXargsArgs(`${key}-x${i}`, rows, walletId);
        const r = await timedRun('bash', [join(here, 'xargs-curl-batch.sh'), args, String(concurrency), `${sb.base_url}/payout`, headerFile], { keepStdout: true });
        return check('xargs', r, (r.stdout.match(/^201$/gm) ?? []).length);
      },
    });
  }
  const s = await interleave(BATCH_ROUNDS, variants);
  const bound = latencyMs ? concurrency / (latencyMs / 1000) : null;
  const summary = (name) => batchSummary(s[name], rows, bound);
  const p = summary('payctl');
  const entry = { case: label, unit: 'rows/s', bound_rows_per_s: bound, payctl: p, baselines: [] };
  for (const name of Object.keys(s).filter((n) => n !== 'payctl')) {
    const b = summary(name);
    entry.baselines.push({ name, ...b, share: round(p.rows_per_s / b.rows_per_s, 2), cpu_ratio: round(p.cpu_s / b.cpu_s, 1) });
  }
  const floor = entry.baselines.find((b) => b.name === 'node http floor');
  entry.payctl.extra_cpu_ms_per_row = round(((p.cpu_s - floor.cpu_s) * 1000) / rows, 2);
  if (latencyMs && !haveCurl) entry.note = 'curl not found: xargs curl was skipped';
  results.cases.push(entry);
  await admin(sb, 'DELETE', 'faults');
}

// ---- the report -------------------------------------------------------------------------------

function table() {
  const ms = (x) => (x >= 10_000 ? `${round(x / 1000)} s` : `${x} ms`);
  const rows = [];
  for (const c of results.cases) {
    let mine;
    if (c.unit === 'ms' && c.payctl.peak_rss_mb !== undefined)
      mine = `${ms(c.payctl.median_ms)}, ${c.payctl.peak_rss_mb} MB peak, first output ${c.payctl.first_output_ms} ms`;
    else if (c.unit === 'ms') mine = ms(c.payctl.median_ms);
    else
      mine = `${c.payctl.rows_per_s}/s${c.payctl.of_bound ? ` (${Math.round(c.payctl.of_bound * 100)}% of bound)` : ''}, ${c.payctl.cpu_s} s CPU, ${c.payctl.peak_rss_mb} MB peak`;
    if (!c.baselines.length) rows.push([c.case, mine, c.note ?? '', '', '']);
    for (const b of c.baselines) {
      let theirs;
      let ratio;
      if (c.unit === 'ms') {
        theirs = ms(b.median_ms);
        ratio = `${b.ratio}x the time${b.paired_difference_ms !== undefined ? ` (${b.paired_difference_ms >= 0 ? '+' : ''}${b.paired_difference_ms} ms a round)` : ''}`;
      } else {
        theirs = `${b.rows_per_s}/s${b.of_bound ? ` (${Math.round(b.of_bound * 100)}% of bound)` : ''}, ${b.cpu_s} s CPU, ${b.peak_rss_mb} MB peak`;
        ratio = `${Math.round(b.share * 100)}% of its rate, ${b.cpu_ratio}x its CPU`;
      }
      rows.push([c.case, mine, b.name, theirs, ratio]);
    }
  }
  const head = ['case', 'payctl (median)', 'baseline', 'baseline (median)', 'payctl vs baseline'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
  for (const c of results.cases.filter((x) => x.payctl.extra_cpu_ms_per_row !== undefined)) {
    console.log(`${c.case}: payctl CPU ${c.payctl.cpu_ms_per_row} ms a row, ${c.payctl.extra_cpu_ms_per_row} ms a row more than the floor`);
  }
  const m = results.machine;
  console.log(
    `\n${m.cpus} cores (${m.cpu_model}), Node ${m.node}, load average ${results.load_average_at_start[0]} at the start and ${results.load_average_at_end[0]} at the end; cleared for every process: ${cleared.length ? cleared.join(', ') : 'nothing (none were set)'}.\n` +
      `Start-up cases: medians of ${ROUNDS} interleaved rounds after ${WARMUP} warm-up; ` +
      `list: medians of ${LIST_ROUNDS}; batches: medians of ${BATCH_ROUNDS}. ${QUICK ? 'Not written anywhere (BENCH_QUICK).' : 'Written to bench/results.json.'}`,
  );
}

async function main() {
  log(`payctl benchmark${QUICK ? ' (BENCH_QUICK: small sizes, few rounds; the numbers mean nothing)' : ''}`);
  log(`  cleared for every process: ${cleared.length ? cleared.join(', ') : '(none were set)'}`);
  log(`  config folders, journals and batch files in ${work}${onTmpfs ? ' -- WARNING: this is tmpfs, not the ordinary disk' : ''}`);
  if (!TIME) log('  /usr/bin/time not found: no CPU or peak RSS figures');

  const sb = JSON.parse(payctl(['sandbox', 'start', '--detach', '--port', '0', '--settle-after', '600000', '--json']));
  sb.root = sb.base_url.replace(/\/v2$/, '');
  try {
    // The API key is the bearer token (docs/service.md): the floors send it as payctl does.
    const token = sb.api_key;
    const headerFile = join(work, 'headers');
    writeFileSync(headerFile, `Authorization: Bearer ${token}\nContent-Type: application/json\nAccept: application/json\n`, { mode: 0o600 });
    const walletId = JSON.parse(payctl(['balances', '--currency', 'SLE', '--json'])).data[0].wallet_id;

    if (CASES.has('startup')) {
      log(`start-up: --version, --help, balances --json against node -e 0 and a node http.get (${ROUNDS} rounds)`);
      await startup(sb, token);
    }
    if (CASES.has('list')) {
      log(`payouts list --all --json of ${LIST_RECORDS.toLocaleString('en-US')} generated records against a curl + jq page loop (${LIST_ROUNDS} rounds)`);
      await list(sb, headerFile);
    }
    if (CASES.has('batch')) {
      log('batch: checking that the floors post the bodies payctl posts');
      await batchSetup(sb, token, walletId);
      for (const b of [BATCH, { ...LATENCY_BATCH }]) {
        log(`batch of ${b.rows} rows, concurrency ${b.concurrency}, +${b.latencyMs ?? 0} ms latency (${BATCH_ROUNDS} rounds)`);
        await batch(sb, token, headerFile, walletId, { latencyMs: 0, ...b });
      }
    }
    if (CASES.has('postgres')) {
      log(`batch of ${BATCH.rows} rows, concurrency ${BATCH.concurrency}, through a PostgreSQL ledger on loopback against the local ledger (${BATCH_ROUNDS} rounds)`);
      await postgresBatch(sb, walletId);
    }
  } finally {
    spawnSync(node, [bin, 'sandbox', 'stop'], { env });
    rmSync(work, { recursive: true, force: true });
  }

  results.load_average_at_end = loadavg().map((x) => round(x, 2));
  if (!QUICK && ALL_CASES) writeFileSync(join(here, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  table();
  if (QUICK || !ALL_CASES) log(`(${QUICK ? 'BENCH_QUICK' : `BENCH_CASES=${[...CASES].join(',')}`}: bench/results.json left as it was)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
