/**
 * POST /v2/payout bodies read as the service reads them: numbers from their text, never through
 * a binary float (docs/service.md "Amounts": at most 15 significant digits and the currency's
 * minor digits), and JSON nested deeper than 64 levels refused up front (422), so that no body
 * can break the state file, a replay or the recorded requests afterwards.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { admin, api, freshWallet, payoutBody, startSandbox, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'payctl-sandbox-bodies-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A valid payout body as JSON text (of `base`, else a new one), with `amount` written as the literal given (digits as sent). */
function withAmount(walletId: string, literal: string, base = payoutBody(walletId)): string {
  const text = JSON.stringify({ ...base, amount: 1 });
  return text.replace('"amount":1,', `"amount":${literal},`);
}

/** A valid payout body as JSON text whose metadata nests `depth` objects deep. */
function deepBody(walletId: string, depth: number): string {
  const text = JSON.stringify({ ...payoutBody(walletId), metadata: undefined });
  return `${text.slice(0, -1)},"metadata":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
}

function post(sb: typeof ctx.sb, body: string, key: string) {
  return api(sb, 'POST', '/payout', { body, idempotencyKey: key });
}

describe('POST /v2/payout: amounts read from their digits', () => {
  it('refuses 10.00000000000000000001 (22 significant digits) instead of reading it as 10; then 10 under the same key is another body', async () => {
    const walletId = freshWallet(ctx.sb, '1000.00');
    const key = randomUUID();
    const base = payoutBody(walletId);
    const first = await post(ctx.sb, withAmount(walletId, '10.00000000000000000001', base), key);
    expect(first.status, first.raw).toBe(422);
    expect(first.body.errors).toEqual({ amount: ['The amount field must not have more than 15 significant digits.'] });
    const second = await post(ctx.sb, withAmount(walletId, '10', base), key);
    expect(second.status, second.raw).toBe(422);
    expect(second.body.code ?? second.body.message).toMatch(/IDEMPOTENCY_KEY_REUSED|already used with a different request body/);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(ctx.sb.payouts().filter((p) => p.wallet_id === walletId)).toEqual([]);
    expect(ctx.sb.wallets().find((w) => w.wallet_id === walletId)!.balance_minor).toBe(100000n);
  });

  it.each([
    ['1e400', 'The amount field must not have more than 15 significant digits.'],
    ['1e-400', 'The amount field must have 0-2 decimal places.'],
    ['-1e400', 'The amount field must be greater than 0.'],
    ['1500.500000000000000001', 'The amount field must not have more than 15 significant digits.'],
  ])('refuses %s, which a double would change, by its exact value', async (literal, message) => {
    const walletId = freshWallet(ctx.sb, '1000.00');
    const res = await post(ctx.sb, withAmount(walletId, literal), randomUUID());
    expect(res.status, res.raw).toBe(422);
    expect(res.body.errors).toEqual({ amount: [message] });
  });

  it('the same digits written another way are the same body (a replay); a number is never taken for a string field', async () => {
    const walletId = freshWallet(ctx.sb, '1000.00');
    const key = randomUUID();
    const base = payoutBody(walletId);
    const first = await post(ctx.sb, withAmount(walletId, '10.00000000000000000001', base), key);
    const again = await post(ctx.sb, withAmount(walletId, '10.000000000000000000010', base), key);
    expect(again.status).toBe(422);
    expect(again.raw).toBe(first.raw);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const body = withAmount(walletId, '10').replace(`"walletId":"${walletId}"`, '"walletId":12345678901234567890');
    const res = await post(ctx.sb, body, randomUUID());
    expect(res.status, res.raw).toBe(422);
    expect(res.body.errors).toEqual({ walletId: ['The wallet id field must be a string.'] });
  });

  it('keeps a metadata number a double cannot hold as the string of its digits', async () => {
    const walletId = freshWallet(ctx.sb, '1000.00');
    const body = withAmount(walletId, '10').replace('"metadata":{"batch":"oct-stipends"}', '"metadata":{"ref":12345678901234567890,"n":7}');
    const res = await post(ctx.sb, body, randomUUID());
    expect(res.status, res.raw).toBe(201);
    expect(ctx.sb.payouts().find((p) => p.wallet_id === walletId)!.metadata).toEqual({ ref: '12345678901234567890', n: 7 });
  });
});

describe('POST /v2/payout: JSON nested too deep', () => {
  it('refuses metadata nested 50,000 levels deep (422); its replay, the recorded requests and the state file still work', async () => {
    const file = join(dir, 'deep-state.json');
    const sb = await startSandbox({ stateFile: file, settleAfterMs: 60_000 });
    try {
      const walletId = freshWallet(sb, '100000.00');
      const key = randomUUID();
      const body = deepBody(walletId, 50_000);
      expect(body.length).toBeGreaterThan(300_000);
      const res = await post(sb, body, key);
      expect(res.status, res.raw.slice(0, 300)).toBe(422);
      expect(res.body.errors).toEqual({ metadata: ['The metadata field is nested too deeply: a request body may nest at most 64 levels.'] });
      expect(sb.payouts().filter((p) => p.wallet_id === walletId)).toEqual([]);

      const replay = await post(sb, body, key);
      expect(replay.status).toBe(422);
      expect(replay.raw).toBe(res.raw);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');

      const recorded = await admin(sb, 'GET', '/requests');
      expect(recorded.status, recorded.raw.slice(0, 300)).toBe(200);
      expect(recorded.body.data.at(-1).body).toMatch(/^\(not shown: JSON nested more than 64 levels deep, \d+ characters\)$/);

      // The state file is still written: a payout made after it is there once the sandbox closes.
      const ok = payoutBody(walletId);
      expect((await api(sb, 'POST', '/payout', { body: ok, idempotencyKey: randomUUID() })).status).toBe(201);
    } finally {
      await sb.close();
    }
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { payouts: Array<{ payoutId: string }> };
    expect(saved.payouts.length).toBeGreaterThan(0);
    expect(readFileSync(file, 'utf8')).not.toContain('{"a":{"a":');
  });

  it('64 levels are read; 65 are refused, naming the member, or "body" when the body is not an object', async () => {
    const walletId = freshWallet(ctx.sb, '100000.00');
    // The body is level 1 and metadata level 2: 62 more objects inside it make 64.
    const at64 = await post(ctx.sb, deepBody(walletId, 63), randomUUID());
    expect(at64.status, at64.raw).toBe(201);
    const at65 = await post(ctx.sb, deepBody(walletId, 64), randomUUID());
    expect(at65.status).toBe(422);
    expect(Object.keys(at65.body.errors)).toEqual(['metadata']);
    const array = await post(ctx.sb, `${'['.repeat(70)}${']'.repeat(70)}`, randomUUID());
    expect(array.status).toBe(422);
    expect(array.body.errors).toEqual({ body: ['The body field is nested too deeply: a request body may nest at most 64 levels.'] });
  });
});
