// `npm run bench:memory`: peak memory (RSS) and time of `payout batch --dry-run` on a large
// file (1,000,000 rows by default, BENCH_ROWS to change), against a detached sandbox. The
// batch is read as a stream: memory should stay flat as the file grows (goal: < 300 MB at
// 1M rows). Prints one JSON line; no assertion lives in the test suite.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { measurePeakRss } from './peak-rss.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'payctl.js');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const work = mkdtempSync(join(tmpdir(), 'payctl-bench-mem-'));
const env = { ...process.env, PAYCTL_CONFIG_DIR: join(work, 'config'), PAYCTL_PROFILE: 'sandbox', NO_COLOR: '1' };
for (const k of ['PAYCTL_API_KEY', 'PAYCTL_TOKEN', 'PAYCTL_BASE_URL']) delete env[k];

function payctl(args) {
  const r = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`payctl ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

try {
  const sb = JSON.parse(payctl(['sandbox', 'start', '--detach', '--port', '0', '--json']));
  const wallet =
    sb.wallets?.find?.((w) => w.currency === 'SLE')?.wallet_id ?? JSON.parse(payctl(['balances', '--json'])).data.find((w) => w.currency === 'SLE').wallet_id;
  const file = join(work, 'big.csv');
  const out = createWriteStream(file);
  out.write('wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n');
  for (let i = 0; i < ROWS; i++) {
    const line = `${wallet},${(i % 9000) + 1}.${String(i % 100).padStart(2, '0')},SLE,wallet,Recipient ${i},orange_money,0760${String(i).padStart(6, '0')},+23276${String(i % 1000000).padStart(6, '0')},Nov\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  const r = await measurePeakRss(bin, ['payout', 'batch', file, '--dry-run', '--json'], env);
  if (r.code !== 0) throw new Error(`dry run exited ${r.code}: ${r.stderr}`);
  console.log(JSON.stringify({ case: 'payout batch --dry-run', rows: ROWS, peak_rss_mb: r.peakMb, seconds: Math.round(r.ms / 100) / 10 }));
} finally {
  spawnSync(process.execPath, [bin, 'sandbox', 'stop'], { env });
  rmSync(work, { recursive: true, force: true });
}
