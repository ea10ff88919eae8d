/**
 * `payctl history` and `payctl history reconcile` (unknown outcomes resent with their journaled
 * keys), and the 24-hour rule of sendPayout (an older unknown entry never resent on its own),
 * in process against the in-process sandbox over real HTTP. Journals of many entries are
 * written through the Journal API (or, for the format of the current version, by hand with
 * its HMAC), not by sending each payout.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts } from '../helpers/batch.js';
import { heldFor, loginInProcess } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { since } from '../helpers/e2e.js';
import { Journal, journalBase, type JournalEntry, type Outcome } from '../../src/payouts/journal.js';
import { payoutBody, validatePayout, type PayoutFields } from '../../src/payouts/request.js';
import { NO_ANSWER } from '../../src/payouts/history-lines.js';

const ctx = useSandbox();
let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
  ctx.sb.faults.clear();
  ctx.sb.clearRequests();
});
afterEach(() => cleanup());

const DAY = 24 * 60 * 60 * 1000;

function fields(walletId: string, payoutId: string, over: PayoutFields = {}): PayoutFields {
  return {
    payoutId,
    walletId,
    amount: '12.50',
    currency: 'SLE',
    type: 'bank',
    name: 'Fatmata Sesay',
    provider: 'ecobank',
    account: '0011223344',
    ...over,
  };
}

function createArgs(f: PayoutFields): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    f.walletId!,
    '--amount',
    f.amount!,
    '--currency',
    f.currency!,
    '--type',
    f.type!,
    '--name',
    f.name!,
    '--provider',
    f.provider!,
    '--account',
    f.account!,
    '--payout-id',
    f.payoutId!,
    '--yes',
  ];
}

/** The body payout create sends; `name` (if given) is put in past validation (a hostile journal or service text). */
function bodyOf(f: PayoutFields, name?: string): string {
  const r = validatePayout(f);
  if (!r.ok) throw new Error(r.problems.join('; '));
  return payoutBody(name === undefined ? r.request : { ...r.request, name });
}

/** Journals a payout directly (no HTTP), with an outcome, at the given time. */
async function journaled(
  j: Journal,
  f: PayoutFields,
  at: Date,
  outcome?: Outcome,
  extra: { profile?: string; batch?: { id: string; file: string; row: number }; baseUrl?: string; rawName?: string } = {},
): Promise<JournalEntry> {
  const entry = await j.begin({
    baseUrl: extra.baseUrl ?? ctx.sb.baseUrl,
    payoutId: f.payoutId!,
    body: bodyOf(f, extra.rawName),
    now: at,
    // As payctl journals it: the run's profile (reconcile acts on a payout only with the profile that sent it).
    profile: extra.profile ?? 'default',
    ...(extra.batch ? { origin: { batch: extra.batch } } : {}),
  });
  return outcome ? j.record(entry, outcome) : entry;
}

const accepted = (at: Date, trx: string): Outcome => ({ kind: 'accepted', status: 201, transactionId: trx, fee: '0.13', replayed: false, at: at.toISOString() });
const unknownAt = (at: Date): Outcome => ({ kind: 'unknown', reason: 'the connection was reset', at: at.toISOString() });
const rejectedAt = (at: Date): Outcome => ({ kind: 'rejected', status: 422, code: 'INSUFFICIENT_FUNDS', message: 'Not enough money.', at: at.toISOString() });

/** The journaled request sent straight to the service with its journaled key: a first attempt that got through. */
async function postAs(e: JournalEntry): Promise<{ status: number; body: any }> {
  const res = await fetch(`${ctx.sb.baseUrl}/payout`, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json', Authorization: `Bearer ${ctx.sb.apiKey}`, 'Idempotency-Key': e.idempotencyKey },
    body: e.body,
  });
  return { status: res.status, body: await res.json() };
}

const jsonData = (stdout: string): Array<Record<string, unknown>> => {
  const doc = JSON.parse(stdout) as { data: Array<Record<string, unknown>>; count: number };
  expect(doc.count).toBe(doc.data.length);
  return doc.data;
};

describe('history reconcile (the Done-when scenario)', () => {
  it('three payouts left unknown by a hanging service; one made meanwhile: reconcile resends each with its journaled key, exactly one payout each, exit 0; then nothing is unknown', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '1000.00', 'SLE');
    const ids = [1, 2, 3].map((n) => `rec-${n}-${randomUUID().slice(0, 8)}`);
    sb.faults.add({ path: '/v2/payout', kind: 'hang', times: Infinity });

    // Sent side by side (each on its own TestClock: the back-off is not waited for real; each
    // attempt hangs until the 0.5 s time limit, which the balances read before it, under the
    // same limit, must not run into on a loaded machine).
    const runs = await Promise.all(ids.map((id) => payctl(['--timeout', '0.5', ...createArgs(fields(walletId, id))], { dir, clock: new TestClock() })));
    for (const r of runs) {
      expect(r.stderr).toContain('is unknown: it may or may not have been made');
      expect(r.code, r.stderr).toBe(4);
    }
    expect(payoutPosts(sb).every((p) => p.outcome === 'hang')).toBe(true);

    // The service comes back; the second payout had in fact been made (its journaled key and
    // body, as a first attempt that got through would have been).
    sb.faults.clear();
    const journal = new Journal(dir);
    const made = (await journal.get(sb.baseUrl, ids[1]!))!;
    expect(made.outcome?.kind).toBe('unknown');
    expect(made.profile).toBe('default');
    const oob = await postAs(made);
    expect(oob.status).toBe(201);
    const trx = oob.body.data.transaction_id as string;

    let r = await payctl(['history', '--status', 'unknown', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(
      jsonData(r.stdout)
        .map((l) => l.payout_id)
        .sort(),
    ).toEqual([...ids].sort());

    sb.clearRequests();
    r = await payctl(['history', 'reconcile'], { dir });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines).toContain(
      `accepted  ${ids[1]}  resent with its journaled idempotency key: transaction ${trx}, Pending; the service gave its first answer again: the first attempt had been made`,
    );
    for (const id of ids) {
      expect(heldFor(sb, id)).toHaveLength(1);
      const txn = heldFor(sb, id)[0]!.transaction_id;
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^accepted  ${id}  resent with its journaled idempotency key: transaction ${txn}, Pending`)));
      expect((await journal.get(sb.baseUrl, id))!.outcome).toMatchObject({ kind: 'accepted', transactionId: txn });
    }
    expect(r.stderr).toContain(
      '3 unknown: 3 resent with their journaled idempotency keys, 0 not resent (older than 24 hours); now 3 accepted, 0 refused, 0 still unknown.',
    );
    // Each with the key and body journaled for it.
    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(3);
    for (const p of posts) {
      const e = (await journal.get(sb.baseUrl, (JSON.parse(p.body) as { payoutId: string }).payoutId))!;
      expect(p.headers['idempotency-key']).toBe(e.idempotencyKey);
      expect(p.body).toBe(e.body);
    }

    r = await payctl(['history', '--status', 'unknown', '--json'], { dir });
    expect(jsonData(r.stdout)).toEqual([]);
    // Nothing left: reconcile again has nothing to do.
    r = await payctl(['history', 'reconcile', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ base_url: sb.baseUrl, results: [], counts: { accepted: 0, rejected: 0, unknown: 0, damaged: 0 }, damaged: [] });
  });

  it('a resend that still gets no answer leaves the outcome unknown: exit 4, --json lists it with its error', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '100.00', 'SLE');
    const journal = new Journal(dir);
    const id = `rec-down-${randomUUID().slice(0, 8)}`;
    await journaled(journal, fields(walletId, id), new Date(), unknownAt(new Date()));
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 503, times: Infinity });
    const r = await payctl(['history', 'reconcile', '--json'], { dir, clock: new TestClock() });
    expect(r.code, r.stderr).toBe(4);
    const doc = JSON.parse(r.stdout) as { results: Array<Record<string, unknown>>; counts: Record<string, number> };
    expect(doc.counts).toEqual({ accepted: 0, rejected: 0, unknown: 1, damaged: 0 });
    expect(doc.results[0]).toMatchObject({ payout_id: id, action: 'resent', outcome: 'unknown' });
    expect(doc.results[0]!.error).toEqual(expect.stringMatching(/503/));
    expect((await journal.get(sb.baseUrl, id))!.outcome?.kind).toBe('unknown');
    expect(r.stderr).toContain('Run payctl history reconcile again when the service can be reached.');
    expect(heldFor(sb, id)).toHaveLength(0);
  });

  it('an entry with no answer recorded (the run was killed after journaling it) is resent too: made before or not, one payout', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '100.00', 'SLE');
    const journal = new Journal(dir);
    const sent = `rec-killed-sent-${randomUUID().slice(0, 8)}`;
    const never = `rec-killed-never-${randomUUID().slice(0, 8)}`;
    const entry = await journaled(journal, fields(walletId, sent), new Date());
    await journaled(journal, fields(walletId, never), new Date());
    // The killed run's request had reached the service: same body, same key.
    const made = await postAs(entry);
    expect(made.status).toBe(201);
    const r = await payctl(['history', 'reconcile', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { results: Array<Record<string, unknown>>; counts: Record<string, number> };
    expect(doc.counts).toEqual({ accepted: 2, rejected: 0, unknown: 0, damaged: 0 });
    expect((await journal.get(sb.baseUrl, sent))!.outcome).toMatchObject({ kind: 'accepted', transactionId: made.body.data.transaction_id });
    expect(heldFor(sb, sent)).toHaveLength(1);
    expect(heldFor(sb, never)).toHaveLength(1);
  });

  it('only entries of this base URL are resent; those of another are said, not touched', async () => {
    const journal = new Journal(dir);
    const walletId = freshWallet(ctx.sb, '100.00', 'SLE');
    await journaled(journal, fields(walletId, 'elsewhere-1'), new Date(), unknownAt(new Date()), { baseUrl: 'https://api.example.com/v2' });
    await journaled(journal, fields(walletId, 'elsewhere-2'), new Date(), unknownAt(new Date()), { baseUrl: 'https://API.example.com/v2/' });
    const r = await payctl(['history', 'reconcile'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `No unknown outcomes in the journal for ${ctx.sb.baseUrl}.\n` +
        'Note: 2 payouts of unknown outcome are journaled for https://api.example.com/v2, another base URL: reconcile them with a profile of that base URL.\n',
    );
    expect(since(ctx.sb, 0).filter((q) => q.path.startsWith('/v2/payout'))).toEqual([]);
    expect((await journal.get('https://api.example.com/v2', 'elsewhere-1'))!.outcome?.kind).toBe('unknown');
  });
});

describe('history lists the journal', () => {
  /** Five entries an hour apart from T0, with every outcome, two profiles and a batch. */
  async function ledger(journal: Journal, walletId: string): Promise<Date> {
    const t0 = new Date('2026-11-20T09:00:00.000Z');
    const at = (h: number) => new Date(t0.getTime() + h * 3_600_000);
    await journaled(journal, fields(walletId, 'h-accepted'), at(0), accepted(at(0), 'TRX-1'), { profile: 'default' });
    await journaled(journal, fields(walletId, 'h-rejected', { amount: '2000' }), at(1), rejectedAt(at(1)), { profile: 'staging' });
    await journaled(journal, fields(walletId, 'h-unknown', { name: '=HYPERLINK("http://x","y")' }), at(2), unknownAt(at(2)), {
      profile: 'default',
      batch: { id: 'nov-b1', file: '/tmp/rows.csv', row: 2 },
    });
    await journaled(journal, fields(walletId, 'h-notsent'), at(3), undefined, {
      rawName: 'Esc\u001b[31mRed\u001b]0;title\u0007',
      profile: 'staging',
      batch: { id: 'nov-b1', file: '/tmp/rows.csv', row: 3 },
    });
    await journaled(journal, fields(walletId, 'h-notmade'), at(24), { kind: 'not-made', at: at(25).toISOString() }, { profile: 'default' });
    return t0;
  }

  it('newest first, as a table with every column; service and journal text sanitized', async () => {
    const journal = new Journal(dir);
    await ledger(journal, 'wal_h');
    const r = await payctl(['history'], { dir });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TIME \(UTC\)\s+PROFILE\s+HOST\s+PAYOUT ID\s+BATCH\s+AMOUNT\s+RECIPIENT\s+OUTCOME\s+TRANSACTION$/);
    expect(lines.slice(1).map((l) => /h-[a-z]+/.exec(l)?.[0])).toEqual(['h-notmade', 'h-notsent', 'h-unknown', 'h-rejected', 'h-accepted']);
    const host = new URL(ctx.sb.baseUrl).host;
    expect(lines[5]).toMatch(
      new RegExp(
        `^2026-11-20 09:00:00\\s+default\\s+${host.replace(/\./g, '\\.')}\\s+h-accepted\\s+12\\.50 SLE\\s+Fatmata Sesay \\(ecobank 0011223344\\)\\s+accepted\\s+TRX-1$`,
      ),
    );
    expect(lines[4]).toContain('2,000.00 SLE');
    expect(lines[2]).toMatch(/staging .*h-notsent\s+nov-b1 .*EscRed .*unknown/);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(r.stderr).toContain('5 journaled payouts.');
  });

  it('--since, --until, --status and --batch-id filter; a date means that whole UTC day', async () => {
    const journal = new Journal(dir);
    await ledger(journal, 'wal_h');
    const ids = async (...args: string[]) => {
      const r = await payctl(['history', '--json', ...args], { dir });
      expect(r.code, r.stderr).toBe(0);
      return jsonData(r.stdout).map((l) => l.payout_id);
    };
    expect(await ids('--since', '2026-11-20T10:00:00Z')).toEqual(['h-notmade', 'h-notsent', 'h-unknown', 'h-rejected']);
    expect(await ids('--until', '2026-11-20T10:00:00Z')).toEqual(['h-rejected', 'h-accepted']);
    expect(await ids('--since', '2026-11-20', '--until', '2026-11-20')).toEqual(['h-notsent', 'h-unknown', 'h-rejected', 'h-accepted']);
    expect(await ids('--since', '2026-11-21')).toEqual(['h-notmade']);
    expect(await ids('--status', 'rejected')).toEqual(['h-rejected']);
    // No answer recorded is unknown: the request may have left before the run ended.
    expect(await ids('--status', 'unknown')).toEqual(['h-notsent', 'h-unknown']);
    expect((await payctl(['history', '--status', 'not-sent'], { dir })).code).toBe(2);
    expect(await ids('--status', 'not made')).toEqual(['h-notmade']);
    expect(await ids('--batch-id', 'nov-b1')).toEqual(['h-notsent', 'h-unknown']);
    expect(await ids('--batch-id', 'nov-b1', '--status', 'unknown')).toEqual(['h-notsent', 'h-unknown']);
    expect(await ids('--batch-id', 'none')).toEqual([]);
    // Another batch whose id differs only in separators (as pay-1-12 and pay-11-2 do): each lists its own.
    const t = new Date('2026-11-19T09:00:00.000Z');
    await journaled(journal, fields('wal_h', 'h-other'), t, accepted(t, 'TRX-9'), { profile: 'default', batch: { id: 'nov-b-1', file: '/tmp/other.csv', row: 2 } });
    expect(await ids('--batch-id', 'nov-b1')).toEqual(['h-notsent', 'h-unknown']);
    expect(await ids('--batch-id', 'nov-b-1')).toEqual(['h-other']);
    // Typed in other letter case: nothing of another batch, and the batches it may mean named, each with its command.
    const r = await payctl(['history', '--batch-id', 'NOV-B1'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'No journaled payouts of batch "NOV-B1"; batches whose id differs from it only in letter case or _ . : -: "nov-b1", "nov-b-1". See each with: payctl history --batch-id nov-b1; payctl history --batch-id nov-b-1',
    );
  });

  it('every profile by default; an explicit --profile (or PAYCTL_PROFILE) keeps to that one', async () => {
    const journal = new Journal(dir);
    await ledger(journal, 'wal_h');
    const ids = async (args: string[], env?: Record<string, string>) => {
      const r = await payctl(['history', '--json', ...args], { dir, ...(env ? { env } : {}) });
      expect(r.code, r.stderr).toBe(0);
      return jsonData(r.stdout).map((l) => l.payout_id);
    };
    expect(await ids([])).toHaveLength(5);
    expect(await ids(['--profile', 'staging'])).toEqual(['h-notsent', 'h-rejected']);
    expect(await ids(['-p', 'default'])).toEqual(['h-notmade', 'h-unknown', 'h-accepted']);
    expect(await ids([], { PAYCTL_PROFILE: 'staging' })).toEqual(['h-notsent', 'h-rejected']);
  });

  it('bad filters are listed together (exit 2)', async () => {
    const r = await payctl(['history', '--since', '2026-02-30', '--until', 'yesterday', '--status', 'lost'], { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--since: "2026-02-30" is not a real date');
    expect(r.stderr).toContain('--until: "yesterday" is not a date');
    expect(r.stderr).toContain('--status: "lost" is not an outcome');
    expect(r.stdout).toBe('');
  });

  it('--json: one document, every field, the amount an exact JSON number', async () => {
    const journal = new Journal(dir);
    await ledger(journal, 'wal_h');
    const r = await payctl(['history', '--json', '--status', 'unknown'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"amount":12.50,');
    const lines = jsonData(r.stdout);
    // No answer recorded is unknown too (the request may have left), and says why.
    expect(lines.map((l) => [l.payout_id, l.outcome])).toEqual([
      ['h-notsent', 'unknown'],
      ['h-unknown', 'unknown'],
    ]);
    expect(lines[0]!.detail).toBe(NO_ANSWER);
    const line = lines[1];
    expect(line).toEqual({
      time: '2026-11-20T11:00:00.000Z',
      profile: 'default',
      base_url: ctx.sb.baseUrl,
      payout_id: 'h-unknown',
      batch_id: 'nov-b1',
      batch_row: 2,
      amount: 12.5,
      currency: 'SLE',
      recipient: { name: '=HYPERLINK("http://x","y")', provider: 'ecobank', account_number: '0011223344' },
      outcome: 'unknown',
      transaction_id: null,
      payout_status: null,
      outcome_at: '2026-11-20T11:00:00.000Z',
      detail: 'the connection was reset',
      idempotency_key: (await journal.get(ctx.sb.baseUrl, 'h-unknown'))!.idempotencyKey,
    });
  });

  it('--csv: a header, newest first, formula cells neutralized, escapes removed', async () => {
    const journal = new Journal(dir);
    await ledger(journal, 'wal_h');
    const r = await payctl(['history', '--csv'], { dir });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\r\n').filter(Boolean);
    expect(rows[0]).toBe(
      'time,profile,base_url,payout_id,batch_id,batch_row,amount,currency,recipient_name,provider,account_number,outcome,transaction_id,payout_status,outcome_at,detail',
    );
    expect(rows).toHaveLength(6);
    expect(rows.slice(1).map((l) => l.split(',')[3])).toEqual(['h-notmade', 'h-notsent', 'h-unknown', 'h-rejected', 'h-accepted']);
    expect(rows[3]).toContain(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(rows[2]).toContain(',EscRed,');
    expect(rows[4]).toContain(',2000.00,SLE,');
    expect(rows[4]).toContain(',rejected,,,2026-11-20T10:00:00.000Z,INSUFFICIENT_FUNDS: Not enough money.');
    expect(r.stdout).not.toContain('\u001b');
  });

  it('--csv with --json is refused', async () => {
    const r = await payctl(['history', '--csv', '--json'], { dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--csv and --json cannot be used together');
  });

  it('a journal written by the current version (entries without a profile) still verifies and lists, with a blank profile', async () => {
    // Written as payctl wrote them before this change: the key file, then each entry with its HMAC over the entry without `mac`.
    const key = randomBytes(32);
    writeFileSync(join(dir, 'journal.key'), key.toString('hex') + '\n', { mode: 0o600 });
    mkdirSync(join(dir, 'journal'), { mode: 0o700 });
    const base = journalBase(ctx.sb.baseUrl);
    const write = (e: JournalEntry) => {
      const mac = createHmac('sha256', key).update(JSON.stringify(e)).digest('hex');
      const name = createHash('sha256').update(`${base}\n${e.payoutId}`).digest('hex').slice(0, 32);
      writeFileSync(join(dir, 'journal', `${name}.json`), JSON.stringify({ ...e, mac }, null, 2) + '\n', { mode: 0o600 });
    };
    const f1 = fields('wal_old', 'old-1');
    const f2 = fields('wal_old', 'old-2', { amount: '7' });
    write({
      version: 2,
      payoutId: 'old-1',
      baseUrl: base,
      idempotencyKey: randomUUID(),
      body: bodyOf(f1),
      createdAt: '2026-10-01T08:00:00.000Z',
      outcome: accepted(new Date('2026-10-01T08:00:01.000Z'), 'TRX-OLD'),
    });
    write({
      version: 2,
      payoutId: 'old-2',
      baseUrl: base,
      idempotencyKey: randomUUID(),
      body: bodyOf(f2),
      createdAt: '2026-10-02T08:00:00.000Z',
      batch: { id: 'oct', file: '/tmp/oct.csv', row: 2 },
      outcome: unknownAt(new Date('2026-10-02T08:00:05.000Z')),
    });
    // And one written by this version, next to them.
    await journaled(new Journal(dir), fields('wal_new', 'new-1'), new Date('2026-10-03T08:00:00.000Z'), undefined, { profile: 'default' });

    const r = await payctl(['history'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('passed over');
    const lines = r.stdout.trimEnd().split('\n').slice(1);
    expect(lines.map((l) => /(old|new)-\d/.exec(l)?.[0])).toEqual(['new-1', 'old-2', 'old-1']);
    // The profile column of the old entries is blank.
    expect(lines[1]).toMatch(/^2026-10-02 08:00:00\s{3,}\S+:\d+\s+old-2\s+oct\s+7\.00 SLE/);
    expect(lines[0]).toMatch(/^2026-10-03 08:00:00\s+default\s+/);
    const j = await payctl(['history', '--json'], { dir });
    expect(jsonData(j.stdout).map((l) => l.profile)).toEqual(['default', null, null]);

    // An edited old entry still fails the check: passed over, and said.
    const name = createHash('sha256').update(`${base}\nold-1`).digest('hex').slice(0, 32);
    const file = join(dir, 'journal', `${name}.json`);
    const tampered = JSON.parse(
      JSON.stringify({ version: 2, payoutId: 'old-1', baseUrl: base, idempotencyKey: randomUUID(), body: bodyOf(f1), createdAt: '2026-10-01T08:00:00.000Z' }),
    ) as JournalEntry;
    writeFileSync(file, JSON.stringify({ ...tampered, profile: 'default', mac: createHmac('sha256', key).update(JSON.stringify(tampered)).digest('hex') }));
    // The rest is listed, but the list is incomplete: exit 2 (table, --csv, --json), as a shared ledger's changed row.
    const t = await payctl(['history', '--json'], { dir });
    expect(t.code).toBe(2);
    expect(jsonData(t.stdout).map((l) => l.payout_id)).toEqual(['new-1', 'old-2']);
    expect(t.stderr).toContain('1 journal entry was passed over: it could not be read or verified, so the list is incomplete (exit 2).');
    for (const format of [[], ['--csv']]) {
      const o = await payctl(['history', ...format], { dir });
      expect(o.code, o.stderr).toBe(2);
      expect(o.stdout).toContain('old-2');
      expect(o.stdout).not.toContain('old-1');
    }
  });

  it('a journal of 1,000 entries lists every one, newest first', async () => {
    const journal = new Journal(dir);
    const t0 = Date.parse('2026-11-01T00:00:00.000Z');
    // Written in shuffled order, 50 at a time.
    const order = Array.from({ length: 1000 }, (_, i) => i).sort(() => Math.random() - 0.5);
    for (let k = 0; k < order.length; k += 50) {
      await Promise.all(
        order
          .slice(k, k + 50)
          .map((i) =>
            journaled(
              journal,
              fields('wal_big', `big-${String(i).padStart(4, '0')}`),
              new Date(t0 + i * 60_000),
              i % 7 === 0 ? unknownAt(new Date(t0)) : accepted(new Date(t0), `TRX-${i}`),
            ),
          ),
      );
    }
    const r = await payctl(['history', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    const data = jsonData(r.stdout);
    expect(data).toHaveLength(1000);
    expect(data.map((l) => l.payout_id)).toEqual(Array.from({ length: 1000 }, (_, i) => `big-${String(999 - i).padStart(4, '0')}`));
    const table = await payctl(['history', '--status', 'unknown'], { dir });
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(1 + 143);
    expect(table.stderr).toContain('143 journaled payouts.');
  }, 10_000);
});

describe('history without the journal key', () => {
  it('its key lost while signed entries are there: the refusal payout create gives (exit 2, stdout empty), whose mv works as printed', async () => {
    const journal = new Journal(dir);
    await journaled(journal, fields('wal_key', 'k-1'), new Date('2026-11-20T09:00:00.000Z'), accepted(new Date('2026-11-20T09:00:00.000Z'), 'TRX-K1'));
    rmSync(join(dir, 'journal.key'));
    const folder = join(dir, 'journal');
    for (const format of [[], ['--json'], ['--csv']]) {
      const r = await payctl(['history', ...format], { dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain('No journaled payouts match');
      if (format[0] === '--json') continue;
      expect(r.stderr).toContain(`The journal key ${join(dir, 'journal.key')} is missing, but the payout journal ${folder} holds 1 entry signed with it`);
    }
    const create = await payctl(createArgs(fields(freshWallet(ctx.sb, '100.00'), `k-${randomUUID()}`)), { dir });
    expect(create.code).toBe(2);
    const r = await payctl(['history'], { dir });
    // The same words as payout create, the same way out.
    expect(r.stderr).toBe(create.stderr);
    const mv = r.stderr.split('\n').find((l) => l.startsWith('  mv '))!;
    execFileSync('sh', ['-c', mv]);
    expect(existsSync(join(dir, 'journal.old'))).toBe(true);
    const after = await payctl(['history'], { dir });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toContain('No journaled payouts match.');
  });
});

describe('the 24-hour rule: an entry older than a day is never resent on its own', () => {
  it('accepted earlier: read back by its journaled transaction id, reported, not sent again (zero POSTs)', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '100.00', 'SLE');
    const clock = new TestClock();
    const journal = new Journal(dir);
    const f = fields(walletId, `aged-${randomUUID().slice(0, 8)}`);
    const entry = await journaled(journal, f, clock.now());
    const oob = await postAs(entry);
    expect(oob.status).toBe(201);
    const trx = oob.body.data.transaction_id as string;
    await journal.record(entry, accepted(clock.now(), trx));
    clock.advance(DAY + 60_000);

    sb.clearRequests();
    const r = await payctl(createArgs(f), { dir, clock });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Already submitted: payout ${f.payoutId} was accepted earlier`);
    expect(payoutPosts(sb)).toEqual([]);
    expect(since(sb, 0).map((q) => q.line)).toContain(`GET /v2/payout/${trx} 200`);
    expect(heldFor(sb, f.payoutId!)).toHaveLength(1);
    expect((await journal.get(sb.baseUrl, f.payoutId!))!.outcome).toMatchObject({ kind: 'accepted', lookedUp: true, transactionId: trx });
  });

  it('unknown and made: not resent (exit 4, zero POSTs), the list searched and the payout named as a candidate', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '100.00', 'SLE');
    const clock = new TestClock();
    const journal = new Journal(dir);
    const f = fields(walletId, `aged-${randomUUID().slice(0, 8)}`, { account: String(Date.now()).slice(-10) });
    const entry = await journaled(journal, f, clock.now(), unknownAt(clock.now()));
    expect((await postAs(entry)).status).toBe(201);
    clock.advance(DAY + 60_000);

    sb.clearRequests();
    const r = await payctl(createArgs(f), { dir, clock });
    expect(r.code, r.stderr).toBe(4);
    expect(payoutPosts(sb)).toEqual([]);
    expect(r.stderr).toContain('so payctl does not resend it on its own (1 record of the payout list could be it');
    expect(heldFor(sb, f.payoutId!)).toHaveLength(1);
    expect((await journal.get(sb.baseUrl, f.payoutId!))!.outcome?.kind).toBe('unknown');
  });

  it('younger than a day: resent at once, with its journaled key, without a search', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '100.00', 'SLE');
    const clock = new TestClock();
    const f = fields(walletId, `young-${randomUUID().slice(0, 8)}`);
    const entry = await journaled(new Journal(dir), f, clock.now(), unknownAt(clock.now()));
    clock.advance(DAY - 60_000);
    sb.clearRequests();
    const r = await payctl(createArgs(f), { dir, clock });
    expect(r.code, r.stderr).toBe(0);
    expect(since(sb, 0).filter((q) => q.path === '/v2/payout/list')).toEqual([]);
    expect(payoutPosts(sb).map((p) => p.headers['idempotency-key'])).toEqual([entry.idempotencyKey]);
  });

  it('a batch rerun goes through the same rule: aged unknown rows are not sent; reconcile shows the one that was made', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '100.00', 'SLE');
    const clock = new TestClock();
    const file = join(dir, 'rows.csv');
    const tag = randomUUID().slice(0, 8);
    const acct = String(Date.now()).slice(-9);
    writeFileSync(
      file,
      'payout_id,wallet_id,amount,currency,type,name,provider,account_number\n' +
        `b-${tag}-1,${walletId},3.00,SLE,bank,Ama Bangura,ecobank,1${acct}\n` +
        `b-${tag}-2,${walletId},4.00,SLE,bank,Ama Bangura,ecobank,2${acct}\n`,
    );
    // The first run hangs on both rows: unknown.
    sb.faults.add({ path: '/v2/payout', kind: 'hang', times: Infinity });
    const first = await payctl(['--timeout', '0.1', 'payout', 'batch', file, '--batch-id', 'b1', '--yes'], { dir, clock });
    expect(first.code, first.stderr).toBe(4);
    sb.faults.clear();
    const journal = new Journal(dir);
    const row1 = (await journal.get(sb.baseUrl, `b-${tag}-1`))!;
    expect(row1.outcome?.kind).toBe('unknown');
    expect(row1.batch?.id).toBe('b1');
    const oob = await postAs(row1);
    expect(oob.status).toBe(201);
    clock.advance(DAY + 60_000);

    sb.clearRequests();
    const again = await payctl(['payout', 'batch', file, '--batch-id', 'b1', '--yes'], { dir, clock });
    expect(again.code, again.stderr).toBe(4);
    expect(payoutPosts(sb)).toEqual([]);
    expect(heldFor(sb, `b-${tag}-2`)).toHaveLength(0);

    const rec = await payctl(['history', 'reconcile', '--json'], { dir, clock });
    expect(rec.code).toBe(4);
    const results = JSON.parse(rec.stdout).results as Array<{ payout_id: string; candidates: Array<{ transaction_id: string }> }>;
    expect(results.find((x) => x.payout_id === `b-${tag}-1`)!.candidates.map((c) => c.transaction_id)).toEqual([oob.body.data.transaction_id]);
    expect(results.find((x) => x.payout_id === `b-${tag}-2`)!.candidates).toEqual([]);
    expect(payoutPosts(sb)).toEqual([]);
  });
});
