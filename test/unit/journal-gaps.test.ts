/**
 * The journal's per-folder index (issue 27): entries this config folder journaled that are gone
 * are counted (journalGaps), whether one file or the whole journal folder was removed; and a
 * journal that cannot be written (a full disk, a read-only file system: a real tmpfs mounted for
 * the test, as root) is a plain message naming the cause, exit 2, never "a bug", nothing sent.
 */
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/payouts/journal.js';
import { IndexMark } from '../../src/payouts/ledger/index-mark.js';
import { ConfigError } from '../../src/errors.js';
import { payctl } from '../helpers/in-process.js';
import { scanned } from '../helpers/scanned.js';
import { loginInProcess } from '../helpers/batch-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const BASE = 'http://127.0.0.1:9/v2';
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'payctl-gaps-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A tmpfs of `size` mounted for the test (the sandbox runs tests as root), unmounted after. */
function tmpfs(size: string): string {
  const d = folder();
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', d]);
  cleanups.push(() => execFileSync('umount', ['-l', d]));
  return d;
}

async function journalThree(dir: string): Promise<{ j: Journal; ids: string[] }> {
  const j = new Journal(dir);
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  for (const id of ids) await j.begin({ baseUrl: BASE, payoutId: id, body: `{"amount":1,"payoutId":"${id}"}`, now: new Date() });
  return { j, ids };
}

describe('journalGaps', () => {
  it('an index with NUL bytes (which payctl never writes) is read up to them, and says so', async () => {
    const dir = folder();
    const { j, ids } = await journalThree(dir);
    const index = join(dir, 'journal.index');
    const lines = readFileSync(index, 'utf8').split('\n');
    // The third entry is lost, and its line comes after 1 MiB of NUL bytes.
    const victim = (await scanned(j)).find((it) => 'entry' in it && it.entry.payoutId === ids[2])!;
    unlinkSync(join(dir, 'journal', victim.name));
    const first = `${lines[0]}\n${lines[1]}\n`;
    writeFileSync(index, Buffer.concat([Buffer.from(first), Buffer.alloc(1 << 20), Buffer.from(`\n${lines[2]}\n`)]));
    expect(await new Journal(dir).journalGaps()).toEqual({
      missing: 0,
      recorded: 2,
      payoutIds: [],
      unverified: 0,
      unread: `The payout journal's index ${index} holds a NUL byte at byte ${Buffer.byteLength(first)}, which payctl never writes: it was not read past it.`,
    });
  });

  it('nothing missing: undefined; one entry file deleted: 1, named; the journal folder deleted: all 3', async () => {
    const dir = folder();
    const { j, ids } = await journalThree(dir);
    expect(await j.journalGaps()).toBeUndefined();
    // Its file: the one entry whose payout id is ids[1].
    const victim = (await scanned(j)).find((it) => 'entry' in it && it.entry.payoutId === ids[1])!;
    unlinkSync(join(dir, 'journal', victim.name));
    expect(await new Journal(dir).journalGaps()).toMatchObject({ missing: 1, recorded: 3, payoutIds: [ids[1]], unverified: 0 });
    rmSync(join(dir, 'journal'), { recursive: true });
    expect(await new Journal(dir).journalGaps()).toMatchObject({ missing: 3, recorded: 3 });
  });

  it('batch entries (kept in a log) are noted too; index lines planted without the journal key are passed over', async () => {
    const dir = folder();
    const j = new Journal(dir);
    const ids = Array.from({ length: 40 }, () => randomUUID());
    await Promise.all(ids.map((id) => j.begin({ baseUrl: BASE, payoutId: id, body: `{"amount":2,"payoutId":"${id}"}`, now: new Date(), log: true })));
    await j.closeLog();
    writeFileSync(join(dir, 'journal.index'), JSON.stringify({ name: '0'.repeat(32) + '.json', payoutId: 'planted', mac: 'f'.repeat(64) }) + '\n', { flag: 'a' });
    expect(await new Journal(dir).journalGaps()).toBeUndefined();
    rmSync(join(dir, 'journal'), { recursive: true });
    expect(await new Journal(dir).journalGaps()).toMatchObject({ missing: 40, recorded: 40, unverified: 1 });
  });
});

describe('a journal deleted whole, its index with it (probe W 2)', () => {
  it('journal.key kept: entries of unknown number (journalLost, of any base URL); an entry made since keeps it as a signed `lost` line; each acknowledgement for its own kind', async () => {
    const dir = folder();
    await journalThree(dir);
    rmSync(join(dir, 'journal'), { recursive: true });
    rmSync(join(dir, 'journal.index'));
    expect(await new Journal(dir).journalGaps()).toEqual({ missing: 0, recorded: 0, payoutIds: [], unverified: 0, journalLost: true });
    expect(await new Journal(dir).journalGaps('http://127.0.0.1:10/v2', { unacknowledged: 'total' })).toMatchObject({ journalLost: true });

    // A payout of another service: the index made again, beginning with the loss.
    const other = new Journal(dir);
    await other.begin({ baseUrl: 'http://127.0.0.1:10/v2', payoutId: randomUUID(), body: '{"amount":1}', now: new Date() });
    const lines = readFileSync(join(dir, 'journal.index'), 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(Object.keys(JSON.parse(lines[0]!) as object)).toEqual(['lost', 'mac']);
    expect(await new Journal(dir).journalGaps(BASE, { unacknowledged: 'total' })).toMatchObject({ missing: 0, journalLost: true });

    // A `lost` line not signed with the journal key says nothing.
    writeFileSync(join(dir, 'journal.index'), JSON.stringify({ lost: 'planted', mac: 'f'.repeat(64) }) + '\n', { flag: 'a' });
    expect(await new Journal(dir).journalGaps()).toMatchObject({ unverified: 1, journalLost: true });

    // The repeat guard's acknowledgement lifts it for the guard only; the daily total's for the total, and it is still said without the filter.
    expect(await new Journal(dir).journalGaps(BASE, { unacknowledged: 'repeat' })).toMatchObject({ journalLost: true });
    expect(await new Journal(dir).acknowledgeGaps(BASE, 'repeat')).toBe(1);
    expect(await new Journal(dir).journalGaps(BASE, { unacknowledged: 'repeat' })).toBeUndefined();
    expect(await new Journal(dir).journalGaps(BASE, { unacknowledged: 'total' })).toMatchObject({ journalLost: true });
    expect(await new Journal(dir).acknowledgeGaps(BASE, 'total')).toBe(1);
    expect(await new Journal(dir).journalGaps(BASE, { unacknowledged: 'total' })).toBeUndefined();
    expect(await new Journal(dir).journalGaps()).toMatchObject({ journalLost: true });
  });

  it('acknowledged before any entry is made again: the `lost` line is written with its acknowledgement', async () => {
    const dir = folder();
    await journalThree(dir);
    rmSync(join(dir, 'journal'), { recursive: true });
    rmSync(join(dir, 'journal.index'));
    expect(await new Journal(dir).acknowledgeGaps(BASE, 'total')).toBe(1);
    expect(await new Journal(dir).journalGaps(BASE, { unacknowledged: 'total' })).toBeUndefined();
    expect(await new Journal(dir).journalGaps()).toMatchObject({ journalLost: true });
  });

  it('not lost: a fresh folder (the index made before the key), and a journal of a payctl before the index (no index, no high-water mark)', async () => {
    const dir = folder();
    const j = new Journal(dir);
    await j.begin({ baseUrl: BASE, payoutId: randomUUID(), body: '{"amount":1}', now: new Date() });
    expect(readFileSync(join(dir, 'journal.index'), 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    expect(await new Journal(dir).journalGaps()).toBeUndefined();
    // Its entries there, its index and high-water mark gone (never made by the payctl that wrote them): nothing to compare.
    rmSync(join(dir, 'journal.index'));
    rmSync(join(dir, 'journal.mark'));
    expect(await new Journal(dir).journalGaps()).toBeUndefined();
    await new Journal(dir).begin({ baseUrl: BASE, payoutId: randomUUID(), body: '{"amount":2}', now: new Date() });
    expect(await new Journal(dir).journalGaps()).toBeUndefined();
  });
});

describe('the high-water mark while another payctl appends (probe Q 1)', () => {
  it('a line appended and marked by another payctl just as the index is read is never taken for a rollback', async () => {
    // Probe Q: 3 of 54 payout create run at once on a 1,500-entry journal were refused as "rolled
    // back", and a `lost` line written for good: the mark was read after the index was opened,
    // so a line appended in between (and its mark) looked past the index's end. Here the other
    // payctl's append comes exactly at the reader's read of the mark.
    const dir = folder();
    await journalThree(dir);
    const index = join(dir, 'journal.index');
    const first = readFileSync(index, 'utf8').split('\n')[0]!;
    // The mark's own read, taken before it is spied on.
    const read = Object.getOwnPropertyDescriptor(IndexMark.prototype, 'read')!.value as (this: IndexMark) => ReturnType<IndexMark['read']>;
    const original = (mark: IndexMark) => read.call(mark);
    let appended = false;
    const spy = vi.spyOn(IndexMark.prototype, 'read').mockImplementation(function (this: IndexMark) {
      if (!appended) {
        appended = true;
        const fd = openSync(index, 'a');
        try {
          writeSync(fd, `${first}\n`);
          this.now(fd, (JSON.parse(first) as { mac: string }).mac, fstatSync(fd).size);
        } finally {
          closeSync(fd);
        }
      }
      return original(this);
    });
    try {
      const gaps = await new Journal(dir).journalGaps();
      expect(appended).toBe(true);
      expect(gaps?.journalLost ?? false).toBe(false);
    } finally {
      spy.mockRestore();
    }
    expect((await new Journal(dir).journalGaps())?.journalLost ?? false).toBe(false);
  });
});

describe('a journal that cannot be written', () => {
  it('a full disk: begin refuses with "no space left on device" (a ConfigError, exit 2)', async () => {
    const dir = tmpfs('256k');
    const j = new Journal(dir);
    await j.begin({ baseUrl: BASE, payoutId: randomUUID(), body: '{"amount":1}', now: new Date() });
    fill(dir);
    const err = await j.begin({ baseUrl: BASE, payoutId: randomUUID(), body: '{"amount":1}', now: new Date() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/no space left on device \(ENOSPC\)\. Nothing was sent for payout/);
  });

  it('payout create on a full disk, and on a read-only file system: exit 2 naming the cause, never "a bug", nothing sent', async () => {
    const dir = tmpfs('512k');
    mkdirSync(join(dir, 'cfg'), { mode: 0o700 });
    const cfg = join(dir, 'cfg');
    await loginInProcess(ctx.sb, cfg);
    const wallet = freshWallet(ctx.sb, '1000.00');
    const args = (id: string) =>
      ['payout', 'create', '--wallet', wallet, '--amount', '12.50', '--currency', 'SLE', '--type', 'bank', '--name', 'Fatmata Sesay'].concat([
        '--provider',
        'ecobank',
        '--account',
        '0123456789',
        '--payout-id',
        id,
        '--yes',
      ]);
    // The journal key first (made on first use), so only the entry itself fails.
    await new Journal(cfg).journalGaps();
    await new Journal(cfg).begin({ baseUrl: BASE, payoutId: randomUUID(), body: '{}', now: new Date() });
    fill(dir);
    const before = ctx.sb.payouts().length;
    const full = await payctl(args(randomUUID()), { dir: cfg });
    expect(full.code, full.stderr).toBe(2);
    expect(full.stderr).toContain('no space left on device');
    expect(full.stderr).not.toContain('This is a bug');
    rmSync(join(dir, 'filler'));
    execFileSync('mount', ['-o', 'remount,ro', dir]);
    const ro = await payctl(args(randomUUID()), { dir: cfg });
    expect(ro.code, ro.stderr).toBe(2);
    expect(ro.stderr).toContain('the file system is read-only');
    expect(ro.stderr).not.toContain('This is a bug');
    expect(ctx.sb.payouts().length).toBe(before);
  });
});

/** Fills the file system at `dir` to its last byte (a file `filler`). */
function fill(dir: string): void {
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) writeFileSync(join(dir, 'filler'), chunk, { flag: 'a' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  }
}
