/**
 * A payout `payout batch status` read Successful, read again Failed (or Pending): a
 * contradiction, not a settlement. The row is held back (exit 4, named with what was read
 * before and now and a `payout get … --wait` that works as printed), never written Failed into
 * the report or the journal, never written to --failed-out, so the printed retry does not pay
 * it a second time. A plain node:http server plays the service; its look-up answers the row
 * of account 1000000002 Successful once, then Failed.
 */
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLIP_WALLET as WALLET, startFlipService, type FlipService } from '../helpers/flip-service.js';
import { payctl } from '../helpers/in-process.js';
import { printed } from '../helpers/printed.js';

const FLIPS = '1000000002';
let service: FlipService;
let cfg: FlipService['cfg'];
let posts: FlipService['posts'];
let sent: FlipService['sent'];

/** The status the look-up gives `account` at its `n`th read (0 first). */
function statusOf(account: string, n: number): string {
  if (account === FLIPS) return n === 0 ? 'successful' : 'failed';
  return 'failed';
}

beforeAll(async () => {
  service = await startFlipService({ key: 'bok_live_contradicted_0123456789', statusOf });
  ({ cfg, posts, sent } = service);
});

afterAll(() => service?.close());

describe('payout batch status: a payout read Successful, then Failed', () => {
  it('holds the row back (exit 4), keeps Successful, and the printed commands pay it no second time', async () => {
    const file = join(cfg.dir, 'pay.csv');
    writeFileSync(
      file,
      'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n' +
        `,${WALLET},10.00,SLE,bank,Row Two,ecobank,${FLIPS},,\n` +
        `,${WALLET},20.00,SLE,bank,Row Three,ecobank,1000000003,,\n`,
    );
    const batch = await payctl(['payout', 'batch', file, '--yes'], { dir: cfg.dir });
    expect(batch.code, batch.stderr).toBe(0);
    expect(posts).toHaveLength(2);
    const report = join(cfg.dir, 'pay.report.csv');

    const first = await payctl(['payout', 'batch', 'status', report], { dir: cfg.dir });
    expect(first.code, first.stderr).toBe(1);
    expect(readFileSync(report, 'utf8')).toMatch(/^2,.*,Successful,,2026-11-28T20:48:13/m);

    const out = join(cfg.dir, 'failed.csv');
    const second = await payctl(['payout', 'batch', 'status', report, '--failed-out', out], { dir: cfg.dir });
    expect(second.code, second.stderr).toBe(4);
    const txn = [...sent].find(([, p]) => p.account === FLIPS)![0];
    expect(second.stderr).toContain('was read Successful (settled at 2026-11-28T20:48:13.046000Z), now Failed');
    expect(second.stderr).toContain('whether it was paid cannot be told');
    // The report and the journal keep Successful; the row is not said Failed.
    expect(readFileSync(report, 'utf8')).toMatch(/^2,.*,Successful,,2026-11-28T20:48:13/m);
    expect(second.stdout).not.toContain('row 2:');
    const history = await payctl(['history', '--json'], { dir: cfg.dir });
    expect(history.stdout).toMatch(/"payout_status":\s*"Successful"/);
    // --failed-out holds only the row that did fail.
    expect(existsSync(out)).toBe(true);
    const written = readFileSync(out, 'utf8');
    expect(written).toContain('1000000003');
    expect(written).not.toContain(FLIPS);

    // The check command as printed: reads the payout, sends nothing.
    const check = printed(second.stderr, `payout get ${txn}`);
    expect(check).toContain('--wait');
    const got = await payctl(check, { dir: cfg.dir });
    expect(got.stdout + got.stderr).toContain(txn);
    // Never exit 1 (Failed: a script would send it again): it was read Successful before, exit 4.
    expect(got.code, got.stderr).toBe(4);
    expect(got.stderr).toContain("was read Successful (in this config folder's journal), now Failed (flip): whether it was paid cannot be told.");
    expect(posts).toHaveLength(2);
    // Its Failed read does not overwrite the journal's Successful either (settle.ts noteSettled).
    const after = await payctl(['history', '--json'], { dir: cfg.dir });
    expect(after.stdout).toMatch(/"payout_status":\s*"Successful"/);

    // The retry as printed pays the failed row only.
    const retry = printed(second.stderr, 'payout batch ');
    const again = await payctl([...retry, '--yes'], { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(posts.slice(2).map((p) => p.account)).toEqual(['1000000003']);
  });
});
