/**
 * What an approver reviews (README "Four eyes"), in process against the sandbox over real HTTP,
 * each person with their own config folder and key: `plan show` and the screen of `plan approve`
 * show every field a payout sends, its note and metadata too (they are in the signed body; an
 * approver signed a note "Refund to attacker account 999" never shown), only under the rows that
 * have them; a note with control characters never reaches the screen (no valid plan holds one);
 * and `plan approve` names the approver as the policy counts their key (the key file's own name
 * differing is said in a warning), and without a policy as the key file does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl, type InProcessOptions } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { tempWorkDir } from '../helpers/batch.js';
import { readPlanFile, remadeByMaker } from '../helpers/four-eyes.js';
import { loadSigningKey } from '../../src/plans/keys.js';

const ctx = useSandbox();
const work = tempWorkDir();

type Who = 'mariama' | 'ibrahim' | 'fatmata' | 'kofi';
/** The names their key files give. Ibrahim's key is listed in the policy as Aminata Kamara's; Kofi's profile has no policy. */
const KEY_NAMES: Record<Who, string> = { mariama: 'Mariama Kanu', ibrahim: 'Ibrahim Sesay', fatmata: 'Fatmata Conteh', kofi: 'Kofi Mensah' };
const people = Object.fromEntries(Object.keys(KEY_NAMES).map((w) => [w, tempConfigDir()])) as Record<Who, { dir: string; cleanup(): void }>;
let policyFile: string;

const run = (who: Who, args: string[], opts: Omit<InProcessOptions, 'dir'> = {}): Promise<Run> => payctl(args, { dir: people[who].dir, ...opts });
const fingerprint = (who: Who): string => loadSigningKey(people[who].dir)!.fingerprint;

beforeAll(async () => {
  for (const who of Object.keys(KEY_NAMES) as Who[]) {
    const r = await run(who, ['keys', 'create', '--name', KEY_NAMES[who]]);
    expect(r.code, r.stderr).toBe(0);
    await writeLoggedIn(ctx.sb, people[who].dir);
  }
  const key = (who: Who) => loadSigningKey(people[who].dir)!.publicKey;
  policyFile = join(work.dir, 'policy.json');
  writeFileSync(
    policyFile,
    JSON.stringify({
      members: {
        'Mariama Kanu': { keys: [key('mariama')], roles: ['maker'] },
        'Aminata Kamara': { keys: [key('ibrahim')], roles: ['approver'] },
        'Fatmata Conteh': { keys: [key('fatmata')], roles: ['approver'] },
      },
      approvals: { SLE: [{ from: '1000', required: 1 }] },
    }),
  );
  for (const who of ['mariama', 'ibrahim', 'fatmata'] as Who[]) {
    const set = await run(who, ['config', 'set', 'policy', policyFile]);
    expect(set.code, set.stderr).toBe(0);
  }
});

afterAll(() => {
  for (const p of Object.values(people)) p.cleanup();
  work.cleanup();
});

let made = 0;
/** A plan made by Mariama of `rows` (CSV lines after the header, `W` for a fresh wallet): its path. */
async function madePlan(rows: string[]): Promise<string> {
  const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  const file = join(work.dir, `review-${++made}.csv`);
  const header = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note,metadata.ref,metadata.dept\n';
  writeFileSync(file, header + rows.map((r) => r.replaceAll('W', wallet)).join('\n') + '\n');
  const r = await run('mariama', ['plan', 'create', file, '--batch-id', `review-${made}`]);
  expect(r.code, r.stderr).toBe(0);
  return file.replace(/\.csv$/, '.plan.json');
}

const ROWS = [
  ',W,1500.00,SLE,bank,Note Test,ecobank,0085000002,,Refund to attacker account 999,INV-1,"ops, ""west"""',
  ',W,20.00,SLE,bank,Plain Row,ecobank,0085000003,,,,',
  ',W,30.00,SLE,wallet,Only Meta,orange_money,076000111,+23276000111,,INV-3,',
];

/** What the review shows of ROWS under each payout line: the first row's note and metadata, the third's metadata; nothing under the second. */
function expectFieldsShown(screen: string): void {
  const lines = screen.split('\n');
  const at = (name: string) => lines.findIndex((l) => l.includes(`to ${name} (`));
  const first = at('Note Test');
  expect(lines.slice(first + 1, first + 3)).toEqual(['    note: "Refund to attacker account 999"', '    metadata: ref="INV-1", dept="ops, \\"west\\""']);
  expect(lines[at('Plain Row') + 1]).toMatch(/^ {2}row 4: /);
  const third = at('Only Meta');
  expect(lines[third]).toContain('(wallet, orange_money 076000111, +23276000111)');
  expect(lines[third + 1]).toBe('    metadata: ref="INV-3"');
  expect(lines[third + 2]).not.toMatch(/^ {4}note:/);
}

describe('every field a payout sends is reviewed', () => {
  it('plan show prints each note and metadata pair under its row, and only under rows that have them', async () => {
    const path = await madePlan(ROWS);
    const show = await run('fatmata', ['plan', 'show', path]);
    expect(show.code, show.stderr).toBe(0);
    expectFieldsShown(show.stdout);
    // What the review shows is what is sent: the same note and metadata in the signed body.
    const body = JSON.parse(readPlanFile(path).payouts[0]!.body) as { recipient: { accountDetails: { note: string } }; metadata: Record<string, string> };
    expect(body.recipient.accountDetails.note).toBe('Refund to attacker account 999');
    expect(body.metadata).toEqual({ ref: 'INV-1', dept: 'ops, "west"' });
  });

  it("plan approve's screen shows them before asking", async () => {
    const path = await madePlan(ROWS);
    const r = await run('fatmata', ['plan', 'approve', path], { prompts: [{ confirm: /^Approve this plan as Fatmata Conteh\?$/, answer: false }] });
    expect(r.code).toBe(2);
    expectFieldsShown(r.stderr);
    expect(r.stderr).toContain('Nothing was signed.');
  });

  it('a note with an escape sequence never reaches the screen: plan create refuses it, and a plan made whole by hand with one is refused', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const file = join(work.dir, 'hostile.csv');
    writeFileSync(
      file,
      `payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n,${wallet},1500.00,SLE,bank,Note Test,ecobank,0085000002,,Nov \u001b[2Jstipend\n`,
    );
    const create = await run('mariama', ['plan', 'create', file, '--batch-id', 'hostile']);
    expect(create.code).toBe(2);
    expect(create.stderr).toContain('must not contain control characters');

    const path = await madePlan([ROWS[1]!]);
    const plan = readPlanFile(path);
    plan.payouts[0]!.body = plan.payouts[0]!.body.replace('"phoneNumber":null', '"phoneNumber":null,"note":"Nov \\u001b[2Jstipend"');
    expect(plan.payouts[0]!.body).toContain('"note":"Nov \\u001b[2Jstipend"');
    writeFileSync(path, JSON.stringify(remadeByMaker(plan, people.mariama.dir), null, 2));
    const show = await run('fatmata', ['plan', 'show', path]);
    expect(show.code).toBe(2);
    expect(show.stdout).toBe('');
    expect(show.stderr).not.toContain('\u001b');
    expect(readFileSync(path, 'utf8')).toContain('\\u001b[2J');
  });
});

describe('plan approve names the approver as the policy counts their key', () => {
  it('under a policy: the question and the success line name the member; a key file naming someone else is said in a warning', async () => {
    const path = await madePlan(['stipend-1,W,1500.00,SLE,bank,Musa Bangura,ecobank,0085000010,,,,']);
    const warning = `Warning: Your key file names you Ibrahim Sesay; the policy ${policyFile} counts this key (${fingerprint('ibrahim')}) as Aminata Kamara, and so does this approval.`;
    const r = await run('ibrahim', ['plan', 'approve', path], { prompts: [{ confirm: /^Approve this plan as Aminata Kamara\?$/, answer: true }] });
    expect(r.code, r.stderr).toBe(0);
    const plan = readPlanFile(path);
    // The warning comes after the plan's screen, just before the question: a long plan would scroll it away.
    expect(r.stderr.indexOf(warning)).toBeGreaterThan(r.stderr.indexOf('Approvals so far'));
    expect(r.stderr).toContain(`Approved plan ${plan.hash} as Aminata Kamara (${fingerprint('ibrahim')}); it now carries 1 approval.`);
    expect(r.stderr).not.toContain('as Ibrahim Sesay');
    const show = await run('fatmata', ['plan', 'show', path]);
    expect(show.stdout).toContain(`Counts: Aminata Kamara (${fingerprint('ibrahim')})`);

    const other = await madePlan(['stipend-2,W,1500.00,SLE,bank,Musa Bangura,ecobank,0085000011,,,,']);
    const json = await run('ibrahim', ['plan', 'approve', other, '--yes', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(oneJson(json.stdout)).toMatchObject({ approved_by: 'Ibrahim Sesay', counted_as: 'Aminata Kamara', approvals: 1 });
    expect(json.stderr).toContain(JSON.stringify({ warning: warning.replace(/^Warning: /, '') }));
  });

  it('a key file that names its member: no warning; without a policy, the key file names the approver and --json has no counted_as', async () => {
    const path = await madePlan(['stipend-3,W,1500.00,SLE,bank,Musa Bangura,ecobank,0085000012,,,,']);
    const fatmata = await run('fatmata', ['plan', 'approve', path, '--yes']);
    expect(fatmata.code, fatmata.stderr).toBe(0);
    expect(fatmata.stderr).toMatch(/^✓ Approved plan sha256:[0-9a-f]{64} as Fatmata Conteh \(SHA256:[^)]+\); it now carries 1 approval\.\n$/);

    const kofi = await run('kofi', ['plan', 'approve', path], { prompts: [{ confirm: /^Approve this plan as Kofi Mensah\?$/, answer: true }] });
    expect(kofi.code, kofi.stderr).toBe(0);
    expect(kofi.stderr).toContain(`as Kofi Mensah (${fingerprint('kofi')})`);
    expect(kofi.stderr).not.toContain('Warning');
    const path2 = await madePlan(['stipend-4,W,1500.00,SLE,bank,Musa Bangura,ecobank,0085000013,,,,']);
    const json = await run('kofi', ['plan', 'approve', path2, '--yes', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(oneJson(json.stdout)).not.toHaveProperty('counted_as');
    expect(oneJson(json.stdout)).toMatchObject({ approved_by: 'Kofi Mensah' });
  });
});
