// `npm run bench`: start-up, request, streaming and batch throughput of the built payctl,
// measured against the floor it cannot beat (a bare `node -e 0`). Prints a table of medians
// and ratios and writes bench/results.json. No timing assertions live in the test suite.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'payctl.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARMUP = 3;
const configDir = mkdtempSync(join(tmpdir(), 'payctl-bench-'));
const env = { ...process.env, PAYCTL_CONFIG_DIR: configDir, PAYCTL_PROFILE: 'bench', NO_COLOR: '1' };
for (const k of ['PAYCTL_API_KEY', 'PAYCTL_TOKEN', 'PAYCTL_BASE_URL']) delete env[k];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Wall time of one process run, in ms. */
function timeRun(cmd, args) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** Runs a case and its baseline interleaved, after a warm-up; returns medians and the ratio. */
function compare(name, args, baselineArgs = ['-e', '0']) {
  for (let i = 0; i < WARMUP; i++) {
    timeRun(process.execPath, baselineArgs);
    timeRun(process.execPath, [bin, ...args]);
  }
  const base = [];
  const cas = [];
  for (let i = 0; i < RUNS; i++) {
    base.push(timeRun(process.execPath, baselineArgs));
    cas.push(timeRun(process.execPath, [bin, ...args]));
  }
  const b = median(base);
  const c = median(cas);
  return { case: name, median_ms: round(c), baseline: 'node -e 0', baseline_median_ms: round(b), ratio: round(c / b, 2), runs: RUNS };
}

function payctl(args, input) {
  const r = spawnSync(process.execPath, [bin, ...args], { env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`payctl ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

async function admin(sb, method, path, body, retried = false) {
  let res;
  try {
    res = await fetch(`${sb.url}/_sandbox/${path}`, {
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

/** Runs payctl, sampling nothing itself: GNU time gives the peak RSS; stdout's first byte is timed. */
function runStreaming(args) {
  return new Promise((resolve, reject) => {
    const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
    const cmd = timeBin ?? process.execPath;
    const cmdArgs = timeBin ? ['-f', '%M', process.execPath, bin, ...args] : [bin, ...args];
    const t0 = Date.now();
    const child = spawn(cmd, cmdArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let firstByteAt;
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (d) => {
      firstByteAt ??= Date.now();
      bytes += d.length;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`exit ${code}: ${stderr}`));
      const rssKb = timeBin ? Number(stderr.trim().split('\n').pop()) : NaN;
      resolve({ wallMs: Date.now() - t0, firstByteAt, startedAt: t0, endedAt: Date.now(), bytes, peakRssMb: round(rssKb / 1024) });
    });
  });
}

function batchFile(rows, walletId, tag) {
  const file = join(configDir, `batch-${tag}.csv`);
  let csv = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';
  for (let i = 0; i < rows; i++)
    csv += `bench-${tag}-${i},${walletId},${(i % 90) + 10}.50,SLE,wallet,Bench Recipient ${i},orange_money,0761${String(i).padStart(5, '0')},+2327600${String(i).padStart(4, '0')},bench\n`;
  writeFileSync(file, csv);
  return file;
}

async function main() {
  const results = { machine: { cpus: cpus().length, node: process.version }, when: new Date().toISOString(), cases: [] };
  const print = (r) => {
    results.cases.push(r);
    process.stderr.write(`  done: ${r.case}\n`);
  };

  process.stderr.write('payctl benchmark (medians of ' + RUNS + ' runs, interleaved with the baseline)\n');
  print(compare('payctl --version', ['--version']));
  print(compare('payctl --help', ['--help']));

  const sb = JSON.parse(payctl(['sandbox', 'start', '--detach', '--port', '0', '--settle-after', '600000', '--json']));
  sb.url = sb.base_url.replace(/\/v2$/, '');
  try {
    payctl(['login', '--api-key-stdin', '--base-url', sb.base_url], sb.api_key + '\n');
    print(compare('payctl balances --json (sandbox)', ['balances', '--json']));

    // 4. --all over 100,000 records: wall time, peak RSS, and streaming.
    await admin(sb, 'POST', 'payouts/generate', { count: 100_000 });
    await admin(sb, 'DELETE', 'requests');
    const s = await runStreaming(['payouts', 'list', '--all', '--json']);
    const reqs = (await admin(sb, 'GET', 'requests')).data.filter((r) => r.path === '/v2/payouts');
    const lastPageAt = Date.parse(reqs[reqs.length - 1].receivedAt);
    print({
      case: 'payctl payouts list --all --json (100,000+ records)',
      median_ms: s.wallMs,
      peak_rss_mb: s.peakRssMb,
      pages: reqs.length,
      first_output_ms: s.firstByteAt - s.startedAt,
      last_page_requested_ms: lastPageAt - s.startedAt,
      streaming: s.firstByteAt < lastPageAt,
      output_mb: round(s.bytes / 1048576),
    });

    // 5. batch of 1,000 rows at concurrency 8, with 0 and 50 ms of added latency.
    const wallets = JSON.parse(payctl(['balances', '--currency', 'SLE', '--json'])).data;
    const w = wallets[0].wallet_id;
    await admin(sb, 'POST', 'wallets', { wallet_id: w, wallet_name: wallets[0].wallet_name, currency: 'SLE', balance: '1000000000.00' });
    for (const latency of [0, 50]) {
      await admin(sb, 'DELETE', 'faults');
      if (latency) await admin(sb, 'POST', 'faults', { path: '/v2/payout', kind: 'delay', delayMs: latency, times: -1 });
      const file = batchFile(1000, w, `l${latency}`);
      const t = process.hrtime.bigint();
      payctl(['payout', 'batch', file, '--concurrency', '8', '--yes', '--report', join(configDir, `report-${latency}.csv`)]);
      const secs = Number(process.hrtime.bigint() - t) / 1e9;
      const rate = 1000 / secs;
      const bound = latency ? 8 / (latency / 1000) : null;
      print({
        case: `payctl payout batch 1,000 rows, concurrency 8, +${latency} ms latency`,
        median_ms: round(secs * 1000),
        payouts_per_s: round(rate),
        bound_per_s: bound,
        of_bound: bound ? round(rate / bound, 2) : null,
      });
    }
    await admin(sb, 'DELETE', 'faults');
  } finally {
    spawnSync(process.execPath, [bin, 'sandbox', 'stop'], { env });
    rmSync(configDir, { recursive: true, force: true });
  }

  writeFileSync(join(root, 'bench', 'results.json'), JSON.stringify(results, null, 2) + '\n');
  const rows = results.cases.map((r) => [
    r.case,
    `${r.median_ms} ms`,
    r.baseline_median_ms !== undefined ? `${r.baseline_median_ms} ms` : '',
    r.ratio !== undefined
      ? `${r.ratio}x`
      : r.payouts_per_s !== undefined
        ? `${r.payouts_per_s}/s${r.bound_per_s ? ` (${Math.round(r.of_bound * 100)}% of ${r.bound_per_s}/s)` : ''}`
        : `peak RSS ${r.peak_rss_mb} MB, first output ${r.first_output_ms} ms, last page requested ${r.last_page_requested_ms} ms`,
  ]);
  const head = ['case', 'median', 'node -e 0', 'ratio / result'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
  console.log(`\n(${results.machine.cpus} cores, Node ${results.machine.node}; written to bench/results.json)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
