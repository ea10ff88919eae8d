/**
 * The state file (wallets, payouts, idempotent answers and the key across a restart; an
 * older file with tokens still loads) and the demo data (a pure function of the seed, with
 * the documented id forms).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, eventually, freshWallet, payoutBody, startSandbox } from '../helpers/sandbox.js';
import { StateWriter } from '../../src/sandbox/persist.js';

const dir = mkdtempSync(join(tmpdir(), 'payctl-sandbox-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('state file', () => {
  it('keeps wallets, payouts, idempotent answers and the key across a restart', async () => {
    const file = join(dir, 'state.json');
    const first = await startSandbox({ stateFile: file, settleAfterMs: 60_000 });
    const walletId = freshWallet(first, '1250000.75');
    const key = randomUUID();
    const body = payoutBody(walletId);
    const created = await api(first, 'POST', '/payout', { body, idempotencyKey: key });
    expect(created.status).toBe(201);
    const apiKey = first.apiKey;
    const payoutsBefore = first.payouts();
    await first.close();

    const text = readFileSync(file, 'utf8');
    expect(JSON.parse(text).version).toBe(1);
    expect(JSON.parse(text)).not.toHaveProperty('tokens');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]); // atomic writes leave no temp files

    const second = await startSandbox({ stateFile: file, settleAfterMs: 60_000 });
    try {
      expect(second.apiKey).toBe(apiKey);
      expect(second.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('1248485.24');
      expect(second.payouts()).toEqual(payoutsBefore);
      // The key still works; the same Idempotency-Key and body replay the same answer.
      expect((await api(second, 'GET', '/wallets/balances', { token: apiKey })).status).toBe(200);
      const replay = await api(second, 'POST', '/payout', { body, idempotencyKey: key });
      expect(replay.status).toBe(201);
      expect(replay.raw).toBe(created.raw);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const reused = await api(second, 'POST', '/payout', { body: { ...body, amount: 2 }, idempotencyKey: key });
      expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(second.payouts().filter((p) => p.wallet_id === walletId)).toHaveLength(1);
      const lookup = await api(second, 'GET', `/payout/${created.body.data.transaction_id}`);
      expect(lookup.status).toBe(200);
      expect(lookup.body.data.amount).toBe('1,500.50');
      const balances = await api(second, 'GET', '/wallets/balances');
      expect(balances.raw).toMatch(new RegExp(`"wallet_id":"${walletId}"[^}]*"balance":1248485.24,`));
    } finally {
      await second.close();
    }
  });

  it('loads a file written when the sandbox still issued tokens, and ignores them', async () => {
    const file = join(dir, 'old.json');
    const old = {
      version: 1,
      apiKey: 'sk_sandbox_from_old_file',
      wallets: [{ id: '5553881136', name: 'Old wallet', currency: 'SLE', balance: '125000075', updatedUs: 1_763_720_130_123_456 }],
      payouts: [],
      idempotency: [],
      tokens: [{ token: 'tok_0123456789abcdef', expiresMs: Date.now() + 3_600_000 }],
    };
    writeFileSync(file, JSON.stringify(old));
    const sb = await startSandbox({ stateFile: file });
    try {
      expect(sb.apiKey).toBe('sk_sandbox_from_old_file');
      expect(sb.wallets()).toEqual([expect.objectContaining({ wallet_id: '5553881136', balance: '1250000.75' })]);
      expect((await api(sb, 'GET', '/wallets/balances', { token: 'tok_0123456789abcdef' })).status).toBe(401);
      expect((await api(sb, 'GET', '/wallets/balances')).status).toBe(200);
      sb.setWallet({ wallet_id: '5553881136', wallet_name: 'Old wallet', currency: 'SLE', balance: '10' });
    } finally {
      await sb.close();
    }
    // The next write leaves the tokens out.
    const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(written.apiKey).toBe('sk_sandbox_from_old_file');
    expect(written).not.toHaveProperty('tokens');
  });

  it('an explicit apiKey wins over the stored one', async () => {
    const file = join(dir, 'key.json');
    const a = await startSandbox({ stateFile: file });
    await a.close();
    const b = await startSandbox({ stateFile: file, apiKey: 'sk_sandbox_explicit' });
    try {
      expect(b.apiKey).toBe('sk_sandbox_explicit');
    } finally {
      await b.close();
    }
  });

  it('re-arms settlement after a restart', async () => {
    const file = join(dir, 'settle.json');
    // The first sandbox never settles them; the restarted one must re-arm and settle both.
    const first = await startSandbox({ stateFile: file, settleAfterMs: 60_000, demoPayouts: false });
    const walletId = freshWallet(first, '5000');
    const ok = await api(first, 'POST', '/payout', { body: payoutBody(walletId), idempotencyKey: randomUUID() });
    const failing = await api(first, 'POST', '/payout', {
      body: payoutBody(walletId, { recipient: { type: 'bank', accountDetails: { name: 'Hawa Kargbo', provider: 'uba', accountNumber: '1200000000' } } }),
      idempotencyKey: randomUUID(),
    });
    expect(ok.status).toBe(201);
    expect(failing.status).toBe(201);
    expect(first.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('1968.98');
    expect(first.payouts().map((p) => p.status)).toEqual(['Pending', 'Pending']);
    await first.close();

    const second = await startSandbox({ stateFile: file, settleAfterMs: 300, demoPayouts: false });
    try {
      await eventually(() => second.payouts().every((p) => p.status !== 'Pending'), 10_000);
      const byTx = new Map(second.payouts().map((p) => [p.transaction_id, p]));
      expect(byTx.get(ok.body.data.transaction_id)!.status).toBe('Successful');
      expect(byTx.get(failing.body.data.transaction_id)!.status).toBe('Failed');
      expect(second.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('3484.49');
    } finally {
      await second.close();
    }
    // The settled state was flushed on close.
    const third = await startSandbox({ stateFile: file, demoPayouts: false });
    try {
      expect(
        third
          .payouts()
          .map((p) => p.status)
          .sort(),
      ).toEqual(['Failed', 'Successful']);
    } finally {
      await third.close();
    }
  });

  it('refuses a damaged state file with a clear error naming it, and leaves it alone', async () => {
    const file = join(dir, 'damaged.json');
    writeFileSync(file, '{"version":1,"apiKey":');
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(/damaged\.json is damaged/);
    expect(readFileSync(file, 'utf8')).toBe('{"version":1,"apiKey":');
  });

  it('writes a new state file soon after start, before any change', async () => {
    const file = join(dir, 'fresh.json');
    const sb = await startSandbox({ stateFile: file });
    try {
      await eventually(() => {
        try {
          return JSON.parse(readFileSync(file, 'utf8')).wallets.length === 3;
        } catch {
          return false;
        }
      }, 2000);
    } finally {
      await sb.close();
    }
  });
});

describe('a state file that cannot be written', () => {
  it('is said (warn), once per failure, tried again, and written once it can be; nothing is lost meanwhile', async () => {
    const file = join(dir, 'blocked.json');
    const warnings: string[] = [];
    const sb = await startSandbox({ stateFile: file, settleAfterMs: 60_000, warn: (m) => warnings.push(m) });
    try {
      await eventually(() => existsSync(file), 2000);
      // A folder where the file goes: every rename onto it fails, whoever runs the test.
      rmSync(file);
      mkdirSync(join(file, 'in-the-way'), { recursive: true });
      const walletId = freshWallet(sb, '100000.00');
      const body = payoutBody(walletId);
      expect((await api(sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() })).status).toBe(201);
      await eventually(() => warnings.length > 0, 2000);
      expect(warnings[0]).toContain(`Could not write the sandbox state file ${file}: `);
      expect(warnings[0]).toContain('only in memory');
      // Retried every 100 ms, said once.
      await new Promise((r) => setTimeout(r, 350));
      expect(warnings).toHaveLength(1);
      rmSync(file, { recursive: true });
      await eventually(() => existsSync(file) && readFileSync(file, 'utf8').includes(body.payoutId), 2000);
    } finally {
      await sb.close();
    }
  });

  it('a snapshot that cannot be written as JSON is said, not swallowed', async () => {
    const file = join(dir, 'unwritable.json');
    const said: string[] = [];
    const writer = new StateWriter(
      file,
      () => {
        throw new RangeError('Maximum call stack size exceeded');
      },
      10,
      (m) => said.push(m),
    );
    writer.changed();
    await writer.flush();
    expect(said).toEqual([
      `Could not write the sandbox state file ${file}: Maximum call stack size exceeded. The changes since its last write are only in memory; it is tried again.`,
    ]);
    expect(existsSync(file)).toBe(false);
  });

  it('a state file whose API key no client could send is refused as damaged', async () => {
    const file = join(dir, 'bad-key.json');
    writeFileSync(file, JSON.stringify({ version: 1, apiKey: 'my key', wallets: [], payouts: [] }));
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(/bad-key\.json is damaged \(its API key contains a space \(U\+0020\) at character 3\)/);
  });
});

// Probe 51 F3: `null` failed with "Cannot read properties of null (reading 'version')"; a wallet's `"currency": null` loaded, then every balances answered 500.
describe('a state file is checked whole when it is loaded', () => {
  const wallet = { id: '5553881136', name: 'Old wallet', currency: 'SLE', balance: '125000075', updatedUs: 1_763_720_130_123_456 };
  const payout = {
    transactionId: 'TXN-BOK-0123456789ABCDEF0123456789',
    payoutId: 'p-1',
    walletId: '5553881136',
    amount: '150050',
    fee: '1501',
    currency: 'SLE',
    status: 'Pending',
    failureReason: null,
    recipient: { type: 'wallet', accountDetails: { name: 'A K', provider: 'orange_money', accountNumber: '076123456', phoneNumber: '076123456', note: null } },
    orderId: 'ORD-0123456789ABCDEF',
    idempotencyKey: 'k-1',
    metadata: null,
    createdUs: 1_763_720_130_123_456,
    updatedUs: 1_763_720_130_123_456,
    autoSettle: true,
  };
  const state = (over: Record<string, unknown>) =>
    JSON.stringify({ version: 1, apiKey: 'sk_sandbox_state_check', wallets: [wallet], payouts: [payout], idempotency: [], ...over });

  it('a whole file as written loads', async () => {
    const file = join(dir, 'whole.json');
    writeFileSync(file, state({}));
    const sb = await startSandbox({ stateFile: file, settleAfterMs: 60_000 });
    try {
      expect(sb.wallets()).toEqual([expect.objectContaining({ wallet_id: '5553881136', currency: 'SLE' })]);
      expect(sb.payouts()).toHaveLength(1);
    } finally {
      await sb.close();
    }
  });

  it.each([
    ['null', 'null', 'it holds no JSON object'],
    ['an array', '[]', 'it holds no JSON object'],
    ['empty', '', 'it is empty'],
    ['no version', JSON.stringify({ apiKey: 'k', wallets: [], payouts: [] }), 'version: Invalid input: expected number, received undefined'],
    ['another version', state({ version: 2 }), 'unsupported version 2'],
    ['wallets null', state({ wallets: null }), 'wallets: Invalid input: expected array, received null'],
    ["a wallet's currency null", state({ wallets: [{ ...wallet, currency: null }] }), 'wallets[0].currency: Invalid input: expected string, received null'],
    ["a wallet's currency unknown", state({ wallets: [{ ...wallet, currency: 'XYZ' }] }), 'wallets[0].currency: expected an ISO 4217 currency code payctl knows ("SLE")'],
    ["a wallet's balance not digits", state({ wallets: [{ ...wallet, balance: '12.50' }] }), 'wallets[0].balance: expected a whole number of minor units'],
    ["a wallet's balance a number", state({ wallets: [{ ...wallet, balance: 100 }] }), 'wallets[0].balance: Invalid input: expected string, received number'],
    ["a wallet's name empty", state({ wallets: [{ ...wallet, name: ' ' }] }), 'wallets[0].name: expected a non-empty string'],
    ["a wallet's id missing", state({ wallets: [{ ...wallet, id: undefined }] }), 'wallets[0].id: Invalid input: expected string, received undefined'],
    ['two wallets with one id', state({ wallets: [wallet, wallet] }), 'wallets[1].id: "5553881136" is there twice'],
    ["a payout's status", state({ payouts: [{ ...payout, status: 'pending' }] }), 'payouts[0].status: Invalid option: expected one of "Pending"|"Successful"|"Failed"'],
    ["a payout's amount", state({ payouts: [{ ...payout, amount: '-5' }] }), 'payouts[0].amount: expected a whole number of minor units'],
    ["a payout's recipient", state({ payouts: [{ ...payout, recipient: null }] }), 'payouts[0].recipient: Invalid input: expected object, received null'],
    ["a payout's account details", state({ payouts: [{ ...payout, recipient: { type: 'bank', accountDetails: {} } }] }), 'payouts[0].recipient.accountDetails.name'],
    ['two payouts with one payoutId', state({ payouts: [payout, { ...payout, transactionId: 'TXN-BOK-2' }] }), 'payouts[1].payoutId: "p-1" is there twice'],
    [
      'a stored answer',
      state({ idempotency: [{ key: 'k', body: '{}', createdMs: 1, answer: null }] }),
      'idempotency[0].answer: Invalid input: expected object, received null',
    ],
  ])('%s: refused, naming what is wrong in words', async (_what, text, why) => {
    const file = join(dir, `bad-${randomUUID()}.json`);
    writeFileSync(file, text);
    const err = await startSandbox({ stateFile: file }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toContain(`The sandbox state file ${file} is damaged (${why}`);
    expect(err?.message).not.toMatch(/Cannot read properties|undefined \(reading|BigInt|SyntaxError|toUpperCase/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('demo data', () => {
  it('is the same for the same seed, and differs for another seed', async () => {
    const [a, b, c] = await Promise.all([startSandbox({ seed: 7 }), startSandbox({ seed: 7 }), startSandbox({ seed: 8 })]);
    try {
      expect(a.wallets()).toEqual(b.wallets());
      expect(a.payouts()).toEqual(b.payouts());
      expect(c.wallets().map((w) => w.wallet_id)).not.toEqual(a.wallets().map((w) => w.wallet_id));
      expect(c.wallets().map((w) => w.balance)).not.toEqual(a.wallets().map((w) => w.balance));
      // Through the API too.
      const ra = await api(a, 'GET', '/wallets/balances');
      const rb = await api(b, 'GET', '/wallets/balances');
      expect(ra.body.data).toEqual(rb.body.data);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('has realistic wallets: two SLE and one NGN, named, with plausible balances', async () => {
    const sb = await startSandbox();
    try {
      const wallets = sb.wallets();
      expect(wallets.map((w) => [w.wallet_name, w.currency])).toEqual([
        ['Freetown Operations', 'SLE'],
        ['Bo Field Payroll', 'SLE'],
        ['Lagos Suppliers', 'NGN'],
      ]);
      for (const w of wallets) {
        expect(w.wallet_id).toMatch(/^[1-9]\d{9}$/);
        expect(w.balance_minor).toBeGreaterThan(1_000_000n); // above 10,000 units
        expect(w.balance).toMatch(/^\d+(\.\d{1,2})?$/);
      }
    } finally {
      await sb.close();
    }
  });

  it('has about 25 historic payouts in every status over the last four weeks', async () => {
    const sb = await startSandbox({ seed: 3 });
    try {
      const payouts = sb.payouts();
      expect(payouts.length).toBeGreaterThanOrEqual(24);
      expect(payouts.length).toBeLessThanOrEqual(27);
      expect(new Set(payouts.map((p) => p.status))).toEqual(new Set(['Pending', 'Successful', 'Failed']));
      const now = Date.now();
      for (const p of payouts) {
        const age = now - Date.parse(p.created_at);
        expect(age).toBeGreaterThan(0);
        expect(age).toBeLessThan(30 * 86_400_000);
        expect(p.transaction_id).toMatch(/^TXN-BOK-[0-9A-F]{26}$/);
        expect(p.provider_response.orderId).toMatch(/^ORD-[0-9A-F]{16}$/);
        if (p.status === 'Failed') {
          expect(p.recipient.accountDetails.accountNumber.endsWith('0000')).toBe(true);
          expect(p.failure_reason).toBeTruthy();
        }
      }
      const walletIds = new Set(sb.wallets().map((w) => w.wallet_id));
      expect(payouts.every((p) => walletIds.has(p.wallet_id))).toBe(true);
      const noDemo = await startSandbox({ demoPayouts: false });
      expect(noDemo.payouts()).toEqual([]);
      // Bulk records have the documented id forms too, and UUID payout ids.
      noDemo.generatePayouts(20);
      for (const p of noDemo.payouts()) {
        expect(p.transaction_id).toMatch(/^TXN-BOK-[0-9A-F]{26}$/);
        expect(p.provider_response.orderId).toMatch(/^ORD-[0-9A-F]{16}$/);
        expect(p.payout_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }
      expect(new Set(noDemo.payouts().map((p) => p.transaction_id)).size).toBe(20);
      await noDemo.close();
    } finally {
      await sb.close();
    }
  });
});
