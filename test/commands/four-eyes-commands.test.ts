/**
 * The four-eyes commands one by one, in process (payctl's main against the sandbox over real
 * HTTP; README "Four eyes"): `keys create` and `keys show`; `plan create`, `plan show`, `plan
 * approve` and `plan send`, at a terminal (scripted prompts) and off one, in text and JSON;
 * `policy check` of batch files and plans; and what each refuses (exit 2, nothing sent or
 * changed): a plan file that is not a whole plan, a plan from the future, a payout journaled
 * before with other details, a report of another batch, a policy file with problems. Each
 * person has their own config folder (their own machine) and key.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { closedPort, oneJson, writeLoggedIn, writeProfile, type Run } from '../helpers/e2e.js';
import { payctl, type InProcessOptions } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { shellSplit } from '../helpers/pty.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { PLAN_BATCH_HEADER, planBatchFile, planContentHash, planPathOf, readPlanFile, remadeByMaker } from '../helpers/four-eyes.js';
import type { Plan } from '../../src/plans/plan.js';

const ctx = useSandbox();
const work = tempWorkDir();

type Who = 'mariama' | 'kofi' | 'aminataLaptop' | 'aminataOffice' | 'ibrahim' | 'fatmata';
const NAMES: Record<Who, string> = {
  mariama: 'Mariama Kanu',
  kofi: 'Kofi Mensah',
  aminataLaptop: 'Aminata Kamara',
  aminataOffice: 'Aminata Kamara',
  ibrahim: 'Ibrahim Sesay',
  fatmata: 'Fatmata Conteh',
};
const people = Object.fromEntries(Object.keys(NAMES).map((w) => [w, { ...tempConfigDir(), publicKey: '', fingerprint: '' }])) as Record<
  Who,
  { dir: string; cleanup(): void; publicKey: string; fingerprint: string }
>;
let policyFile: string;

const run = (who: Who, args: string[], opts: Omit<InProcessOptions, 'dir'> = {}): Promise<Run> => payctl(args, { dir: people[who].dir, ...opts });

function expectNothingSent(from: number): void {
  expect(payoutPosts(ctx.sb, from)).toEqual([]);
}

beforeAll(async () => {
  for (const who of Object.keys(NAMES) as Who[]) {
    const r = await run(who, ['keys', 'create', '--name', NAMES[who], '--json']);
    expect(r.code, r.stderr).toBe(0);
    const key = oneJson(r.stdout) as { public_key: string; fingerprint: string };
    people[who].publicKey = key.public_key;
    people[who].fingerprint = key.fingerprint;
    await writeLoggedIn(ctx.sb, people[who].dir);
  }
  policyFile = join(work.dir, 'policy.json');
  writeFileSync(
    policyFile,
    JSON.stringify({
      $comment: 'four eyes for the commands tests',
      members: {
        'Mariama Kanu': { keys: [people.mariama.publicKey], roles: ['maker'] },
        'Kofi Mensah': { keys: [people.kofi.publicKey], roles: ['maker'] },
        'Aminata Kamara': { keys: [people.aminataLaptop.publicKey, people.aminataOffice.publicKey], roles: ['approver'] },
      },
      approvers: { 'Ibrahim Sesay': people.ibrahim.publicKey, 'Fatmata Conteh': people.fatmata.publicKey },
      approvals: {
        SLE: [
          { from: '1000', required: 1 },
          { over: '100000', required: 2 },
        ],
        '*': [{ from: '500', required: 1 }],
      },
      max_per_payout: { SLE: '150000', '*': '900' },
      daily_total: { SLE: '400000' },
    }),
  );
  for (const who of Object.keys(NAMES) as Who[]) {
    const set = await run(who, ['config', 'set', 'policy', policyFile]);
    expect(set.code, set.stderr).toBe(0);
  }
});

afterAll(() => {
  for (const p of Object.values(people)) p.cleanup();
  work.cleanup();
});

beforeEach(() => ctx.sb.faults.clear());

/** A plan of `amounts` SLE from a fresh wallet made by `who`: its path, wallet and the run. */
async function madePlan(amounts: string[], who: Who = 'mariama', opts: Omit<InProcessOptions, 'dir'> = {}): Promise<{ path: string; wallet: string; made: Run }> {
  const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
  const file = planBatchFile(work.dir, wallet, amounts);
  const made = await run(who, ['plan', 'create', file, '--batch-id', `b-${randomUUID().slice(0, 8)}`], opts);
  expect(made.code, made.stderr).toBe(0);
  return { path: planPathOf(file), wallet, made };
}

describe('keys create and keys show', () => {
  it('keys create names the key after --name, else USER, else LOGNAME, else "payctl user"; prints only the public half', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ USER: 'amina', LOGNAME: 'other' }, 'amina'],
      [{ LOGNAME: 'kofi' }, 'kofi'],
      [{}, 'payctl user'],
    ];
    for (const [env, name] of cases) {
      const cfg = tempConfigDir();
      try {
        const r = await payctl(['keys', 'create'], { dir: cfg.dir, env });
        expect(r.code, r.stderr).toBe(0);
        const file = join(cfg.dir, 'signing-key.json');
        const record = JSON.parse(readFileSync(file, 'utf8')) as { name: string; public_key: string; private_key: string };
        expect(record.name).toBe(name);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(r.stdout).toContain(`Name         ${name}\n`);
        expect(r.stdout).toContain(`Public key   ${record.public_key}\n`);
        expect(r.stdout).toMatch(/^Fingerprint {2}SHA256:[A-Za-z0-9+/]{43}$/m);
        expect(r.stdout).toContain(`as a maker (makes plans):\n  "${name}": ${JSON.stringify({ keys: [record.public_key], roles: ['maker'] })}\n`);
        expect(r.stdout).toContain(
          `as an approver (approves other people's plans):\n  "${name}": ${JSON.stringify({ keys: [record.public_key], roles: ['approver'] })}\n`,
        );
        expect(r.stdout + r.stderr).not.toContain(record.private_key);
        expect(r.stderr).toBe(`✓ Signing key made for ${name}; the private half stays in ${cfg.dir} (mode 0600).\n`);
      } finally {
        cfg.cleanup();
      }
    }
  });

  it('keys show prints the card and --json the same key as keys create --json; a second keys create is refused and keeps the key', async () => {
    const cfg = tempConfigDir();
    try {
      const made = await payctl(['keys', 'create', '--name', 'Adaeze Obi', '--json'], { dir: cfg.dir });
      expect(made.code, made.stderr).toBe(0);
      expect(made.stderr).toBe('');
      const key = oneJson(made.stdout) as { name: string; public_key: string; fingerprint: string; created_at: string };
      expect(Object.keys(key).sort()).toEqual(['created_at', 'fingerprint', 'name', 'public_key']);
      expect(key.name).toBe('Adaeze Obi');
      expect(key.public_key).toMatch(/^ed25519:[A-Za-z0-9+/]{43}=$/);

      const shown = await payctl(['keys', 'show', '--json'], { dir: cfg.dir });
      expect(shown.code, shown.stderr).toBe(0);
      expect(oneJson(shown.stdout)).toEqual(key);
      const card = await payctl(['keys', 'show'], { dir: cfg.dir });
      expect(card.code, card.stderr).toBe(0);
      expect(card.stdout).toBe(
        `Name         Adaeze Obi\nPublic key   ${key.public_key}\nFingerprint  ${key.fingerprint}\n\n` +
          `For the policy file's "members", inside its braces, as a maker (makes plans):\n  "Adaeze Obi": ${JSON.stringify({ keys: [key.public_key], roles: ['maker'] })}\n` +
          `or as an approver (approves other people's plans):\n  "Adaeze Obi": ${JSON.stringify({ keys: [key.public_key], roles: ['approver'] })}\n` +
          `(a comma after each person but the last; both roles: "roles":["maker","approver"]; one person may list several keys)\n`,
      );

      const before = readFileSync(join(cfg.dir, 'signing-key.json'));
      const again = await payctl(['keys', 'create', '--name', 'Someone Else'], { dir: cfg.dir });
      expect(again.code).toBe(2);
      expect(again.stdout).toBe('');
      expect(again.stderr).toContain(`A signing key already exists in ${join(cfg.dir, 'signing-key.json')}; payctl never replaces one.`);
      expect(again.stderr).toContain('See it with: payctl keys show');
      expect(readFileSync(join(cfg.dir, 'signing-key.json')).equals(before)).toBe(true);
    } finally {
      cfg.cleanup();
    }
  });

  it('refused: keys show with no key, keys create with a name of control characters, a damaged key file (exit 2)', async () => {
    const cfg = tempConfigDir();
    try {
      const none = await payctl(['keys', 'show'], { dir: cfg.dir });
      expect(none.code).toBe(2);
      expect(none.stdout).toBe('');
      expect(none.stderr).toContain('No signing key on this machine. Nothing was changed.');
      expect(none.stderr).toContain('Make one with: payctl keys create --name "Your Name"');

      const bad = await payctl(['keys', 'create', '--name', 'Ama\u001b[31m'], { dir: cfg.dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--name must be 1 to 100 characters without control characters.');

      writeFileSync(join(cfg.dir, 'signing-key.json'), '{"name": "Ama"}', { mode: 0o600 });
      const damaged = await payctl(['keys', 'show'], { dir: cfg.dir });
      expect(damaged.code).toBe(2);
      expect(damaged.stderr).toContain(`The signing key ${join(cfg.dir, 'signing-key.json')} is damaged (fields missing).`);
      expect(damaged.stderr).toContain('Move it away and run `payctl keys create` to make a new one');
    } finally {
      cfg.cleanup();
    }
  });
});

describe('plan create', () => {
  it('--json: one JSON document with the plan, its hash, totals and the approvals the policy asks; nothing sent', async () => {
    const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
    const file = planBatchFile(work.dir, wallet, ['1500.50', '99.50']);
    const from = ctx.sb.requests().length;
    const r = await run('mariama', ['plan', 'create', file, '--batch-id', 'oct-stipends', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const plan = readPlanFile(planPathOf(file));
    expect(oneJson(r.stdout)).toEqual({
      plan: planPathOf(file),
      hash: plan.hash,
      batch_id: 'oct-stipends',
      payouts: 2,
      totals: [{ wallet_id: wallet, currency: 'SLE', count: 2, total: '1600.00' }],
      required_approvals: 1,
      reasons: ['1 approval: the SLE total 1,600.00 SLE is from 1000 (policy approvals.SLE)'],
    });
    // The hash is over the content in RFC 8785 form, and the maker is the key that made it.
    expect(planContentHash(plan)).toBe(plan.hash);
    expect(plan.maker).toEqual({ name: 'Mariama Kanu', public_key: people.mariama.publicKey, fingerprint: people.mariama.fingerprint });
    expect(plan.approvals).toEqual([]);
    expectNothingSent(from);
  });

  it('in text: where the plan is, the approvals needed and the commands that come next; with no approval needed, says so', async () => {
    const { path, made } = await madePlan(['250', '300']);
    expect(made.stdout).toBe('');
    expect(made.stderr).toContain(`Plan written to ${path}: 2 payouts, 550.00 SLE from `);
    expect(made.stderr).toContain('Nothing was sent.');
    expect(made.stderr).toContain('Approvals: none needed under the policy today.');
    expect(made.stderr).toContain(`Review it:          payctl plan show ${path}\n`);
    expect(made.stderr).toContain(`An approver signs:  payctl plan approve ${path}\n`);
    expect(made.stderr).toContain(`Then send it:       payctl plan send ${path}\n`);

    const big = await madePlan(['90000', '60000']);
    expect(big.made.stderr).toContain(
      'Approvals: 2 needed, from people other than you:\n  2 approvals: the SLE total 150,000.00 SLE is over 100000 (policy approvals.SLE)',
    );
  });

  it('refused, no plan written (exit 2): a bad --batch-id, no signing key, -o (or --plan-out) onto an existing file or into no folder, rows sent before with other details', async () => {
    const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
    const file = planBatchFile(work.dir, wallet, ['100', '200']);
    const badId = await run('mariama', ['plan', 'create', file, '--batch-id', 'a b']);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toMatch(/^Error: Cannot make this plan: /);

    const nokey = tempConfigDir();
    try {
      await writeLoggedIn(ctx.sb, nokey.dir);
      const r = await payctl(['plan', 'create', file], { dir: nokey.dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('No signing key on this machine. Nothing was changed.');
    } finally {
      nokey.cleanup();
    }

    const taken = join(work.dir, `taken-${randomUUID().slice(0, 6)}.json`);
    writeFileSync(taken, 'mine\n');
    const over = await run('mariama', ['plan', 'create', file, '-o', taken]);
    expect(over.code).toBe(2);
    expect(over.stderr).toContain(`Cannot write the plan ${taken}: a file of that name exists (a plan is never overwritten). Nothing was written.`);
    expect(over.stderr).toContain('Choose another name with -o.');
    expect(readFileSync(taken, 'utf8')).toBe('mine\n');
    // payout create names its own option; a folder that does not exist is said in words.
    const viaCreate = await run('mariama', [
      ...['payout', 'create', '--wallet', wallet, '--amount', '5', '--currency', 'SLE', '--type', 'wallet', '--name', 'Fatmata Sesay'],
      ...['--provider', 'orange_money', '--account', '076550009', '--phone', '+23276550009', '--plan-out', taken],
    ]);
    expect(viaCreate.code).toBe(2);
    expect(viaCreate.stderr).toContain('Choose another name with --plan-out.');
    expect(readFileSync(taken, 'utf8')).toBe('mine\n');
    const nowhere = join(work.dir, 'no-such-folder', 'p.plan.json');
    const missing = await run('mariama', ['plan', 'create', file, '-o', nowhere]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`Cannot write the plan ${nowhere}: its folder does not exist (ENOENT). Nothing was written.`);

    // Row 3's payout id was sent before, for another amount.
    const rowId = readFileSync(file, 'utf8').split('\n')[2]!.split(',')[0]!;
    const sent = await run('mariama', [
      ...['payout', 'create', '--wallet', wallet, '--amount', '201', '--currency', 'SLE', '--type', 'wallet', '--name', 'Fatmata Sesay 2'],
      ...['--provider', 'orange_money', '--account', '076550001', '--phone', '+23276550001', '--payout-id', rowId, '--yes'],
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    const conflict = await run('mariama', ['plan', 'create', file, '-o', join(work.dir, `conflict-${randomUUID().slice(0, 6)}.plan.json`)]);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toContain(`${file}: 1 row(s) conflict with earlier payouts. No plan was written.`);
    expect(conflict.stderr).toContain(`row 3: payout id "${rowId}" was already sent with other details`);

    // A file with a bad row: what did not happen is the plan.
    const bad = join(work.dir, `bad-${randomUUID().slice(0, 6)}.csv`);
    writeFileSync(bad, readFileSync(file, 'utf8').replace(/,SLE,/, ',XXQ,'));
    const refused = await run('mariama', ['plan', 'create', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${bad}: 1 problem. No plan was written.`);
    expect(refused.stderr).not.toContain('Nothing was sent');
  });

  it('a key the policy lists only as an approver makes no plan, naming who to ask', async () => {
    const file = planBatchFile(work.dir, freshWallet(ctx.sb, '1000.00', 'SLE'), ['100']);
    const r = await run('ibrahim', ['plan', 'create', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Your key ${people.ibrahim.fingerprint} is not a maker's: Ibrahim Sesay is listed only as an approver in the policy ${policyFile}`);
    expect(r.stderr).toContain(`Have whoever keeps the policy list you as a maker (your public key: ${people.ibrahim.publicKey}).`);
    // payout create --plan-out alike (it wrote the plan, and printed approve and send commands both then refused).
    const out = join(work.dir, `ibr-${randomUUID().slice(0, 8)}.plan.json`);
    const viaCreate = await run('ibrahim', [
      ...['payout', 'create', '--wallet', freshWallet(ctx.sb, '1000.00', 'SLE'), '--amount', '100', '--currency', 'SLE', '--type', 'bank'],
      ...['--name', 'Ibr Test', '--provider', 'ecobank', '--account', '12121212', '--plan-out', out],
    ]);
    expect(viaCreate.code).toBe(2);
    expect(viaCreate.stderr).toContain(`Your key ${people.ibrahim.fingerprint} is not a maker's`);
    expect(existsSync(out)).toBe(false);
  });
});

describe('plan show', () => {
  it("--json: every payout's body, the totals with balances before and after, the approvals, and the policy's judgement", async () => {
    const { path, wallet } = await madePlan(['90000.25', '15000']);
    expect((await run('ibrahim', ['plan', 'approve', path, '--yes'])).code).toBe(0);
    const r = await run('mariama', ['plan', 'show', path, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const plan = readPlanFile(path);
    const shown = oneJson(r.stdout) as Record<string, any>;
    expect(shown).toMatchObject({ plan: path, hash: plan.hash, base_url: ctx.sb.baseUrl, batch_id: plan.batch_id, created_at: plan.created_at, maker: plan.maker });
    expect(shown.payouts).toEqual(plan.payouts.map((p) => ({ row: p.row, payout_id: p.payout_id, idempotency_key: p.idempotency_key, body: JSON.parse(p.body) })));
    expect(shown.totals).toEqual([{ wallet_id: wallet, currency: 'SLE', count: 2, total: '105000.25', balance: '1000000.00', balance_after: '894999.75' }]);
    expect(shown.approvals).toEqual([{ name: 'Ibrahim Sesay', fingerprint: people.ibrahim.fingerprint, signed_at: plan.approvals[0]!.signed_at }]);
    expect(shown.policy).toEqual({
      file: policyFile,
      made_by: 'Mariama Kanu',
      required: 2,
      reasons: ['2 approvals: the SLE total 105,000.25 SLE is over 100000 (policy approvals.SLE)'],
      counted: [{ name: 'Ibrahim Sesay', fingerprint: people.ibrahim.fingerprint, signedAt: plan.approvals[0]!.signed_at }],
      not_counted: [],
      ignored: [],
      limits: [],
    });
    // For people: the balance it would leave said before fees, as payout batch says it (they are not known before sending).
    const text = await run('mariama', ['plan', 'show', path]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      `Totals\n  ${wallet}  2 payouts, 105,000.25 SLE; balance 1,000,000.00, after 894,999.75 before fees\n` +
        "Fees: charged by the service per payout, not known before sending; each accepted payout's fee is in the report.\n",
    );
  });

  it('without a policy and without the service: the maker by the name its key gives, no balances, and why', async () => {
    const { path } = await madePlan(['1200']);
    const cfg = tempConfigDir();
    try {
      writeProfile(cfg.dir, { baseUrl: `http://127.0.0.1:${await closedPort()}/v2`, apiKey: ctx.sb.apiKey });
      const clock = new TestClock();
      const r = await payctl(['plan', 'show', path], { dir: cfg.dir, clock });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Made by\\s+Mariama Kanu \\(${people.mariama.fingerprint.replace(/[+/]/g, '\\$&')}\\) at `, 'm'));
      expect(r.stdout).not.toContain('Policy');
      expect(r.stdout).not.toContain('balance');
      expect(r.stdout).toContain('Approvals\n  none yet\n');
      expect(r.stderr).toMatch(/Balances not shown: Could not connect to 127\.0\.0\.1:\d+: connection refused\./);
      const json = await payctl(['plan', 'show', path, '--json'], { dir: cfg.dir, clock: new TestClock() });
      expect(json.code, json.stderr).toBe(0);
      const shown = oneJson(json.stdout) as Record<string, any>;
      expect(shown.totals[0]).toMatchObject({ balance: null, balance_after: null });
      expect(shown).not.toHaveProperty('policy');
    } finally {
      cfg.cleanup();
    }
  });

  it('approvals as the policy judges them: who counts, who does not and why; a maker the policy does not list cannot send', async () => {
    const { path } = await madePlan(['2000']);
    expect((await run('aminataLaptop', ['plan', 'approve', path, '--yes'])).code).toBe(0);
    // Aminata's other key, added by hand: the same person.
    const plan = readPlanFile(path);
    const second = await run('aminataOffice', ['plan', 'approve', path, '--yes']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(
      'This plan already carries an approval by Aminata Kamara (with another of their keys); each person counts once. Nothing was changed.',
    );
    expect(readPlanFile(path)).toEqual(plan);
    const shown = await run('mariama', ['plan', 'show', path]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Counts: Aminata Kamara (${people.aminataLaptop.fingerprint}) at `);
    expect(shown.stdout).toContain(`Policy ${policyFile}: 1 approval needed from people other than the maker; 1 count (Aminata Kamara).`);
    expect(shown.stdout).toContain('  1 approval: the SLE total 2,000.00 SLE is from 1000 (policy approvals.SLE)');
  });
});

describe('plan files that are not whole plans are refused before anything (exit 2)', () => {
  let good: Plan;
  let goodPath: string;
  beforeAll(async () => {
    goodPath = (await madePlan(['1200', '1300'])).path;
    good = readPlanFile(goodPath);
  });

  /** `plan show` of a plan file with this text: its exit 2 and message. */
  async function refused(text: string): Promise<string> {
    const path = join(work.dir, `bad-${randomUUID().slice(0, 8)}.plan.json`);
    writeFileSync(path, text);
    const r = await run('mariama', ['plan', 'show', path]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    return r.stderr.replaceAll(path, '<plan>');
  }
  const edited = (change: (p: any) => void): string => {
    const p = structuredClone(good) as any;
    change(p);
    return JSON.stringify(p);
  };

  it('a file that is missing, a folder, or not JSON', async () => {
    const missing = await run('mariama', ['plan', 'show', join(work.dir, 'nope.plan.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`Cannot read the plan ${join(work.dir, 'nope.plan.json')}: no such file.`);
    const folder = join(work.dir, `folder-${randomUUID().slice(0, 6)}`);
    mkdirSync(folder);
    const dir = await run('mariama', ['plan', 'show', folder]);
    expect(dir.code).toBe(2);
    expect(dir.stderr).toContain(`Cannot read the plan ${folder}: it is a folder, not a regular file.`);
    expect(await refused('{"payctl_plan": 1,')).toContain(
      '<plan> is not a payctl plan: not valid JSON at line 1, column 19 (its end): expected double-quoted property name.',
    );
    expect(await refused('{\n  "payctl_plan": 1\n  "base_url": "x"\n}')).toContain(
      `<plan> is not a payctl plan: not valid JSON at line 3, column 3, the character '"': expected ',' or '}' after property value (a comma missing before it?).`,
    );
  });

  it.each<[string, (p: any) => void, string]>([
    ['another format', (p) => (p.payctl_plan = 2), 'payctl_plan must be 1'],
    ['base_url not a string', (p) => (p.base_url = 7), 'base_url must be a string'],
    ['batch_id a number', (p) => (p.batch_id = 7), 'batch_id must be a string or null'],
    ['the maker without a key', (p) => delete p.maker.public_key, 'maker must hold name, public_key and fingerprint'],
    ["the maker's fingerprint of another key", (p) => (p.maker.fingerprint = people.kofi.fingerprint), "the maker's fingerprint is not that of the maker's public key"],
    ['no payouts', (p) => (p.payouts = []), 'it holds no payouts'],
    ['totals not a list', (p) => (p.totals = {}), 'totals must be a list of objects'],
    ['approvals not a list', (p) => (p.approvals = null), 'approvals must be a list'],
    ['a payout without its body', (p) => delete p.payouts[1].body, 'payout 2 must hold payout_id, idempotency_key and body'],
    ['a row that is not a whole number', (p) => (p.payouts[0].row = 1.5), 'payout 1: row must be a whole number'],
    ['an idempotency key that is not a UUID', (p) => (p.payouts[0].idempotency_key = 'key-1'), 'payout 1: idempotency_key must be a UUID'],
    [
      'an approval without its signature',
      (p) => p.approvals.push({ name: 'X', public_key: 'k', fingerprint: 'f', signed_at: 't' }),
      'approval 1 must hold name, public_key, fingerprint, signed_at and signature',
    ],
    ['a number a plan cannot hold exactly', (p) => (p.totals[0].count = 2.5), 'the number 2.5 is not a whole number a plan can hold exactly'],
  ])('%s', async (_what, change, message) => {
    const stderr = await refused(edited(change));
    expect(stderr).toContain(`<plan> is not a valid payctl plan: ${message}. Nothing was sent.`);
  });

  it("a plan changed after it was made fails on its hash; re-hashed by hand, on the maker's signature; re-signed by its maker, every body is still checked", async () => {
    // Changed: the hash payctl computes (the one this test computes from the documented form) is not the plan's.
    const changed = edited((p) => (p.source = 'other.csv'));
    expect(await refused(changed)).toContain(
      `<plan> is not a valid payctl plan: its content does not match its hash (it was changed after it was made): ${planContentHash(JSON.parse(changed) as Plan)}, not ${good.hash}. Nothing was sent.`,
    );
    // Re-hashed by anyone: the maker's signature no longer holds.
    const rehashed = edited((p) => {
      p.source = 'other.csv';
      p.hash = planContentHash(p);
    });
    expect(await refused(rehashed)).toContain("<plan> is not a valid payctl plan: the maker's signature does not match the plan. Nothing was sent.");

    // Re-hashed and re-signed by the maker, who can read their own key file: whole as a plan, but the bodies are checked.
    const remade = (change: (p: any) => void): string => {
      const p = structuredClone(good) as any;
      change(p);
      return JSON.stringify(remadeByMaker(p, people.mariama.dir));
    };
    // The same plan re-signed is whole: the hash this test computes from the documented form is payctl's.
    const same = join(work.dir, `same-${randomUUID().slice(0, 6)}.plan.json`);
    writeFileSync(
      same,
      remade(() => {}),
    );
    expect((await run('mariama', ['plan', 'show', same])).code).toBe(0);

    const body = (p: any, i: number, f: (b: any) => void) => {
      const b = JSON.parse(p.payouts[i].body);
      f(b);
      p.payouts[i].body = JSON.stringify(b);
    };
    const id1 = good.payouts[0]!.payout_id;
    expect(await refused(remade((p) => (p.payouts[1].payout_id = id1)))).toContain(`payout id ${id1} appears twice`);
    expect(await refused(remade((p) => (p.payouts[0].body = '{"amount":')))).toContain(`<plan>: payout 1 (${id1}): its body is not JSON. Nothing was sent.`);
    expect(await refused(remade((p) => body(p, 0, (b) => (b.currency = 'XYZ'))))).toContain(
      `<plan>: payout 1 (${id1}): its body is not a valid payout. Nothing was sent.`,
    );
    expect(await refused(remade((p) => (p.payouts[0].body = p.payouts[0].body.replace('{', '{ '))))).toContain(
      `<plan>: payout 1 (${id1}): its body is not in the form payctl writes (changed by hand?). Nothing was sent.`,
    );
    expect(await refused(remade((p) => (p.payouts[0].payout_id = randomUUID())))).toMatch(/payout 1 \(\S+\): payout_id \S+ differs from the body's /);
    expect(await refused(remade((p) => (p.totals[0].total = '2600.00')))).toContain(
      '<plan> is not a valid payctl plan: its totals do not match its payouts. Nothing was sent.',
    );
  });
});

describe('plan approve', () => {
  it('two approvers approving one plan file at once: both approvals kept (one was dropped, though both were told it was added)', async () => {
    for (let trial = 0; trial < 4; trial++) {
      const { path } = await madePlan(['1500']);
      const [a, b] = await Promise.all([run('ibrahim', ['plan', 'approve', path, '--yes']), run('fatmata', ['plan', 'approve', path, '--yes'])]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      expect(
        readPlanFile(path)
          .approvals.map((x) => x.name)
          .sort(),
      ).toEqual(['Fatmata Conteh', 'Ibrahim Sesay']);
      expect(readdirSync(work.dir).filter((f) => f.endsWith('.approving'))).toEqual([]);
    }
  });

  it('at a terminal: the plan on stderr, then "Approve this plan as …?"; no signs nothing, yes signs', async () => {
    const { path } = await madePlan(['1500', '2500']);
    const before = readFileSync(path);
    const no = await run('ibrahim', ['plan', 'approve', path], { prompts: [{ confirm: /^Approve this plan as Ibrahim Sesay\?$/, answer: false }] });
    expect(no.code).toBe(2);
    expect(no.stderr).toContain(`Plan     ${path}\n`);
    expect(no.stderr).toContain(`Made by  Mariama Kanu, a maker in the policy (key ${people.mariama.fingerprint}) at `);
    expect(no.stderr).toContain('Total 4,000.00 SLE');
    expect(no.stderr).toContain('Approvals so far\n  none yet\n');
    expect(no.stderr).toContain('Nothing was signed.');
    expect(readFileSync(path).equals(before)).toBe(true);

    const yes = await run('ibrahim', ['plan', 'approve', path], { prompts: [{ confirm: /^Approve this plan as Ibrahim Sesay\?$/, answer: true }] });
    expect(yes.code, yes.stderr).toBe(0);
    const plan = readPlanFile(path);
    expect(yes.stderr).toContain(`Approved plan ${plan.hash} as Ibrahim Sesay (${people.ibrahim.fingerprint}); it now carries 1 approval.`);
    expect(plan.approvals.map((a) => [a.name, a.fingerprint])).toEqual([['Ibrahim Sesay', people.ibrahim.fingerprint]]);
  });

  it('--json reports the approval as one JSON document; without a terminal and without --yes nothing is signed', async () => {
    const { path } = await madePlan(['1500']);
    const refusedRun = await run('ibrahim', ['plan', 'approve', path]);
    expect(refusedRun.code).toBe(2);
    expect(refusedRun.stderr).toContain('--yes is required without a terminal: a plan is approved only by an explicit yes. Nothing was changed.');
    expect(refusedRun.stderr).toContain(`Review it first: payctl plan show ${path}`);
    expect(readPlanFile(path).approvals).toEqual([]);

    // A time of its own (a minute after the plan was made: one dated ahead of the approver is refused).
    const signedAt = new Date(Date.parse(readPlanFile(path).created_at) + 60_000).toISOString();
    const clock = new TestClock(new Date(signedAt));
    const r = await run('fatmata', ['plan', 'approve', path, '--yes', '--json'], { clock });
    expect(r.code, r.stderr).toBe(0);
    const plan = readPlanFile(path);
    expect(oneJson(r.stdout)).toEqual({
      plan: path,
      hash: plan.hash,
      approved_by: 'Fatmata Conteh',
      // Under a policy: the member the policy counts the key as (here the key file's name too).
      counted_as: 'Fatmata Conteh',
      fingerprint: people.fatmata.fingerprint,
      signed_at: signedAt,
      approvals: 1,
    });
    expect(plan.approvals[0]!.signed_at).toBe(signedAt);
  });

  it('under the policy, refused before signing: a key that is not an approver’s, the maker with another key, a plan whose maker is not listed', async () => {
    const { path } = await madePlan(['1500']);
    const kofi = await run('kofi', ['plan', 'approve', path, '--yes']);
    expect(kofi.code).toBe(2);
    expect(kofi.stderr).toContain(`your key ${people.kofi.fingerprint} is not an approver's in the policy ${policyFile}. Nothing was changed.`);
    expect(kofi.stderr).toContain('Give your public key (payctl keys show) to whoever keeps the policy file.');
    expect(readPlanFile(path).approvals).toEqual([]);

    // A plan made by someone the policy does not list (a folder without the policy).
    const stranger = tempConfigDir();
    try {
      expect((await payctl(['keys', 'create', '--name', 'Mariama Kanu'], { dir: stranger.dir })).code).toBe(0);
      await writeLoggedIn(ctx.sb, stranger.dir);
      const file = planBatchFile(work.dir, freshWallet(ctx.sb, '10000.00', 'SLE'), ['1500']);
      expect((await payctl(['plan', 'create', file], { dir: stranger.dir })).code).toBe(0);
      const r = await run('ibrahim', ['plan', 'approve', planPathOf(file), '--yes']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/Cannot approve the plan .*: it was made with the key SHA256:\S+ \(calling itself "Mariama Kanu"\), which the policy .* does not list/);
      // policy check says the same of it.
      const checked = await run('mariama', ['policy', 'check', planPathOf(file)]);
      expect(checked.code).toBe(1);
      expect(checked.stdout).toContain('Made by: no maker the policy lists: it was made with the key');
      expect(checked.stdout).toContain('It cannot be sent yet.');
    } finally {
      stranger.cleanup();
    }
  });
});

describe('plan send', () => {
  it('at a terminal: what is about to be sent, then "Send 2 payouts?"; no sends nothing, yes sends both', async () => {
    const { path, wallet } = await madePlan(['1500', '2500']);
    expect((await run('ibrahim', ['plan', 'approve', path, '--yes'])).code).toBe(0);
    const plan = readPlanFile(path);
    let from = ctx.sb.requests().length;
    const no = await run('mariama', ['plan', 'send', path], { prompts: [{ confirm: /^Send 2 payouts\?$/, answer: false }] });
    expect(no.code).toBe(2);
    expect(no.stderr).toContain(`Plan ${plan.hash}: 2 payouts to send (4,000.00 SLE from ${wallet}), made by Mariama Kanu, approved by Ibrahim Sesay.`);
    expect(no.stderr).toContain('Nothing was sent.');
    expectNothingSent(from);

    from = ctx.sb.requests().length;
    const yes = await run('mariama', ['plan', 'send', path], { prompts: [{ confirm: /^Send 2 payouts\?$/, answer: true }] });
    expect(yes.code, yes.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
  });

  it('refused, nothing sent (exit 2): without --yes off a terminal, without a policy, a plan from the future', async () => {
    const { path } = await madePlan(['100']);
    let from = ctx.sb.requests().length;
    const noYes = await run('mariama', ['plan', 'send', path]);
    expect(noYes.code).toBe(2);
    // As payout create says it, the flag a problem of its own (probe C53, 5).
    expect(noYes.stderr).toContain(
      `Cannot send the plan ${path}: 1 problem. Nothing was sent.\n  - --yes is required without a terminal: money never moves without an explicit yes\n`,
    );
    const noYesJson = JSON.parse((await run('mariama', ['plan', 'send', path, '--json'])).stderr) as { error: { errors: Array<{ field: string }> } };
    expect(noYesJson.error.errors.map((e) => e.field)).toEqual(['--yes']);

    const cfg = tempConfigDir();
    try {
      await writeLoggedIn(ctx.sb, cfg.dir);
      const noPolicy = await payctl(['plan', 'send', path, '--yes'], { dir: cfg.dir });
      expect(noPolicy.code).toBe(2);
      expect(noPolicy.stderr).toContain(`Cannot send the plan ${path}: the profile names no policy to judge its approvals by. Nothing was sent.`);
      expect(noPolicy.stderr).toContain("Name your team's policy file with: payctl config set policy <path>");
    } finally {
      cfg.cleanup();
    }

    const future = await madePlan(['100'], 'mariama', { clock: new TestClock(new Date(Date.now() + 86_400_000)) });
    const r = await run('mariama', ['plan', 'send', future.path, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/it was made on \S+, in the future\. Nothing was sent\./);
    expectNothingSent(from);
    // Nor is it approved: signed now, the approval would count once its date came, months on maybe.
    const before = readFileSync(future.path, 'utf8');
    const approve = await run('ibrahim', ['plan', 'approve', future.path, '--yes']);
    expect(approve.code).toBe(2);
    expect(approve.stderr).toMatch(/Cannot approve the plan \S+: it was made on \S+, in the future\. Nothing was signed\./);
    expect(readFileSync(future.path, 'utf8')).toBe(before);

    // Its creation time is not a time: refused too (the plan re-signed by its maker).
    const plan = readPlanFile(path) as any;
    plan.created_at = 'yesterday';
    const timeless = join(work.dir, `timeless-${randomUUID().slice(0, 6)}.plan.json`);
    writeFileSync(timeless, JSON.stringify(remadeByMaker(plan, people.mariama.dir)));
    from = ctx.sb.requests().length;
    const t = await run('mariama', ['plan', 'send', timeless, '--yes']);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('its creation time "yesterday" is not a time');
    expectNothingSent(from);
  });

  it('a payout of the plan sent before with other details, or a report of another batch: refused, nothing sent', async () => {
    const { path, wallet } = await madePlan(['100', '200']);
    const plan = readPlanFile(path);
    // A report of another batch where the plan's would go: refused, naming a free one that works.
    const report = join(work.dir, `held-${randomUUID().slice(0, 6)}.report.csv`);
    const other = planBatchFile(work.dir, wallet, ['10']);
    expect((await run('mariama', ['payout', 'batch', other, '--batch-id', 'nov', '--report', report, '--yes'])).code).toBe(0);
    let from = ctx.sb.requests().length;
    const held = await run('mariama', ['plan', 'send', path, '--yes', '--report', report]);
    expect(held.code).toBe(2);
    expect(held.stderr).toContain(`its report cannot be written: ${report} holds the report of batch "nov"`);
    const line = /^ {2}(payctl plan send .*)$/m.exec(held.stderr)?.[1];
    expect(line, held.stderr).toMatch(new RegExp(`^payctl plan send ${path} --report \\S+$`));
    expectNothingSent(from);
    const missing = await run('mariama', ['plan', 'send', path, '--yes', '--report', join(work.dir, 'no-such-folder', 'r.csv')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('its report cannot be written');
    expectNothingSent(from);

    // The plan's first payout id, sent directly for another amount.
    const first = plan.payouts[0]!.payout_id;
    const direct = await run('mariama', [
      ...['payout', 'create', '--wallet', wallet, '--amount', '101', '--currency', 'SLE', '--type', 'wallet', '--name', 'Fatmata Sesay 1'],
      ...['--provider', 'orange_money', '--account', '076550000', '--phone', '+23276550000', '--payout-id', first, '--yes'],
    ]);
    expect(direct.code, direct.stderr).toBe(0);
    from = ctx.sb.requests().length;
    const r = await run('mariama', ['plan', 'send', path, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('1 payout was sent before differently');
    expect(r.stderr).toContain(`payout 1 (${first}): already sent with other details`);
    // What to do, never the usage line: nothing typed was wrong.
    expect(r.stderr).toContain('To pay these rows as new payouts, make the plan again with another --batch-id');
    expect(r.stderr).not.toContain('for usage');
    expectNothingSent(from);
  });
});

describe('policy check', () => {
  it('a batch file needing approval: exit 1, why, and the plan create command; --json says the same', async () => {
    const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
    const file = planBatchFile(work.dir, wallet, ['700', '800']);
    const r = await run('mariama', ['policy', 'check', file, '--batch-id', 'dec']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      `${file}: a batch of 2 payouts, under the policy ${policyFile}.\n` +
        'Approvals: 1 needed.\n  1 approval: the SLE total 1,500.00 SLE is from 1000 (policy approvals.SLE)\n' +
        'Limits: none broken.\n' +
        `It cannot be sent directly. Make a plan for approval: payctl plan create ${file} --batch-id dec\n`,
    );
    const json = await run('mariama', ['policy', 'check', file, '--batch-id', 'dec', '--json']);
    expect(json.code).toBe(1);
    expect(oneJson(json.stdout)).toEqual({
      file,
      kind: 'batch',
      policy: policyFile,
      payouts: 2,
      required_approvals: 1,
      reasons: ['1 approval: the SLE total 1,500.00 SLE is from 1000 (policy approvals.SLE)'],
      limits: [],
      sendable: false,
      make_plan: `payctl plan create ${file} --batch-id dec`,
    });
  });

  it("a batch file whose rows a named batch sent: plan create's refusal and its command, never a plan create it refuses", async () => {
    const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
    const tag = randomUUID().slice(0, 8);
    const digits = String(Date.now()).slice(-5);
    // No payout_id column: each row's id is derived from the batch id, as in a payroll kept in a spreadsheet.
    const file = join(work.dir, `stipends-${tag}.csv`);
    writeFileSync(
      file,
      'wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n' +
        [1, 2].map((i) => `${wallet},${i}500.00,SLE,wallet,Fatmata Sesay ${i},orange_money,0765${digits}${i},+23276510${i},stipend`).join('\n') +
        '\n',
    );
    const batch = `oct-${tag}`;
    expect((await run('mariama', ['plan', 'create', file, '--batch-id', batch])).code).toBe(0);
    expect((await run('ibrahim', ['plan', 'approve', planPathOf(file), '--yes'])).code).toBe(0);
    const sent = await run('mariama', ['plan', 'send', planPathOf(file), '--yes']);
    expect(sent.code, sent.stderr).toBe(0);

    const r = await run('mariama', ['policy', 'check', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('Make a plan for approval');
    expect(r.stdout).toContain(
      `It cannot be sent directly, and plan create refuses to make a plan of it as it is:\n  ${file}: 2 rows match payouts already sent in batch "${batch}"`,
    );
    // The batch accepted every row: no plan of "the rest of that batch" (it was one of nothing), that said.
    expect(r.stdout).not.toContain('To plan the rest of that batch');
    expect(r.stdout).toContain(`  Batch "${batch}" accepted every row of the file: there is nothing left of it to plan.\n`);
    // What plan create says of the same file, in the same words.
    const refused = await run('mariama', ['plan', 'create', file, '-o', join(work.dir, `${tag}-x.plan.json`)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`2 rows match payouts already sent in batch "${batch}"`);
    const json = oneJson((await run('mariama', ['policy', 'check', file, '--json'])).stdout) as Record<string, any>;
    expect(json).not.toHaveProperty('make_plan');
    expect(json.plan_refused.message).toMatch(/this plan would pay them again\.$/);
    expect(json.plan_refused.hint).toContain('there is nothing left of it to plan');
    // Its command, run as printed, makes the plan: the file's plan is already written (the one sent),
    // so it writes beside it (before, it named no -o and was refused: "a file of that name exists").
    const againArgs = shellSplit(/To plan paying these rows again as new payouts:\s+(payctl .*)$/m.exec(r.stdout)![1]!).slice(1);
    expect(againArgs.at(-2)).toBe('-o');
    expect(againArgs.at(-1)).not.toBe(planPathOf(file));
    const again = await run('mariama', againArgs);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`Plan written to ${againArgs.at(-1)!}: 2 payouts`);
  });

  it('a batch that needs a plan, its plan already written: the plan create offered writes beside it', async () => {
    const file = planBatchFile(work.dir, freshWallet(ctx.sb, '100000.00', 'SLE'), ['1500']);
    writeFileSync(planPathOf(file), '{}\n');
    const r = await run('mariama', ['policy', 'check', file, '--batch-id', 'nov']);
    expect(r.code).toBe(1);
    const out = planPathOf(file).replace(/\.plan\.json$/, '.nov.plan.json');
    expect(r.stdout).toContain(`Make a plan for approval: payctl plan create ${file} --batch-id nov -o ${out}\n`);
    const made = await run('mariama', shellSplit(/Make a plan for approval: (payctl .*)$/m.exec(r.stdout)![1]!).slice(1));
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`Plan written to ${out}`);
    // payout batch's refusal offers the same.
    const batch = await run('mariama', ['payout', 'batch', file, '--batch-id', 'dec', '--yes']);
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain(`payctl plan create ${file} --batch-id dec -o ${planPathOf(file).replace(/\.plan\.json$/, '.dec.plan.json')}`);
  });

  it('a small batch can be sent directly (exit 0); one over a limit cannot, naming the rule ("*" for currencies not named)', async () => {
    const small = planBatchFile(work.dir, freshWallet(ctx.sb, '1000.00', 'SLE'), ['10']);
    const ok = await run('mariama', ['policy', 'check', small]);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toContain(`Approvals: none needed.\nLimits: none broken.\nIt can be sent directly: payctl payout batch ${small}\n`);

    const ngn = freshWallet(ctx.sb, '100000.00', 'NGN');
    const file = join(work.dir, `ngn-${randomUUID().slice(0, 6)}.csv`);
    writeFileSync(file, `${PLAN_BATCH_HEADER}ngn-1,${ngn},950,NGN,bank,Chinedu Okafor,ecobank,0123456789,,\n`);
    const over = await run('mariama', ['policy', 'check', file]);
    expect(over.code).toBe(1);
    expect(over.stdout).toContain('Approvals: 1 needed.\n  1 approval: the NGN total 950.00 NGN is from 500 (policy approvals.*)\n');
    expect(over.stdout).toContain('Limits broken:\n  payout ngn-1: 950.00 NGN is over the per-payout maximum of 900.00 NGN (policy max_per_payout.*)\n');
    expect(over.stdout).toContain('It cannot be sent.\n');
    const json = oneJson((await run('mariama', ['policy', 'check', file, '--json'])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ kind: 'batch', required_approvals: 1, sendable: false });
    expect(json).not.toHaveProperty('make_plan');
  });

  it('a plan: who made it and who approved, exit 1 until it carries enough, then 0; --json names them', async () => {
    const { path } = await madePlan(['1500']);
    const before = await run('mariama', ['policy', 'check', path]);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(`${path}: a plan of 1 payout, under the policy ${policyFile}.\n`);
    expect(before.stdout).toContain(`Made by: Mariama Kanu (key ${people.mariama.fingerprint}).\nApproved by: 0 that count.\n`);
    expect(before.stdout).toContain('It cannot be sent yet.\n');
    // plan send refuses it, naming how an approver signs it: quoted for a shell, as printed.
    const odd = join(work.dir, `b2 $(id) ${randomUUID().slice(0, 6)}.plan.json`);
    copyFileSync(path, odd);
    const refused = await run('mariama', ['plan', 'send', odd, '--yes']);
    expect(refused.code).not.toBe(0);
    const sign = /An approver signs it, on their own machine, [^:]*: (payctl .*)$/m.exec(refused.stderr)?.[1];
    expect(sign, refused.stderr).toBe(`payctl plan approve '${odd}'`);
    expect(shellSplit(sign!)).toEqual(['payctl', 'plan', 'approve', odd]);
    expect((await run('ibrahim', ['plan', 'approve', path, '--yes'])).code).toBe(0);
    const after = await run('mariama', ['policy', 'check', path]);
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toContain('Approved by: 1 that count: Ibrahim Sesay.\n');
    expect(after.stdout).toContain(`It can be sent: payctl plan send ${path}\n`);
    const json = oneJson((await run('mariama', ['policy', 'check', path, '--json'])).stdout) as Record<string, any>;
    expect(json).toMatchObject({ file: path, kind: 'plan', payouts: 1, required_approvals: 1, made_by: 'Mariama Kanu', not_counted: [], sendable: true });
    expect(json.counted).toEqual([expect.objectContaining({ name: 'Ibrahim Sesay', fingerprint: people.ibrahim.fingerprint })]);
  });

  it('refused (exit 2): no policy in the profile; a policy file gone or broken since it was set, every problem named', async () => {
    const file = planBatchFile(work.dir, freshWallet(ctx.sb, '1000.00', 'SLE'), ['10']);
    const cfg = tempConfigDir();
    try {
      await writeLoggedIn(ctx.sb, cfg.dir);
      const none = await payctl(['policy', 'check', file], { dir: cfg.dir });
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('The profile names no policy.');
      expect(none.stderr).toContain("Name your team's policy file with: payctl config set policy <path>");

      const policy = join(work.dir, `changing-${randomUUID().slice(0, 6)}.json`);
      writeFileSync(policy, JSON.stringify({ approvers: {}, daily_total: { SLE: '100' } }));
      expect((await payctl(['config', 'set', 'policy', policy], { dir: cfg.dir })).code).toBe(0);
      writeFileSync(policy, JSON.stringify({ approvers: {}, daily_total: { SLE: 'lots' }, limits: 1 }));
      const broken = await payctl(['policy', 'check', file], { dir: cfg.dir });
      expect(broken.code).toBe(2);
      expect(broken.stderr).toContain(`The policy ${policy} is not valid. Nothing was sent.\n`);
      expect(broken.stderr).toContain('  unknown field "limits" (known: $comment, members, makers, approvers, approvals, max_per_payout, daily_total)\n');
      expect(broken.stderr).toContain('  daily_total.SLE: "lots" is not an amount in SLE\n');

      writeFileSync(policy, '{"approvers":');
      const notJson = await payctl(['policy', 'check', file], { dir: cfg.dir });
      expect(notJson.code).toBe(2);
      expect(notJson.stderr).toContain(`Cannot read the policy ${policy}: it is not valid JSON: it ends before the JSON does. Nothing was sent.`);
      expect(notJson.stderr).toContain('Fix the file, or see the policy in force with: payctl config get policy');
    } finally {
      cfg.cleanup();
    }
  });
});

describe('config set policy: every problem of a policy file at once', () => {
  it('names each problem, and the policy is not set', async () => {
    const cfg = tempConfigDir();
    try {
      await writeLoggedIn(ctx.sb, cfg.dir);
      const bad = join(work.dir, `bad-policy-${randomUUID().slice(0, 6)}.json`);
      writeFileSync(
        bad,
        JSON.stringify({
          members: {
            'Ama Owusu': 'maker',
            'Kojo Mensah': { keys: ['ed25519:short'], roles: ['maker'], team: 'ops' },
            'Efua Boateng': { keys: [people.kofi.publicKey], roles: ['boss'] },
            'Yaw Darko': { keys: [], roles: ['approver'] },
            '  ': { keys: [people.fatmata.publicKey], roles: ['maker'] },
          },
          makers: 'Kojo Mensah',
          approvers: { 'kojo  mensah': people.ibrahim.publicKey },
          approvals: {
            XYZ: [{ from: '1', required: 1 }],
            SLE: 'one',
            NGN: [
              { from: '1', over: '2', required: 1 },
              { from: '1', required: 11 },
              { from: '-5', required: 1 },
              { over: true, required: 1 },
            ],
          },
          max_per_payout: 'none',
          daily_total: { SLE: 'lots' },
        }),
      );
      const r = await payctl(['config', 'set', 'policy', bad], { dir: cfg.dir });
      expect(r.code).toBe(2);
      for (const problem of [
        'members.Ama Owusu must be { "keys": ["ed25519:…"], "roles": ["maker", "approver"] }',
        'members.Kojo Mensah: unknown field "team" (known: keys, roles)',
        'members.Kojo Mensah.keys[0]: not a public key as payctl keys show prints it ("ed25519:…")',
        'members.Efua Boateng.roles must list "maker", "approver" or both',
        "members.Yaw Darko.keys: give the person's public key(s) as payctl keys show prints them",
        'members.  .keys: a name must be 1 to 100 characters without control characters',
        'makers must map names to public keys',
        `approvers.kojo  mensah: "kojo  mensah" is written "Kojo Mensah" elsewhere; write one person's name the same way everywhere`,
        'approvals: "XYZ" is not a currency code (or "*")',
        'approvals.SLE must be a list of tiers',
        'approvals.NGN[0] needs one of "from" or "over", and "required"',
        'approvals.NGN[1].required must be a whole number from 0 to 10',
        'approvals.NGN[2].from: "-5" is not an amount in NGN',
        'approvals.NGN[3].over must be an amount as a string ("1000.00")',
        'max_per_payout must map currencies to amounts',
        'daily_total.SLE: "lots" is not an amount in SLE',
      ]) {
        expect(r.stderr).toContain(problem);
      }
      expect(r.stderr).toContain(`The policy was not set in profile "default"`);

      for (const [text, why] of [
        ['[]', 'it must be a JSON object'],
        ['{"members": []}', 'members must map names to'],
        ['{"approvals": []}', 'approvals must map currencies to lists of tiers'],
        // Two members pasted as whole objects (as keys show printed them before): where, and the character there.
        [
          `{\n  "members": {\n    {"Ama Owusu":{"keys":["${people.kofi.publicKey}"],"roles":["maker"]}}\n  }\n}\n`,
          `it is not valid JSON at line 3, column 5, the character '{': expected property name or '}' (an object pasted whole where its entries go?)`,
        ],
        // The comma between two people left out.
        [
          `{\n  "members": {\n    "Ama Owusu": {"keys":["${people.kofi.publicKey}"],"roles":["maker"]}\n    "Yaw Darko": {"keys":["${people.ibrahim.publicKey}"],"roles":["approver"]}\n  }\n}\n`,
          `it is not valid JSON at line 4, column 5, the character '"': expected ',' or '}' after property value (a comma missing before it?)`,
        ],
        // A word processor's quotes: named, with their code point.
        ['{\n  "max_per_payout": { "SLE": \u201c250000\u201d }\n}', `it is not valid JSON at line 2, column 30, the character '\u201c' (U+201C)`],
      ] as const) {
        writeFileSync(bad, text);
        const again = await payctl(['config', 'set', 'policy', bad], { dir: cfg.dir });
        expect(again.code, text).toBe(2);
        expect(again.stderr, text).toContain(why);
      }
    } finally {
      cfg.cleanup();
    }
  });
});
