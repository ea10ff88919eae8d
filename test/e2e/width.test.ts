/**
 * What people see at a default-sized terminal (issue #15, "Width"), in real terminals of
 * 80 and 60 columns (tmux), the built binary against the in-process sandbox:
 * - a 200-row `payout batch` leaves exactly one progress line however many times it was
 *   redrawn, and no line of the screen is wider than the terminal (the plan fits: long
 *   names cut with …, every amount whole);
 * - `payouts list` fits as a table (issue #28: columns left out, never cards at 80 or 60),
 *   long text cut with …, ids, amounts and statuses whole;
 * - the same list piped, or as --csv or --json at the terminal, is never cut.
 * - issue #28's Done-when: tmux at 80x24 shows full ids in balances, payouts list and
 *   history, and help wraps at 80 (no line wider, so no word broken by the terminal).
 * The layouts themselves (bar, tables, cards, wrapping) are tested as pure functions in
 * test/unit/width.test.ts; every command at 80 and 60 in process in test/commands/width-80.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { Journal } from '../../src/payouts/journal.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempConfigDir } from '../helpers/cli.js';
import { api, payoutBody, useSandbox } from '../helpers/sandbox.js';
import { batchRows, loginCli, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';
import { startSized, stopSizedServer, type SizedTerminal } from '../helpers/sized-terminal.js';
import { shellQuote } from '../helpers/pty.js';
import { displayWidth } from '../../src/output/table.js';

const ctx = useSandbox();
const ROWS = 200;
const WALLET_NAME = 'Freetown Operations and Logistics Department — Western Area Payroll 山田太郎';
// Recipients of the newest payouts (payouts list shows them first).
const LONG_NAME = 'Chinedu Okafor-Adebayo of the Lagos State Civil Service Commission';
// 72 columns: wider than a card's value at 80 columns (65) as well as at 60.
const WIDE_NAME = '山田太郎'.repeat(9);

let cfg: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;
let wallet: string;
let terms: SizedTerminal[] = [];

beforeAll(async () => {
  cfg = tempConfigDir();
  work = tempWorkDir();
  await loginCli(ctx.sb, cfg.dir);
  wallet = ctx.sb.setWallet({ wallet_name: WALLET_NAME, currency: 'SLE', balance: '900000000' }).wallet_id;
});

afterEach(() => {
  for (const t of terms) t.kill();
  terms = [];
});

afterAll(() => {
  stopSizedServer();
  cfg?.cleanup();
  work?.cleanup();
});

/** `script` in a terminal of `columns` x `rows`; `payctl` runs the built binary with the test's config. */
function terminal(columns: number, script: string, label: string, rows = 50): SizedTerminal {
  const t = startSized(`payctl() { ${shellQuote(process.execPath)} ${shellQuote(BIN)} "$@"; }\n${script}`, {
    columns,
    rows,
    cwd: work.dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cfg.dir, PAYCTL_CONFIG_DIR: cfg.dir, NO_COLOR: '1', LANG: 'C.UTF-8' },
    record: work.file(`${label}.tty`),
  });
  terms.push(t);
  t.go();
  return t;
}

/**
 * The script's exit code. Waited for in the recording of the terminal (`EXIT:<code>` among the
 * bytes written: a file read every 50 ms) instead of in a tmux capture of the whole screen every
 * 50 ms (a process each time, for the seconds a batch runs); then read from the screen as
 * before, which so holds everything the script wrote.
 */
async function exited(t: SizedTerminal, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (!/EXIT:\d+/.test(t.written()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return t.exitCode(Math.max(deadline - Date.now(), 5_000));
}

/** Lines of the screen (wrapped lines joined) wider than the terminal. */
function tooWide(screen: string, columns: number): string[] {
  return screen.split('\n').filter((l) => displayWidth(l) > columns);
}

/** Groups with thousands separators and two digits, as payctl shows SLE. */
function sle(minor: bigint): string {
  const s = minor.toString().padStart(3, '0');
  return `${BigInt(s.slice(0, -2)).toLocaleString('en-US')}.${s.slice(-2)}`;
}

describe.each([80, 60])('at %i columns', (columns) => {
  it(`a ${ROWS}-row batch: one progress line however often it is redrawn; no line wider than the terminal; the plan fits with the long wallet name cut`, async () => {
    const prefix = `w${columns}-${randomUUID().slice(0, 8)}`;
    const rows = batchRows(ROWS, wallet, prefix);
    writeFile(work.file(`b${columns}.csv`), toCsv(rows));
    const balance = ctx.sb.wallets().find((w) => w.wallet_id === wallet)!.balance_minor;
    // Every POST /payout a little slow: the run takes long enough for many redraws.
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 25, times: Infinity });
    let t: SizedTerminal;
    let code: number;
    try {
      t = terminal(columns, `payctl payout batch b${columns}.csv --batch-id ${prefix} --yes`, `batch${columns}`);
      code = await exited(t, 60_000);
    } finally {
      ctx.sb.faults.clear();
    }
    const screen = t.screen();
    expect(screen).toContain(`${ROWS} accepted, 0 already submitted, 0 rejected, 0 unknown.`);
    expect(code, screen).toBe(0);

    // Redrawn many times in place, each redraw narrower than the screen...
    const draws = t.written().split('\r\u001b[2K').slice(1);
    expect(draws.length, 'redraws').toBeGreaterThanOrEqual(5);
    for (const d of draws) expect(displayWidth(d.split('\n')[0]!), d).toBeLessThan(columns);
    // ...and one bar line left on the screen: the final one.
    const bars = screen.split('\n').filter((l) => /[█░]/.test(l));
    expect(bars, screen).toHaveLength(1);
    // (At 60 columns the done count gives way to the bar: 200/200 and 0 failed say it.)
    expect(bars[0]).toMatch(new RegExp(`^batch ${prefix} \\[█{10,24}\\] ${ROWS}/${ROWS} · (${ROWS} done · )?0 failed`));
    expect(tooWide(screen, columns), screen).toEqual([]);

    // The plan: every amount whole, the long wallet name cut with ….
    const total = rows.reduce((s, r) => s + BigInt(r.amount!.replace('.', '')), 0n);
    expect(screen).toContain(sle(total));
    expect(screen).toContain(sle(balance));
    expect(screen).toContain(sle(balance - total));
    expect(screen).toContain(wallet);
    expect(screen).toMatch(/Freetown Operations and Logistics[^\n]*…/);
    expect(screen).not.toContain(WALLET_NAME);
  }, 70_000);

  it('payouts list fits as a table with the transaction ids whole (issue #28), long names cut with …; piped, --csv and --json it is whole', async () => {
    // The newest payouts: a long name and a wide (CJK) one.
    for (const name of [LONG_NAME, WIDE_NAME]) {
      const body = payoutBody(wallet, { amount: 498922.79 });
      body.recipient.accountDetails.name = name;
      const r = await api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() });
      expect(r.status).toBe(201);
    }
    const newestOf = (name: string) =>
      ctx.sb
        .payouts()
        .filter((p) => p.recipient.accountDetails.name === name)
        .sort((x, y) => (x.created_at < y.created_at ? 1 : -1))[0]!;
    const newest = newestOf(WIDE_NAME);
    const long = newestOf(LONG_NAME);

    const t = terminal(
      columns,
      [
        'payctl payouts list --limit 2; echo "-- piped"',
        'payctl payouts list --limit 2 | cat; echo "-- csv"',
        'payctl payouts list --limit 2 --csv; echo "-- json"',
        'payctl payouts list --limit 2 --json',
      ].join('\n'),
      `list${columns}`,
    );
    expect(await exited(t)).toBe(0);
    const screen = t.screen();
    const [atTerminal, piped, csv, json] = screen.split(/^-- (?:piped|csv|json)$/m);

    // At the terminal: every line fits; a table, one line a payout, the transaction id, amount and
    // status whole; the created time and wallet id left out (at 60 the recipient too), names cut.
    expect(tooWide(atTerminal!, columns), atTerminal).toEqual([]);
    expect(atTerminal).not.toContain(LONG_NAME);
    expect(atTerminal).not.toContain(WIDE_NAME);
    if (columns === 80) {
      expect(atTerminal).toMatch(/^TRANSACTION {25}RECIPIENT +AMOUNT {2}STATUS$/m);
      expect(atTerminal).toMatch(new RegExp(`^${newest.transaction_id}  山田太郎[^\\n]*… +498,922\\.79 SLE  Pending$`, 'm'));
      expect(atTerminal).toMatch(new RegExp(`^${long.transaction_id}  Chinedu[^\\n]*… +498,922\\.79 SLE  Pending$`, 'm'));
    } else {
      expect(atTerminal).toMatch(/^TRANSACTION +AMOUNT {2}STATUS$/m);
      for (const p of [newest, long]) expect(atTerminal).toMatch(new RegExp(`^${p.transaction_id}  498,922\\.79 SLE  Pending$`, 'm'));
    }

    // Piped, as CSV and as JSON: nothing cut, whatever the terminal's width.
    for (const out of [piped!, csv!, json!]) {
      expect(out).toContain(LONG_NAME);
      expect(out).toContain(WIDE_NAME);
      expect(out).toContain(newest.transaction_id);
      expect(out).toContain(wallet);
      expect(out).not.toContain('…');
    }
    // The piped table is wider than the terminal (so it was not fitted to it).
    expect(tooWide(piped!, columns).length).toBeGreaterThan(0);
  }, 40_000);
});

describe('issue #28 Done-when: tmux at 80x24', () => {
  it('shows full ids in balances, payouts list and history, and help wraps at 80', async () => {
    const own = ctx.sb.setWallet({ wallet_name: 'Bo District Health Management Team — Community Health Workers', currency: 'SLE', balance: '750000' }).wallet_id;
    for (const name of [LONG_NAME, 'Fatmata Sesay']) {
      const body = payoutBody(own, { amount: 12345.67 });
      body.recipient.accountDetails.name = name;
      expect((await api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() })).status).toBe(201);
    }
    const listed = ctx.sb.payouts().filter((p) => p.wallet_id === own);
    // The journal of this machine: two payouts of one batch, UUID payout ids; one settled Failed (a look-up recorded it).
    const batch = `done-${randomUUID().slice(0, 8)}`;
    const journal = new Journal(cfg.dir);
    const journaled: Array<{ payoutId: string; transactionId: string }> = [];
    for (const [i, p] of listed.entries()) {
      const payoutId = randomUUID();
      const body = JSON.stringify({
        amount: 12345.67,
        currency: 'SLE',
        walletId: own,
        payoutId,
        recipient: { type: 'wallet', accountDetails: { name: LONG_NAME, provider: 'orange_money', accountNumber: '076123456' } },
      });
      const at = new Date(Date.now() - i * 1000);
      const e = await journal.begin({ baseUrl: ctx.sb.baseUrl, payoutId, body, now: at, origin: { batch: { id: batch, file: 'b.csv', row: i + 1 } } });
      await journal.record(e, {
        kind: 'accepted',
        status: 201,
        transactionId: p.transaction_id,
        fee: '0.13',
        replayed: false,
        at: at.toISOString(),
        ...(i === 0 ? { lookedUp: true as const, payoutStatus: 'Failed' } : {}),
      });
      journaled.push({ payoutId, transactionId: p.transaction_id });
    }

    const t = terminal(
      80,
      [
        'payctl balances; echo "-- list"',
        `payctl payouts list --wallet ${own}; echo "-- history"`,
        `payctl history --batch-id ${batch}; echo "-- help"`,
        'payctl payouts list --help',
      ].join('\n'),
      'done80',
      24,
    );
    expect(await exited(t)).toBe(0);
    const screen = t.screen();
    // No line of any of it wider than the terminal: nothing was wrapped by it, no word broken.
    expect(tooWide(screen, 80), screen).toEqual([]);
    const [balances, list, history, help] = screen.split(/^-- (?:list|history|help)$/m);

    // Balances: a table, every wallet id whole at the start of its line.
    expect(balances).toMatch(/^WALLET +NAME +CURRENCY +BALANCE +UPDATED$/m);
    for (const w of ctx.sb.wallets()) expect(balances).toMatch(new RegExp(`^${w.wallet_id}  \\S`, 'm'));
    expect(balances).toMatch(new RegExp(`^${own}  Bo District[^\\n]*… +SLE +`, 'm'));

    // Payouts list: a table, every transaction id whole.
    expect(list).toMatch(/^TRANSACTION +RECIPIENT +AMOUNT {2}STATUS$/m);
    for (const p of listed) expect(list).toMatch(new RegExp(`^${p.transaction_id}  \\S[^\\n]* 12,345\\.67 SLE  Pending$`, 'm'));

    // History: two lines a payout, the payout id and the transaction id under it, whole; the settled status.
    expect(history).toMatch(/^TIME \(UTC\) +PAYOUT ID +AMOUNT\nRECIPIENT +TRANSACTION +OUTCOME$/m);
    for (const [i, j] of journaled.entries()) {
      expect(history).toMatch(
        new RegExp(
          `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +${j.payoutId}  12,345\\.67 SLE\\nChinedu[^\\n]*… +${j.transactionId} +${i === 0 ? 'Failed' : 'accepted'}$`,
          'm',
        ),
      );
    }

    // Help: wrapped at 80 by payctl, between words.
    expect(help).toContain('Filters are applied by payctl to every record it reads: the service is asked\nonly for pages');
    // An example too long for a line goes on with ` \`, a redirection beside its file.
    expect(help).toContain('  $ payctl payouts list --from 2026-11-01 --to 2026-11-30 --all --csv \\\n      > november.csv\n');
  }, 40_000);
});
