/**
 * Zero keys (src/payouts/identity.ts zeroKey): one look-up key for a payout's account in every form
 * of its leading zeros, where each look-up asked for the repeat key of every form before (~50 a
 * row, most of a batch's CPU). Entries journaled before zero keys are found too: the local
 * journal marks them once (markers.ts ensureZeros), the PostgreSQL ledger's migration 5 gives its
 * rows theirs; and the key a marker or a column names is only a lead, checked against the entry.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repeatKey, repeatKeys, sha256Hex, zeroKey } from '../../src/payouts/identity.js';
import { Journal } from '../../src/payouts/journal.js';
import { journalBase } from '../../src/payouts/ledger/base-url.js';
import { JournalMac } from '../../src/payouts/ledger/mac.js';
import { openPostgresLedger, type PostgresLedger } from '../../src/payouts/ledger/postgres/index.js';
import { payoutBody, validatePayout, type PayoutRequest } from '../../src/payouts/request.js';
import { entryZeroKey } from '../../src/payouts/sent-body.js';
import { sharedPostgres, sql, type SharedPostgres } from '../helpers/postgres.js';

const BASE = 'http://127.0.0.1:9/v2';

function request(account: string, payoutId: string, amount = '12.50'): PayoutRequest {
  const v = validatePayout({
    payoutId,
    walletId: '6643665465',
    amount,
    currency: 'SLE',
    type: 'bank',
    name: 'Ibrahim Bangura',
    provider: 'rokel_commercial_bank',
    account,
    phone: '',
    note: '',
  });
  if (!v.ok) throw new Error(v.problems.join('; '));
  return v.request;
}

describe('zeroKey', () => {
  it("is one key for an all-digit account's every form of leading zeros: the repeat key of the form without them", () => {
    const forms = ['456719', '0456719', '0000456719', `${'0'.repeat(28)}456719`, '0000-4567 19'];
    const keys = new Set(forms.map((a) => zeroKey(request(a, 'p'))));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toBe(repeatKey(request('456719', 'p')));
    // Another amount, wallet or account is another key.
    expect(zeroKey(request('456719', 'p', '12.51'))).not.toBe([...keys][0]);
    expect(zeroKey(request('4567190', 'p'))).not.toBe([...keys][0]);
  });

  it('is the repeat key itself for an account with any other character (a spreadsheet keeps it as text), and "0" stays "0"', () => {
    for (const a of ['SL12ABCD0001', '00AB12', '0']) expect(zeroKey(request(a, 'p'))).toBe(repeatKey(request(a, 'p')));
    expect(zeroKey(request('000', 'p'))).toBe(repeatKey(request('0', 'p')));
  });

  it('an entry journaled without one (before 29 November) has the key its body pays; one whose body cannot be read has none', () => {
    const r = request('0000456719', 'p-1');
    expect(entryZeroKey({ body: payoutBody(r) })).toBe(zeroKey(r));
    // A body today's rules refuse whole (a name longer than today's 200 characters): still the key of what it paid.
    const longName = payoutBody(r).replace('"Ibrahim Bangura"', `"${'x'.repeat(300)}"`);
    expect(longName).toContain('x'.repeat(300));
    expect(entryZeroKey({ body: longName })).toBe(zeroKey(r));
    expect(entryZeroKey({ body: '{}' })).toBeUndefined();
    expect(entryZeroKey({ body: 'not json' })).toBeUndefined();
    // As journaled wins: the entry signed it.
    expect(entryZeroKey({ zeroKey: 'abc', body: payoutBody(r) })).toBe('abc');
  });
});

describe('the local journal', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function journalOf(account: string): Promise<{ dir: string; r: PayoutRequest }> {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-zeros-'));
    dirs.push(dir);
    const r = request(account, 'p-old');
    // As an earlier payctl journaled it: a repeat key, no zero key.
    await new Journal(dir).begin({ baseUrl: BASE, payoutId: r.payoutId, body: payoutBody(r), now: new Date(), origin: { repeatKey: repeatKey(r) } });
    return { dir, r };
  }

  it('a journal written before zero keys (no zero marker, not said complete): its entries are marked once, and found by the zero key of any form', async () => {
    const { dir, r } = await journalOf('0000456719');
    // What an earlier payctl left: no zero marker for the entry, and the journal not said marked.
    const marker = join(dir, 'journal', 'index', sha256Hex(`${journalBase(BASE)}\nzero\n${zeroKey(r)}`, 16));
    rmSync(marker);
    rmSync(join(dir, 'journal', 'days', 'zeros.complete'));
    const found = await new Journal(dir).find(BASE, 'zero', zeroKey(request('456719', 'p-new')));
    expect(found.map((e) => e.payoutId)).toEqual(['p-old']);
  });

  /** A journal in a fresh folder with one payout this payctl journaled, read by a look-up by zero key (zeros.complete says where): its folder. */
  async function marked(): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-zeros-'));
    dirs.push(dir);
    const first = request('123', 'p-first');
    await new Journal(dir).begin({
      baseUrl: BASE,
      payoutId: first.payoutId,
      body: payoutBody(first),
      now: new Date(),
      origin: { repeatKey: repeatKey(first), zeroKey: zeroKey(first) },
    });
    await new Journal(dir).find(BASE, 'zero', zeroKey(request('9', 'x')));
    return dir;
  }

  /** Payout `id` to `account` as an older payctl journals it into `dir`: no zero marker, and (`line`) its index line without `z`, or with a `z` added by hand. */
  async function oldPayout(dir: string, id: string, account: string, line: 'plain' | 'z added' = 'plain'): Promise<PayoutRequest> {
    const old = request(account, id);
    await new Journal(dir).begin({ baseUrl: BASE, payoutId: id, body: payoutBody(old), now: new Date(), origin: { repeatKey: repeatKey(old) } });
    rmSync(join(dir, 'journal', 'index', sha256Hex(`${journalBase(BASE)}\nzero\n${zeroKey(old)}`, 16)));
    const index = join(dir, 'journal.index');
    const lines = readFileSync(index, 'utf8').split('\n');
    const i = lines.findIndex((l) => l.includes(`"payoutId":"${id}"`));
    // Its HMAC as an older payctl signs a line (without `z`): made by a journal of the same key.
    const plain = JSON.parse(lines[i]!) as { name: string; payoutId: string };
    const mac = new JournalMac(dir, join(dir, 'journal')).of(`payctl-journal-index-v1\n${plain.name}\n${plain.payoutId}`);
    lines[i] = JSON.stringify(line === 'plain' ? { name: plain.name, payoutId: id, mac } : { name: plain.name, payoutId: id, z: 1, mac });
    writeFileSync(index, lines.join('\n'));
    return old;
  }

  it('an older payctl journaling into a folder already marked (a downgrade and back): its entry is marked at the next look-up and found', async () => {
    const dir = await marked();
    // This payctl looked up by zero key: the index read to its end, and said so.
    const checked = join(dir, 'journal', 'days', 'zeros.complete');
    const index = join(dir, 'journal.index');
    expect(Number(readFileSync(checked, 'utf8').split(' ')[0])).toBe(statSync(index).size);
    // Then an older payctl pays 000777001: no zero key, no zero marker, an index line without `z`.
    await oldPayout(dir, 'p-old', '000777001');
    expect(readFileSync(index, 'utf8')).toContain('"payoutId":"p-old","mac"');
    // 777001 typed now finds it.
    const found = await new Journal(dir).find(BASE, 'zero', zeroKey(request('777001', 'p-new')));
    expect(found.map((e) => e.payoutId)).toEqual(['p-old']);
    expect(Number(readFileSync(checked, 'utf8').split(' ')[0])).toBe(statSync(index).size);
  });

  it('one run: a payout an older payctl journals between two of its look-ups (waiting for the wallet lock) is found by the second', async () => {
    const dir = await marked();
    const j = new Journal(dir);
    expect(await j.find(BASE, 'zero', zeroKey(request('770001', 'p-new')))).toEqual([]);
    await oldPayout(dir, 'p-old', '000770001');
    expect((await j.find(BASE, 'zero', zeroKey(request('770001', 'p-new')))).map((e) => e.payoutId)).toEqual(['p-old']);
  });

  it('an index restored from an older copy, then grown past where the last read ended by an older payctl: read again from its start', async () => {
    const dir = await marked();
    const index = join(dir, 'journal.index');
    const copy = readFileSync(index);
    // More payouts of this payctl, read to their end by a look-up: zeros.complete past the copy's end.
    for (const n of ['1', '2', '3']) {
      const r = request(`55${n}`, `p-more-${n}`);
      await new Journal(dir).begin({
        baseUrl: BASE,
        payoutId: r.payoutId,
        body: payoutBody(r),
        now: new Date(),
        origin: { repeatKey: repeatKey(r), zeroKey: zeroKey(r) },
      });
    }
    await new Journal(dir).find(BASE, 'zero', zeroKey(request('9', 'x')));
    writeFileSync(index, copy);
    // The older payctl's payouts make the index longer than the place said before.
    await oldPayout(dir, 'p-old-1', '000777041');
    await oldPayout(dir, 'p-old-2', '000777042');
    expect(statSync(index).size).toBeGreaterThan(Number(readFileSync(join(dir, 'journal', 'days', 'zeros.complete'), 'utf8').split(' ')[0]));
    for (const [typed, id] of [
      ['777041', 'p-old-1'],
      ['777042', 'p-old-2'],
    ])
      expect((await new Journal(dir).find(BASE, 'zero', zeroKey(request(typed!, 'p-new')))).map((e) => e.payoutId)).toEqual([id]);
  });

  it("zeros.complete written by hand with the index's own size and last HMAC is not taken: read again from the start (probe R62, F1)", async () => {
    const dir = await marked();
    await oldPayout(dir, 'p-old', '000990207');
    const index = join(dir, 'journal.index');
    const last = JSON.parse(readFileSync(index, 'utf8').trim().split('\n').at(-1)!) as { mac: string };
    const checked = join(dir, 'journal', 'days', 'zeros.complete');
    for (const forged of [`${statSync(index).size} ${last.mac}`, `${statSync(index).size} ${last.mac} ${'0'.repeat(64)}`]) {
      writeFileSync(checked, `${forged}\n`);
      expect(
        (await new Journal(dir).find(BASE, 'zero', zeroKey(request('990207', 'p-new')))).map((e) => e.payoutId),
        forged,
      ).toEqual(['p-old']);
    }
    // Read so, the place it writes holds: the next run reads on from there.
    expect(readFileSync(checked, 'utf8').trim().split(' ')).toHaveLength(3);
  });

  it("a `z` added by hand to an older payctl's line is not taken: it is not signed so", async () => {
    const dir = await marked();
    await oldPayout(dir, 'p-old', '000777001', 'z added');
    expect(readFileSync(join(dir, 'journal.index'), 'utf8')).toContain('"payoutId":"p-old","z":1');
    expect((await new Journal(dir).find(BASE, 'zero', zeroKey(request('777001', 'p-new')))).map((e) => e.payoutId)).toEqual(['p-old']);
  });

  it('an entry a payctl before 28 November journaled under its account as typed (4410-0012-34) is found by the zero key of 4410001234 and 04410001234', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-zeros-'));
    dirs.push(dir);
    const r = request('4410-0012-34', 'p-typed');
    const asTyped = repeatKeys(r)[1]!;
    expect(asTyped).not.toBe(repeatKey(r));
    await new Journal(dir).begin({ baseUrl: BASE, payoutId: r.payoutId, body: payoutBody(r), now: new Date(), origin: { repeatKey: asTyped } });
    rmSync(join(dir, 'journal', 'index', sha256Hex(`${journalBase(BASE)}\nzero\n${zeroKey(r)}`, 16)));
    rmSync(join(dir, 'journal', 'days', 'zeros.complete'));
    for (const typed of ['4410001234', '04410001234'])
      expect((await new Journal(dir).find(BASE, 'zero', zeroKey(request(typed, 'p-new')))).map((e) => e.payoutId)).toEqual(['p-typed']);
  });

  it('an entry whose account has no leading zero is found by its repeat marker: no zero marker is made for it', async () => {
    const { dir, r } = await journalOf('456719');
    expect(zeroKey(r)).toBe(repeatKey(r));
    const found = await new Journal(dir).find(BASE, 'zero', zeroKey(request('00456719', 'p-new')));
    expect(found.map((e) => e.payoutId)).toEqual(['p-old']);
  });
});

describe('the PostgreSQL ledger', () => {
  let db: SharedPostgres;
  const opened: PostgresLedger[] = [];
  beforeAll(async () => {
    db = await sharedPostgres();
  });
  afterEach(async () => {
    for (const l of opened.splice(0)) await l.close();
  });
  afterAll(async () => {
    for (const l of opened.splice(0)) await l.close();
  });
  const open = async (url: string) => {
    const l = await openPostgresLedger(url, { env: {}, host: 'zero-keys' });
    opened.push(l);
    return l;
  };

  it('a ledger of schema 4 is migrated to 5: its rows are given their zero keys from their entries, and found by them', async () => {
    const url = await db.freshDatabase('ledger-zero-keys');
    const l = await open(url);
    const old = request('0000456719', 'p-old');
    const other = request('SL12ABCD0001', 'p-text');
    for (const r of [old, other]) await l.begin({ baseUrl: BASE, payoutId: r.payoutId, body: payoutBody(r), now: new Date(), origin: { repeatKey: repeatKey(r) } });
    await l.close();
    opened.length = 0;
    // The ledger as schema 4 left it: no zero key column.
    await sql(url, 'ALTER TABLE payctl_ledger_entries DROP COLUMN zero_key');
    await sql(url, 'DELETE FROM payctl_schema_version WHERE version = 5');
    const again = await open(url);
    expect(again.schemaVersion).toBe(5);
    const rows = await sql<{ payout_id: string; zero_key: string }>(url, 'SELECT payout_id, zero_key FROM payctl_ledger_entries ORDER BY payout_id');
    expect(rows).toEqual([
      { payout_id: 'p-old', zero_key: zeroKey(old) },
      { payout_id: 'p-text', zero_key: zeroKey(other) },
    ]);
    expect((await again.find(BASE, 'zero', zeroKey(request('456719', 'p-new')))).map((e) => e.payoutId)).toEqual(['p-old']);
  });

  it('a zero key column changed in the database finds nothing its entry does not pay (the column is a lead, not signed)', async () => {
    const url = await db.freshDatabase('ledger-zero-lead');
    const l = await open(url);
    const a = request('0000456719', 'p-a');
    const b = request('0000999999', 'p-b');
    for (const r of [a, b])
      await l.begin({ baseUrl: BASE, payoutId: r.payoutId, body: payoutBody(r), now: new Date(), origin: { repeatKey: repeatKey(r), zeroKey: zeroKey(r) } });
    await sql(url, "UPDATE payctl_ledger_entries SET zero_key = $1 WHERE payout_id = 'p-b'", [zeroKey(a)]);
    // p-b's entry was journaled with its own zero key: its row does not verify, and is never acted on.
    await expect((await open(url)).find(BASE, 'zero', zeroKey(a))).rejects.toThrow(/payout p-b .*does not verify.*zero_key/);
    await expect((await open(url)).get(BASE, 'p-b')).rejects.toThrow(/does not verify/);
  });

  it('a row migration 5 gave its zero key (its entry has none) whose column is changed or emptied: it does not verify, never taken for another (probe R62, F2)', async () => {
    const url = await db.freshDatabase('ledger-zero-lead-old');
    const l = await open(url);
    const a = request('0000456719', 'p-a');
    const b = request('0000999999', 'p-b');
    for (const r of [a, b]) await l.begin({ baseUrl: BASE, payoutId: r.payoutId, body: payoutBody(r), now: new Date(), origin: { repeatKey: repeatKey(r) } });
    await sql(url, "UPDATE payctl_ledger_entries SET zero_key = $1 WHERE payout_id = 'p-b'", [zeroKey(a)]);
    await expect((await open(url)).find(BASE, 'zero', zeroKey(a))).rejects.toThrow(/payout p-b .*does not verify.*zero_key/);
    await sql(url, "UPDATE payctl_ledger_entries SET zero_key = NULL WHERE payout_id = 'p-a'");
    await expect((await open(url)).get(BASE, 'p-a')).rejects.toThrow(/payout p-a .*does not verify.*zero_key/);
  });
});
