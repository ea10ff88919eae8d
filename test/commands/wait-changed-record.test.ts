/**
 * `payout get --wait` of a payout this config folder's journal does not have (nothing sent to check
 * the answers against), against a service whose later reads of the same transaction pay
 * otherwise than the first (probe 70-S, finding 1): Pending 10.00 SLE, then Successful
 * 20.00 NGN. Every read while waiting is checked against the first: another amount, currency,
 * wallet or account is a read that cannot be used (exit 5, STATUS_NOT_READ, the fields named,
 * the last record that matched on stdout), never the Successful it claims. The same payout
 * written otherwise (10 for "10.00", a lower-case currency) still settles.
 */
import { describe, expect, it } from 'vitest';
import { hostile, hostileProfile, json, useHostileCleanups } from '../helpers/hostile.js';
import { oneJson, useConfigDir } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';

const cfg = useConfigDir();
useHostileCleanups();

const TXN = 'TXN-BOK-00000000000000000000000001';

/** The look-up's record: Pending 10.00 SLE to account 123456, with `o` over it. */
function rec(o: Record<string, unknown>): Record<string, unknown> {
  return {
    transaction_id: TXN,
    status: 'pending',
    amount: '10.00',
    currency: 'SLE',
    fee: '0.10',
    total_amount: '10.10',
    recipient: { transfer_type: 'bank', account_number: '123456', name: 'Rec 1', bank: 'ECOBANK' },
    wallet_id: '6643665465',
    description: 'n',
    created_at: '2026-11-20T10:00:00.000000Z',
    updated_at: '2026-11-20T10:00:00.000000Z',
    ...o,
  };
}

/** A service whose first look-up is Pending 10.00 SLE and every later one `later` (Successful). */
async function liar(later: Record<string, unknown>): Promise<void> {
  let n = 0;
  const h = await hostile((_req, res) => {
    const data = n++ === 0 ? rec({}) : rec({ status: 'successful', ...later });
    json(res, 200, { status: 'Successful', message: 'Transfer status retrieved', data, timestamp: '2026-11-27T10:00:00.000000Z' });
  });
  hostileProfile(cfg.dir, h);
}

const get = (...extra: string[]) => payctl(['payout', 'get', TXN, '--wait', '--wait-timeout', '30', ...extra], { dir: cfg.dir, clock: new TestClock() });

describe('payout get --wait: a later read that pays otherwise than the first', () => {
  it('Pending 10.00 SLE, then Successful 20.00 NGN: exit 5 (not 0), both fields named, the Pending card on stdout', async () => {
    await liar({ amount: '20.00', fee: '0.20', total_amount: '20.20', currency: 'NGN' });
    const r = await get();
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(`Error: Payout ${TXN} was last seen Pending, and a read after 1 s of waiting could not be used: `);
    expect(r.stderr).toContain('other details than at the first read (currency: first read SLE, now NGN; amount: first read 10.00, now 20.00)');
    expect(r.stderr).toContain(`Check it with: payctl payout get ${TXN} --wait`);
    expect(r.stderr).not.toContain('✓');
    expect(r.stdout).toMatch(/Status\s+Pending/);
    expect(r.stdout).toMatch(/Amount\s+10\.00 SLE/);
    expect(r.stdout).not.toContain('NGN');
  });

  it('--json: the first (Pending, 10.00 SLE) envelope on stdout, STATUS_NOT_READ on stderr', async () => {
    await liar({ amount: '20.00', currency: 'NGN' });
    const r = await get('--json');
    expect(r.code, r.stderr).toBe(5);
    expect(oneJson(r.stdout).data).toMatchObject({ transaction_id: TXN, status: 'pending', amount: '10.00', currency: 'SLE' });
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'STATUS_NOT_READ' } });
  });

  it.each([
    ['the amount alone', { amount: '10.01' }, 'amount: first read 10.00, now 10.01'],
    ['the account', { recipient: { transfer_type: 'bank', account_number: '999999', name: 'Rec 1', bank: 'ECOBANK' } }, 'account: first read 123456, now 999999'],
    ['the wallet', { wallet_id: '1111111111' }, 'wallet: first read 6643665465, now 1111111111'],
  ])('%s changed: exit 5, the field named', async (_what, later, said) => {
    await liar(later);
    const r = await get();
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(said);
  });

  it('the same payout written otherwise (10 for "10.00", "sle", the account with dashes): Successful, exit 0', async () => {
    await liar({ amount: 10, currency: 'sle', recipient: { transfer_type: 'bank', account_number: '12-34-56', name: 'Rec 1', bank: 'ECOBANK' } });
    const r = await get();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`✓ Payout ${TXN} is Successful (after 1 s).`);
  });
});
