/**
 * Exit code 5 as the shell sees it, from the built binary: `payout create --wait` on a
 * payout that is still Pending at --wait-timeout. The behaviour of --wait (settled,
 * failed, back-off, Retry-After, the live line, Ctrl-C) is tested in process in
 * test/commands/payout-wait.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { newKey, payctl, useConfigDir, writeProfile } from '../helpers/e2e.js';

const KEY = newKey();
// Settles in an hour: every payout stays Pending for the whole test.
const ctx = useSandbox({ apiKey: KEY, settleAfterMs: 3_600_000 });
const cfg = useConfigDir();

beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));

describe('5: still pending when --wait ran out of time', () => {
  it('payout create --wait --wait-timeout 1 exits 5 with the command to keep waiting', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const id = randomUUID();
    const r = await payctl(
      [
        'payout',
        'create',
        '--wallet',
        wallet,
        '--amount',
        '10',
        '--currency',
        'SLE',
        '--type',
        'bank',
        '--name',
        'Chinedu Okafor',
        '--provider',
        'ecobank',
        '--account',
        '0123456789',
        '--payout-id',
        id,
        '--yes',
        '--wait',
        '--wait-timeout',
        '1',
      ],
      { dir: cfg.dir },
    );
    expect(r.code, r.stderr).toBe(5);
    expect(r.signal).toBeNull();
    expect(r.stdout).toMatch(/Status\s+Pending/);
    expect(r.stderr).toContain(`Error: Payout ${id} is still Pending after 1 s (--wait-timeout 1). It was accepted and may still settle.\n`);
    expect(r.stderr).toContain(`Keep waiting with: payctl payout get ${id} --wait\n`);
  });
});
