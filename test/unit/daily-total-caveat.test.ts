/**
 * A daily total counted from a journal that lost entries says so (issue 27): deleting entries
 * (or starting from a restored backup) must never pass for an empty day unnoticed. The policy is
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

describe('dailyTotalCaveat', () => {
  it('says nothing for a whole journal; names the lost entries once one is deleted, and limitProblems warns of it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-caveat-'));
    dirs.push(dir);
    const j = new Journal(dir);
    const ids = [randomUUID(), randomUUID()];
    for (const id of ids)
      await j.begin({ baseUrl: BASE, payoutId: id, body: `{"amount":100,"currency":"SLE","payoutId":"${id}","walletId":"6643665465"}`, now: new Date() });
    expect(await dailyTotalCaveat(POLICY, j)).toBeUndefined();
    const warnings: string[] = [];
    expect(await limitProblems(POLICY, [request(100n)], j, BASE, new Date(), (l) => warnings.push(l))).toEqual([]);
    expect(warnings).toEqual([]);

    const victim = (await scanned(j)).find((it) => 'entry' in it && it.entry.payoutId === ids[0])!;
    unlinkSync(join(dir, 'journal', victim.name));
    const fresh = new Journal(dir);
    expect(await dailyTotalCaveat(POLICY, fresh)).toBe(
      `the daily total is counted from this machine's journal, which has lost 1 entry it recorded (${ids[0]}): what they sent today is not counted`,
    );
    await limitProblems(POLICY, [request(100n)], fresh, BASE, new Date(), (l) => warnings.push(l));
    expect(warnings).toEqual([
      `Policy ${POLICY.file}: the daily total is counted from this machine's journal, which has lost 1 entry it recorded (${ids[0]}): what they sent today is not counted.`,
    ]);
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
