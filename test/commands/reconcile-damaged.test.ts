/**
 * `payctl history reconcile` over a journal with an entry it cannot read or verify, in process
 * against the sandbox over HTTP: the entry may be a payout of unknown outcome, so the run never
 * says "No unknown outcomes" nor exits 0 (before: exit 0, `"unknown":0`, and a warning that
 * named no file). It names the file, counts it (`counts.damaged`, `damaged` in --json) and
 * exits 2. An entry journal.index names that is gone (a journal folder restored from an older
 * backup) is named as missing and counted the same way (before: "No unknown outcomes", exit 0).
 * A batch log cut short (a crash, a full disk): the rerun's refusal names the log and
 * the byte where it breaks, and says the claim holds no key (before: it named only the claim, said
 * it "holds the idempotency key"); reconcile counts the row passed over the same way.
 */
import { randomUUID } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { loginInProcess } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { Journal } from '../../src/payouts/journal.js';
import { batchRows, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
});

afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

/** `payout create` whose every attempt loses its answer: exit 4, its entry unknown; the entry's file. */
async function unknownPayout(payoutId: string): Promise<string> {
  const wallet = freshWallet(ctx.sb, '1000.00');
  const account = String(Math.floor(1e9 + Math.random() * 8e9));
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: 10 });
  const args = ['payout', 'create', '--wallet', wallet, '--amount', '25.00', '--currency', 'SLE', '--type', 'bank', '--name', 'Damaged Unknown'];
  const r = await payctl([...args, '--provider', 'ecobank', '--account', account, '--payout-id', payoutId, '--yes'], { dir, clock: new TestClock() });
  expect(r.code, r.stderr).toBe(4);
  ctx.sb.faults.clear();
  expect((await new Journal(dir).get(ctx.sb.baseUrl, payoutId))?.outcome?.kind).toBe('unknown');
  const [name] = readdirSync(join(dir, 'journal')).filter((n) => n.endsWith('.json'));
  return join(dir, 'journal', name!);
}

describe('history reconcile with an entry that does not verify', () => {
  it('an unknown payout whose entry was changed: not "No unknown outcomes", the file named, exit 2; --json counts it', async () => {
    const id = `dmg-${randomUUID()}`;
    const file = await unknownPayout(id);
    // One field altered outside payctl.
    writeFileSync(file, readFileSync(file, 'utf8').replace('Damaged Unknown', 'Damaged Unknowm'));

    const r = await payctl(['history', 'reconcile'], { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toContain('No unknown outcomes in the journal');
    expect(r.stderr).toContain('1 journal entry was passed over');
    expect(r.stderr).toContain('its outcome is not known');
    expect(r.stderr).toContain(file);

    const j = await payctl(['history', 'reconcile', '--json'], { dir });
    expect(j.code, j.stderr).toBe(2);
    const doc = JSON.parse(j.stdout) as { counts: Record<string, number>; damaged: string[] };
    expect(doc.counts).toEqual({ accepted: 0, rejected: 0, unknown: 0, damaged: 1 });
    expect(doc.damaged).toHaveLength(1);
    expect(doc.damaged[0]).toContain(file);
  });
});

describe('history reconcile with an entry journal.index names that is gone', () => {
  it('a journal folder restored from a backup taken before an unknown payout: the entry named as missing, exit 2; --json counts it', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00');
    const before = await payctl(
      [
        'payout',
        'create',
        '--wallet',
        wallet,
        '--amount',
        '10.00',
        '--currency',
        'SLE',
        '--type',
        'bank',
        '--name',
        'Kept',
        '--provider',
        'ecobank',
        '--account',
        '111',
        '--yes',
      ],
      { dir },
    );
    expect(before.code, before.stderr).toBe(0);
    const backup = join(dir, 'journal.bak');
    cpSync(join(dir, 'journal'), backup, { recursive: true });
    const id = `gone-${randomUUID()}`;
    await unknownPayout(id);
    // The journal folder replaced by the older backup: journal.index still names the unknown payout's entry.
    rmSync(join(dir, 'journal'), { recursive: true });
    cpSync(backup, join(dir, 'journal'), { recursive: true });

    const r = await payctl(['history', 'reconcile'], { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toContain('No unknown outcomes in the journal');
    expect(r.stderr).toContain('1 journal entry was passed over');
    expect(r.stderr).toContain(`the entry of payout ${id} is missing`);

    const j = await payctl(['history', 'reconcile', '--json'], { dir });
    expect(j.code, j.stderr).toBe(2);
    const doc = JSON.parse(j.stdout) as { counts: Record<string, number>; damaged: string[] };
    expect(doc.counts).toEqual({ accepted: 0, rejected: 0, unknown: 0, damaged: 1 });
    expect(doc.damaged[0]).toContain(id);
  });
});

describe('a batch log cut short', () => {
  it('the rerun is refused naming the log and the byte where it breaks; reconcile counts the row passed over, exit 2', async () => {
    const work = tempWorkDir();
    try {
      const wallet = freshWallet(ctx.sb, '1000.00');
      const file = writeFile(join(work.dir, 'b.csv'), toCsv(batchRows(4, wallet, `trl-${randomUUID().slice(0, 8)}`)));
      const first = await payctl(['payout', 'batch', file, '--yes'], { dir });
      expect(first.code, first.stderr).toBe(0);
      const logs = join(dir, 'journal', 'log');
      const [name] = readdirSync(logs).filter((n) => n.endsWith('.log'));
      const log = join(logs, name!);
      const size = statSync(log).size;
      // The last line cut (a crash or a full disk while it was written).
      truncateSync(log, size - 300);
      const whole = readFileSync(log).lastIndexOf(0x0a) + 1;

      const from = ctx.sb.requests().length;
      const r = await payctl(['payout', 'batch', file, '--yes'], { dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`claim on the log ${log}, which holds no entry for it`);
      expect(r.stderr).toContain(`is cut short: its last whole line ends at byte ${whole}`);
      expect(r.stderr).toContain('The claim holds no idempotency key');
      expect(r.stderr).not.toContain('It holds the idempotency key');
      expect(
        ctx.sb
          .requests()
          .slice(from)
          .filter((q) => q.method === 'POST'),
      ).toHaveLength(0);

      const rec = await payctl(['history', 'reconcile'], { dir });
      expect(rec.code, rec.stderr).toBe(2);
      expect(rec.stderr).toContain('1 journal entry was passed over');
      expect(rec.stderr).toContain(log);
    } finally {
      work.cleanup();
    }
  });
});
