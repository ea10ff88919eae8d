// `npm run bench:history`: peak memory (RSS) and time of `payctl history --json` (and of the
// table) over a journal of 1,000 and 10,000 entries (BENCH_ENTRIES=n,m to change), written
// through the Journal API of the build (no sandbox: history reads only the journal). The
// listing is streamed (only file names and times are held for sorting), so memory should
// barely grow with the journal. The entries are written here in the journal's format (one file
// per payout named by sha256 of base URL and payout id, HMAC with the key in journal.key),
// as payctl writes them. Prints one JSON line per case; no assertion lives in the tests.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measurePeakRss } from './peak-rss.mjs';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'payctl.js');
const SIZES = (process.env.BENCH_ENTRIES ?? '1000,10000').split(',').map(Number);
const BASE = 'https://api.example.com/v2';

for (const n of SIZES) {
  const work = mkdtempSync(join(tmpdir(), 'payctl-bench-history-'));
  try {
    const key = randomBytes(32);
    writeFileSync(join(work, 'journal.key'), key.toString('hex') + '\n', { mode: 0o600 });
    mkdirSync(join(work, 'journal'), { mode: 0o700 });
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    for (let i = 0; i < n; i++) {
      const payoutId = `bench-${i}`;
      const body = `{"amount":${(i % 9000) + 1}.5,"currency":"SLE","payoutId":"${payoutId}","walletId":"wal_1","recipient":{"type":"wallet","accountDetails":{"name":"Recipient ${i}","provider":"orange_money","accountNumber":"0760${i}","phoneNumber":"+23276000001","note":"Nov"}}}`;
      const entry = {
        version: 2,
        payoutId,
        baseUrl: BASE,
        idempotencyKey: randomUUID(),
        body,
        createdAt: new Date(t0 + i * 1000).toISOString(),
        profile: 'default',
        outcome: { kind: 'accepted', status: 201, transactionId: `TRX${i}`, fee: '0.02', replayed: false, at: new Date(t0 + i * 1000 + 500).toISOString() },
      };
      const mac = createHmac('sha256', key).update(JSON.stringify(entry)).digest('hex');
      const name = createHash('sha256').update(`${BASE}\n${payoutId}`).digest('hex').slice(0, 32);
      writeFileSync(join(work, 'journal', `${name}.json`), JSON.stringify({ ...entry, mac }, null, 2) + '\n', { mode: 0o600 });
    }
    const env = { ...process.env, PAYCTL_CONFIG_DIR: work, NO_COLOR: '1' };
    delete env.PAYCTL_PROFILE;
    for (const args of [['history', '--json'], ['history']]) {
      const r = await measurePeakRss(bin, args, env);
      if (r.code !== 0) throw new Error(`payctl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      console.log(
        JSON.stringify({
          case: `payctl ${args.join(' ')}`,
          entries: n,
          peak_rss_mb: r.peakMb,
          seconds: Math.round(r.ms / 10) / 100,
          stdout_kb: Math.round(r.bytes / 1024),
        }),
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
