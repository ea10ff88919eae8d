// Peak memory of one payctl run, for the memory benchmarks (batch-memory.mjs, history-memory.mjs):
// the process's VmHWM sampled every 10 ms while it runs (Linux /proc).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';

/** Runs `node bin ...args`; returns its exit code, time, peak RSS, stdout size and stderr. */
export async function measurePeakRss(bin, args, env) {
  const started = Date.now();
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let bytes = 0;
  let stderr = '';
  child.stdout.on('data', (d) => (bytes += d.length));
  child.stderr.on('data', (d) => (stderr += d));
  let peakKb = 0;
  const timer = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
    } catch {
      // exited
    }
  }, 10);
  const [code] = await once(child, 'close');
  clearInterval(timer);
  return { code, ms: Date.now() - started, peakMb: Math.round(peakKb / 1024), bytes, stderr };
}
