/**
 * `payctl payout create` in process (payctl's main with in-memory streams) against the
 * in-process sandbox over real HTTP.
 * Bank and wallet payouts sent once with the exact body and headers, the wallet debited
 * by amount + fee, every validation problem listed before anything is sent, refusal
 * without --yes off a terminal, and a payout id reused with other details.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { payoutPosts } from '../helpers/batch.js';
import { loginInProcess as login, UUID, walletOf } from '../helpers/payout-fixtures.js';
import { api, freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();

let dir: string;

/** A logged-in temp config folder: fresh for each test, or one for the whole describe. */
function useLoggedInConfig(scope: 'each' | 'all'): void {
  let cleanup: (() => void) | undefined;
  const setUp = async () => {
    const t = tempConfigDir();
    ({ dir } = t);
    cleanup = t.cleanup;
    await login(ctx.sb, dir);
  };
  const tearDown = () => {
    cleanup?.();
    cleanup = undefined;
  };
  if (scope === 'each') {
    beforeEach(setUp);
    afterEach(tearDown);
  } else {
    beforeAll(setUp);
    afterAll(tearDown);
  }
  // What each test sees recorded is only what it caused.
  beforeEach(() => ctx.sb.clearRequests());
}

const create = (args: string[], extra: { env?: Record<string, string | undefined> } = {}): Promise<Run> => payctl(['payout', 'create', ...args], { dir, ...extra });

describe('payout create sends one payout with the exact body and headers', () => {
  useLoggedInConfig('each');

  it('a wallet payout: 1500.50 SLE sent once as the JSON number 1500.5, wallet debited by amount + fee, card on stdout', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '10000.00', 'SLE');
    const before = walletOf(sb, walletId);
    expect(before.balance).toBe('10000');

    const payoutId = 'stipend-2026-10-017';
    const r = await create([
      '--wallet',
      walletId,
      '--amount',
      '1500.50',
      '--currency',
      'sle',
      '--type',
      'wallet',
      '--name',
      'Aminata Kamara',
      '--provider',
      'Orange Money',
      '--account',
      '076123456',
      '--phone',
      '+232 76 123456',
      '--note',
      'October stipend',
      '--metadata',
      'batch=oct-stipends',
      '--metadata',
      'invoice=INV=17',
      '--payout-id',
      payoutId,
      '--yes',
    ]);
    expect(r.stderr).toContain(`Payout ${payoutId} submitted.`);
    expect(r.stderr).not.toMatch(/already submitted/i);
    expect(r.code, r.stderr).toBe(0);

    // Sent exactly once, with the exact body.
    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(1);
    const post = posts[0]!;
    expect(post.outcome).toBe(201);
    expect(post.body).toContain('"amount":1500.5,');
    expect(post.body).not.toMatch(/1500\.50|"amount":"/);
    expect(JSON.parse(post.body)).toEqual({
      amount: 1500.5,
      currency: 'SLE',
      payoutId,
      walletId,
      recipient: {
        type: 'wallet',
        accountDetails: {
          name: 'Aminata Kamara',
          provider: 'orange_money',
          accountNumber: '076123456',
          phoneNumber: '+23276123456',
          note: 'October stipend',
        },
      },
      metadata: { batch: 'oct-stipends', invoice: 'INV=17' },
    });
    // Headers.
    expect(post.headers['idempotency-key']).toMatch(UUID);
    expect(post.headers.authorization).toMatch(/^Bearer \S{16,}$/);
    expect(post.headers['content-type']).toBe('application/json');

    // What the sandbox holds: one payout, debited by exactly amount + fee.
    const held = sb.payouts().filter((p) => p.payout_id === payoutId);
    expect(held).toHaveLength(1);
    const p = held[0]!;
    expect(p.amount_minor).toBe(150050n);
    expect(p.fee_minor).toBe(1501n);
    expect(p.amount).toBe('1500.5');
    expect(p.fee).toBe('15.01');
    expect(p.provider_response.idempotency_key).toBe(post.headers['idempotency-key']);
    const after = walletOf(sb, walletId);
    expect(before.balance_minor - after.balance_minor).toBe(p.amount_minor + p.fee_minor);
    expect(after.balance_minor).toBe(848449n);
    expect(after.balance).toBe('8484.49');

    // The card on stdout.
    expect(r.stdout).toMatch(new RegExp(`^Transaction\\s+${p.transaction_id}$`, 'm'));
    expect(p.transaction_id).toMatch(/^TXN-BOK-[0-9A-F]{26}$/);
    expect(r.stdout).toMatch(new RegExp(`^Payout ID\\s+${payoutId}$`, 'm'));
    expect(r.stdout).toMatch(/^Amount\s+1,500\.50 SLE$/m);
    expect(r.stdout).toMatch(/^Fee\s+15\.01 SLE$/m);
    expect(r.stdout).toMatch(/^Total debited\s+1,515\.51 SLE$/m);
    expect(r.stdout).toMatch(/^Status\s+Pending$/m);
    expect(r.stdout).toMatch(/^Provider\s+orange_money$/m);
    expect(r.stdout).toMatch(/^Recipient\s+Aminata Kamara$/m);
    expect(r.stdout).toMatch(/^Created\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/m);
    // Results only on stdout.
    expect(r.stdout).not.toContain('submitted');
  });

  it('a bank payout: phoneNumber null, no note or metadata, 250000.30 NGN sent once as 250000.3', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '300000.00', 'NGN');
    const before = walletOf(sb, walletId);

    const r = await create([
      '--wallet',
      walletId,
      '--amount',
      '250000.30',
      '--currency',
      'NGN',
      '--type',
      'bank',
      '--name',
      'Chinedu Okafor',
      '--provider',
      'Ecobank',
      '--account',
      '0123456789',
      '--yes',
    ]);
    expect(r.stderr).toMatch(/Payout [0-9a-f-]{36} submitted\./);
    expect(r.code, r.stderr).toBe(0);

    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(1);
    const post = posts[0]!;
    expect(post.outcome).toBe(201);
    expect(post.body).toContain('"amount":250000.3,');
    expect(post.body).toContain('"phoneNumber":null');
    const body = JSON.parse(post.body);
    expect(body.payoutId).toMatch(UUID);
    expect(body).toEqual({
      amount: 250000.3,
      currency: 'NGN',
      payoutId: body.payoutId,
      walletId,
      recipient: {
        type: 'bank',
        accountDetails: { name: 'Chinedu Okafor', provider: 'ecobank', accountNumber: '0123456789', phoneNumber: null },
      },
    });
    expect(post.headers['idempotency-key']).toMatch(UUID);
    expect(post.headers['idempotency-key']).not.toBe(body.payoutId);
    expect(post.headers.authorization).toMatch(/^Bearer \S{16,}$/);
    expect(post.headers['content-type']).toBe('application/json');

    const held = sb.payouts().filter((p) => p.payout_id === body.payoutId);
    expect(held).toHaveLength(1);
    const p = held[0]!;
    expect(p.amount_minor).toBe(25000030n);
    expect(p.fee_minor).toBe(250000n);
    const after = walletOf(sb, walletId);
    expect(before.balance_minor - after.balance_minor).toBe(25000030n + 250000n);
    expect(after.balance).toBe('47499.7');

    expect(r.stdout).toMatch(new RegExp(`^Transaction\\s+${p.transaction_id}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^Payout ID\\s+${body.payoutId}$`, 'm'));
    expect(r.stdout).toMatch(/^Amount\s+250,000\.30 NGN$/m);
    expect(r.stdout).toMatch(/^Fee\s+2,500\.00 NGN$/m);
    expect(r.stdout).toMatch(/^Total debited\s+252,500\.30 NGN$/m);
    expect(r.stdout).toMatch(/^Type\s+bank$/m);
    expect(r.stdout).not.toMatch(/^Phone/m);
  });

  it('--json prints the envelope exactly as the service sent it', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '100.00', 'SLE');
    const r = await create([
      '--json',
      '--wallet',
      walletId,
      '--amount',
      '0.30',
      '--currency',
      'SLE',
      '--type',
      'wallet',
      '--name',
      'Fatmata Sesay',
      '--provider',
      'afrimoney',
      '--account',
      '077000111',
      '--phone',
      '+23277000111',
      '--yes',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toContain('"amount":0.3,');

    // One JSON document, and it is the sandbox's answer byte for byte: the same key and
    // body again replays the stored original response.
    expect(r.stdout.endsWith('\n')).toBe(true);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.status).toBe('Successful');
    expect(envelope.message).toBe('Transfer initiated successfully');
    expect(r.stdout).toContain('"amount":0.3,');
    const key = posts[0]!.headers['idempotency-key']!;
    const replay = await api(sb, 'POST', '/payout', { body: posts[0]!.body, idempotencyKey: key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(r.stdout.trim()).toBe(replay.raw.trim());

    const p = sb.payouts().find((x) => x.payout_id === envelope.data.payout_id)!;
    expect(envelope.data.transaction_id).toBe(p.transaction_id);
    expect(envelope.data.provider_response.idempotency_key).toBe(key);
    expect(sb.payouts().filter((x) => x.payout_id === envelope.data.payout_id)).toHaveLength(1);
  });
});

describe('validation: every problem listed at once, exit 2, nothing reaches the sandbox', () => {
  // Nothing is written by a refused run, so one logged-in folder serves every case.
  useLoggedInConfig('all');

  const base = (over: Record<string, string | undefined>): string[] => {
    const flags: Record<string, string | undefined> = {
      '--wallet': 'wal_validation',
      '--amount': '10.00',
      '--currency': 'SLE',
      '--type': 'bank',
      '--name': 'Ibrahim Conteh',
      '--provider': 'ecobank',
      '--account': '0011223344',
      ...over,
    };
    const args: string[] = [];
    for (const [k, v] of Object.entries(flags)) if (v !== undefined) args.push(k, v);
    return [...args, '--yes'];
  };

  const cases: Array<[string, string[], string[]]> = [
    [
      'no flags at all',
      ['--yes'],
      [
        '--wallet is required',
        '--amount is required',
        '--currency is required',
        '--type is required',
        '--name is required',
        '--provider is required',
        '--account is required',
      ],
    ],
    ['--type cash', base({ '--type': 'cash' }), ['--type must be bank or wallet (got "cash")']],
    ['a wallet recipient without --phone', base({ '--type': 'wallet' }), ['--phone is required for wallet recipients']],
    ['amount 1e3', base({ '--amount': '1e3' }), ['--amount: "1e3" is not a plain decimal amount']],
    ['amount 0x10', base({ '--amount': '0x10' }), ['--amount: "0x10" is not a plain decimal amount']],
    ['amount 1,000', base({ '--amount': '1,000' }), [`--amount: "1,000" has ',' between thousands: write 1000`]],
    ['amount -5', base({ '--amount': '-5' }), ['--amount: "-5" is not a plain decimal amount']],
    ['amount 0', base({ '--amount': '0' }), ['--amount: amount must be greater than zero: "0"']],
    ['amount 1.234 SLE', base({ '--amount': '1.234' }), ['--amount: "1.234" has 3 decimal places, more than SLE has (2)']],
    ['amount 1.5 JPY', base({ '--amount': '1.5', '--currency': 'JPY' }), ['--amount: "1.5" has 1 decimal place; JPY has no minor units (whole numbers only)']],
    ['currency XYZ', base({ '--currency': 'XYZ' }), ['--currency: "XYZ" is not an ISO 4217 currency code']],
    ['metadata without =', [...base({}), '--metadata', 'batch'], ['--metadata: "batch" is not key=value']],
    ['a bad --idempotency-key', [...base({}), '--idempotency-key', 'not-a-uuid'], ['--idempotency-key: "not-a-uuid" is not a UUID']],
    // The characters are all allowed: what is wrong is the first one, and the message says so.
    ['--payout-id=-x1', [...base({}), '--payout-id=-x1'], ['--payout-id: "-x1" must start with a letter or digit, not "-"']],
    ['--payout-id -x1', [...base({}), '--payout-id', '-x1'], ['--payout-id: "-x1" must start with a letter or digit, not "-"']],
    ['--payout-id=.x1', [...base({}), '--payout-id=.x1'], ['--payout-id: ".x1" must start with a letter or digit, not "."']],
  ];

  it.each(cases)('%s', async (_what, args, problems) => {
    const r = await create(args);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Cannot send this payout: ${problems.length} problem${problems.length === 1 ? '' : 's'}. Nothing was sent.`);
    for (const p of problems) expect(r.stderr).toContain(`  - ${p}`);
    expect(r.code, r.stderr).toBe(2);
    expect(ctx.sb.requests()).toEqual([]);
  });

  it('one run with several problems lists every one of them', async () => {
    const r = await create([
      '--wallet',
      'wal_validation',
      '--amount',
      '1,500.00',
      '--currency',
      'XYZ',
      '--type',
      'cash',
      '--provider',
      'ecobank',
      '--account',
      '0011223344',
      '--metadata',
      'nokey',
      '--idempotency-key',
      '1234',
    ]);
    const problems = [
      '--name is required',
      '--currency: "XYZ" is not an ISO 4217 currency code',
      '--amount: "1,500.00" is not a plain decimal amount',
      '--type must be bank or wallet (got "cash")',
      '--metadata: "nokey" is not key=value',
      '--idempotency-key: "1234" is not a UUID',
      '--yes is required without a terminal',
    ];
    expect(r.stderr).toContain(`Cannot send this payout: ${problems.length} problems. Nothing was sent.`);
    for (const p of problems) expect(r.stderr).toContain(`  - ${p}`);
    expect(r.stdout).toBe('');
    expect(r.code, r.stderr).toBe(2);
    expect(ctx.sb.requests()).toEqual([]);
  });

  it('without --yes and without a terminal it refuses: exit 2, nothing sent', async () => {
    const walletId = freshWallet(ctx.sb, '1000.00', 'SLE');
    const r = await create([
      '--wallet',
      walletId,
      '--amount',
      '10.00',
      '--currency',
      'SLE',
      '--type',
      'bank',
      '--name',
      'Ibrahim Conteh',
      '--provider',
      'ecobank',
      '--account',
      '0011223344',
    ]);
    expect(r.stderr).toContain('Cannot send this payout: 1 problem. Nothing was sent.');
    expect(r.stderr).toContain('  - --yes is required without a terminal: money never moves without an explicit yes');
    expect(r.stdout).toBe('');
    expect(r.code, r.stderr).toBe(2);
    expect(ctx.sb.requests()).toEqual([]);
    expect(walletOf(ctx.sb, walletId).balance).toBe('1000');
    expect(ctx.sb.payouts().filter((p) => p.wallet_id === walletId)).toEqual([]);
  });
});

describe('the same --payout-id', () => {
  useLoggedInConfig('each');

  it('with another amount is refused: exit 2, nothing sent on the second run', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '1000.00', 'SLE');
    const payoutId = `inv-${Date.now()}`;
    const args = (amount: string) => [
      '--wallet',
      walletId,
      '--amount',
      amount,
      '--currency',
      'SLE',
      '--type',
      'bank',
      '--name',
      'Ibrahim Conteh',
      '--provider',
      'ecobank',
      '--account',
      '0011223344',
      '--payout-id',
      payoutId,
      '--yes',
    ];
    const first = await create(args('100.00'));
    expect(first.code, first.stderr).toBe(0);
    expect(payoutPosts(sb)).toHaveLength(1);
    const balance = walletOf(sb, walletId).balance_minor;
    expect(balance).toBe(100000n - 10000n - 100n);

    sb.clearRequests();
    const second = await create(args('200.00'));
    expect(second.stderr).toContain(`Payout id ${payoutId} was already used for a payout with other details. Nothing was sent.`);
    expect(second.stderr).toContain(`payctl payout get ${payoutId}`);
    expect(second.stdout).toBe('');
    expect(second.code, second.stderr).toBe(2);
    expect(sb.requests()).toEqual([]);

    const held = sb.payouts().filter((p) => p.payout_id === payoutId);
    expect(held).toHaveLength(1);
    expect(held[0]!.amount).toBe('100');
    expect(walletOf(sb, walletId).balance_minor).toBe(balance);
  });
});
