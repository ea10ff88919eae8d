/**
 * One rule for a key the service refuses (probe 70-S, finding 4): a 401 or a 403, from any
 * route, is exit 3 with the `payctl login` hint, for every command that reads: `status`,
 * `balances`, `payouts list`, `summary` (the service's and the computed one), `payout get`.
 * A 403 is said as what it is (FORBIDDEN, "not allowed for this key"), never "UNAUTHORIZED";
 * a 401 stays UNAUTHORIZED. Against a plain node:http service that answers every request so.
 */
import { describe, expect, it } from 'vitest';
import { hostile, hostileProfile, json, useHostileCleanups } from '../helpers/hostile.js';
import { useConfigDir } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';

const cfg = useConfigDir();
useHostileCleanups();

const READS = [['balances'], ['payouts', 'list'], ['summary'], ['summary', '--currency', 'SLE'], ['payout', 'get', 'TXN-BOK-00000000000000000000000001'], ['status']];

async function answering(status: number): Promise<void> {
  const h = await hostile((_req, res) => json(res, status, { message: 'This action is unauthorized.' }));
  hostileProfile(cfg.dir, h);
}

describe('a 403 from the service', () => {
  it.each(READS.map((a) => [a.join(' '), a]))('%s: exit 3, FORBIDDEN, the login hint', async (_name, args) => {
    await answering(403);
    const r = await payctl(args, { dir: cfg.dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('Error: The service forbids this request with this API key (This action is unauthorized.).');
    expect(r.stderr).toContain('HTTP 403 FORBIDDEN');
    expect(r.stderr).not.toContain('UNAUTHORIZED');
    expect(r.stderr).toContain('payctl login');
    const j = await payctl([...args, '--json'], { dir: cfg.dir, clock: new TestClock() });
    expect(j.code, j.stderr).toBe(3);
    expect(JSON.parse(j.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { status: 403, code: 'FORBIDDEN' } });
  });

  it('status: the card says the key is not allowed (HTTP 403 forbidden), --json credentials "refused"', async () => {
    await answering(403);
    const r = await payctl(['status'], { dir: cfg.dir });
    expect(r.stdout).toMatch(/Service\s+reachable/);
    expect(r.stdout).toMatch(/Credentials\s+not allowed for this key \(HTTP 403 forbidden\)/);
    const j = await payctl(['status', '--json'], { dir: cfg.dir });
    expect(JSON.parse(j.stdout)).toMatchObject({ service: 'reachable', credentials: 'refused', authenticated: false });
  });
});

describe('a 401 from the service', () => {
  it.each(READS.map((a) => [a.join(' '), a]))('%s: exit 3, UNAUTHORIZED', async (_name, args) => {
    await answering(401);
    const r = await payctl(args, { dir: cfg.dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('Error: The service refused the API key (This action is unauthorized.).');
    expect(r.stderr).toContain('HTTP 401 UNAUTHORIZED');
  });
});
