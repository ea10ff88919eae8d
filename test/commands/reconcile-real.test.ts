/**
 * `payctl history reconcile` against the documented service (the in-process sandbox over real
 * HTTP), which has no look-up by payout id: a lost create answer is resolved by resending the
 * same body with the same Idempotency-Key (one payout at the service either way); an entry
 * whose first attempt is more than 24 hours old (a TestClock a day ahead) is never resent on
 * its own: its candidates from the payout list are shown with the two commands to choose from,
 * and both commands, run as printed, do what they say (`--made-by`, `--resend` with a
 * confirmation). A rerun of `payout create` holds such an entry too (exit 4, nothing sent).
 * An answer that resolves an unknown outcome with another amount, or with a transaction id the
 * journal has for another payout, leaves it unknown (through a rewriting proxy), said as answered
 * about another payout, with the payout list to look for its record in.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import type { Run } from '../helpers/e2e.js';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts } from '../helpers/batch.js';
import { heldFor, loginInProcess } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { shellSplit } from '../helpers/pty.js';
import { printed } from '../helpers/printed.js';
import { Journal, type JournalEntry } from '../../src/payouts/journal.js';
import { writeLoggedIn, writeProfile } from '../helpers/e2e.js';
import { configDir as hostileConfigDir, sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';

const ctx = useSandbox();
useHostileCleanups();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
});

afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

const DAY_AND_AN_HOUR = 25 * 60 * 60 * 1000;
const run = (args: string[], opts: { clock?: TestClock; prompts?: Array<{ confirm: RegExp; answer: boolean }> } = {}): Promise<Run> =>
  payctl(args, {
    dir,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.prompts ? { prompts: opts.prompts } : {}),
  });

/** A bank payout with its own account number (so other tests' payouts never match it). */
function createArgs(walletId: string, payoutId: string, account: string, amount = '250.75'): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    walletId,
    '--amount',
    amount,
    '--currency',
    'SLE',
    '--type',
    'bank',
    '--name',
    'Fatmata Sesay',
    '--provider',
    'ecobank',
    '--account',
    account,
    '--note',
    'November rent',
    '--payout-id',
    payoutId,
    '--yes',
  ];
}

/** A fresh 10-digit account number. */
const account = () => String(Math.floor(1e9 + Math.random() * 8e9));

/** `payout create` whose every attempt loses its answer: exit 4, the journal entry unknown. */
async function lostAnswer(walletId: string, payoutId: string, acct: string, fault: 'reset-after-commit' | 'reset-before-commit', amount?: string): Promise<void> {
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: fault, times: 10 });
  const r = await run(createArgs(walletId, payoutId, acct, amount), { clock: new TestClock() });
  expect(r.code, r.stderr).toBe(4);
  ctx.sb.faults.clear();
  expect((await new Journal(dir).get(ctx.sb.baseUrl, payoutId))?.outcome?.kind).toBe('unknown');
}

const journaled = async (payoutId: string) => (await new Journal(dir).get(ctx.sb.baseUrl, payoutId))?.outcome;

describe('under 24 hours: resent with the same key and body, one payout either way', () => {
  it('the answer was lost after the commit: reconcile gets the first answer again, records its transaction, one payout at the service', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    await lostAnswer(wallet, id, account(), 'reset-after-commit');
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
    const from = ctx.sb.requests().length;

    const r = await run(['history', 'reconcile']);
    expect(r.code, r.stderr).toBe(0);
    const held = heldFor(ctx.sb, id);
    expect(held).toHaveLength(1);
    const txn = held[0]!.transaction_id;
    expect(r.stdout).toBe(
      `accepted  ${id}  resent with its journaled idempotency key: transaction ${txn}, Pending; the service gave its first answer again: the first attempt had been made\n`,
    );
    expect(r.stderr).toContain(
      '1 unknown: 1 resent with their journaled idempotency keys, 0 not resent (older than 24 hours); now 1 accepted, 0 refused, 0 still unknown.',
    );
    expect(r.stderr).not.toMatch(/sends nothing/);
    // The same key and the same body as the lost attempts.
    const posts = payoutPosts(ctx.sb);
    const resent = payoutPosts(ctx.sb, from);
    expect(resent).toHaveLength(1);
    expect(resent[0]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect(resent[0]!.body).toBe(posts[0]!.body);
    expect(await journaled(id)).toMatchObject({ kind: 'accepted', transactionId: txn });

    // Now `payout get <payout id>` finds it through the journal; nothing is unknown any more.
    const got = await run(['payout', 'get', id]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(new RegExp(`^Transaction\\s+${txn}$`, 'm'));
    expect(got.stdout).toMatch(new RegExp(`^Payout ID\\s+${id}$`, 'm'));
    const again = await run(['history', 'reconcile']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('No unknown outcomes in the journal');
  });

  it('the request never reached the service: reconcile makes it now, once; --json says what it did', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    await lostAnswer(wallet, id, account(), 'reset-before-commit');
    expect(heldFor(ctx.sb, id)).toHaveLength(0);

    const r = await run(['history', 'reconcile', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const held = heldFor(ctx.sb, id);
    expect(held).toHaveLength(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.results).toEqual([
      expect.objectContaining({
        payout_id: id,
        action: 'resent',
        outcome: 'accepted',
        transaction_id: held[0]!.transaction_id,
        replayed: false,
        candidates: null,
        commands: null,
      }),
    ]);
    expect(doc.counts).toEqual({ accepted: 1, rejected: 0, unknown: 0, damaged: 0 });
  });

  it('the resend is refused (the wallet is short now): recorded refused, exit 0, no payout', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    // An amount no other payout of the sandbox has: "not made" is decided on amount and currency alone.
    await lostAnswer(wallet, id, account(), 'reset-before-commit', '250.19');
    ctx.sb.setWallet({ wallet_id: wallet, wallet_name: 'Short', currency: 'SLE', balance: '1.00' });
    const r = await run(['history', 'reconcile', '--payout-id', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^refused   ${id}  resent with its journaled idempotency key: \\S+.*; no payout was made$`, 'm'));
    expect((await journaled(id))?.kind).toBe('rejected');
    expect(heldFor(ctx.sb, id)).toHaveLength(0);
  });

  it('a batch row with no attempt recorded, run with --report and --concurrency: the resume printed keeps both, and run as printed it pays the row once into that report', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const tag = randomUUID().slice(0, 8);
    const file = join(dir, 'kept.csv');
    const report = join(dir, 'reports', 'kept report.csv');
    mkdirSync(join(dir, 'reports'));
    writeFileSync(file, 'wallet_id,amount,currency,type,name,provider,account_number,note\n' + `${wallet},22.00,SLE,bank,Alie Turay,ecobank,${account()},${tag}\n`);
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const sent = await run(['payout', 'batch', file, '--batch-id', tag, '--report', report, '--concurrency', '3', '--yes'], { clock: new TestClock() });
    expect(sent.code, sent.stderr).toBe(4);
    ctx.sb.faults.clear();
    const journal = new Journal(dir);
    const entry = await entryOfBatch(journal, tag);
    await journal.put({ ...entry!, outcome: undefined });

    const r = await run(['history', 'reconcile']);
    const resume = r.stderr.split('\n').find((l) => l.trim().startsWith('payctl payout batch'))!;
    expect(resume, r.stderr).toBeDefined();
    const argv = shellSplit(resume.trim());
    expect(argv).toEqual(['payctl', 'payout', 'batch', file, '--batch-id', tag, '--concurrency', '3', '--report', report]);

    const from = ctx.sb.requests().length;
    const resumed = await run([...argv.slice(1), '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    // The same key again: the payout made by the first run, not a second one.
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
    expect(ctx.sb.payouts().filter((p) => p.payout_id === entry!.payoutId)).toHaveLength(1);
    expect(readFileSync(report, 'utf8')).toMatch(/,(accepted|replayed),/);
    expect(existsSync(join(dir, 'kept.report.csv'))).toBe(false);
  });
});

describe('over 24 hours: never resent without a person choosing', () => {
  it('made, answer lost, 25 hours later: not resent, its candidate listed; the printed --made-by command records it', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const acct = account();
    await lostAnswer(wallet, id, acct, 'reset-after-commit');
    // Another payout to the same account for another amount: not a candidate.
    const other = await run(createArgs(wallet, randomUUID(), acct, '99.00'));
    expect(other.code, other.stderr).toBe(0);
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    const from = ctx.sb.requests().length;

    const later = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    const r = await run(['history', 'reconcile'], { clock: later });
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    expect(
      ctx.sb
        .requests()
        .slice(from)
        .every((q) => q.method === 'GET' && q.path === '/v2/payout/list'),
    ).toBe(true);
    expect(r.stdout).toContain(`unknown   ${id}  not resent: first sent 25 h ago`);
    expect(r.stdout).toContain('The service may have forgotten its idempotency key after 24 hours, so payctl does not resend it on its own.');
    expect(r.stdout).toMatch(
      /1 payout at the service could be it \(same account, amount and currency, same note, created since a day before the first attempt; \d+ records? of the payout list read\):/,
    );
    expect(r.stdout).toMatch(new RegExp(`^ +${txn}  \\S+ \\S+ UTC  250\\.75 SLE  Fatmata Sesay, ${acct}  Pending  "November rent"$`, 'm'));
    expect(r.stdout).not.toContain('99.00 SLE');
    expect((await journaled(id))?.kind).toBe('unknown');

    const madeBy = printed(r.stdout, 'history reconcile --payout-id');
    expect(madeBy).toEqual(['history', 'reconcile', '--payout-id', id, '--made-by', txn]);
    const m = await run(madeBy, { clock: later });
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toBe(`accepted  ${id}  recorded as made by transaction ${txn} (Pending)\n`);
    expect(await journaled(id)).toMatchObject({ kind: 'accepted', transactionId: txn, lookedUp: true });
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
  });

  it('a candidate whose account, note and creation time the service writes oddly is listed, marked; one it cannot check is not offered as made; the records left out are counted', async () => {
    const proxy = await sandboxProxy(ctx.sb);
    writeProfile(dir, { ...(await writeLoggedIn(ctx.sb, dir)), baseUrl: proxy.baseUrl });
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const acct = account();
    // Its answer lost (lostAnswer, through the proxy: the journal has it under the proxy's URL).
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: 10 });
    expect((await run(createArgs(wallet, id, acct), { clock: new TestClock() })).code).toBe(4);
    ctx.sb.faults.clear();
    // Two more to the same account: another amount, and another note.
    expect((await run(createArgs(wallet, randomUUID(), acct, '99.00'))).code).toBe(0);
    expect((await run([...createArgs(wallet, randomUUID(), acct), '--note', 'December rent'])).code).toBe(0);
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    const spaced = `${acct.slice(0, 3)} ${acct.slice(3, 6)}-${acct.slice(6)}`;
    const rewrite = (createdAt: string | undefined) =>
      proxy.rewriteLists((raw) => {
        const doc = JSON.parse(raw) as { data: { data: Array<Record<string, unknown> & { recipient: Record<string, unknown> }> } };
        for (const r of doc.data.data)
          if (r.transaction_id === txn) {
            r.recipient.account_number = spaced;
            r.description = '  november   RENT ';
            if (createdAt !== undefined) r.created_at = createdAt;
          }
        return JSON.stringify(doc);
      });
    rewrite('28/11/2026 10:15');

    const later = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    const r = await run(['history', 'reconcile', '--payout-id', id], { clock: later });
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stdout).toMatch(/1 payout at the service could be it /);
    expect(r.stdout).toMatch(new RegExp(`^ +${txn}  28/11/2026 10:15  250\\.75 SLE  Fatmata Sesay, ${spaced}  Pending  "  november   RENT "$`, 'm'));
    expect(r.stdout).toContain(`    (could be it, though it differs: account written "${spaced}"; note written "  november   RENT ")`);
    // A creation time payctl cannot read could be last month's payout of the same amount: listed, never offered as made.
    expect(r.stdout).toContain(`    (cannot be checked, so not offered as made: creation time not readable: "28/11/2026 10:15")`);
    expect(r.stdout).not.toContain('--made-by');
    // Typed anyway, with the look-up's creation time unreadable too: refused, the entry left unknown.
    proxy.rewriteLookups((raw) => raw.replace(/"created_at":"[^"]*"/, '"created_at":"28/11/2026 10:15"'));
    const typed = await run(['history', 'reconcile', '--payout-id', id, '--made-by', txn], { clock: later });
    proxy.rewriteLookups((raw) => raw);
    expect(typed.code, typed.stderr).toBe(2);
    expect(typed.stderr).toContain('creation time not readable: "28/11/2026 10:15": payctl cannot check that it is this payout');
    expect((await new Journal(dir).get(proxy.baseUrl, id))?.outcome?.kind).toBe('unknown');
    // The other two payouts to the account among them, each for its reason (the sandbox holds other tests' payouts too).
    const left = /^ +\d+ records? read left out as not this payout: (.*)\.$/m.exec(r.stdout);
    expect(left, r.stdout).not.toBeNull();
    expect(left![1]).toMatch(/^\d+ another currency or amount, (\d+ another account, )?1 another note$/);

    const j = await run(['history', 'reconcile', '--payout-id', id, '--json'], { clock: later });
    const result = (JSON.parse(j.stdout) as { results: Array<{ candidates: Array<{ transaction_id: string; marks: string[] }>; left_out: Record<string, number> }> })
      .results[0]!;
    const candidates = result.candidates as Array<{ transaction_id: string; marks: string[]; unchecked: string[] }>;
    expect(candidates.map((c) => [c.transaction_id, c.marks.length, c.unchecked.length])).toEqual([[txn, 2, 1]]);
    expect(result.left_out.note).toBe(1);

    // Its creation time readable: offered, and the printed --made-by command, run as printed, records it.
    rewrite(undefined);
    const readable = await run(['history', 'reconcile', '--payout-id', id], { clock: later });
    const madeBy = printed(readable.stdout, 'history reconcile --payout-id');
    expect(madeBy).toEqual(['history', 'reconcile', '--payout-id', id, '--made-by', txn]);
    // Its look-up writes the name otherwise: recorded (a name is written many ways), and said.
    proxy.rewriteLookups((raw) => raw.replace(/"name":"Fatmata Sesay"/, '"name":"SESAY, Fatmata"'));
    const m = await run(madeBy, { clock: later });
    expect(m.code, m.stderr).toBe(0);
    // A name is no form of the one sent: said apart, never as "in form or time only".
    expect(m.stderr).toContain(
      `Transaction ${txn}'s record differs from what was sent for payout ${id}: name "SESAY, Fatmata", sent "Fatmata Sesay". Not held against it`,
    );
    expect(m.stderr).not.toContain('form or time only');
    expect((await new Journal(dir).get(proxy.baseUrl, id))?.outcome).toMatchObject({ kind: 'accepted', transactionId: txn, lookedUp: true });
  });

  it("an accepted payout's command run again 25 hours later: not resent, the card shows its status and payout id as payout get does (before: an empty Status, no Payout ID)", async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const acct = account();
    const first = await run(createArgs(wallet, id, acct));
    expect(first.code, first.stderr).toBe(0);
    const from = ctx.sb.requests().length;
    const r = await run(createArgs(wallet, id, acct), { clock: new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR)) });
    expect(r.code, r.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    expect(r.stderr).toContain(`Already submitted: payout ${id} was accepted earlier`);
    const got = await run(['payout', 'get', id]);
    expect(got.code, got.stderr).toBe(0);
    const status = /^Status +(\S.*)$/m.exec(got.stdout)?.[1];
    expect(status, got.stdout).toBeDefined();
    expect(r.stdout).toMatch(new RegExp(`^Status +${status}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^Payout ID +${id}$`, 'm'));
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  });

  it('a rerun of payout create 25 hours later is held too: exit 4, nothing sent, the candidate named', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const acct = account();
    await lostAnswer(wallet, id, acct, 'reset-after-commit');
    const from = ctx.sb.requests().length;
    const r = await run(createArgs(wallet, id, acct), { clock: new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR)) });
    expect(r.code, r.stderr).toBe(4);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    expect(r.stderr).toContain('payctl does not resend it on its own (1 record of the payout list could be it)');
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  });

  it('a batch rerun 25 hours later holds its unknown rows: exit 4, never "run the same command again"; the printed reconcile lists the candidates', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const tag = randomUUID().slice(0, 8);
    const file = join(dir, 'late.csv');
    writeFileSync(
      file,
      'payout_id,wallet_id,amount,currency,type,name,provider,account_number,note\n' +
        `${tag}-1,${wallet},11.00,SLE,bank,Fatmata Sesay,ecobank,${account()},late one\n` +
        `${tag}-2,${wallet},12.00,SLE,bank,Fatmata Sesay,ecobank,${account()},late two\n`,
    );
    const team = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl, '--profile', 'team'], { dir, input: ctx.sb.apiKey + '\n' });
    expect(team.code, team.stderr).toBe(0);
    ctx.sb.faults.add({ path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const first = await run(['payout', 'batch', file, '--profile', 'team', '--yes'], { clock: new TestClock() });
    expect(first.code, first.stderr).toBe(4);
    ctx.sb.faults.clear();

    const later = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    const from = ctx.sb.requests().length;
    const again = await run(['payout', 'batch', file, '--profile', 'team', '--yes'], { clock: later });
    expect(again.code, again.stderr).toBe(4);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    expect(again.stderr).not.toContain('Run the same command again');
    expect(again.stderr).toContain('2 payouts may or may not have been made, first sent more than 24 hours ago');
    const line = /^ {2}(payctl history reconcile.*)$/m.exec(again.stderr)?.[1];
    expect(line, again.stderr).toBe('payctl history reconcile --profile team');

    const listed = await run(shellSplit(line!).slice(1), { clock: later });
    expect(listed.code, listed.stderr).toBe(4);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    const madeBy = listed.stdout.split('\n').filter((l) => l.includes('--made-by'));
    expect(madeBy).toHaveLength(2);
    for (const l of madeBy) expect(l).toContain('--profile team');
  });

  it('a batch row with no attempt recorded (its run stopped with Ctrl-C twice), 25 hours later: its candidate listed, never "resume the batch"', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const acct = account();
    const tag = randomUUID().slice(0, 8);
    const file = join(dir, 'stopped.csv');
    writeFileSync(file, 'wallet_id,amount,currency,type,name,provider,account_number,note\n' + `${wallet},21.00,SLE,bank,Alie Turay,ecobank,${acct},${tag}\n`);
    // The run journals its row, the request leaves, and the process ends (the second Ctrl-C) before any answer is recorded.
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const sent = await run(['payout', 'batch', file, '--batch-id', tag, '--yes'], { clock: new TestClock() });
    expect(sent.code, sent.stderr).toBe(4);
    ctx.sb.faults.clear();
    const journal = new Journal(dir);
    const entry = await entryOfBatch(journal, tag);
    // What a killed run leaves: the entry with no outcome.
    await journal.put({ ...entry!, outcome: undefined });
    expect((await journal.get(ctx.sb.baseUrl, entry!.payoutId))?.outcome).toBeUndefined();

    const later = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    const from = ctx.sb.requests().length;
    const r = await run(['history', 'reconcile'], { clock: later });
    expect(r.code, r.stderr).toBe(4);
    // Before: "no attempt recorded ...; its batch's resume sends it", and the resume, 25 hours on,
    // held it and printed this very reconcile: each sent the person to the other.
    expect(r.stdout).not.toContain("its batch's resume sends it");
    const madeBy = r.stdout.split('\n').find((l) => l.includes('--made-by'));
    expect(madeBy, r.stdout).toContain(`--payout-id ${entry!.payoutId}`);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
  });

  it('Ctrl-C while reconcile waits on the service: exit 130, the payout still unknown, how to go on printed', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    await lostAnswer(wallet, id, account(), 'reset-before-commit');
    ctx.sb.faults.add({ path: '/v2/payout', kind: 'hang', times: Infinity });
    const from = ctx.sb.requests().length;
    const started = startPayctl(['history', 'reconcile'], { dir });
    while (payoutPosts(ctx.sb, from).length < 1) await new Promise((r) => setTimeout(r, 5));
    started.interrupt();
    const r = await started.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('Interrupted: 0 of 1 unknown payouts reconciled; the rest are still unknown.');
    expect(r.stderr).toContain('Go on with: payctl history reconcile');
    expect((await journaled(id))?.kind).toBe('unknown');
  });

  it('--made-by a transaction that is another payout: refused (exit 2), naming what differs, or whose payout it is; nothing recorded', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    await lostAnswer(wallet, id, account(), 'reset-before-commit');
    // A payout sent from another machine (its own config folder): unknown to this journal.
    const elsewhere = tempConfigDir();
    try {
      await loginInProcess(ctx.sb, elsewhere.dir);
      const other = await payctl(createArgs(wallet, randomUUID(), account(), '80.00'), { dir: elsewhere.dir });
      expect(other.code, other.stderr).toBe(0);
      const otherTxn = /^Transaction\s+(\S+)$/m.exec(other.stdout)![1]!;
      const r = await run(['history', 'reconcile', '--payout-id', id, '--made-by', otherTxn]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`Transaction ${otherTxn} does not match payout ${id}. Nothing was recorded.`);
      expect(r.stderr).toContain('amount 80.00, sent 250.75');
      expect(r.stderr).toMatch(/account \d+, sent \d+/);
    } finally {
      elsewhere.cleanup();
    }
    // Nor may one transaction stand for two journaled payouts.
    const mine = await run(createArgs(wallet, randomUUID(), account()));
    const mineTxn = /^Transaction\s+(\S+)$/m.exec(mine.stdout)![1]!;
    const taken = await run(['history', 'reconcile', '--payout-id', id, '--made-by', mineTxn]);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(new RegExp(`Transaction ${mineTxn} is already recorded as payout \\S+\\. Nothing was recorded\\.`));
    expect((await journaled(id))?.kind).toBe('unknown');
  });

  it('--made-by what is not a transaction id, or one the service does not have: refused in payctl words, nothing recorded, the candidates command runs as printed', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    await lostAnswer(wallet, id, account(), 'reset-before-commit');
    const gets = () => ctx.sb.requests().filter((q) => q.method === 'GET' && q.path.startsWith('/v2/payout/')).length;
    const before = gets();
    const bad = await run(['history', 'reconcile', '--payout-id', id, '--made-by', 'ORD-5EBC306665B7B76A']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--made-by ORD-5EBC306665B7B76A is not a transaction id (TXN-BOK- and hex digits). Nothing was asked of the service');
    expect(bad.stderr).not.toContain('--help` for usage');
    expect(gets()).toBe(before);
    const missing = 'txn-bok-00000000000000000000000000';
    const none = await run(['history', 'reconcile', '--payout-id', id, '--made-by', missing]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`The service has no transaction ${missing.toUpperCase()} (it said: `);
    expect(none.stderr).toContain('Nothing was recorded.');
    expect(none.stderr).not.toContain('--help` for usage');
    expect(gets()).toBe(before + 1);
    expect((await journaled(id))?.kind).toBe('unknown');
    const listed = await run(printed(none.stderr, 'history reconcile'));
    expect(listed.stdout + listed.stderr).toContain(id);
    // And a payout whose outcome is known already points at itself, not at --help.
    const known = await run(createArgs(wallet, randomUUID(), account()));
    const knownId = /Payout (\S+) submitted/.exec(known.stderr)![1]!;
    const again = await run(['history', 'reconcile', '--payout-id', knownId, '--made-by', missing]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`Payout ${knownId} is not unknown: accepted`);
    const shown = await run(printed(again.stderr, 'payout get'));
    expect(shown.code, shown.stderr).toBe(0);
  });

  it('--made-by what is not a transaction id, for a payout the journal has not or knows: both problems said at once, no candidates command offered', async () => {
    const gets = () => ctx.sb.requests().filter((q) => q.method === 'GET' && q.path.startsWith('/v2/payout/')).length;
    const before = gets();
    const nope = await run(['history', 'reconcile', '--payout-id', 'nope', '--made-by', 'TXN-BOK-XYZ']);
    expect(nope.code).toBe(2);
    expect(nope.stderr).toContain('Cannot record payout nope as made by TXN-BOK-XYZ: 2 problems. Nothing was asked of the service, nothing was recorded.');
    expect(nope.stderr).toContain(`  - --payout-id: this config folder's journal has no payout nope for ${ctx.sb.baseUrl}\n`);
    expect(nope.stderr).toContain('  - --made-by: TXN-BOK-XYZ is not a transaction id (TXN-BOK- and hex digits)\n');
    expect(nope.stderr).not.toContain('See the candidates');
    const history = await run(printed(nope.stderr, 'history'));
    expect(history.code, history.stderr).toBe(0);
    const json = await run(['history', 'reconcile', '--payout-id', 'nope', '--made-by', 'TXN-BOK-XYZ', '--json']);
    expect(JSON.parse(json.stderr).error.errors.map((e: { field: string }) => e.field)).toEqual(['--payout-id', '--made-by']);
    // A payout whose outcome is known: said, and where to see it.
    const known = await run(createArgs(freshWallet(ctx.sb, '10000.00'), randomUUID(), account()));
    const knownId = /Payout (\S+) submitted/.exec(known.stderr)![1]!;
    const again = await run(['history', 'reconcile', '--payout-id', knownId, '--made-by', 'TXN-BOK-XYZ']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`  - --payout-id: payout ${knownId} is not unknown: accepted`);
    expect(again.stderr).not.toContain('See the candidates');
    expect((await run(printed(again.stderr, 'payout get'))).code).toBe(0);
    expect(gets()).toBe(before + 1); // the payout get run as printed
  });

  it('never made, 25 hours later: no candidate; the printed --resend asks first (no terminal: exit 2), then sends once with the journaled key', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    await lostAnswer(wallet, id, account(), 'reset-before-commit');
    const key = (await new Journal(dir).get(ctx.sb.baseUrl, id))!.idempotencyKey;
    const later = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    const from = ctx.sb.requests().length;

    const r = await run(['history', 'reconcile', '--json'], { clock: later });
    expect(r.code).toBe(4);
    const doc = JSON.parse(r.stdout);
    const mine = doc.results.find((x: { payout_id: string }) => x.payout_id === id);
    expect(mine).toMatchObject({ action: 'held', outcome: 'unknown', candidates: [], commands: { made_by: [] } });
    expect(mine.commands.resend).toBe(`payctl history reconcile --payout-id ${id} --resend`);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);

    const resend = shellSplit(mine.commands.resend).slice(1);
    // Without a terminal and without --yes: refused, nothing sent.
    const refused = await run(resend, { clock: later });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('needs a confirmation: run it at a terminal, or add --yes. Nothing was sent.');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    // At a terminal, a "no" sends nothing.
    const no = await run(resend, { clock: later, prompts: [{ confirm: /^Resend payout/, answer: false }] });
    expect(no.code).toBe(2);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    // A "yes" sends it, with the journaled key: one payout.
    const yes = await run(resend, { clock: later, prompts: [{ confirm: /^Resend payout/, answer: true }] });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toContain('If that attempt was made and the service forgot its key, resending pays twice.');
    const posts = payoutPosts(ctx.sb, from);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.headers['idempotency-key']).toBe(key);
    const held = heldFor(ctx.sb, id);
    expect(held).toHaveLength(1);
    expect(await journaled(id)).toMatchObject({ kind: 'accepted', transactionId: held[0]!.transaction_id });
  });

  it('--resend --yes without a terminal sends it; --yes alone, or --made-by with --resend, is a usage error', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    await lostAnswer(wallet, id, account(), 'reset-before-commit');
    const later = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    expect((await run(['history', 'reconcile', '--yes'], { clock: later })).code).toBe(2);
    expect((await run(['history', 'reconcile', '--payout-id', id, '--resend', '--made-by', 'TXN-BOK-0'], { clock: later })).code).toBe(2);
    const r = await run(['history', 'reconcile', '--payout-id', id, '--resend', '--yes'], { clock: later });
    expect(r.code, r.stderr).toBe(0);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
    expect(r.stdout).toMatch(new RegExp(`^accepted  ${id}  resent with its journaled idempotency key: transaction TXN-BOK-[0-9A-F]{26}, Pending\\n$`));
  });
});

describe('answers that resolve an unknown outcome are checked (issue 27)', () => {
  /** A config folder logged in to the sandbox through a proxy that can rewrite the next create answer. */
  async function throughProxy(): Promise<{ dir: string; proxy: Awaited<ReturnType<typeof sandboxProxy>> }> {
    const proxy = await sandboxProxy(ctx.sb);
    const d = hostileConfigDir();
    const p = await writeLoggedIn(ctx.sb, d);
    writeProfile(d, { ...p, baseUrl: proxy.baseUrl });
    return { dir: d, proxy };
  }

  /** A payout made through the proxy whose every answer was lost (exit 4, journaled unknown): its config folder, proxy and id. */
  async function lostThroughProxy(): Promise<{ dir: string; proxy: Awaited<ReturnType<typeof sandboxProxy>>; id: string }> {
    const { dir: d, proxy } = await throughProxy();
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: 10 });
    expect((await payctl(createArgs(wallet, id, account()), { dir: d, clock: new TestClock() })).code).toBe(4);
    ctx.sb.faults.clear();
    return { dir: d, proxy, id };
  }

  it('a replay naming a transaction already recorded for another payout: stays unknown (exit 4, naming it); the next reconcile pays the row once', async () => {
    const { dir: d, proxy } = await throughProxy();
    const wallet = freshWallet(ctx.sb, '10000.00');
    const other = randomUUID();
    const first = await payctl(createArgs(wallet, other, account()), { dir: d });
    expect(first.code, first.stderr).toBe(0);
    const otherTxn = new Journal(d).transactionIdOf(proxy.baseUrl, other)!;
    const id = randomUUID();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: 10 });
    expect((await payctl(createArgs(wallet, id, account()), { dir: d, clock: new TestClock() })).code).toBe(4);
    ctx.sb.faults.clear();
    // The service's answer to the resend is rewritten to claim the other payout's transaction.
    proxy.rewriteNextPayout((status, raw) => {
      const answer = JSON.parse(raw) as { data: Record<string, unknown> };
      answer.data.transaction_id = otherTxn;
      return { status, body: JSON.stringify(answer), contentType: 'application/json' };
    });
    const r = await payctl(['history', 'reconcile'], { dir: d });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toContain(
      `unknown   ${id}  resent with its journaled idempotency key: answered, but not about this payout (the service answered with transaction ${otherTxn}, which the journal already has for another payout (${other}); it is not taken for this one)\n`,
    );
    // The service answered: never "still no answer", nor "again when the service can be reached".
    expect(r.stdout).not.toContain('still no answer');
    expect(r.stderr).not.toContain('when the service can be reached');
    expect(r.stdout).toContain('Its outcome is still unknown. The service was reached, and running reconcile again is likely to get the same answer');
    expect(r.stdout).toMatch(
      new RegExp(`If one is this payout, record it as made: run history reconcile with --payout-id ${id} and --made-by followed by that record's transaction id\\.\n`),
    );
    expect((await new Journal(d).get(proxy.baseUrl, id))?.outcome?.kind).toBe('unknown');
    // The printed list, run as printed, holds the payout's own record (the resend made it; only its answer was rewritten).
    const list = await payctl(printed(r.stdout, 'payouts list'), { dir: d });
    expect(list.code, list.stderr).toBe(0);
    expect(printed(r.stdout, 'payouts list')).toEqual(['payouts', 'list', '--currency', 'SLE', '--all']);
    expect(list.stdout).toContain(heldFor(ctx.sb, id)[0]!.transaction_id);
    // Asked again without the lie: the row's own payout, made once.
    const again = await payctl(['history', 'reconcile'], { dir: d });
    expect(again.code, again.stderr).toBe(0);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
    expect((await new Journal(d).get(proxy.baseUrl, id))?.outcome).toMatchObject({ kind: 'accepted', transactionId: heldFor(ctx.sb, id)[0]!.transaction_id });
  });

  it('the resend refused as a duplicate in words of its own ("Duplicate payout", "reference already exists"): stays unknown (exit 4), never "no payout was made"', async () => {
    const answers = [
      { status: 409, body: { status: 'Failed', message: 'Duplicate payout', code: 'DUPLICATE' } },
      { status: 400, body: { status: 'Failed', message: 'Payout with this reference already exists' } },
      { status: 422, body: { message: 'The given data was invalid.', errors: { payoutId: ['This payoutId has been used.'] } } },
    ];
    for (const answer of answers) {
      const { dir: d, proxy, id } = await lostThroughProxy();
      proxy.rewriteNextPayout(() => ({ status: answer.status, body: JSON.stringify(answer.body), contentType: 'application/json' }));
      const r = await payctl(['history', 'reconcile'], { dir: d });
      expect(r.code, `${answer.body.message}: ${r.stdout}${r.stderr}`).toBe(4);
      expect(r.stdout).not.toContain('no payout was made');
      expect((await new Journal(d).get(proxy.baseUrl, id))?.outcome?.kind).toBe('unknown');
      expect(heldFor(ctx.sb, id)).toHaveLength(1); // it was made: that is why "duplicate"
    }
  });

  it('a replay with another amount: stays unknown (exit 4, naming both amounts); the next reconcile records the row once', async () => {
    const { dir: d, proxy, id } = await lostThroughProxy();
    proxy.rewriteNextPayout((status, raw) => {
      const answer = JSON.parse(raw) as { data: Record<string, unknown> };
      answer.data.amount = 25.07;
      return { status, body: JSON.stringify(answer), contentType: 'application/json' };
    });
    const r = await payctl(['history', 'reconcile'], { dir: d });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toContain('amount: sent 250.75, answered 25.07');
    expect((await new Journal(d).get(proxy.baseUrl, id))?.outcome?.kind).toBe('unknown');
    const again = await payctl(['history', 'reconcile'], { dir: d });
    expect(again.code, again.stderr).toBe(0);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
    expect((await new Journal(d).get(proxy.baseUrl, id))?.outcome?.kind).toBe('accepted');
  });
});

/** The one entry of batch `tag` in `journal` (found through a scan). */
async function entryOfBatch(journal: Journal, tag: string): Promise<JournalEntry | undefined> {
  for await (const it of journal.scan()) if ('entry' in it && it.entry.batch?.id === tag) return it.entry;
  return undefined;
}
