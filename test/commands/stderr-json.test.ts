/**
 * stderr under --json is JSON lines only (src/output/log.ts), in process against the sandbox:
 * retry lines, warnings and notices are `{"warning":…}` / `{"notice":…}` lines, the error is
 * the last line, so `jq -r '.error.payout_id // empty'` reads it (probe C53, finding 1: text
 * lines before the error document made jq fail exactly when a script needed the payout id).
 * Without --json, nothing changes: the same messages as text.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { newKey, oneJson, useConfigDir, writeLoggedIn } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutArgs } from '../helpers/payout-fixtures.js';
import { batchRows, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';
import { errorOf, stderrDocs, warningsOf } from '../helpers/stderr-json.js';

const KEY = newKey();
// Payouts stay Pending for an hour: a --wait runs out first.
const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 3_600_000 });
const cfg = useConfigDir();

beforeEach(async () => {
  await writeLoggedIn(ctx.sb, cfg.dir, KEY);
});
afterEach(() => ctx.sb.faults.clear());

describe('--json: every line of stderr is a JSON document, the error the last', () => {
  it('a create retried until its outcome is unknown (exit 4): the retry lines are notices, the last line the error with payout_id', async () => {
    const wallet = freshWallet(ctx.sb, '5000.00', 'SLE');
    const id = `u4-${randomUUID()}`;
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 500, times: Infinity });
    const r = await payctl(payoutArgs(wallet, id, ['--json']), { dir: cfg.dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(4);
    // Before: "Attempt 1 got no final answer (HTTP 500); retrying in …" as text before the document.
    const docs = stderrDocs(r.stderr);
    const retries = docs.slice(0, -1);
    expect(retries.length).toBeGreaterThan(0);
    for (const d of retries) expect(Object.keys(d)).toEqual([expect.stringMatching(/^(notice|warning)$/)]);
    expect(retries.some((d) => /^Attempt 1 got no final answer \(HTTP 500\); retrying in .* with the same idempotency key/.test(d.notice ?? d.warning))).toBe(true);
    expect(errorOf(r.stderr).payout_id).toBe(id);
  });

  it('a warning (PAYCTL_TOKEN set) before an error: {"warning":…}, then the error, the last line', async () => {
    const r = await payctl(['balances', '--json', '--wallet', '999'], { dir: cfg.dir, env: { PAYCTL_TOKEN: 'tok_retired_0123456789' } });
    expect(r.code, r.stderr).not.toBe(0);
    expect(warningsOf(r.stderr)).toEqual([expect.stringMatching(/^PAYCTL_TOKEN is no longer used: /)]);
    expect(errorOf(r.stderr).message).toBeTruthy();
    expect(r.stderr).not.toContain('tok_retired_0123456789');
  });

  it('create --wait ending STILL_PENDING (exit 5) after a retry: JSON lines, the error last with payout_id', async () => {
    const wallet = freshWallet(ctx.sb, '5000.00', 'SLE');
    const id = `w5-${randomUUID()}`;
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 503, times: 1 });
    const r = await payctl(payoutArgs(wallet, id, ['--json', '--wait', '--wait-timeout', '1']), { dir: cfg.dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(5);
    expect(oneJson(r.stdout).data.status).toBe('pending');
    const docs = stderrDocs(r.stderr);
    expect(docs.length).toBeGreaterThan(1);
    expect(docs[0]!.notice ?? docs[0]!.warning).toMatch(/^Attempt 1 got no final answer \(HTTP 503\)/);
    expect(errorOf(r.stderr)).toMatchObject({ code: 'STILL_PENDING', payout_id: id });
  });

  it('payout batch --json: the plan, the progress and the result are notices, no text line and no bar', async () => {
    const wallet = freshWallet(ctx.sb, '90000.00', 'SLE');
    const work = tempWorkDir();
    try {
      const file = writeFile(work.file('rows.csv'), toCsv(batchRows(3, wallet, `b-${randomUUID().slice(0, 8)}`)));
      // A terminal's stderr too: no bar under --json.
      const r = await payctl(['payout', 'batch', file, '--yes', '--json'], { dir: cfg.dir, tty: { stderr: true } });
      expect(r.code, r.stderr).toBe(0);
      expect(oneJson(r.stdout)).toMatchObject({ rows: 3, accepted: 3 });
      // Before: "progress: 3/3, 3 done, …" as a text line (and at a terminal the bar), among the plan's and result's text.
      const docs = stderrDocs(r.stderr);
      for (const d of docs) expect(Object.keys(d)).toEqual([expect.stringMatching(/^(notice|warning)$/)]);
      expect(docs.some((d) => /^progress: 3\/3, 3 done/.test(d.notice ?? ''))).toBe(true);
      expect(r.stderr).not.toContain('\r');
    } finally {
      work.cleanup();
    }
  });
});

describe('without --json, stderr is text as before', () => {
  it('the retry lines, the warning and the error as a person reads them', async () => {
    const wallet = freshWallet(ctx.sb, '5000.00', 'SLE');
    const id = `t5-${randomUUID()}`;
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 503, times: 1 });
    const r = await payctl(payoutArgs(wallet, id, ['--wait', '--wait-timeout', '1']), {
      dir: cfg.dir,
      clock: new TestClock(),
      env: { PAYCTL_TOKEN: 'tok_retired_0123456789' },
    });
    expect(r.code, r.stderr).toBe(5);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Warning: PAYCTL_TOKEN is no longer used: /);
    expect(r.stderr).toMatch(/^Attempt 1 got no final answer \(HTTP 503\); retrying in .* with the same idempotency key/m);
    expect(r.stderr).toContain(`✓ Payout ${id} submitted.\n`);
    expect(r.stderr).toMatch(/^Error: Payout .* is still Pending after 1 s \(--wait-timeout 1\)\./m);
    expect(r.stderr).not.toMatch(/^\{/m);
  });
});
