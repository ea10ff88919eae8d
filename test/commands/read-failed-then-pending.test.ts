/**
 * A payout this config folder's journal holds read Failed that the service now reads Pending
 * (probe R60 finding 5). Failed is final: the operator may have sent it again (--wait exited 1,
 * --failed-out wrote it), so should this one settle Successful the person may be paid twice.
 * Before, `payout get` printed the Pending card and exited 0 with no word (--wait waited on), and
 * `payout batch status` counted the row Pending. Now, as for a Failed read that turns Successful,
 * exit 4 (STATUS_UNKNOWN) saying when it was read Failed, that a retry may pay twice, and the
 * `payouts list` command that lists what may be that retry; --wait at the first such read; the
 * journal keeps Failed. `payout get` runs in process against the sandbox behind a proxy that
 * rewrites the look-ups; `payout batch status` against a plain node:http service (flip-service.ts).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { newKey, useConfigDir, writeProfiles } from '../helpers/e2e.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { printed } from '../helpers/printed.js';
import { FLIP_WALLET, startFlipService, type FlipService } from '../helpers/flip-service.js';

const KEY = newKey();
const cfg = useConfigDir();
useHostileCleanups();
const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 3_600_000 });

const WHEN = "in this config folder's journal, at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC";

/** A bank payout of 12 SLE sent through a proxy (profile lie), read Failed there by `payout get --wait` (exit 1); the proxy then passes look-ups through, counting them. */
async function readFailed(): Promise<{ id: string; lookups: () => number }> {
  const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  const lie = await sandboxProxy(ctx.sb);
  writeProfiles(cfg.dir, { lie: { baseUrl: lie.baseUrl, apiKey: KEY } });
  const id = randomUUID();
  const to = ['--type', 'bank', '--name', 'Ibrahim Bangura', '--provider', 'rokel_commercial_bank', '--account', '4410001235'];
  const c = await payctl(['payout', 'create', '--profile', 'lie', '--wallet', wallet, '--amount', '12', '--currency', 'SLE', ...to, '--payout-id', id, '--yes'], {
    dir: cfg.dir,
  });
  expect(c.code, c.stderr).toBe(0);
  lie.rewriteLookups((raw) => raw.split('"status":"pending"').join('"status":"failed"'));
  const failed = await payctl(['payout', 'get', id, '--profile', 'lie', '--wait'], { dir: cfg.dir, clock: new TestClock() });
  expect(failed.code, failed.stderr).toBe(1);
  let n = 0;
  lie.rewriteLookups((raw) => (n++, raw));
  return { id, lookups: () => n };
}

describe('payout get of a payout read Failed that now reads Pending (probe R60, F5)', () => {
  for (const wait of [false, true]) {
    it(`payout get${wait ? ' --wait' : ''}: exit 4 at the first read, when it was read Failed, the retry check; the journal keeps Failed`, async () => {
      const { id, lookups } = await readFailed();
      const r = await payctl(['payout', 'get', id, '--profile', 'lie', ...(wait ? ['--wait'] : [])], { dir: cfg.dir, clock: new TestClock() });
      expect(r.code, r.stderr).toBe(4);
      expect(lookups()).toBe(1);
      expect(r.stdout).toMatch(/Status\s+Pending/);
      expect(r.stderr).toMatch(new RegExp(`Payout ${id} \\(transaction TXN-[^)]+\\) was read Failed \\(${WHEN}\\), now Pending: Failed is final`));
      expect(r.stderr).toContain('the person may be paid twice');
      expect(r.stderr).toContain('Check for payouts of 12.00 SLE from wallet');
      expect(r.stderr).toContain(`payctl payout get`);
      const list = await payctl(printed(r.stderr, 'payouts list'), { dir: cfg.dir });
      expect(list.code, list.stderr).toBe(0);
      // A Pending read is no settlement: the journal keeps Failed, and says so again.
      const h = await payctl(['history', '--json'], { dir: cfg.dir });
      expect(h.stdout).toMatch(/"payout_status":\s*"Failed"/);
      expect((await payctl(['payout', 'get', id, '--profile', 'lie'], { dir: cfg.dir })).code).toBe(4);
    });
  }

  it('--json: exit 4, code STATUS_UNKNOWN, the check in its hint', async () => {
    const { id } = await readFailed();
    const r = await payctl(['--json', 'payout', 'get', id, '--profile', 'lie'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(4);
    const err = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
    expect(err.code).toBe('STATUS_UNKNOWN');
    expect(err.message).toContain('was read Failed');
    expect(err.hint).toMatch(/payctl payouts list --profile lie --wallet \d+ --currency SLE --from \S+ --all --csv/);
  });
});

describe('payout batch status: a row read Failed that now reads Pending (probe R60, F5)', () => {
  let service: FlipService;
  beforeAll(async () => {
    service = await startFlipService({ key: 'bok_live_failed_then_pending_0123456', statusOf: (_account, n) => (n === 0 ? 'failed' : 'pending'), profile: 'ops' });
  });
  afterAll(() => service?.close());

  it('holds the row back (exit 4), says when it was read Failed and how to find a retry; the journal keeps Failed', async () => {
    const dir = service.cfg.dir;
    const file = join(dir, 'pay.csv');
    writeFileSync(file, `payout_id,wallet_id,amount,currency,type,name,provider,account_number\n,${FLIP_WALLET},10.00,SLE,bank,Row Two,ecobank,1000000002\n`);
    expect((await payctl(['payout', 'batch', file, '--profile', 'ops', '--yes'], { dir })).code).toBe(0);
    const report = join(dir, 'pay.report.csv');
    const first = await payctl(['payout', 'batch', 'status', report, '--profile', 'ops'], { dir });
    expect(first.code, first.stderr).toBe(1);
    const second = await payctl(['payout', 'batch', 'status', report, '--profile', 'ops'], { dir });
    expect(second.code, second.stderr).toBe(4);
    expect(second.stderr).toMatch(new RegExp(`Row 2 \\(payout [^)]+\\) was read Failed \\(${WHEN}\\), now Pending: Failed is final`));
    expect(second.stderr).toContain('The journal keeps Failed');
    expect(second.stderr).toContain(`Check for payouts of 10.00 SLE from wallet ${FLIP_WALLET} to account 1000000002`);
    expect((await payctl(printed(second.stderr, 'payouts list'), { dir })).code).toBe(0);
    const json = await payctl(['--json', 'payout', 'batch', 'status', report, '--profile', 'ops'], { dir });
    expect(json.code, json.stderr).toBe(4);
    expect(JSON.parse(json.stdout).contradicted_rows).toMatchObject([{ row: 2, read_before: 'Failed', status: 'Pending' }]);
    const h = await payctl(['history', '--json'], { dir });
    expect(h.stdout).toMatch(/"payout_status":\s*"Failed"/);
  });
});
