/**
 * Payout identity (docs/architecture.md, "Identity"), what needs a process: a `payout batch`
 * killed with SIGKILL mid-way leaves a report that holds the header and one line per
 * finished row, each held by the sandbox. The built binary against the in-process sandbox.
 * The rest of payout identity (files sorted, copied and re-saved resume; identical rows;
 * payouts typed again; reports that cannot be written; rows checked against the wallets;
 * amounts a JSON number cannot carry; ids of an earlier version) runs in process in
 * test/commands/payout-identity.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { writeLoggedIn } from '../helpers/e2e.js';
import { batchRows, heldCounts, payoutPosts, startPayctl, toCsv, writeFile } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';

const ctx = useSandbox();
const REPORT_HEADER = 'row,payout_id,outcome,code,message,transaction_id,fee,earlier_run';

const setup = useBatchFolders(ctx, writeLoggedIn);

afterEach(() => {
  ctx.sb.faults.clear();
});

let seq = 0;
/** A tag no other test (or earlier run of this file against the same journal) uses. */
const uniq = (): string => `${Date.now().toString(36)}${(seq++).toString(36)}`;

/** Report lines (the header checked: the usual columns first). */
function reportLines(path: string): Array<Record<string, string>> {
  const text = readFileSync(path, 'utf8');
  expect(text.split(/\r?\n/)[0]!.startsWith(REPORT_HEADER), text.split(/\r?\n/)[0]).toBe(true);
  return parse<Record<string, string>>(text, { columns: true, skip_empty_lines: true });
}

describe('the report: true after a kill', () => {
  it('killed with SIGKILL mid-way: the default report holds the header and one line per finished row, each held by the sandbox', async () => {
    const sb = ctx.sb;
    const prefix = `killrep-${uniq()}`;
    const rows = batchRows(12, setup.sleWallet, prefix);
    const ids = rows.map((r) => r.payout_id!);
    const file = writeFile(setup.work.file('killed.csv'), toCsv(rows));
    const reportPath = setup.work.file('killed.report.csv');

    // Slow rows: the first 6 POSTs take 250 ms each; every later one is held without an
    // answer (never committed), so when the process dies exactly 6 rows have finished.
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 250, times: 6 });
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'hang', times: Infinity });
    const { child, done } = startPayctl(['payout', 'batch', file, '--concurrency', '2', '--yes'], { dir: setup.dir, timeoutMs: 20_000 });
    let exited = false;
    void done.finally(() => (exited = true));
    const lines = () => (existsSync(reportPath) ? readFileSync(reportPath, 'utf8').split(/\r?\n/).filter(Boolean).length : 0);
    const deadline = Date.now() + 15_000;
    while (!exited && Date.now() < deadline && !(lines() === 7 && payoutPosts(sb).filter((p) => p.outcome === 'hang').length === 2)) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(exited, 'the batch was still running').toBe(false);
    child.kill('SIGKILL');
    const killed = await done;
    expect(killed.signal).toBe('SIGKILL');

    const report = reportLines(reportPath);
    expect(report).toHaveLength(6);
    const counts = heldCounts(sb, ids);
    const heldIds = [...counts].filter(([, n]) => n > 0).map(([id]) => id);
    expect([...counts.values()].every((n) => n <= 1)).toBe(true);
    expect(heldIds).toHaveLength(report.length);
    const held = new Map(sb.payouts().map((p) => [p.payout_id, p]));
    for (const l of report) {
      expect(l.outcome, l.payout_id).toBe('accepted');
      expect(counts.get(l.payout_id!), l.payout_id).toBe(1);
      expect(l.transaction_id).toBe(held.get(l.payout_id!)!.transaction_id);
    }
    expect(report.map((l) => l.payout_id).sort()).toEqual([...heldIds].sort());
  });
});
