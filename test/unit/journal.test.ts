import { execFileSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { Journal, JournalConflict, journalBase, type JournalEntry, type Outcome } from '../../src/payouts/journal.js';
import { isUuid, payoutBody, validatePayout, type PayoutFields } from '../../src/payouts/request.js';
import { scanned } from '../helpers/scanned.js';

const BASE = 'https://api.example.com/v2';
const OTHER_BASE = 'http://127.0.0.1:8080/v2';
const T0 = new Date('2026-11-21T10:15:30.123Z');
const T1 = new Date('2026-11-21T11:00:00.000Z');

const FIELDS: PayoutFields = {
  payoutId: 'p-1',
  walletId: 'wal_1',
  amount: '1500.50',
  currency: 'SLE',
  type: 'wallet',
  name: 'Aminata Kamara',
  provider: 'orange_money',
  account: '076123456',
  phone: '+23276123456',
};

function body(over: PayoutFields = {}): string {
  const r = validatePayout({ ...FIELDS, ...over });
  if (!r.ok) throw new Error(r.problems.join('; '));
  return payoutBody(r.request);
}

/** A body with any amount in SLE minor units, built past validation. */
function bodyWithMinor(minor: bigint): string {
  const r = validatePayout(FIELDS);
  if (!r.ok) throw new Error(r.problems.join('; '));
  return payoutBody({ ...r.request, amountMinor: minor });
}

let root: string;
let journal: Journal;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'payctl-journal-'));
  journal = new Journal(root);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;
/** What the journal folder holds besides its folders of markers (index/, days/: hard links, no files of their own). */
const files = () =>
  readdirSync(journal.dir)
    .filter((n) => n !== 'index' && n !== 'days')
    .sort();
/** The documented file name: sha256("<base URL>\n<payout id>"), first 32 hex digits. */
const entryFile = (baseUrl: string, payoutId: string) => join(journal.dir, `${createHash('sha256').update(`${baseUrl}\n${payoutId}`).digest('hex').slice(0, 32)}.json`);

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('Journal.begin', () => {
  it('writes a new entry with a UUID key to a 0600 file in a 0700 folder under <config>/journal', async () => {
    expect(journal.dir).toBe(join(root, 'journal'));
    const b = body();
    const entry = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: b, now: T0 });
    expect(isUuid(entry.idempotencyKey)).toBe(true);
    expect(entry).toEqual({
      version: 2,
      payoutId: 'p-1',
      baseUrl: BASE,
      idempotencyKey: entry.idempotencyKey,
      body: b,
      createdAt: '2026-11-21T10:15:30.123Z',
    });
    expect(mode(journal.dir)).toBe(0o700);
    const file = entryFile(BASE, 'p-1');
    expect(files()).toEqual([file.slice(journal.dir.length + 1)]);
    expect(mode(file)).toBe(0o600);
    // On disk: the entry and its HMAC under <config>/journal.key (0600).
    const key = Buffer.from(readFileSync(join(root, 'journal.key'), 'utf8').trim(), 'hex');
    expect(key).toHaveLength(32);
    expect(mode(join(root, 'journal.key'))).toBe(0o600);
    const mac = createHmac('sha256', key).update(JSON.stringify(entry)).digest('hex');
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify({ ...entry, mac }, null, 2) + '\n');
    expect(await journal.get(BASE, 'p-1')).toEqual(entry);
  });

  it('uses an explicit idempotency key as given', async () => {
    const key = '0B5C9D1E-1F2A-4B3C-8D4E-5F6A7B8C9D0E';
    const entry = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), idempotencyKey: key, now: T0 });
    expect(entry.idempotencyKey).toBe(key);
    expect((await journal.get(BASE, 'p-1'))?.idempotencyKey).toBe(key);
  });

  it('gives each new payout its own key', async () => {
    const a = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const b = await journal.begin({ baseUrl: BASE, payoutId: 'p-2', body: body({ payoutId: 'p-2' }), now: T0 });
    expect(a.idempotencyKey).not.toBe(b.idempotencyKey);
  });

  it('returns the journaled entry again for the same body, without rewriting it', async () => {
    const b = body();
    const first = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: b, now: T0 });
    const file = entryFile(BASE, 'p-1');
    const before = statSync(file);
    const text = readFileSync(file, 'utf8');
    const again = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: b, now: T1 });
    expect(again).toEqual(first);
    expect(again.createdAt).toBe('2026-11-21T10:15:30.123Z');
    const after = statSync(file);
    // A rewrite (temp file + rename) would give the entry a new inode.
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(files()).toHaveLength(1);
  });

  it('accepts the journaled key given again explicitly, in any case', async () => {
    const first = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const again = await journal.begin({
      baseUrl: BASE,
      payoutId: 'p-1',
      body: body(),
      idempotencyKey: first.idempotencyKey.toUpperCase(),
      now: T1,
    });
    expect(again.idempotencyKey).toBe(first.idempotencyKey);
  });

  it('refuses the same payout id with other details (JournalConflict "details") and keeps the entry', async () => {
    const first = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    for (const over of [{ amount: '1500.51' }, { name: 'Aminata Kamara Jr' }, { note: 'extra' }, { metadata: ['a=1'] }, { currency: 'NGN' }]) {
      const err = await rejection(journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(over), now: T1 }));
      expect(err).toBeInstanceOf(JournalConflict);
      expect((err as JournalConflict).what).toBe('details');
      expect((err as JournalConflict).message).toBe('payout id journaled with other details');
      expect((err as JournalConflict).existing).toEqual(first);
    }
    expect(await journal.get(BASE, 'p-1')).toEqual(first);
  });

  it('reports other details before another key', async () => {
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const err = await rejection(
      journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body({ amount: '1' }), idempotencyKey: '11111111-1111-4111-8111-111111111111', now: T1 }),
    );
    expect((err as JournalConflict).what).toBe('details');
  });

  it('refuses the same payout id with another explicit key (JournalConflict "key")', async () => {
    const first = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const err = await rejection(journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), idempotencyKey: '11111111-1111-4111-8111-111111111111', now: T1 }));
    expect(err).toBeInstanceOf(JournalConflict);
    expect((err as JournalConflict).what).toBe('key');
    expect((err as JournalConflict).message).toBe('payout id journaled with another key');
    expect((err as JournalConflict).existing.idempotencyKey).toBe(first.idempotencyKey);
    expect((await journal.get(BASE, 'p-1'))?.idempotencyKey).toBe(first.idempotencyKey);
  });

  it('counts a body that differs only in whitespace or key order as the same', async () => {
    const b = body({ note: 'a  b', metadata: ['x=1', 'y=2'] });
    const first = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: b, now: T0 });
    const pretty = JSON.stringify(JSON.parse(b), null, 2);
    expect(pretty).not.toBe(b);
    expect((await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: pretty, now: T1 })).idempotencyKey).toBe(first.idempotencyKey);
    const reordered = b.replace('"metadata":{"x":"1","y":"2"}', '"metadata":{"y":"2","x":"1"}');
    expect(reordered).not.toBe(b);
    expect((await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: reordered, now: T1 })).idempotencyKey).toBe(first.idempotencyKey);
    // Whitespace inside a string is a different detail.
    const err = await rejection(journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body({ note: 'a b', metadata: ['x=1', 'y=2'] }), now: T1 }));
    expect((err as JournalConflict).what).toBe('details');
  });

  it('treats a body that is not JSON as different unless byte-identical', async () => {
    await journal.begin({ baseUrl: BASE, payoutId: 'raw', body: 'not json', now: T0 });
    expect((await journal.begin({ baseUrl: BASE, payoutId: 'raw', body: 'not json', now: T1 })).body).toBe('not json');
    const err = await rejection(journal.begin({ baseUrl: BASE, payoutId: 'raw', body: 'not  json', now: T1 }));
    expect((err as JournalConflict).what).toBe('details');
  });

  // Bug (src/payouts/journal.ts, sameBody): bodies are compared after JSON.parse, which reads
  // the amount into a binary float. Two 16-digit amounts one minor unit apart can read as the
  // same double, so a changed amount is taken for "the same details" and the OLD body (old
  // amount) is resent under the old key, with no conflict shown.
  it('refuses a changed 16-digit amount that a float cannot tell apart (sameBody loses precision)', async () => {
    // Such amounts are refused at validation now; an entry journaled by an older payctl may still hold one.
    const a = bodyWithMinor(9999999999999001n);
    const b = bodyWithMinor(9999999999999002n);
    expect(a).not.toBe(b);
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: a, now: T0 });
    // Today begin() resolves with the old entry (amount .01) instead of refusing.
    await expect(journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: b, now: T1 })).rejects.toMatchObject({ what: 'details' });
  });

  it('keeps entries apart per base URL', async () => {
    const a = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const b = await journal.begin({ baseUrl: OTHER_BASE, payoutId: 'p-1', body: body({ amount: '9' }), now: T1 });
    expect(b.idempotencyKey).not.toBe(a.idempotencyKey);
    expect(files()).toHaveLength(2);
    expect(await journal.get(BASE, 'p-1')).toEqual(a);
    expect(await journal.get(OTHER_BASE, 'p-1')).toEqual(b);
    expect(await journal.get('https://elsewhere.example/v2', 'p-1')).toBeUndefined();
  });

  it('begins 50 different payouts concurrently, each with its own entry', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `p-${i}`);
    const entries = await Promise.all(ids.map((id) => journal.begin({ baseUrl: BASE, payoutId: id, body: body({ payoutId: id }), now: T0 })));
    expect(entries.map((e) => e.payoutId)).toEqual(ids);
    expect(new Set(entries.map((e) => e.idempotencyKey)).size).toBe(50);
    expect(files()).toHaveLength(50);
    expect(files().every((f) => /^[0-9a-f]{32}\.json$/.test(f))).toBe(true);
    for (const e of entries) {
      expect(await journal.get(BASE, e.payoutId)).toEqual(e);
      expect(mode(entryFile(BASE, e.payoutId))).toBe(0o600);
    }
  });
});

describe('Journal.get', () => {
  it('returns undefined for an unknown payout, also before the folder exists', async () => {
    expect(await journal.get(BASE, 'nope')).toBeUndefined();
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    expect(await journal.get(BASE, 'nope')).toBeUndefined();
  });

  it('throws a ConfigError naming the file when an entry is not JSON', async () => {
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const file = entryFile(BASE, 'p-1');
    writeFileSync(file, '{"version":1,"payoutId":"p-1",');
    const err = await rejection(journal.get(BASE, 'p-1'));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(new RegExp(`^The payout journal entry ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\(.+\\)\\.$`));
    expect((err as ConfigError).hint).toBe('It holds the idempotency key of an earlier payout; inspect it before removing it.');
    expect((err as ConfigError).exitCode).toBe(2);
    // begin() refuses too rather than overwriting the damaged entry.
    expect(await rejection(journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T1 }))).toBeInstanceOf(ConfigError);
    expect(readFileSync(file, 'utf8')).toBe('{"version":1,"payoutId":"p-1",');
  });

  it.each([
    ['another payout id', { payoutId: 'p-2', idempotencyKey: 'k', body: '{}' }],
    ['no key', { payoutId: 'p-1', body: '{}' }],
    ['a body that is not a string', { payoutId: 'p-1', idempotencyKey: 'k', body: { amount: 1 } }],
    ['null', null],
  ])('throws a ConfigError naming the file for an entry with %s', async (_what, content) => {
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const file = entryFile(BASE, 'p-1');
    writeFileSync(file, JSON.stringify(content));
    const err = await rejection(journal.get(BASE, 'p-1'));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(`The payout journal entry ${file} is damaged`);
  });

  it('throws a ConfigError naming the file when the entry cannot be read', async () => {
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const file = entryFile(BASE, 'p-1');
    rmSync(file);
    // A folder where the file should be: EISDIR, not ENOENT.
    mkdirSync(file);
    const err = await rejection(journal.get(BASE, 'p-1'));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^Cannot read the payout journal entry /);
    expect((err as Error).message).toContain(file);
  });
});

describe('Journal.record and put', () => {
  it('stores the outcome; get() returns it and begin() keeps returning the entry', async () => {
    const entry = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const outcome: Outcome = {
      kind: 'accepted',
      status: 201,
      transactionId: 'TRX0123456789ABCDEF0123',
      fee: '15.01',
      replayed: false,
      at: '2026-11-21T10:15:31.000Z',
    };
    const next = await journal.record(entry, outcome);
    expect(next).toEqual({ ...entry, outcome });
    expect(entry.outcome).toBeUndefined();
    expect(await journal.get(BASE, 'p-1')).toEqual({ ...entry, outcome });
    expect(mode(entryFile(BASE, 'p-1'))).toBe(0o600);
    const again = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T1 });
    expect(again.outcome).toEqual(outcome);
    expect(again.idempotencyKey).toBe(entry.idempotencyKey);
  });

  it('replaces an earlier outcome', async () => {
    const entry = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    await journal.record(entry, { kind: 'unknown', reason: 'socket hang up', at: '2026-11-21T10:15:31.000Z' });
    const rejected: Outcome = { kind: 'rejected', status: 422, code: 'INSUFFICIENT_FUNDS', message: 'Insufficient funds', at: '2026-11-21T10:16:00.000Z' };
    await journal.record(entry, rejected);
    expect((await journal.get(BASE, 'p-1'))?.outcome).toEqual(rejected);
  });

  it('leaves no temp files behind after many writes', async () => {
    const entries: JournalEntry[] = [];
    for (let i = 0; i < 5; i++) entries.push(await journal.begin({ baseUrl: BASE, payoutId: `p-${i}`, body: body({ payoutId: `p-${i}` }), now: T0 }));
    await Promise.all(entries.map((e) => journal.record(e, { kind: 'unknown', reason: 'r', at: T1.toISOString() })));
    await journal.put({ ...entries[0]!, createdAt: T1.toISOString() });
    expect(files()).toEqual(entries.map((e) => entryFile(BASE, e.payoutId).slice(journal.dir.length + 1)).sort());
    expect(files().some((f) => f.endsWith('.tmp'))).toBe(false);
  });

  it('put() creates the folder 0700 and the file 0600', async () => {
    const entry: JournalEntry = { version: 1, payoutId: 'x', baseUrl: BASE, idempotencyKey: 'k', body: '{}', createdAt: T0.toISOString() };
    await journal.put(entry);
    expect(mode(journal.dir)).toBe(0o700);
    expect(mode(entryFile(BASE, 'x'))).toBe(0o600);
    expect(await journal.get(BASE, 'x')).toEqual(entry);
  });
});

describe('Journal.conflict', () => {
  const existing: JournalEntry = {
    version: 1,
    payoutId: 'p-1',
    baseUrl: BASE,
    idempotencyKey: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
    body: '{"amount":1,"currency":"SLE"}',
    createdAt: T0.toISOString(),
  };

  it('is undefined for the same body and no key or the same key', () => {
    expect(journal.conflict(existing, '{"amount":1,"currency":"SLE"}')).toBeUndefined();
    expect(journal.conflict(existing, '{ "currency": "SLE", "amount": 1 }')).toBeUndefined();
    expect(journal.conflict(existing, existing.body, 'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA')).toBeUndefined();
  });

  it('names what differs', () => {
    expect(journal.conflict(existing, '{"amount":2,"currency":"SLE"}')?.what).toBe('details');
    expect(journal.conflict(existing, '{"amount":1,"currency":"SLE","note":"x"}')?.what).toBe('details');
    expect(journal.conflict(existing, existing.body, 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb')?.what).toBe('key');
    expect(journal.conflict(existing, existing.body, 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb')?.existing).toBe(existing);
  });
});

describe('Journal on a hostile machine', () => {
  it('reports an entry planted without a checksum, or edited after it was written, as damaged: never acted on', async () => {
    const entry = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const file = entryFile(BASE, 'p-1');
    // Edited: the outcome claims "accepted".
    const onDisk = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...onDisk, outcome: { kind: 'accepted', status: 201, transactionId: 'TRXFAKE', replayed: false, at: T1.toISOString() } }));
    const err = await rejection(journal.get(BASE, 'p-1'));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('was not written by payctl in this config folder or was changed since (its checksum does not match)');
    // Planted: a new entry with no checksum.
    const planted = entryFile(BASE, 'p-2');
    writeFileSync(
      planted,
      JSON.stringify({
        version: 1,
        payoutId: 'p-2',
        baseUrl: BASE,
        idempotencyKey: entry.idempotencyKey,
        body: body({ payoutId: 'p-2' }),
        createdAt: T0.toISOString(),
        outcome: { kind: 'accepted' },
      }),
    );
    expect(((await rejection(journal.get(BASE, 'p-2'))) as Error).message).toContain('(it has no checksum)');
    await expect(journal.begin({ baseUrl: BASE, payoutId: 'p-2', body: body({ payoutId: 'p-2' }), now: T1 })).rejects.toBeInstanceOf(ConfigError);
  });

  it('adopts entries written by payctl 0.1 (before the key existed) once, as they are', async () => {
    mkdirSync(journal.dir, { recursive: true, mode: 0o700 });
    const legacy = { version: 1, payoutId: 'old-1', baseUrl: BASE, idempotencyKey: 'k-1', body: body({ payoutId: 'old-1' }), createdAt: T0.toISOString() };
    writeFileSync(entryFile(BASE, 'old-1'), JSON.stringify(legacy, null, 2));
    // The first use makes the key and adopts the entry.
    await journal.begin({ baseUrl: BASE, payoutId: 'new-1', body: body({ payoutId: 'new-1' }), now: T0 });
    expect(await new Journal(root).get(BASE, 'old-1')).toEqual(legacy);
  });

  it('a junk file, a symlink to journal.key, or a huge file named like an entry: named and said what is wrong, none of it quoted', async () => {
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const key = readFileSync(join(root, 'journal.key'), 'utf8').trim();
    const junk = entryFile(BASE, 'junk');
    writeFileSync(junk, 'sk_live_4eC39HqLyjWDarjtT1zdp7dc');
    const link = entryFile(BASE, 'link');
    symlinkSync(join(root, 'journal.key'), link);
    const huge = entryFile(BASE, 'huge');
    // Sparse: 5 MiB named like an entry, past the 4 MiB an entry is read up to.
    writeFileSync(huge, '');
    truncateSync(huge, 5 * 1024 * 1024);
    const errors = new Map((await scanned(journal)).flatMap((it) => ('error' in it ? [[join(journal.dir, it.name), it.error]] : [])));
    expect([...errors.keys()].sort()).toEqual([junk, link, huge].sort());
    for (const err of errors.values()) {
      expect(err).toBeInstanceOf(ConfigError);
      for (const secret of [key.slice(0, 10), key.slice(0, 6), 'sk_live', '4eC39']) expect(`${err.message} ${(err as ConfigError).hint}`).not.toContain(secret);
    }
    expect(errors.get(junk)!.message).toBe(
      `The payout journal entry ${junk} is damaged (not valid JSON at line 1, column 1, a letter: a character where none may be, as in a value without its quotes).`,
    );
    expect(errors.get(link)!.message).toBe(`The payout journal file ${link} is a symbolic link, not an entry: payctl does not follow it.`);
    // Signed with another key (or edited): the payout id it says is not said either.
    const planted = entryFile(BASE, 'planted');
    writeFileSync(planted, readFileSync(entryFile(BASE, 'p-1'), 'utf8').replace('"payoutId": "p-1"', '"payoutId": "sk_live_4eC39"'));
    expect(((await rejection(journal.byName(basename(planted)))) as Error).message).toBe(
      `The payout journal entry ${planted} was not written by payctl in this config folder or was changed since (its checksum does not match).`,
    );
    expect(errors.get(huge)!.message).toBe(`The payout journal file ${huge} is larger than 4 MiB, far more than any entry payctl writes: it was not read.`);
    // Looked up by its payout id, the symlink is refused the same way, never followed.
    expect(((await rejection(journal.get(BASE, 'link'))) as Error).message).toContain('is a symbolic link, not an entry');
  });

  it('a missing journal.key with entries signed by it: refused (exit 2), no new key made; the printed command starts a new journal', async () => {
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    rmSync(join(root, 'journal.key'));
    const err = await rejection(new Journal(root).get(BASE, 'p-1'));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).exitCode).toBe(2);
    expect((err as Error).message).toBe(
      `The journal key ${join(root, 'journal.key')} is missing, but the payout journal ${journal.dir} holds 1 entry signed with it: with a new key, every one of them would be reported as changed outside payctl. Nothing was sent.`,
    );
    expect(existsSync(join(root, 'journal.key'))).toBe(false);
    await expect(new Journal(root).begin({ baseUrl: BASE, payoutId: 'p-2', body: body({ payoutId: 'p-2' }), now: T1 })).rejects.toBeInstanceOf(ConfigError);
    const hint = (err as ConfigError).hint!;
    expect(hint).toContain('Restore journal.key from a backup');
    const command = hint.split('\n').at(-1)!.trim();
    expect(command).toBe(`mv ${journal.dir} ${journal.dir}.old`);
    execFileSync('sh', ['-c', command]);
    // A new journal, its key made; the old one kept aside as it was.
    const fresh = new Journal(root);
    await fresh.begin({ baseUrl: BASE, payoutId: 'p-2', body: body({ payoutId: 'p-2' }), now: T1 });
    expect((await fresh.get(BASE, 'p-2'))?.payoutId).toBe('p-2');
    expect(existsSync(join(root, 'journal.key'))).toBe(true);
    expect(readdirSync(`${journal.dir}.old`).filter((n) => n.endsWith('.json'))).toHaveLength(1);
  });

  it('refuses a journal folder that is a symlink, or that others can write to', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'payctl-elsewhere-'));
    try {
      chmodSync(elsewhere, 0o777);
      symlinkSync(elsewhere, journal.dir);
      const err = await rejection(journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 }));
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toBe(`Refusing to use the payout journal folder ${journal.dir}: it is a symbolic link. Nothing was sent.`);
      expect(readdirSync(elsewhere)).toEqual([]);
      rmSync(journal.dir);
      mkdirSync(journal.dir, { mode: 0o700 });
      chmodSync(journal.dir, 0o777);
      const open = new Journal(root);
      expect(((await rejection(open.get(BASE, 'p-1'))) as Error).message).toBe(
        `Refusing to use the payout journal folder ${journal.dir}: others can write to it (mode 777). Nothing was sent.`,
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('files entries under a normalized base URL: localhost, 127.0.0.1 and a trailing slash are one service', async () => {
    expect(journalBase('http://127.0.0.1:8080/v2/')).toBe('http://localhost:8080/v2');
    expect(journalBase('HTTPS://API.Example.com:443/v2')).toBe('https://api.example.com/v2');
    const a = await journal.begin({ baseUrl: 'http://127.0.0.1:8080/v2', payoutId: 'p-1', body: body(), now: T0 });
    expect((await journal.get('http://localhost:8080/v2', 'p-1'))?.idempotencyKey).toBe(a.idempotencyKey);
    const b = await journal.begin({ baseUrl: 'http://localhost:8080/v2', payoutId: 'p-1', body: body(), now: T1 });
    expect(b.idempotencyKey).toBe(a.idempotencyKey);
  });

  it('removes temp files that a killed payctl left behind (older than a minute)', async () => {
    mkdirSync(journal.dir, { recursive: true, mode: 0o700 });
    const stale = join(journal.dir, 'abc.json.1234.tmp');
    const fresh = join(journal.dir, 'def.json.5678.tmp');
    writeFileSync(stale, '');
    writeFileSync(fresh, '');
    const past = new Date(Date.now() - 120_000);
    utimesSync(stale, past, past);
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    expect(files()).toContain('def.json.5678.tmp');
    expect(files()).not.toContain('abc.json.1234.tmp');
  });
});

describe('Journal: the profile, and reading every entry (history)', () => {
  it('records the profile given to begin(), covered by the HMAC: changing it on disk makes the entry damaged', async () => {
    const e = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0, profile: 'staging' });
    expect(e.profile).toBe('staging');
    expect((await journal.get(BASE, 'p-1'))!.profile).toBe('staging');
    const file = entryFile(BASE, 'p-1');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"profile": "staging"', '"profile": "prod"'));
    await expect(journal.get(BASE, 'p-1')).rejects.toThrow(ConfigError);
  });

  it('records the id of the key that sent it, covered by the HMAC; one that is no key id is damaged even when signed', async () => {
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0, profile: 'staging', keyId: '0123456789abcdef' });
    expect((await journal.get(BASE, 'p-1'))!.keyId).toBe('0123456789abcdef');
    const file = entryFile(BASE, 'p-1');
    const raw = readFileSync(file, 'utf8');
    writeFileSync(file, raw.replace('"keyId": "0123456789abcdef"', '"keyId": "fedcba9876543210"'));
    await expect(journal.get(BASE, 'p-1')).rejects.toThrow(/checksum does not match/);
    // Signed with this folder's key (as a payctl with a bug might write it): still never acted on.
    const key = Buffer.from(readFileSync(join(root, 'journal.key'), 'utf8').trim(), 'hex');
    const { mac: _mac, ...rest }: Record<string, unknown> = { ...(JSON.parse(raw) as Record<string, unknown>), keyId: 'sk_live_0123' };
    writeFileSync(file, JSON.stringify({ ...rest, mac: createHmac('sha256', key).update(JSON.stringify(rest)).digest('hex') }, null, 2));
    await expect(journal.get(BASE, 'p-1')).rejects.toThrow(/is damaged \(unexpected content\)/);
  });

  it('an entry without a profile (written before it was recorded) verifies; adding one on disk does not', async () => {
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    const file = entryFile(BASE, 'p-1');
    const raw = readFileSync(file, 'utf8');
    expect(raw).not.toContain('"profile"');
    expect((await journal.get(BASE, 'p-1'))!.profile).toBeUndefined();
    writeFileSync(file, raw.replace('"createdAt"', '"profile": "prod",\n  "createdAt"'));
    await expect(journal.get(BASE, 'p-1')).rejects.toThrow(/checksum does not match/);
  });

  it('records not-made; a later not-made never replaces an accepted outcome', async () => {
    const e = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    await journal.record(e, { kind: 'not-made', at: T1.toISOString() });
    expect((await journal.get(BASE, 'p-1'))!.outcome).toEqual({ kind: 'not-made', at: T1.toISOString() });
    await journal.record(e, { kind: 'accepted', status: 200, transactionId: 'TRX1', fee: undefined, replayed: true, at: T1.toISOString(), lookedUp: true });
    await journal.record(e, { kind: 'not-made', at: T1.toISOString() });
    expect((await journal.get(BASE, 'p-1'))!.outcome?.kind).toBe('accepted');
  });

  it('scan() yields every entry of every base URL once, and a damaged one as its error; byName() reads one again', async () => {
    await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: body(), now: T0 });
    await journal.begin({ baseUrl: OTHER_BASE, payoutId: 'p-2', body: body({ payoutId: 'p-2' }), now: T1 });
    await journal.begin({ baseUrl: BASE, payoutId: 'p-3', body: body({ payoutId: 'p-3' }), now: T1, origin: { fingerprint: 'f', repeatKey: 'r' } });
    writeFileSync(entryFile(BASE, 'p-3'), '{"payoutId": "p-3"}');
    const items = await scanned(journal);
    expect(items).toHaveLength(3);
    const ok = items.flatMap((it) => ('entry' in it ? [it] : []));
    expect(ok.map((it) => it.entry.payoutId).sort()).toEqual(['p-1', 'p-2']);
    expect(items.filter((it) => 'error' in it)).toHaveLength(1);
    for (const it of ok) expect(await journal.byName(it.name)).toEqual(it.entry);
    expect(await journal.byName('../journal.key')).toBeUndefined();
    expect(await scanned(new Journal(join(root, 'none')))).toEqual([]);
  });
});
