/**
 * A daily total counted from a journal that lost entries (issue 27; probe W 1): deleting entries
 * (or starting from a restored backup) must never pass for an empty day. What they paid is
 * unknown, so is the day's total: refused until they are acknowledged (--acknowledge-missing),
 * then counted without them, said with every check. The policy is
 * the README's example (docs/examples/policy.json); the journal is a real one in a temp folder.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { dailyTotalCaveat, limitProblems, loadPolicy } from '../../src/plans/policy.js';
import { Journal } from '../../src/payouts/journal.js';
import type { PayoutRequest } from '../../src/payouts/request.js';
import { scanned } from '../helpers/scanned.js';

const BASE = 'http://127.0.0.1:9/v2';
const POLICY = loadPolicy(join(import.meta.dirname, '../../docs/examples/policy.json'));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function request(amountMinor: bigint): PayoutRequest {
  return { payoutId: randomUUID(), walletId: '6643665465', amountMinor, currency: 'SLE' } as PayoutRequest;
}

describe('a daily total counted from a journal that lost entries', () => {
  it('counts a whole journal silently; an entry lost stops the total (a problem naming it) until acknowledged, then it is counted without it, said each time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-caveat-'));
    dirs.push(dir);
    const j = new Journal(dir);
    const ids = [randomUUID(), randomUUID()];
    for (const id of ids)
      await j.begin({ baseUrl: BASE, payoutId: id, body: `{"amount":100,"currency":"SLE","payoutId":"${id}","walletId":"6643665465"}`, now: new Date() });
    expect(await dailyTotalCaveat(POLICY, j, BASE)).toBeUndefined();
    const warnings: string[] = [];
    const warn = (l: string) => void warnings.push(l);
    expect(await limitProblems(POLICY, [request(100n)], j, BASE, new Date(), { warn })).toEqual([]);
    expect(warnings).toEqual([]);

    const victim = (await scanned(j)).find((it) => 'entry' in it && it.entry.payoutId === ids[0])!;
    unlinkSync(join(dir, 'journal', victim.name));
    const fresh = new Journal(dir);
    // What it paid today is unknown, so is the day's total: a problem, as for an entry that cannot be read.
    const refused = await limitProblems(POLICY, [request(100n)], fresh, BASE, new Date(), { warn });
    expect(refused).toEqual([
      `the daily total cannot be counted for wallet 6643665465 in SLE (policy daily_total.SLE): 1 entry of this config folder's journal (${dir}) for ${BASE} is missing: ${ids[0]} (deleted, moved aside or replaced by an older backup; journal.index names it), so what it paid today is unknown`,
    ]);
    expect(warnings).toEqual([]);
    // Another service's total is not stopped by it.
    expect(await limitProblems(POLICY, [request(100n)], fresh, 'http://127.0.0.1:10/v2', new Date(), { warn })).toEqual([]);
    // A currency without a daily total is not stopped either.
    expect(await limitProblems(POLICY, [{ ...request(100n), currency: 'USD' }], fresh, BASE, new Date(), { warn })).toEqual([]);

    // --acknowledge-missing, first said (nothing recorded), then recorded under the lock.
    expect(await limitProblems(POLICY, [request(100n)], fresh, BASE, new Date(), { warn, acknowledgeMissing: { record: false } })).toEqual([]);
    expect(await new Journal(dir).journalGaps(BASE, { unacknowledged: 'total' })).toMatchObject({ missing: 1 });
    expect(await limitProblems(POLICY, [request(100n)], fresh, BASE, new Date(), { acknowledgeMissing: { record: true } })).toEqual([]);
    expect(warnings).toEqual([
      `Policy ${POLICY.file}: --acknowledge-missing: 1 entry of this config folder's journal (${dir}) for ${BASE} is missing: ${ids[0]} (deleted, moved aside or replaced by an older backup; journal.index names it). It is acknowledged as gone when the payouts are journaled (journal.index), and the daily total goes on without it: what it paid is not counted, today or later.`,
    ]);
    warnings.length = 0;
    // From then on, counted without it, and said; the repeat guard's acknowledgement is another.
    expect(await new Journal(dir).journalGaps(BASE, { unacknowledged: 'total' })).toBeUndefined();
    expect(await new Journal(dir).journalGaps(BASE, { unacknowledged: 'repeat' })).toMatchObject({ missing: 1 });
    expect(await limitProblems(POLICY, [request(100n)], new Journal(dir), BASE, new Date(), { warn })).toEqual([]);
    expect(warnings).toEqual([
      `Policy ${POLICY.file}: the daily total is counted without an entry of this config folder's journal that is missing and was acknowledged (${ids[0]}): what it paid today is not counted.`,
    ]);
  });
});

describe('--acknowledge-missing in a check that refuses', () => {
  it('writes no acknowledgement, even under the lock (record), and says the entry would be acknowledged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-caveat-'));
    dirs.push(dir);
    const j = new Journal(dir);
    const id = randomUUID();
    await j.begin({ baseUrl: BASE, payoutId: id, body: `{"amount":100,"currency":"SLE","payoutId":"${id}","walletId":"6643665465"}`, now: new Date() });
    const victim = (await scanned(j)).find((it) => 'entry' in it && it.entry.payoutId === id)!;
    unlinkSync(join(dir, 'journal', victim.name));
    // Over the daily total alone (no per-payout maximum).
    const policy = { ...POLICY, maxPerPayout: new Map<string, bigint>() };
    const refused = await limitProblems(policy, [request(POLICY.dailyTotal.get('SLE')! + 1n)], new Journal(dir), BASE, new Date(), {
      acknowledgeMissing: { record: true },
    });
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain(`that is missing and would be acknowledged by this run (${id})`);
    expect(refused[0]).toContain('nothing was written to journal.index, as the run was refused, so a run without --acknowledge-missing is refused for it again');
    expect(await new Journal(dir).journalGaps(BASE, { unacknowledged: 'total' })).toMatchObject({ missing: 1 });
  });
});

describe('an entry that cannot be read or verified', () => {
  it('stops the daily total (exit 2, naming it) rather than counting it as nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-caveat-'));
    dirs.push(dir);
    const j = new Journal(dir);
    const id = randomUUID();
    await j.begin({ baseUrl: BASE, payoutId: id, body: `{"amount":100,"currency":"SLE","payoutId":"${id}","walletId":"6643665465"}`, now: new Date() });
    const victim = (await scanned(j)).find((it) => 'entry' in it && it.entry.payoutId === id)!;
    writeFileSync(join(dir, 'journal', victim.name), '{"version":2,');
    const err = await limitProblems(POLICY, [request(100n)], new Journal(dir), BASE, new Date()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/^The policy's daily limits cannot be counted: .*Nothing was sent\.$/);
    expect((err as ConfigError).message).toContain(victim.name);
  });
});
