/**
 * The local ledger's rooms on their own (docs/architecture.md, "The ledger"): entry names and
 * legacy names, the key and signatures, the folder's exclusive creation and temp files, the
 * index of entries made, transaction owners, claims, and an entry's life (new, reused, given
 * an outcome). Through the whole store: test/unit/journal*.test.ts and ledger-contract.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { derivedIdempotencyKey } from '../../src/payouts/identity.js';
import { fsFault } from '../../src/config/fs-fault.js';
import { JournalFolder, writeError } from '../../src/payouts/ledger/atomic-files.js';
import { acceptedStands, JournalConflict, newEntry, reused, withOutcome } from '../../src/payouts/ledger/entries.js';
import { JournalIndex } from '../../src/payouts/ledger/gaps.js';
import type { JournalEntry, Outcome, ScanItem } from '../../src/payouts/ledger/ledger.js';
import { claimOf } from '../../src/payouts/ledger/log-reader.js';
import { JournalMac } from '../../src/payouts/ledger/mac.js';
import { EntryNames } from '../../src/payouts/ledger/names.js';
import { TransactionOwners } from '../../src/payouts/ledger/owners.js';

const BASE = 'https://api.example.com/v2';
const T0 = new Date('2026-11-21T10:15:30.123Z');
const KEY = 'ab'.repeat(32);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const accepted = (transactionId: string | undefined): Outcome => ({
  kind: 'accepted',
  status: 200,
  transactionId,
  fee: undefined,
  replayed: false,
  at: T0.toISOString(),
});

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'payctl-rooms-'));
  dir = join(root, 'journal');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const entry = (over: Partial<JournalEntry> = {}): JournalEntry => ({
  ...newEntry({ baseUrl: BASE, payoutId: 'p-1', body: '{"amount":1.50}', now: T0 }),
  ...over,
});

describe('entries: an entry’s life, the same in every store', () => {
  it('a new entry: version 2, the key given, random, or derived from the normalized base URL, id and body; absent fields left out', () => {
    const derived = newEntry({ baseUrl: 'https://API.example.com:443/v2/', payoutId: 'p-1', body: '{}', now: T0 });
    expect(derived.idempotencyKey).toBe(derivedIdempotencyKey(BASE, 'p-1', '{}'));
    expect(JSON.stringify(derived)).toBe(
      `{"version":2,"payoutId":"p-1","baseUrl":"https://API.example.com:443/v2/","idempotencyKey":"${derived.idempotencyKey}","body":"{}","createdAt":"${T0.toISOString()}"}`,
    );
    expect(newEntry({ baseUrl: BASE, payoutId: 'p-1', body: '{}', now: T0, idempotencyKey: 'given' }).idempotencyKey).toBe('given');
    const a = newEntry({ baseUrl: BASE, payoutId: 'p-1', body: '{}', now: T0, randomKey: true });
    const b = newEntry({ baseUrl: BASE, payoutId: 'p-1', body: '{}', now: T0, randomKey: true });
    expect(a.idempotencyKey).not.toBe(b.idempotencyKey);
    // Empty origin fields are not kept.
    expect(newEntry({ baseUrl: BASE, payoutId: 'p', body: '{}', now: T0, origin: { fingerprint: '', repeatKey: '' } }).fingerprint).toBeUndefined();
  });

  it('reused: the same body (as JSON, number literals as written) and key in any letter case; otherwise its conflict', () => {
    const e = entry({ body: '{"amount":1.50,"x":"a"}', idempotencyKey: 'Key-1' });
    expect(reused(e, { body: '{ "x": "a", "amount": 1.50 }', idempotencyKey: 'KEY-1' })).toBe(e);
    expect(() => reused(e, { body: '{"amount":1.5,"x":"a"}' })).toThrow(JournalConflict);
    expect(() => reused(e, { body: e.body, idempotencyKey: 'key-2' })).toThrow(expect.objectContaining({ what: 'key' }));
  });

  it('acceptedStands: only an outcome weaker than accepted asks what is held, and an accepted one under the same key stands', () => {
    const e = entry();
    const held = withOutcome(e, accepted('TXN-1'));
    let asked = 0;
    const current = () => (asked++, held);
    expect(acceptedStands(e, accepted('TXN-2'), current)).toBeUndefined();
    expect(asked).toBe(0);
    expect(acceptedStands(e, { kind: 'unknown', reason: 'r', at: '' }, current)).toBe(held);
    expect(acceptedStands({ ...e, idempotencyKey: 'other' }, { kind: 'not-made', at: '' }, current)).toBeUndefined();
  });

  it('withOutcome keeps the fields of a newer payctl', () => {
    const newer = { ...entry(), extra: 1 } as JournalEntry;
    expect(withOutcome(newer, accepted('T'))).toMatchObject({ extra: 1, outcome: accepted('T') });
  });
});

describe('names: where an entry is filed', () => {
  it('sha256 of the normalized base URL and payout id, 32 hex digits, .json; payctl 0.1’s name under the base URL as written', () => {
    const names = new EntryNames(dir);
    expect(names.of('https://API.example.com:443/v2/', 'p-1')).toBe(`${sha(`${BASE}\np-1`).slice(0, 32)}.json`);
    expect(names.asWritten('https://API.example.com:443/v2/', 'p-1')).toBe(`${sha('https://API.example.com:443/v2/\np-1').slice(0, 32)}.json`);
    expect(names.file(BASE, 'p-1')).toBe(join(dir, names.of(BASE, 'p-1')));
  });

  it('legacy names: the entry names in the folder, listed once; none when there is no folder', () => {
    expect(new EntryNames(dir).legacy().size).toBe(0);
    mkdirSync(dir);
    const name = `${'a'.repeat(32)}.json`;
    writeFileSync(join(dir, name), '{}');
    writeFileSync(join(dir, 'notes.txt'), '');
    const names = new EntryNames(dir);
    expect([...names.legacy()]).toEqual([name]);
    writeFileSync(join(dir, `${'b'.repeat(32)}.json`), '{}');
    expect([...names.legacy()]).toEqual([name]);
  });
});

describe('mac: the key and the signatures', () => {
  it('the key is made once, 0600; an entry is signed over its fields, stored as the file holds it, and verified', () => {
    const mac = new JournalMac(root, dir);
    const e = entry();
    const json = mac.signedJson(e);
    const key = Buffer.from(readFileSync(join(root, 'journal.key'), 'utf8').trim(), 'hex');
    expect(key).toHaveLength(32);
    expect(statSync(join(root, 'journal.key')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(json)).toEqual({ ...JSON.parse(JSON.stringify(e)), mac: createHmac('sha256', key).update(JSON.stringify(e)).digest('hex') });
    expect(mac.serialize(e)).toBe(JSON.stringify(JSON.parse(json), null, 2) + '\n');
    expect(mac.verified(JSON.parse(json) as JournalEntry, 'f')).toEqual(JSON.parse(JSON.stringify(e)));
    // Another instance reads the same key.
    expect(new JournalMac(root, dir).verified(JSON.parse(json) as JournalEntry, 'f').payoutId).toBe('p-1');
  });

  it('an edited or unsigned entry does not verify, naming the file; a damaged key is refused', () => {
    const mac = new JournalMac(root, dir);
    const signed = JSON.parse(mac.signedJson(entry())) as JournalEntry;
    // The payout named only when it was asked for: what a file that does not verify says is not quoted.
    expect(() => mac.verified({ ...signed, body: '{"amount":9}' }, '/x/e.json', 'p-1')).toThrow(/\/x\/e\.json \(payout p-1\) .*its checksum does not match/);
    expect(() => mac.verified({ ...signed, body: '{"amount":9}' }, '/x/e.json')).toThrow(/\/x\/e\.json was not written by payctl .*its checksum does not match/);
    expect(() => mac.verified(entry(), '/x/e.json')).toThrow(/it has no checksum/);
    writeFileSync(join(root, 'journal.key'), 'abcd\n', { mode: 0o600 });
    expect(() => new JournalMac(root, dir).of('x')).toThrow(ConfigError);
  });

  it('a key made where payctl 0.1 left entries adopts them: given their HMAC, as they are', () => {
    mkdirSync(dir);
    const v1 = { version: 1, payoutId: 'old', baseUrl: BASE, idempotencyKey: 'k', body: '{}', createdAt: T0.toISOString() };
    const file = join(dir, `${'c'.repeat(32)}.json`);
    writeFileSync(file, JSON.stringify(v1));
    const mac = new JournalMac(root, dir);
    mac.of('make the key');
    expect(mac.verified(JSON.parse(readFileSync(file, 'utf8')) as JournalEntry, file)).toEqual(v1);
  });

  /** What using the journal key throws (undefined when it does not). */
  const keyRefusal = (): unknown => {
    try {
      new JournalMac(root, dir).of('x');
    } catch (e) {
      return e;
    }
    return undefined;
  };

  it('a key file others can read (0644) or a symlink is refused, as the signing key is; the printed chmod makes it usable', () => {
    const file = join(root, 'journal.key');
    writeFileSync(file, KEY + '\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    const err = keyRefusal();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).exitCode).toBe(2);
    expect((err as Error).message).toMatch(
      new RegExp(`^Refusing to use the journal key ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: its permissions 0644 let others read or change it`),
    );
    const command = (err as ConfigError).hint!.split('\n')[0]!.replace(/^Make it yours alone with: /, '');
    expect(command).toBe(`chmod 600 ${file}`);
    execFileSync('sh', ['-c', command]);
    expect(new JournalMac(root, dir).of('text')).toBe(createHmac('sha256', Buffer.from(KEY, 'hex')).update('text').digest('hex'));
    // A symlink to a key elsewhere: refused, not followed.
    const elsewhere = join(root, 'elsewhere.key');
    renameSync(file, elsewhere);
    symlinkSync(elsewhere, file);
    expect(() => new JournalMac(root, dir).of('x')).toThrow(`Refusing to use the journal key ${file}: it is a symlink.`);
  });

  it('a key file far larger than a key (1 MiB of NUL bytes) is refused unread, saying so; nothing was sent', () => {
    const file = join(root, 'journal.key');
    writeFileSync(file, Buffer.alloc(1 << 20), { mode: 0o600 });
    const err = keyRefusal();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(
      `Refusing to use the journal key ${file}: it is larger than 64 KiB, far more than any journal key payctl writes: it was not read. Nothing was sent.`,
    );
  });

  it('matches: an HMAC of a text, any other text or length refused', () => {
    writeFileSync(join(root, 'journal.key'), KEY + '\n', { mode: 0o600 });
    const mac = new JournalMac(root, dir);
    const m = mac.of('text');
    expect(m).toBe(createHmac('sha256', Buffer.from(KEY, 'hex')).update('text').digest('hex'));
    expect(mac.matches('text', m)).toBe(true);
    expect(mac.matches('other', m)).toBe(false);
    expect(mac.matches('text', m.slice(2))).toBe(false);
  });
});

describe('atomic files: the folder written into', () => {
  it('createExclusive: one creation per name, the temp file given first and removed; stale temp files cleaned, fresh ones kept', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const stale = join(dir, 'x.json.1.tmp');
    const fresh = join(dir, 'y.json.2.tmp');
    writeFileSync(stale, '');
    writeFileSync(fresh, '');
    utimesSync(stale, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    const folder = new JournalFolder(dir);
    const file = join(dir, 'e.json');
    const seen: string[] = [];
    expect(
      await folder.createExclusive(
        file,
        () => 'first',
        (tmp) => seen.push(readFileSync(tmp, 'utf8')),
      ),
    ).toBe(true);
    expect(
      await folder.createExclusive(
        file,
        () => 'second',
        () => {},
      ),
    ).toBe(false);
    await folder.sync();
    expect(seen).toEqual(['first']);
    expect(readFileSync(file, 'utf8')).toBe('first');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['e.json', 'y.json.2.tmp']);
  });

  it('replace writes whole; syncs asked for together share one', async () => {
    const folder = new JournalFolder(dir);
    await folder.replace(join(dir, 'e.json'), () => 'v1');
    await folder.replace(join(dir, 'e.json'), () => 'v2');
    expect(readFileSync(join(dir, 'e.json'), 'utf8')).toBe('v2');
    const [a, b] = [folder.sync(), folder.sync()];
    expect(a).toBe(b);
    folder.holdOpen = true;
    await Promise.all([folder.sync(), folder.sync()]);
    await folder.release();
  });

  it('write failures in words, exit 2, naming what to do; other errors as they are', () => {
    const full = Object.assign(new Error('ENOSPC: no space'), { code: 'ENOSPC' });
    expect(fsFault(full)).toBe('no space left on device (ENOSPC)');
    const err = writeError(full, '/c/journal', 'Nothing was sent.') as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe('Cannot write the payout journal /c/journal: no space left on device (ENOSPC). Nothing was sent.');
    const bug = new TypeError('x');
    expect(writeError(bug, '/c/journal', '')).toBe(bug);
  });
});

describe('gaps: the index of entries made', () => {
  it('entries noted and then removed are counted; lines that do not verify are passed over', () => {
    const names = new EntryNames(dir);
    const mac = new JournalMac(root, dir);
    const index = new JournalIndex(root, names, mac);
    mkdirSync(dir);
    for (const id of ['a', 'b', 'c']) {
      writeFileSync(names.file(BASE, id), '{}');
      index.note(names.of(BASE, id), id);
    }
    expect(index.gaps()).toBeUndefined();
    rmSync(names.file(BASE, 'b'));
    writeFileSync(join(root, 'journal.index'), readFileSync(join(root, 'journal.index'), 'utf8') + '{"name":"planted"}\n');
    expect(new JournalIndex(root, names, mac).gaps()).toEqual({ missing: 1, recorded: 3, payoutIds: ['b'], unverified: 1 });
    expect(existsSync(join(root, 'journal.index'))).toBe(true);
  });
});

describe('owners: transaction ids already recorded', () => {
  it('read with one scan when first asked; the first payout recorded keeps it; later records noted', () => {
    let scans = 0;
    const items: ScanItem[] = [
      { name: '1', entry: withOutcome(entry({ payoutId: 'a' }), accepted('T-1')) },
      { name: '2', entry: withOutcome(entry({ payoutId: 'b', baseUrl: 'https://API.example.com/v2/' }), accepted('T-1')) },
      { name: '3', error: new Error('damaged') },
      { name: '4', entry: withOutcome(entry({ payoutId: 'c' }), accepted(undefined)) },
    ];
    const owners = new TransactionOwners(() => (scans++, items));
    owners.recorded(withOutcome(entry({ payoutId: 'z' }), accepted('T-0'))); // not read yet: nothing to keep up to date
    expect(owners.owner(BASE, 'T-1')).toBe('a');
    expect(owners.owner(BASE, 'T-0')).toBeUndefined();
    owners.recorded(withOutcome(entry({ payoutId: 'd' }), accepted('T-2')));
    expect(owners.owner('https://api.example.com/v2/', 'T-2')).toBe('d');
    expect(scans).toBe(1);
  });
});

describe('claims on a log', () => {
  it('exactly {payctl_journal_claim: 1, log}; anything else that says it is a claim is "changed"', () => {
    expect(claimOf({ payctl_journal_claim: 1, log: 'x.log' })).toEqual({ payctl_journal_claim: 1, log: 'x.log' });
    expect(claimOf({ payoutId: 'p' })).toBeUndefined();
    expect(claimOf(null)).toBeUndefined();
    expect(claimOf({ payctl_journal_claim: 1, log: 'x.log', payoutId: 'p' })).toBe('changed');
    expect(claimOf({ payctl_journal_claim: 2, log: 'x.log' })).toBe('changed');
  });
});
