/**
 * Probe E54, 3: a payout whose outcome is left unknown always says what left it so (`cause` of the
 * --json error), never null: an answer that came and could not be read (a 200 that is HTML) is the
 * service's, SERVICE_ERROR, as README's table of codes says.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { writeLoggedIn, writeProfile } from '../helpers/e2e.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { configDir, payoutArgs, sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';

const ctx = useSandbox();
useHostileCleanups();

describe('payout create --json left unknown by an answer that cannot be read', () => {
  it('a 200 answer that is HTML, every attempt: exit 4, OUTCOME_UNKNOWN with cause SERVICE_ERROR (before: null)', async () => {
    const proxy = await sandboxProxy(ctx.sb);
    const dir = configDir();
    writeProfile(dir, { ...(await writeLoggedIn(ctx.sb, dir)), baseUrl: proxy.baseUrl });
    proxy.rewriteEveryPayout(() => ({ status: 200, body: '<html>hi</html>', contentType: 'text/html' }));
    const r = await payctl(['--json', ...payoutArgs(freshWallet(ctx.sb, '1000.00', 'SLE'), randomUUID())], { dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(4);
    const error = (JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { error: { code: string; cause: string | null } }).error;
    expect(error).toMatchObject({ code: 'OUTCOME_UNKNOWN', cause: 'SERVICE_ERROR' });
  });
});
