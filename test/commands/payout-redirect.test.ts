/**
 * POST /payout answered with a redirect (a proxy in front of the service, a service that moved):
 * payctl follows none (the key goes only to the base URL's origin), and a redirect is no refusal:
 * what answered may have passed the payout on first (here the sandbox made it; a 303 says so
 * outright). So the outcome is unknown (exit 4), never "refused, no payout was made" (before:
 * exit 1, journaled refused, a made payout recorded as not made). history reconcile then
 * resends it under its key: one payout. In process, a proxy in front of the sandbox over real HTTP.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { heldFor } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { Journal } from '../../src/payouts/journal.js';

const ctx = useSandbox();
useHostileCleanups();
let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempConfigDir()));
afterEach(() => cleanup());

describe('POST /payout answered with a redirect', () => {
  for (const status of [302, 303, 307]) {
    it(`HTTP ${status}: unknown, exit 4, never refused; reconcile then records the one payout`, async () => {
      const proxy = await sandboxProxy(ctx.sb);
      writeProfile(dir, { baseUrl: proxy.baseUrl, apiKey: ctx.sb.apiKey });
      proxy.rewriteNextPayout(() => ({ status, body: '', contentType: 'text/html' }));
      const wallet = freshWallet(ctx.sb, '1000.00');
      const id = randomUUID();
      const args = ['payout', 'create', '--wallet', wallet, '--amount', '41.30', '--currency', 'SLE', '--type', 'bank'];
      const r = await payctl([...args, '--name', 'Adama Turay', '--provider', 'ecobank', '--account', '7001234567', '--payout-id', id, '--yes'], { dir });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toContain(`The service answered HTTP ${status}, a redirect without a Location: payctl does not follow redirects`);
      expect(r.stderr).not.toMatch(/no payout was made/i);
      expect((await new Journal(dir).get(proxy.baseUrl, id))?.outcome?.kind).toBe('unknown');

      const rec = await payctl(['history', 'reconcile'], { dir });
      expect(rec.code, rec.stderr).toBe(0);
      expect(rec.stdout).toContain(`accepted  ${id}  resent with its journaled idempotency key`);
      expect(heldFor(ctx.sb, id)).toHaveLength(1);
    });
  }

  it('reconcile\'s resend answered with a redirect: unknown, said as the redirect it was, never "still no answer" nor "when the service can be reached" (probe 49-N F6)', async () => {
    const proxy = await sandboxProxy(ctx.sb);
    writeProfile(dir, { baseUrl: proxy.baseUrl, apiKey: ctx.sb.apiKey });
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
    const wallet = freshWallet(ctx.sb, '1000.00');
    const id = randomUUID();
    const args = ['payout', 'create', '--wallet', wallet, '--amount', '41.31', '--currency', 'SLE', '--type', 'bank'];
    const create = [...args, '--name', 'Adama Turay', '--provider', 'ecobank', '--account', '7001234568', '--payout-id', id, '--yes'];
    expect((await payctl(create, { dir, clock: new TestClock() })).code).toBe(4);
    ctx.sb.faults.clear();
    proxy.rewriteEveryPayout(() => ({ status: 307, body: '', contentType: 'text/html' }));
    const rec = await payctl(['history', 'reconcile'], { dir });
    expect(rec.code, rec.stderr).toBe(4);
    expect(rec.stdout).toContain(`unknown   ${id}  resent with its journaled idempotency key: The service answered HTTP 307, a redirect without a Location`);
    expect(rec.stdout).not.toContain('still no answer');
    expect(rec.stderr).not.toContain('when the service can be reached');
  });
});
