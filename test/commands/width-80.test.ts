/**
 * Issue #28, "80 columns", in process (fakeDeps with the terminal's width set, the sandbox
 * over HTTP): at 80 and at 60 columns no line of `balances`, `payouts list`, `history`,
 * `plan show`, `plan approve`, `webhooks listen` or any command's help is wider than the
 * terminal; wallet, transaction and payout ids are never cut (columns give way instead:
 * src/output/table.ts `giveWay`); in a pipe nothing is cut. Also: `plan approve` and
 * `plan show` group their totals exactly (135,000.00), and `history` shows the settled
 * status journaled for an accepted payout. The real terminal (tmux) is in
 * test/e2e/width.test.ts; the layouts as pure functions in test/unit/width.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, payoutBody, useSandbox } from '../helpers/sandbox.js';
import { writeLoggedIn } from '../helpers/e2e.js';
import { tempConfigDir } from '../helpers/cli.js';
import { fakeDeps, type FakeDeps, type FakeDepsOptions } from '../helpers/fake-deps.js';
import { payctl } from '../helpers/in-process.js';
import { tempWorkDir } from '../helpers/batch.js';
import { postRaw } from '../helpers/listener.js';
import { event, headersFor, txnId } from '../helpers/webhook-events.js';
import { run as balancesRun } from '../../src/commands/balances.js';
import { run as listRun } from '../../src/commands/payouts/list.js';
import { run as historyRun } from '../../src/commands/history.js';
import { run as showRun } from '../../src/commands/plan/show.js';
import { run as approveRun } from '../../src/commands/plan/approve.js';
import { run as listenRun } from '../../src/commands/webhooks/listen.js';
import { allCommands, buildProgram } from '../../src/program.js';
import { Journal, type Outcome } from '../../src/payouts/journal.js';
import { displayWidth } from '../../src/output/table.js';

const ctx = useSandbox();
const maker = tempConfigDir();
const approver = tempConfigDir();
const work = tempWorkDir();
const WALLET_NAME = 'Payroll of the Western Area Rural District Council, Waterloo';
const LONG = 'Chinedu Okafor-Adebayo of the Lagos State Civil Service Commission';
let wallet: string;
let open: FakeDeps[] = [];

/** Payouts journaled on this machine, newest first: [payout id, transaction id, what the journal has]. */
const journaled: Array<{ payoutId: string; transactionId?: string; shown: string }> = [];
let planPath: string;

beforeAll(async () => {
  await writeLoggedIn(ctx.sb, maker.dir);
  await writeLoggedIn(ctx.sb, approver.dir);
  wallet = ctx.sb.setWallet({ wallet_name: WALLET_NAME, currency: 'SLE', balance: '2500000' }).wallet_id;
  // The newest payouts of the list: a long name, a short one.
  for (const name of ['Ama', LONG]) {
    const body = payoutBody(wallet, { amount: 498922.79 });
    body.recipient.accountDetails.name = name;
    expect((await api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() })).status).toBe(201);
  }

  // The journal: accepted and later Failed (recorded by a look-up), accepted and Successful, accepted with no
  // status known, unknown (no transaction id yet); payout ids are UUIDs (36 columns).
  const j = new Journal(maker.dir);
  const now = Date.now();
  const states: Array<{ status?: string; outcome: 'accepted' | 'unknown' }> = [
    { status: 'Failed', outcome: 'accepted' },
    { status: 'Successful', outcome: 'accepted' },
    { outcome: 'accepted' },
    { outcome: 'unknown' },
  ];
  for (const [i, s] of states.entries()) {
    const payoutId = randomUUID();
    const body = JSON.stringify({
      amount: 1500.5,
      currency: 'SLE',
      walletId: wallet,
      payoutId,
      recipient: { type: 'wallet', accountDetails: { name: LONG, provider: 'orange_money', accountNumber: '076123456' } },
    });
    const at = new Date(now - i * 60_000);
    const e = await j.begin({ baseUrl: ctx.sb.baseUrl, payoutId, body, now: at, origin: { batch: { id: 'oct-stipends-western-area', file: 'oct.csv', row: i + 1 } } });
    const transactionId = s.outcome === 'accepted' ? txnId() : undefined;
    const outcome: Outcome =
      s.outcome === 'accepted'
        ? {
            kind: 'accepted',
            status: 201,
            transactionId,
            fee: '0.13',
            replayed: false,
            at: at.toISOString(),
            ...(s.status ? { lookedUp: true as const, payoutStatus: s.status } : {}),
          }
        : { kind: 'unknown', reason: 'the connection was reset', at: at.toISOString() };
    await j.record(e, outcome);
    journaled.push({ payoutId, ...(transactionId ? { transactionId } : {}), shown: s.status ?? s.outcome });
  }

  // A plan of three payouts of 45,000.00 SLE (135,000.00 in all), made by the maker, for the approver.
  for (const [dir, name] of [
    [maker.dir, 'Mariama Kanu'],
    [approver.dir, 'Ibrahim Sesay'],
  ] as const) {
    const r = await payctl(['keys', 'create', '--name', name], { dir });
    expect(r.code, r.stderr).toBe(0);
  }
  const file = join(work.dir, 'stipends.csv');
  writeFileSync(
    file,
    'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n' +
      [1, 2, 3]
        .map((n) => `${randomUUID()},${wallet},45000.00,SLE,wallet,${n === 2 ? LONG : 'Aminata Kamara'},orange_money,07612345${n},+2327612345${n},stipend`)
        .join('\n') +
      '\n',
  );
  const made = await payctl(['plan', 'create', file, '--batch-id', 'oct-stipends'], { dir: maker.dir });
  expect(made.code, made.stderr).toBe(0);
  planPath = file.replace(/\.csv$/, '.plan.json');
});

afterEach(async () => {
  for (const fd of open) await fd.close();
  open = [];
});

afterAll(() => {
  maker.cleanup();
  approver.cleanup();
  work.cleanup();
});

/** Deps of a run whose stdout and stderr are terminals of `columns` columns (undefined: pipes). */
function depsAt(columns: number | undefined, o: Partial<FakeDepsOptions> = {}): FakeDeps {
  const tty = columns !== undefined;
  const fd = fakeDeps({ dir: maker.dir, tty: { stdin: tty && o.prompts !== undefined, stdout: tty, stderr: tty }, ...o });
  fd.deps.io = { ...fd.deps.io, stdoutColumns: columns, stderrColumns: columns };
  open.push(fd);
  return fd;
}

const lines = (out: string) => out.replace(/\n$/, '').split('\n');
const tooWide = (out: string, columns: number) => lines(out).filter((l) => displayWidth(l) > columns);

describe('balances', () => {
  it('at 80 a table: the wallet id whole, the long name cut, the balance and the update time whole', async () => {
    const fd = depsAt(80);
    expect(await balancesRun({ wallet }, fd.deps)).toBe(0);
    const out = lines(fd.stdout());
    expect(tooWide(fd.stdout(), 80)).toEqual([]);
    expect(out[0]).toMatch(/^WALLET {6}NAME +CURRENCY +BALANCE {2}UPDATED$/);
    expect(out[1]).toMatch(new RegExp(`^${wallet}  Payroll of the[^\\n]*… +SLE +\\d,\\d{3},\\d{3}\\.\\d\\d  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC$`));
  });

  it('at 60 a table without the update time (it gives way first), the wallet id whole; in a pipe nothing is cut', async () => {
    const fd = depsAt(60);
    expect(await balancesRun({ wallet }, fd.deps)).toBe(0);
    expect(tooWide(fd.stdout(), 60)).toEqual([]);
    const out = lines(fd.stdout());
    expect(out[0]).toMatch(/^WALLET {6}NAME +CURRENCY +BALANCE$/);
    expect(out[1]).toMatch(new RegExp(`^${wallet}  Payroll of the Western[^\\n]*… +SLE +\\d,\\d{3},\\d{3}\\.\\d\\d$`));

    const piped = depsAt(undefined);
    expect(await balancesRun({ wallet }, piped.deps)).toBe(0);
    expect(piped.stdout()).toContain(`${wallet}  ${WALLET_NAME}  SLE`);
    expect(piped.stdout()).toMatch(/UTC\n$/);
  });
});

describe('payouts list', () => {
  const ids = () => ctx.sb.payouts().filter((p) => p.wallet_id === wallet);

  it('at 80 a table: every transaction id whole, the recipient cut, amount and status whole; the time and wallet left out', async () => {
    const fd = depsAt(80);
    expect(await listRun({ wallet, limit: 2 }, fd.deps)).toBe(0);
    const out = lines(fd.stdout());
    expect(tooWide(fd.stdout(), 80)).toEqual([]);
    expect(out[0]).toMatch(/^TRANSACTION {25}RECIPIENT +AMOUNT {2}STATUS$/);
    expect(out).toHaveLength(3);
    for (const p of ids()) {
      const name = p.recipient.accountDetails.name === LONG ? 'Chinedu Okafor-Ade…' : 'Ama';
      expect(out).toContainEqual(expect.stringMatching(new RegExp(`^${p.transaction_id}  ${name} +498,922\\.79 SLE  Pending$`)));
    }
  });

  it('--all at 80: the same table page by page; at 60: the transaction id, amount and status (the recipient gives way too)', async () => {
    const all = depsAt(80);
    expect(await listRun({ wallet, all: true, limit: 1 }, all.deps)).toBe(0);
    expect(tooWide(all.stdout(), 80)).toEqual([]);
    expect(lines(all.stdout())).toHaveLength(3);
    for (const p of ids()) expect(all.stdout()).toMatch(new RegExp(`^${p.transaction_id}  `, 'm'));

    const fd = depsAt(60);
    expect(await listRun({ wallet, limit: 2 }, fd.deps)).toBe(0);
    expect(tooWide(fd.stdout(), 60)).toEqual([]);
    expect(lines(fd.stdout()).sort()).toEqual(
      ['TRANSACTION                                 AMOUNT  STATUS', ...ids().map((p) => `${p.transaction_id}  498,922.79 SLE  Pending`)].sort(),
    );
  });

  it('in a pipe every column, nothing cut', async () => {
    const fd = depsAt(undefined);
    expect(await listRun({ wallet, limit: 2 }, fd.deps)).toBe(0);
    expect(lines(fd.stdout())[0]).toMatch(/^CREATED \(UTC\) +TRANSACTION +WALLET +RECIPIENT +AMOUNT +STATUS$/);
    expect(fd.stdout()).toContain(`${wallet}  ${LONG}  498,922.79 SLE  Pending`);
    expect(fd.stdout()).not.toContain('…');
  });
});

describe('history', () => {
  it('at 80 two lines a payout: the payout id and the transaction id under it, whole; the settled status when journaled', async () => {
    const fd = depsAt(80);
    expect(await historyRun({}, fd.deps)).toBe(0);
    const out = lines(fd.stdout());
    expect(tooWide(fd.stdout(), 80)).toEqual([]);
    expect(out.slice(0, 2)).toEqual([expect.stringMatching(/^TIME \(UTC\) +PAYOUT ID +AMOUNT$/), expect.stringMatching(/^RECIPIENT +TRANSACTION +OUTCOME$/)]);
    for (const [k, p] of journaled.entries()) {
      const first = out.findIndex((l) => l.includes(p.payoutId));
      expect(out[first]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +${p.payoutId}  1,500\\.50 SLE$`));
      // The second line: the recipient cut, the transaction id whole (none yet for the unknown one), the outcome.
      expect(out[first + 1]).toMatch(new RegExp(`^Chinedu Okafor.*… +${p.transactionId ?? ''} +${p.shown}$`));
      expect(first).toBe(2 + 2 * k);
    }
    expect(fd.stderr()).toBe('4 journaled payouts.\n');
  });

  it('at 60 a card per payout, every id whole; in a pipe one line each with every column, nothing cut', async () => {
    const fd = depsAt(60);
    expect(await historyRun({}, fd.deps)).toBe(0);
    expect(tooWide(fd.stdout(), 60)).toEqual([]);
    const cards = fd.stdout().split('\n\n');
    expect(cards).toHaveLength(4);
    for (const [k, p] of journaled.entries()) {
      expect(cards[k]).toContain(`PAYOUT ID    ${p.payoutId}\n`);
      expect(cards[k]).toContain(`OUTCOME      ${p.shown}\n`);
      if (p.transactionId) expect(cards[k]).toContain(`TRANSACTION  ${p.transactionId}`);
    }

    const piped = depsAt(undefined);
    expect(await historyRun({}, piped.deps)).toBe(0);
    const out = lines(piped.stdout());
    expect(out).toHaveLength(5);
    expect(out[0]).toMatch(/^TIME \(UTC\) +PROFILE +HOST +PAYOUT ID +BATCH +AMOUNT +RECIPIENT +OUTCOME +TRANSACTION$/);
    expect(out[1]).toContain(
      `${journaled[0]!.payoutId}  oct-stipends-western-area  1,500.50 SLE  ${LONG} (orange_money 076123456)  Failed      ${journaled[0]!.transactionId}`,
    );
    expect(out[3]).toMatch(/ {2}accepted {4}TXN-BOK-/);
    expect(piped.stdout()).not.toContain('…');
  });

  it('CSV and JSON keep the outcome as journaled, with the status beside it', async () => {
    const fd = depsAt(80, { globals: { json: true } });
    expect(await historyRun({}, fd.deps)).toBe(0);
    const data = (JSON.parse(fd.stdout()) as { data: Array<{ outcome: string; payout_status: string | null }> }).data;
    expect(data.map((d) => [d.outcome, d.payout_status])).toEqual([
      ['accepted', 'Failed'],
      ['accepted', 'Successful'],
      ['accepted', null],
      ['unknown', null],
    ]);
  });
});

describe('plan show and plan approve', () => {
  it('plan show at 80 and 60: every line fits, payout lines go on below indented, ids and accounts whole; totals grouped', async () => {
    for (const columns of [80, 60]) {
      const fd = depsAt(columns);
      expect(await showRun({ plan: planPath }, fd.deps)).toBe(0);
      const out = fd.stdout();
      expect(tooWide(out, columns), `at ${columns}`).toEqual([]);
      // Each payout: its line, then lines indented under it; joined back, the same words as in a pipe.
      // Its note goes on a line of its own under it (not a continuation of the line).
      const folded = out.replace(/\n {4}(?!note: )/g, ' ');
      expect(folded.match(/^ {4}note: "stipend"$/gm)).toHaveLength(3);
      expect(out).toMatch(/^ {2}row 2: [0-9a-f-]{36} {2}45,000\.00 SLE/m);
      expect(out).toMatch(/^ {2}row 3: [0-9a-f-]{36} {2}45,000\.00 SLE/m);
      expect(out).toMatch(new RegExp(`^ {4}(from ${wallet} )?to Chinedu Okafor-Adebayo of the Lagos`, 'm'));
      expect(folded).toMatch(
        new RegExp(`^ {2}row 3: [0-9a-f-]{36} {2}45,000\\.00 SLE from ${wallet} to ${LONG} \\(wallet, orange_money 076123452, \\+23276123452\\)$`, 'm'),
      );
      // The totals, grouped exactly: the balance after is the balance less 135,000.00, said before fees.
      const m = new RegExp(`^ {2}${wallet} {2}3 payouts, 135,000\\.00 SLE; balance ([\\d,]+\\.\\d\\d), after ([\\d,]+\\.\\d\\d) before fees$`, 'm').exec(
        out.replace(/\n {4}/g, ' '),
      );
      expect(m, out).not.toBeNull();
      const minor = (s: string) => BigInt(s.replace(/[,.]/g, ''));
      expect(minor(m![1]!) - minor(m![2]!)).toBe(13_500_000n);
    }
    const piped = depsAt(undefined);
    expect(await showRun({ plan: planPath }, piped.deps)).toBe(0);
    expect(piped.stdout()).toMatch(
      new RegExp(`^ {2}row 3: [0-9a-f-]{36} {2}45,000\\.00 SLE from ${wallet} to ${LONG} \\(wallet, orange_money 076123452, \\+23276123452\\)$`, 'm'),
    );
    expect(tooWide(piped.stdout(), 80).length).toBeGreaterThan(0);
  });

  for (const columns of [80, 60]) {
    it(`plan approve at ${columns} (on stderr): every line fits, the total grouped exactly: Total 135,000.00 SLE`, async () => {
      const copy = join(work.dir, `approve-${columns}.plan.json`);
      copyFileSync(planPath, copy);
      const fd = depsAt(columns, { dir: approver.dir, prompts: [{ confirm: /^Approve this plan as Ibrahim Sesay\?$/, answer: true }] });
      expect(await approveRun({ plan: copy }, fd.deps)).toBe(0);
      const err = fd.stderr();
      expect(tooWide(err, columns)).toEqual([]);
      expect(err).toContain(`  Total 135,000.00 SLE from ${wallet} (3 payouts)\n`);
      expect(err).not.toContain('135000');
      expect(err).toMatch(/^ {2}row 3: [0-9a-f-]{36} {2}45,000\.00 SLE/m);
      expect(err).toMatch(/^✓ Approved plan\s+sha256:/m);
    });
  }
});

describe('webhooks listen', () => {
  /** The listener at a terminal of `columns`: the lines it prints for these events. */
  async function listenAt(columns: number | undefined, events: Buffer[]): Promise<string> {
    const secret = `whsec_${randomUUID().slice(0, 8)}`;
    const fd = depsAt(columns, { env: { PAYCTL_WEBHOOK_SECRET: secret } });
    const running = listenRun({ port: 0 }, fd.deps);
    const started = Date.now();
    let url: string | undefined;
    while (!(url = /Ready: listening for webhook events on (http:\S+?)(,|\s|$)/.exec(fd.stderr())?.[1])) {
      if (Date.now() - started > 5000) throw new Error(`no Ready line: ${fd.stderr()}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    for (const body of events) expect((await postRaw(url, body, headersFor(body, secret))).status).toBe(200);
    fd.interrupt();
    await running;
    return fd.stdout();
  }

  it('at 80 one line an event: the transaction id whole with the event, amount and status; the webhook id and time left out', async () => {
    const tx = txnId();
    const id = randomUUID();
    const now = new Date().toISOString();
    const ok = event({ transaction_id: tx, webhook_id: id, timestamp: now, amount: 498922.79, status: 'successful' });
    const failed = event({
      event: 'transfer.failed',
      transaction_id: tx,
      timestamp: now,
      status: 'failed',
      failure_reason: 'The recipient account is closed at the provider',
    });
    const out = await listenAt(80, [ok, failed, ok]);
    expect(tooWide(out, 80)).toEqual([]);
    expect(lines(out)).toEqual([
      `transfer.success  ${tx}  498,922.79 SLE  Successful`,
      // The failure reason cut, the event whole.
      `transfer.failed  ${tx}  1,500.50 SLE  Failed: The…`,
      expect.stringMatching(new RegExp(`^${tx}  498,922\\.79 SLE  Successful  \\(duplicate, a[^)]*…$`)),
    ]);
    expect(out).not.toContain(id);
  });

  it('at 60 one line an event: the transaction id and status whole; in a pipe one line with everything', async () => {
    const tx = txnId();
    const id = randomUUID();
    const body = event({ transaction_id: tx, webhook_id: id, timestamp: new Date().toISOString(), amount: 498922.79 });
    const out = await listenAt(60, [body]);
    expect(tooWide(out, 60)).toEqual([]);
    expect(lines(out)).toEqual([`${tx}  Successful`]);

    const piped = await listenAt(undefined, [body]);
    expect(lines(piped)).toEqual([
      expect.stringMatching(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  transfer\\.success  ${tx}  498,922\\.79 SLE  Successful  ${id}$`)),
    ]);
  });
});

describe('help wraps at the terminal, words whole', () => {
  /** What `payctl <words> --help` prints with the help's width at `width` (undefined: a pipe). */
  function helpAt(width: number | undefined, words: string[]): string {
    let out = '';
    const program = buildProgram(async () => {});
    // undefined: as commander's own default says for a pipe (its type says a number).
    const helpWidth = (() => width) as () => number;
    const config = { writeOut: (s: string) => void (out += s), writeErr: () => {}, getOutHelpWidth: helpWidth, getErrHelpWidth: helpWidth };
    for (const c of [program, ...allCommands(program)]) c.exitOverride().configureOutput(config);
    try {
      program.parse([...words, '--help'], { from: 'user' });
    } catch (err) {
      if (!(err instanceof CommanderError) || err.code !== 'commander.helpDisplayed') throw err;
    }
    return out;
  }
  /** The words of a help text (an example's ` \` continuation is no word). */
  const words = (s: string) =>
    s
      .split(/\s+/)
      .filter((w) => w !== '' && w !== '\\')
      .sort();
  const paths = allCommands(buildProgram(async () => {}))
    .filter((c) => !c.name().startsWith('__'))
    .map((c) => {
      const names: string[] = [];
      for (let x: typeof c | null = c; x?.parent; x = x.parent as typeof c | null) names.unshift(x.name());
      return names;
    });

  it('covers every command', () => {
    expect(paths.length).toBeGreaterThanOrEqual(30);
    expect(paths).toContainEqual(['payouts', 'list']);
  });

  for (const columns of [80, 60]) {
    it(`at ${columns}: no line wider, no word broken or lost (the same words as at 1000 columns), for the program and every command`, () => {
      for (const p of [[], ...paths]) {
        const out = helpAt(columns, p);
        // A preformatted sample in a spec's help (an indented line of single-spaced words, as at any width)
        // is shown as written, to be copied: at 60 columns a line of CSV may be wider.
        const wide = helpAt(1000, p).split('\n');
        const sample = (l: string) => /^ {2}\S+( \S+)*$/.test(l) && !/^ {2}[-$]/.test(l) && wide.includes(l);
        expect(
          tooWide(out, columns).filter((l) => !sample(l)),
          `payctl ${p.join(' ')} --help`,
        ).toEqual([]);
        expect(words(out), `payctl ${p.join(' ')} --help`).toEqual(words(helpAt(1000, p)));
      }
    });
  }

  it('payouts list --help at 80: its text reflowed, sentences kept on lines of their own; in a pipe the same as at 80', () => {
    const out = helpAt(80, ['payouts', 'list']);
    expect(out).toContain(
      [
        'Filters are applied by payctl to every record it reads: the service is asked',
        'only for pages (page, per_page) and never trusted to filter. Without --all,',
      ].join('\n'),
    );
    expect(out).not.toMatch(/account_n\n/);
    expect(helpAt(undefined, ['payouts', 'list'])).toBe(out);
    const create = helpAt(80, ['payout', 'create']);
    // An example continues with ` \`, an option beside its value, a quoted name whole.
    expect(create).toContain('  $ payctl payout create --wallet 6643665465 --amount 1500.50 --currency SLE \\\n      --type wallet --name "Aminata Kamara"');
  });
});
