// Prints bench/results.json as the Markdown table of docs/performance.md:
// payctl against the floors, the goals of issue #17, and what a user would use instead.
import { readFileSync } from 'node:fs';

let r;
try {
  r = JSON.parse(readFileSync(new URL('results.json', import.meta.url), 'utf8'));
} catch (err) {
  // No run yet (a fresh clone: the file is not committed), or one cut short.
  console.error(`bench/results.json cannot be read (${err.code ?? err.message}): a full \`npm run bench\` writes it.`);
  process.exit(1);
}
const ms = (x) => (x >= 10_000 ? `${Math.round(x / 100) / 10} s` : `${Math.round(x)} ms`);
const pct = (x) => `${Math.round(x * 100)}%`;
const find = (prefix) => r.cases.find((c) => c.case.startsWith(prefix));
const base = (c, name) => c?.baselines.find((b) => b.name.startsWith(name));
const rows = [];

for (const [prefix, label, goal] of [
  ['payctl --version', '`--version`', '≤ 1.1x'],
  ['payctl --help', '`--help`', '≤ 1.5x'],
]) {
  const c = find(prefix);
  const b = base(c, 'node -e 0');
  rows.push([label, ms(c.payctl.median_ms), `\`node -e 0\` ${ms(b.median_ms)}`, `${b.ratio}x`, goal, '', '']);
}
{
  const c = find('payctl balances');
  const g = base(c, 'node http.get');
  const n = base(c, 'node -e 0');
  rows.push([
    '`balances --json`',
    ms(c.payctl.median_ms),
    `Node \`http.get\` ${ms(g.median_ms)} (\`node -e 0\` ${ms(n.median_ms)})`,
    `${g.ratio}x (${n.ratio}x)`,
    '≤ 1.5x `http.get`',
    '',
    '',
  ]);
}
{
  const c = find('payctl payouts list');
  const b = base(c, 'curl + jq');
  const records = /\(([\d,]+) records\)/.exec(c.case)?.[1];
  rows.push([
    `\`payouts list --all --json\`, ${records} records`,
    `${ms(c.payctl.median_ms)}, ${Math.round(c.payctl.peak_rss_mb)} MB peak, first output ${ms(c.payctl.first_output_ms)}`,
    '',
    '',
    '< 80 MB',
    b ? `curl + jq page loop: ${ms(b.median_ms)}` : (c.note ?? ''),
    b ? `${b.ratio}x the time` : '',
  ]);
}
for (const c of r.cases.filter((x) => x.unit === 'rows/s')) {
  const m = /batch ([\d,]+) rows, concurrency (\d+), \+(\d+) ms/.exec(c.case);
  if (!m) continue; // the PostgreSQL ledger's case: its own line below
  const f = base(c, 'node http floor');
  const x = base(c, 'xargs');
  const rate = (p) => (p.of_bound ? `${pct(p.of_bound)} of the bound (${Math.round(p.rows_per_s)}/s)` : `${Math.round(p.rows_per_s)} rows/s`);
  const costs = (p) => `${p.cpu_s} s CPU, ${Math.round(p.peak_rss_mb)} MB peak`;
  rows.push([
    `batch ${m[1]} rows, concurrency ${m[2]}, ${m[3] === '0' ? 'no added latency' : `+${m[3]} ms latency`}`,
    `${rate(c.payctl)}, ${costs(c.payctl)}`,
    `Node \`http\` client: ${rate(f)}, ${costs(f)}`,
    `${pct(f.share)} of its rate, ${f.cpu_ratio}x its CPU`,
    m[3] === '0' ? '≥ 40% of its rate, < 100 MB' : '≥ 80% of the bound',
    x ? `\`${x.name}\`: ${rate(x)}, ${x.cpu_s} s CPU` : (c.note ?? ''),
    x ? `${Math.round((c.payctl.rows_per_s / x.rows_per_s) * 10) / 10}x its rate` : '',
  ]);
}

{
  // Issue #30: the same batch through a PostgreSQL ledger on loopback against the local ledger.
  const c = r.cases.find((x) => /PostgreSQL ledger/.test(x.case));
  const l = c && base(c, 'payctl, local ledger');
  if (c && l) {
    const m = /batch ([\d,]+) rows, concurrency (\d+)/.exec(c.case);
    rows.push([
      `batch ${m[1]} rows, concurrency ${m[2]}, PostgreSQL ledger on loopback`,
      `${Math.round(c.payctl.rows_per_s)} rows/s, ${c.payctl.cpu_s} s CPU, ${Math.round(c.payctl.peak_rss_mb)} MB peak`,
      `payctl, local ledger: ${Math.round(l.rows_per_s)} rows/s, ${l.cpu_s} s CPU, ${Math.round(l.peak_rss_mb)} MB peak`,
      `${pct(l.share)} of its rate, ${l.cpu_ratio}x its CPU`,
      '≥ 50% of the local rate, same peak (#30)',
      '',
      '',
    ]);
  }
}

const head = ['case', 'payctl', 'floor', 'payctl vs floor', 'goal (#17)', 'instead', 'payctl vs instead'];
console.log(`| ${head.join(' | ')} |`);
console.log(`|${head.map(() => '---').join('|')}|`);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
const m = r.machine;
const per = r.cases.filter((c) => c.payctl.extra_cpu_ms_per_row !== undefined).map((c) => `${c.payctl.extra_cpu_ms_per_row} ms`);
console.log(
  `\n${r.when.slice(0, 10)}, ${m.cpus} cores (${m.cpu_model}, ${m.memory_gb} GB), Linux ${m.kernel}, Node ${m.node}; ` +
    `cleared: ${r.environment.cleared.join(', ') || 'nothing was set'}; load average ${r.load_average_at_start[0]} at the start, ${r.load_average_at_end[0]} at the end. ` +
    `Medians of ${r.rounds.startup} rounds (start-up), ${r.rounds.list} (list) and ${r.rounds.batch} (each batch). ` +
    `payctl's batch CPU beyond the floor's: ${per.join(' and ')} a row.`,
);
