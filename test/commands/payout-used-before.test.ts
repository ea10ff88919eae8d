/**
 * `payout create --payout-id P` answered 422 DUPLICATE_PAYOUT_ID (the id used before, under
 * another idempotency key), in process against the sandbox over real HTTP. Its key is derived
 * from the base URL, the payout id and the exact body, so a second config folder that reuses P
 * for another amount gets another key and the refusal: that payout was NOT paid (exit 1, never
 * "Already submitted"). The same body under a key the service no longer has (here: the first
 * folder sent it with a key of its own, as a service that forgot the key would see it) is the
 * earlier payout: already submitted, naming its transaction. The payout list searched for it
 * failing: unknown (exit 4). src/payouts/used-before.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { newKey, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { tempConfigDir } from '../helpers/cli.js';
import { Journal } from '../../src/payouts/journal.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';

const KEY = newKey();

/** `payout create` flags for a wallet payout of `amount` SLE with payout id `id`. */
function createArgs(walletId: string, id: string, amount = '10', account = '076123456'): string[] {
  return ['payout', 'create', '--wallet', walletId, '--amount', amount, '--currency', 'SLE', '--type', 'wallet', '--name', 'Aminata'].concat([
    '--provider',
    'orange_money',
    '--account',
    account,
    '--phone',
    '+23276123456',
    '--note',
    'rent',
    '--payout-id',
    id,
    '--yes',
  ]);
}

/** The sandbox's payouts with payout id `id`. */
const heldFor = (sb: Sandbox, id: string) => sb.payouts().filter((p) => p.payout_id === id);

/** A command line as payctl printed it (plain words here: no quoting), without `payctl`. */
function argvOf(printed: string): string[] {
  const words = printed.trim().split(/\s+/);
  expect(words[0]).toBe('payctl');
  return words.slice(1);
}

describe('payout create of a payout id the service already has', () => {
  const ctx = useSandbox({ apiKey: KEY });
  let a: ReturnType<typeof tempConfigDir>;
  let b: ReturnType<typeof tempConfigDir>;
  let wallet: string;
  beforeEach(() => {
    a = tempConfigDir();
    b = tempConfigDir();
    for (const dir of [a.dir, b.dir]) writeProfile(dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  });
  afterEach(() => {
    ctx.sb.faults.clear();
    a.cleanup();
    b.cleanup();
  });

  it('used from another config folder for another amount: exit 1, nothing paid, the printed command sends it under another id; a rerun says the same', async () => {
    const id = `rent-${randomUUID().slice(0, 8)}-2026-11`;
    const first = await payctl(createArgs(wallet, id, '10'), { dir: a.dir });
    expect(first.code, first.stderr).toBe(0);
    const before = ctx.sb.payouts().length;

    const r = await payctl(createArgs(wallet, id, '11'), { dir: b.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toContain('Already submitted');
    expect(r.stderr).toMatch(
      new RegExp(`Payout id ${id} was used before for a payout that does not pay what this one asks: .*none of the \\d+ records? of the service's payout list`),
    );
    expect(r.stderr).toContain('Nothing was paid.');
    expect(ctx.sb.payouts().length).toBe(before);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
    expect(String(heldFor(ctx.sb, id)[0]!.amount)).toBe('10');
    // Journaled as refused: `history` and `payout get` say so.
    const entry = await new Journal(b.dir).get(ctx.sb.baseUrl, id);
    expect(entry?.outcome).toMatchObject({ kind: 'rejected', code: 'DUPLICATE_PAYOUT_ID' });
    const history = await payctl(['history', '--json'], { dir: b.dir });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain('rejected');
    expect(history.stdout).toContain('was used before for a payout that does not pay what this one asks');

    // The same command again: refused again (the same key: the service's stored refusal, the list searched again), nothing paid.
    const again = await payctl(createArgs(wallet, id, '11'), { dir: b.dir });
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain(`Payout id ${id} was used before for a payout that does not pay what this one asks`);
    expect(again.stderr).not.toContain('Already submitted');
    expect(ctx.sb.payouts().length).toBe(before);

    // The hint runs as printed: the payout under another payout id, paid once.
    const line = /^ {2}(payctl payout create .*)$/m.exec(r.stderr)?.[1];
    expect(line, r.stderr).toBeDefined();
    expect(line).toContain(`--payout-id ${id}-2`);
    const sent = await payctl(argvOf(line!), { dir: b.dir });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toContain(`Payout ${id}-2 submitted.`);
    expect(heldFor(ctx.sb, `${id}-2`)).toHaveLength(1);
    expect(String(heldFor(ctx.sb, `${id}-2`)[0]!.amount)).toBe('11');
  });

  it('the same payout, its key no longer known to the service: exit 4, unknown, its record named with the --made-by command, which records it; --wait never 0; then a rerun reads it back', async () => {
    const id = `rent-${randomUUID().slice(0, 8)}`;
    // Sent under a key the derivation never gives: to the service, the second folder's key is new.
    const first = await payctl([...createArgs(wallet, id, '10.41'), '--idempotency-key', randomUUID()], { dir: a.dir });
    expect(first.code, first.stderr).toBe(0);
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    const before = ctx.sb.payouts().length;

    const r = await payctl(createArgs(wallet, id, '10.41'), { dir: b.dir });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('Already submitted');
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(r.stderr).toMatch(/(a record|\d+ records) could be it \(same amount and currency, any account, created at any time;/);
    expect(r.stderr).toContain(`: ${txn}; a record names no payout id`);
    expect(ctx.sb.payouts().length).toBe(before);
    expect((await new Journal(b.dir).get(ctx.sb.baseUrl, id))?.outcome).toMatchObject({ kind: 'unknown', anyTime: true });

    const waited = await payctl([...createArgs(wallet, id, '10.41'), '--wait'], { dir: b.dir });
    expect(waited.code, waited.stderr).toBe(4);
    expect(ctx.sb.payouts().length).toBe(before);

    // The printed --made-by command records it as made.
    const line = /^ {2}(payctl history reconcile --payout-id \S+ --made-by \S+)$/m.exec(r.stderr)?.[1];
    expect(line, r.stderr).toBe(`payctl history reconcile --payout-id ${id} --made-by ${txn}`);
    const made = await payctl(argvOf(line!), { dir: b.dir });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`recorded as made by transaction ${txn}`);
    expect((await new Journal(b.dir).get(ctx.sb.baseUrl, id))?.outcome).toMatchObject({ kind: 'accepted', transactionId: txn });

    // Run again: that transaction, read back (the service refuses the id again): already submitted, nothing new paid.
    const again = await payctl(createArgs(wallet, id, '10.41'), { dir: b.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Already submitted');
    expect(again.stdout).toContain(txn);
    expect(ctx.sb.payouts().length).toBe(before);
  });

  it("used for another payee by another folder, while the list holds last month's payout of the same amount to this payee: exit 4, never already submitted", async () => {
    const bank = (amount: string, name: string, account: string, id: string) =>
      ['payout', 'create', '--wallet', wallet, '--amount', amount, '--currency', 'SLE', '--type', 'bank', '--name', name].concat([
        '--provider',
        'ecobank',
        '--account',
        account,
        '--payout-id',
        id,
        '--yes',
      ]);
    const tag = randomUUID().slice(0, 8);
    const ibrahim = String(Math.floor(1e9 + Math.random() * 8e9));
    const [retainer, invoice] = [`retainer-nov-${tag}`, `inv-1042-${tag}`];
    expect((await payctl(bank('500', 'Ibrahim Koroma', ibrahim, retainer), { dir: a.dir })).code).toBe(0);
    expect((await payctl(bank('75', 'Musa Bangura', '0099887766', invoice), { dir: a.dir })).code).toBe(0);
    const november = heldFor(ctx.sb, retainer)[0]!.transaction_id;
    const before = ctx.sb.payouts().length;

    // December's retainer, its payout id mistyped as the invoice's.
    const r = await payctl(bank('500', 'Ibrahim Koroma', ibrahim, invoice), { dir: b.dir });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('Already submitted');
    expect(r.stderr).toContain(`payctl history reconcile --payout-id ${invoice} --made-by ${november}`);
    expect(r.stderr).toContain(`--payout-id ${invoice}-2 --yes`);
    expect((await new Journal(b.dir).get(ctx.sb.baseUrl, invoice))?.outcome?.kind).toBe('unknown');
    const history = await payctl(['history', '--json'], { dir: b.dir });
    expect(history.stdout).not.toContain('accepted');
    // history reconcile resends it: refused as used before again, the same record offered, still unknown.
    const rec = await payctl(['history', 'reconcile', '--payout-id', invoice], { dir: b.dir });
    expect(rec.code, rec.stdout + rec.stderr).toBe(4);
    expect(rec.stdout).toContain(`payctl history reconcile --payout-id ${invoice} --made-by ${november}`);
    expect((await new Journal(b.dir).get(ctx.sb.baseUrl, invoice))?.outcome?.kind).toBe('unknown');
    expect(ctx.sb.payouts().length).toBe(before);
  });

  it('the same payout, its note typed "Invoice 1042" where the first said "Invoice-1042": a record that could be it, exit 4; its --made-by records it (before: "Nothing was paid", exit 1)', async () => {
    const id = `inv-${randomUUID().slice(0, 8)}`;
    const noted = (note: string) => createArgs(wallet, id, '750').map((w) => (w === 'rent' ? note : w));
    expect((await payctl(noted('Invoice-1042'), { dir: a.dir })).code).toBe(0);
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    const before = ctx.sb.payouts().length;

    const r = await payctl(noted('Invoice 1042'), { dir: b.dir });
    expect(r.stderr).not.toContain('Nothing was paid');
    expect(r.code, r.stderr).toBe(4);
    const line = /^ {2}(payctl history reconcile --payout-id \S+ --made-by \S+)$/m.exec(r.stderr)?.[1];
    expect(line, r.stderr).toBe(`payctl history reconcile --payout-id ${id} --made-by ${txn}`);
    const made = await payctl(argvOf(line!), { dir: b.dir });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`recorded as made by transaction ${txn}`);
    expect(ctx.sb.payouts().length).toBe(before);
  });

  it('the payout list cannot be read after the refusal (500): exit 4, unknown, with the command that finds the record; never exit 0', async () => {
    const id = `rent-${randomUUID().slice(0, 8)}`;
    const first = await payctl(createArgs(wallet, id, '10'), { dir: a.dir });
    expect(first.code, first.stderr).toBe(0);
    const before = ctx.sb.payouts().length;
    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout/list', kind: 'status', status: 500, times: Infinity });

    const r = await payctl(createArgs(wallet, id, '11.37'), { dir: b.dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('Already submitted');
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(r.stderr).toContain(`the service refused payout id ${id} as used before`);
    expect(r.stderr).toContain("searching the service's payout list failed");
    expect(r.stderr).toContain('payctl payouts list --currency SLE --all');
    expect(ctx.sb.payouts().length).toBe(before);
    expect((await new Journal(b.dir).get(ctx.sb.baseUrl, id))?.outcome).toMatchObject({ kind: 'unknown' });

    // The list readable again: history reconcile resends it and searches the list too, so it is
    // recorded as refused, not as already made (before: reconcile took the duplicate refusal for
    // "already made", accepted, without looking).
    ctx.sb.faults.clear();
    const reconciled = await payctl(['history', 'reconcile', '--payout-id', id, '--json'], { dir: b.dir });
    expect(reconciled.stdout + reconciled.stderr).not.toContain('already made');
    expect((await new Journal(b.dir).get(ctx.sb.baseUrl, id))?.outcome).toMatchObject({ kind: 'rejected' });
    expect(ctx.sb.payouts().length).toBe(before);
    // The same command finds it is not this payout (exit 1), still nothing paid.
    const again = await payctl(createArgs(wallet, id, '11.37'), { dir: b.dir });
    expect(again.code, again.stderr).toBe(1);
    expect(ctx.sb.payouts().length).toBe(before);
  });
});

describe('a payout list longer than payctl searches', () => {
  // 10,050 records: the search stops at MAX_PAGES (100 pages of 100). Not held to the description: only the length matters here.
  const ctx = useSandbox({ apiKey: KEY, conformance: false });
  let a: ReturnType<typeof tempConfigDir>;
  let b: ReturnType<typeof tempConfigDir>;
  beforeEach(() => {
    a = tempConfigDir();
    b = tempConfigDir();
    for (const dir of [a.dir, b.dir]) writeProfile(dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  });
  afterEach(() => {
    a.cleanup();
    b.cleanup();
  });

  it('the search stops before the end of the list without a candidate: exit 4 saying so, never exit 0 or 1', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    ctx.sb.generatePayouts(10_050);
    const id = `rent-${randomUUID().slice(0, 8)}`;
    expect((await payctl(createArgs(wallet, id, '10'), { dir: a.dir })).code).toBe(0);
    const before = ctx.sb.payouts().length;
    // An amount none of the 10,050 can have: generated amounts are 10.00-5000.99 (sandbox/seed.ts),
    // and only amount and currency rule a record out of this search. 11.93 was a candidate in
    // about one run in a hundred.
    const r = await payctl(createArgs(wallet, id, '9.93'), { dir: b.dir });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(r.stderr).toContain(
      'the search stopped after 10000 records of the payout list, before a certain end of it (at most 10000 records are read), without finding it',
    );
    expect(r.stderr).toContain('payctl payouts list --currency SLE --all');
    expect(ctx.sb.payouts().length).toBe(before);
  }, 60_000);
});

describe('the payout list answered as an array alone, at most 50 records a page', () => {
  const ctx = useSandbox({ apiKey: KEY, listShape: 'array' });
  useHostileCleanups();
  let a: ReturnType<typeof tempConfigDir>;
  let b: ReturnType<typeof tempConfigDir>;
  beforeEach(() => {
    a = tempConfigDir();
    b = tempConfigDir();
  });
  afterEach(() => {
    a.cleanup();
    b.cleanup();
  });

  /** A payout of 1 SLE to another account, made at the sandbox (not by payctl), after the one under test. */
  const later = (wallet: string, i: number) =>
    fetch(`${ctx.sb.baseUrl}/payout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, 'idempotency-key': randomUUID() },
      body: JSON.stringify({
        amount: 1,
        currency: 'SLE',
        payoutId: `later-${randomUUID().slice(0, 8)}`,
        walletId: wallet,
        recipient: { type: 'bank', accountDetails: { name: 'Later Payee', provider: 'ecobank', accountNumber: `555000${100 + i}` } },
      }),
    });

  it('the same payout on page 2 (60 payouts made since): a 50-record first page is not the end; never "Nothing was paid", its record named (exit 4); one payout', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const proxy = await sandboxProxy(ctx.sb);
    proxy.capPerPage(50);
    writeProfile(a.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    writeProfile(b.dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
    const id = `rent-${randomUUID().slice(0, 8)}`;
    const args = createArgs(wallet, id, '500');
    expect((await payctl(args, { dir: a.dir })).code).toBe(0);
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    for (let i = 0; i < 60; i++) expect((await later(wallet, i)).status).toBe(201);
    const before = ctx.sb.payouts().length;

    // The same payout, its name typed with a middle initial: another body, another key, so the service says the id was used before.
    const r = await payctl(
      args.map((w) => (w === 'Aminata' ? 'Aminata B.' : w)),
      { dir: b.dir },
    );
    expect(r.stderr).not.toContain('Nothing was paid');
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`payctl history reconcile --payout-id ${id} --made-by ${txn}`);
    expect((await new Journal(b.dir).get(proxy.baseUrl, id))?.outcome?.kind).not.toBe('rejected');
    expect(ctx.sb.payouts().length).toBe(before);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  });

  it('a service that ignores `page` (the latest 50 for every page), the same payout 61st: page 2 repeats page 1, so the end is not known: exit 4, never "Nothing was paid"; one payout', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const proxy = await sandboxProxy(ctx.sb);
    proxy.capPerPage(50);
    proxy.ignorePage();
    writeProfile(a.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    writeProfile(b.dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
    const id = `rent-${randomUUID().slice(0, 8)}`;
    const args = createArgs(wallet, id, '500');
    expect((await payctl(args, { dir: a.dir })).code).toBe(0);
    for (let i = 0; i < 60; i++) expect((await later(wallet, i)).status).toBe(201);
    const before = ctx.sb.payouts().length;

    const r = await payctl(
      args.map((w) => (w === 'Aminata' ? 'Aminata B.' : w)),
      { dir: b.dir },
    );
    expect(r.stderr).not.toContain('Nothing was paid');
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('page 2 repeats page 1');
    expect(r.stderr).toContain('payctl payouts list --currency SLE --all');
    expect((await new Journal(b.dir).get(proxy.baseUrl, id))?.outcome).toMatchObject({ kind: 'unknown', anyTime: true });
    expect(ctx.sb.payouts().length).toBe(before);
  });
});

/** A list answer, as far as the rewrites below change it. */
type ListJson = { meta?: { total: number; last_page: number }; data: { has_more?: boolean } };

/** A list whose paging signs disagree: the search reads on until they all say the end. */
describe.each([
  {
    shape: 'resource' as const,
    how: '`meta.last_page` from the 100 asked while `links.next` names page 2',
    rewrite: (j: ListJson): void => {
      if (j.meta) j.meta.last_page = Math.ceil(j.meta.total / 100);
    },
  },
  {
    shape: 'items' as const,
    how: '`has_more: false` while `total` says more than were read',
    rewrite: (j: ListJson): void => {
      j.data.has_more = false;
    },
  },
])('the payout list in the $shape shape, 50 records a page, $how', ({ shape, rewrite }) => {
  const ctx = useSandbox({ apiKey: KEY, listShape: shape });
  useHostileCleanups();
  let a: ReturnType<typeof tempConfigDir>;
  let b: ReturnType<typeof tempConfigDir>;
  beforeEach(() => {
    a = tempConfigDir();
    b = tempConfigDir();
  });
  afterEach(() => {
    a.cleanup();
    b.cleanup();
  });

  it('the same payout on page 2: read on, its record named, exit 4; never "Nothing was paid"; one payout', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const proxy = await sandboxProxy(ctx.sb);
    proxy.capPerPage(50);
    proxy.rewriteLists((raw) => {
      const j = JSON.parse(raw) as ListJson;
      rewrite(j);
      return JSON.stringify(j);
    });
    writeProfile(a.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    writeProfile(b.dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
    const id = `rent-${randomUUID().slice(0, 8)}`;
    const args = createArgs(wallet, id, '500');
    expect((await payctl(args, { dir: a.dir })).code).toBe(0);
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    // 60 payouts to other accounts made since: the payout is on page 2.
    for (let i = 0; i < 60; i++) {
      const more = createArgs(wallet, `later-${randomUUID().slice(0, 8)}`, '1', `07700${1000 + i}`);
      expect((await payctl(more, { dir: a.dir })).code).toBe(0);
    }
    const before = ctx.sb.payouts().length;

    const r = await payctl(
      args.map((w) => (w === 'Aminata' ? 'Aminata B.' : w)),
      { dir: b.dir },
    );
    expect(r.stderr).not.toContain('Nothing was paid');
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`payctl history reconcile --payout-id ${id} --made-by ${txn}`);
    expect(ctx.sb.payouts().length).toBe(before);
  }, 30_000);
});

/** A list answer with `change` applied to each record in it (any shape). */
const eachRecord = (raw: string, change: (r: Record<string, unknown>) => void): string =>
  JSON.stringify(JSON.parse(raw), (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && 'transaction_id' in v) change(v);
    return v;
  });

/** The account (account_number or accountNumber) of a record, changed by `fn`. */
const account = (fn: (a: string) => string) => (r: Record<string, unknown>) => {
  const rc = r['recipient'] as Record<string, unknown> | undefined;
  for (const k of ['account_number', 'accountNumber']) if (rc && typeof rc[k] === 'string') rc[k] = fn(rc[k]);
};

/** Records written as a service may write them (probe 51 r1, r2): each is still the payout's, so never "not made". */
describe.each([
  { how: 'payout_id ""', change: (_id: string) => (r: Record<string, unknown>) => void (r['payout_id'] = '') },
  { how: 'payoutId "" (no payout_id)', change: (_id: string) => (r: Record<string, unknown>) => void (delete r['payout_id'], (r['payoutId'] = '')) },
  { how: 'the payout id in upper case', change: (id: string) => (r: Record<string, unknown>) => void (r['payout_id'] = id.toUpperCase()) },
  { how: 'the payout id with spaces, wallet_id ""', change: (id: string) => (r: Record<string, unknown>) => void ((r['payout_id'] = ` ${id} `), (r['wallet_id'] = '')) },
  { how: 'the account without its leading zero', change: () => account((a) => a.replace(/^0+/, '')) },
  { how: 'the account with dots', change: () => account((a) => `${a.slice(0, 4)}.${a.slice(4)}`) },
  { how: 'the account with a plus sign', change: () => account((a) => `+${a}`) },
  {
    how: "the amount with digits past the currency's (10.0000000001)",
    change: () => (r: Record<string, unknown>) => void (r['amount'] = '10.0000000001'),
    unchecked: true,
  },
])('the payout list writes the same payout with $how', ({ change, unchecked }) => {
  const ctx = useSandbox({ apiKey: KEY });
  useHostileCleanups();
  let a: ReturnType<typeof tempConfigDir>;
  let b: ReturnType<typeof tempConfigDir>;
  beforeEach(() => {
    a = tempConfigDir();
    b = tempConfigDir();
  });
  afterEach(() => {
    a.cleanup();
    b.cleanup();
  });

  it('used from another folder (its name typed otherwise): exit 4, unknown, its record named (or said unchecked); never "Nothing was paid"; one payout (before: exit 1, refused)', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const proxy = await sandboxProxy(ctx.sb);
    writeProfile(a.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    writeProfile(b.dir, { baseUrl: proxy.baseUrl, apiKey: KEY });
    const id = `rent-${randomUUID().slice(0, 8)}`;
    const args = createArgs(wallet, id, '10');
    expect((await payctl(args, { dir: a.dir })).code).toBe(0);
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    proxy.rewriteLists((raw) => eachRecord(raw, change(id)));
    const before = ctx.sb.payouts().length;

    const r = await payctl(
      args.map((w) => (w === 'Aminata' ? 'Aminata B.' : w)),
      { dir: b.dir },
    );
    expect(r.stderr).not.toContain('Nothing was paid');
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(unchecked ? /only (a record|\d+ records) payctl cannot check could be it/ : new RegExp(`--made-by ${txn}`));
    expect((await new Journal(b.dir).get(proxy.baseUrl, id))?.outcome).toMatchObject({ kind: 'unknown', anyTime: true });
    expect(ctx.sb.payouts().length).toBe(before);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  });
});
