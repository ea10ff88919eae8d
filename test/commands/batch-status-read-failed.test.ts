/**
 * `payout batch status` of rows read Failed, in process against a plain node:http server that
 * plays the service (its list names the payouts made and records a test adds; its look-up answers account 1000000002 Failed at the first read, Successful
 * after; 1000000003 always Failed):
 * - probe 58, F4: a row this config folder's journal has as read Failed that now reads Successful
 *   is held back (exit 4, never 1 nor 0), named with when it was read Failed, that a retry may
 *   have paid the person twice, and the `payouts list` command that lists what may be that retry
 *   (run as printed: narrowed to the row's wallet, as CSV naming the account, probe R62 finding
 *   5); never written to --failed-out. Before: counted Successful, the journal's
 *   Failed overwritten, no word;
 * - probe M57, F5: Failed rows and no --failed-out: the last line of stderr is the same run with
 *   a --failed-out beside the report, named from it and not there yet, quoted so that it runs as
 *   printed from a folder with a space in its name (it writes the Failed rows); `--json` has it as
 *   `failed_out_command`. Before: the Failed rows, and nothing on how to send them again.
 */
import { writeFileSync, readFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLIP_WALLET as WALLET, startFlipService, type FlipService } from '../helpers/flip-service.js';
import { payctl } from '../helpers/in-process.js';
import { printed } from '../helpers/printed.js';

const FLIPS = '1000000002';
const STAYS = '1000000003';
let service: FlipService;
let cfg: FlipService['cfg'];

/** The status the look-up gives `account` at its `n`th read (0 first). */
function statusOf(account: string, n: number): string {
  if (account === FLIPS) return n === 0 ? 'failed' : 'successful';
  return 'failed';
}

beforeAll(async () => {
  service = await startFlipService({ key: 'bok_live_failed_then_paid_0123456789', statusOf, profile: 'ops' });
  ({ cfg } = service);
});

afterAll(() => service?.close());

const HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';

/** A batch file in `folder` of the config folder (made), sent under profile ops: the report's path. */
async function sentBatch(folder: string, name: string, rows: string): Promise<string> {
  mkdirSync(join(cfg.dir, folder), { recursive: true });
  const file = join(cfg.dir, folder, `${name}.csv`);
  writeFileSync(file, HEADER + rows);
  const batch = await payctl(['payout', 'batch', file, '--profile', 'ops', '--yes'], { dir: cfg.dir });
  expect(batch.code, batch.stderr).toBe(0);
  return join(cfg.dir, folder, `${name}.report.csv`);
}

describe('payout batch status: a row read Failed, then Successful (probe 58, F4)', () => {
  it('holds the row back (exit 4), says when it was read Failed and how to find a retry, and leaves it out of --failed-out', async () => {
    const report = await sentBatch('f4', 'pay', `,${WALLET},10.00,SLE,bank,Row Two,ecobank,${FLIPS},,\n,${WALLET},20.00,SLE,bank,Row Three,ecobank,${STAYS},,\n`);
    const first = await payctl(['payout', 'batch', 'status', report, '--profile', 'ops'], { dir: cfg.dir });
    expect(first.code, first.stderr).toBe(1);
    const out = join(cfg.dir, 'f4', 'retry.csv');
    const second = await payctl(['payout', 'batch', 'status', report, '--profile', 'ops', '--failed-out', out], { dir: cfg.dir });
    expect(second.code, second.stderr).toBe(4);
    expect(second.stderr).toMatch(/Row 2 \(payout [^)]+\) was read Failed \(in this config folder's journal, at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\), now Successful/);
    expect(second.stderr).toContain('the person may have been paid twice');
    expect(second.stderr).toContain(`Check for payouts of 10.00 SLE from wallet ${WALLET} to account ${FLIPS}`);
    const written = readFileSync(out, 'utf8');
    expect(written).toContain(STAYS);
    expect(written).not.toContain(FLIPS);
    // The same payee paid from another wallet since: the printed list, narrowed to the row's wallet, leaves it out; its CSV names the account.
    const elsewhere = 'TXN-BOK-0THERWA11ET0000000000000';
    service.listed.push({
      transaction_id: elsewhere,
      wallet_id: '9990001112',
      status: 'successful',
      amount: '10.00',
      currency: 'SLE',
      recipient: { transfer_type: 'bank', account_number: FLIPS, name: 'Row Two', bank: 'ECOBANK' },
      created_at: new Date().toISOString(),
    });
    expect(second.stderr).toContain(`payctl payouts list --profile ops --wallet ${WALLET} --currency SLE --from `);
    const list = await payctl(printed(second.stderr, 'payouts list'), { dir: cfg.dir });
    expect(list.code, list.stderr).toBe(0);
    const [header, ...rows] = list.stdout.trim().split('\n');
    expect(header).toContain('account_number');
    expect(rows.length).toBe(2);
    for (const row of rows) expect(row).toContain(WALLET);
    expect(rows.filter((row) => row.includes(FLIPS))).toHaveLength(1);
    expect(list.stdout).not.toContain(elsewhere);
    // The journal now holds it Successful: the repeat guard counts it paid.
    const h = await payctl(['history', '--json'], { dir: cfg.dir });
    expect(h.stdout).toMatch(/"payout_status":\s*"Successful"/);
  });
});

describe('payout batch status: Failed rows without --failed-out (probe M57, F5)', () => {
  it('ends with the command that writes them, which runs as printed; --json has it as failed_out_command', async () => {
    const report = await sentBatch('my pay', 'wages', `,${WALLET},30.00,SLE,bank,Worker No 0,ecobank,${STAYS},,\n`);
    const r = await payctl(['payout', 'batch', 'status', report, '--profile', 'ops', '--concurrency', '2'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.at(-2)).toBe('Write the Failed rows to a batch file to send again with:');
    const target = join(cfg.dir, 'my pay', 'wages.failed.csv');
    expect(lines.at(-1)).toBe(`  payctl payout batch status '${report}' --profile ops --concurrency 2 --failed-out '${target}'`);
    const again = await payctl(printed(r.stderr, 'payout batch status'), { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(1);
    expect(readFileSync(target, 'utf8')).toContain(STAYS);
    expect(again.stderr).not.toContain('Write the Failed rows');
    // Run again: a name not there yet.
    const json = await payctl(['--json', 'payout', 'batch', 'status', report, '--profile', 'ops'], { dir: cfg.dir });
    expect(json.code, json.stderr).toBe(1);
    const doc = JSON.parse(json.stdout);
    expect(doc.failed_out_command).toBe(`payctl payout batch status '${report}' --profile ops --failed-out '${join(cfg.dir, 'my pay', 'wages.failed-2.csv')}'`);
    expect(existsSync(join(cfg.dir, 'my pay', 'wages.failed-2.csv'))).toBe(false);
  });
});
