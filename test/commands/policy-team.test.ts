/**
 * The team's policy in the shared ledger (issue #30), in process against the sandbox and a real
 * PostgreSQL: config folders stand for people's machines, all on one database. The first policy
 * proposed is adopted at once; a change waits for the approvals the policy in force asks and is
 * adopted by the last one; what is refused (exit 2, nothing stored): the proposer approving, a
 * key the policy does not list as an approver's, one key twice, an unknown hash, a change
 * proposed with a key the policy in force does not list (a second key of a listed person: at
 * propose, at approve, and a version adopted from one, when read), a policy row changed in the
 * database (and then nothing is sent). An approval row written in the database that does not
 * verify is left out, never a refusal: its key's owner approves in its place, others approve,
 * and payouts go on. And the policy a payout goes by is the team's, whatever the profile's own
 * `policy` setting says.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { bankPayout } from '../helpers/four-eyes.js';
import { loadSigningKey, type SigningKey } from '../../src/plans/keys.js';
import { canonicalPolicy, signedProposal, signPolicyApproval } from '../../src/plans/team-policy.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { sharedPostgres, sql } from '../helpers/postgres.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const work = tempWorkDir();
const names = ['alice', 'bob', 'carol', 'dave', 'local'] as const;
const folders = names.map(() => tempConfigDir());
const dir = Object.fromEntries(names.map((n, i) => [n, folders[i]!.dir])) as Record<(typeof names)[number], string>;
const keys: Record<string, string> = {};

const run = (who: keyof typeof dir, args: string[], input?: string): Promise<Run> => payctl(args, { dir: dir[who], input });

/** How many policy rows and approvals the ledger holds. */
async function counts(url: string): Promise<[number, number]> {
  const [p] = await sql<{ n: number }>(url, 'SELECT count(*)::int AS n FROM payctl_policies');
  const [a] = await sql<{ n: number }>(url, 'SELECT count(*)::int AS n FROM payctl_policy_approvals');
  return [p!.n, a!.n];
}

/** A policy file: Alice proposes, Bob and Carol approve (a change needs `required`, 2 unless told), daily_total as given. */
function policyFile(daily: string, required = 2): string {
  const file = join(work.dir, `policy-${daily}-${required}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      members: {
        Alice: { keys: [keys.alice], roles: ['maker', 'approver'] },
        Bob: { keys: [keys.bob], roles: ['approver'] },
        Carol: { keys: [keys.carol], roles: ['approver'] },
      },
      approvals: { SLE: [{ over: '5000', required }] },
      daily_total: { SLE: daily },
    }),
  );
  return file;
}

/** Every machine but `local` on a fresh database: its URL. */
async function onFreshLedger(): Promise<string> {
  const url = await (await sharedPostgres()).freshDatabase('policies');
  for (const who of ['alice', 'bob', 'carol', 'dave'] as const) {
    const set = await run(who, ['config', 'set', 'ledger', '--stdin'], `${url}\n`);
    expect(set.code, set.stderr).toBe(0);
  }
  return url;
}

/** Alice's policy (daily_total 2000) adopted as version 1, and her proposal raising it: its hash. */
async function adoptedThenProposed(): Promise<{ url: string; hash: string }> {
  const url = await onFreshLedger();
  const first = await run('alice', ['policy', 'propose', policyFile('2000')]);
  expect(first.code, first.stderr).toBe(0);
  const change = await run('alice', ['policy', 'propose', policyFile('9000'), '--json']);
  expect(change.code, change.stderr).toBe(0);
  const out = JSON.parse(change.stdout) as { hash: string; adopted: boolean; required_approvals: number; approvers: string[]; approve: string };
  expect(out).toMatchObject({ adopted: false, required_approvals: 2, approvers: ['Bob', 'Carol'], approve: `payctl policy approve ${out.hash}` });
  return { url, hash: out.hash };
}

beforeAll(async () => {
  for (const who of names) {
    await writeLoggedIn(ctx.sb, dir[who]);
    const made = await run(who, ['keys', 'create', '--name', who[0]!.toUpperCase() + who.slice(1), '--json']);
    expect(made.code, made.stderr).toBe(0);
    keys[who] = (JSON.parse(made.stdout) as { public_key: string }).public_key;
  }
});
afterAll(() => {
  for (const f of folders) f.cleanup();
  work.cleanup();
});

describe("the team's policy in the shared ledger", () => {
  it('with the local journal, propose, approve and show exit 2 with the command that sets a shared ledger', async () => {
    for (const args of [
      ['policy', 'show'],
      ['policy', 'propose', policyFile('2000')],
      ['policy', 'approve', 'sha256:' + '0'.repeat(64)],
    ]) {
      const r = await run('local', args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain("The team's policy needs a shared ledger");
      expect(r.stderr).toContain('payctl config set ledger --stdin');
    }
  });

  it('the first proposal is adopted at once; a change is adopted by the second of the two approvals it needs, and shown', async () => {
    const url = await onFreshLedger();
    const empty = await run('bob', ['policy', 'show']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toContain('The shared ledger holds no team policy');

    const first = await run('alice', ['policy', 'propose', policyFile('2000')]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("adopted as the team's policy, version 1");

    // The approvers' commands carry none of the proposer's options (here --timeout): they run on their machines (probe 49-O).
    const change = await run('alice', ['policy', 'propose', policyFile('9000'), '--timeout', '20']);
    expect(change.code, change.stderr).toBe(0);
    const hash = /^Hash (sha256:[0-9a-f]{64})$/m.exec(change.stderr)![1]!;
    expect(change.stderr).toContain('It needs 2 approvals from: Bob, Carol');
    expect(change.stderr).toContain(
      `An approver signs:  payctl policy approve ${hash}\n                    (on their own machine, with their own key and a profile that shares this ledger)`,
    );
    expect(change.stderr).toContain('Review it:          payctl policy show --timeout 20');

    const once = await run('bob', ['policy', 'approve', hash, '--timeout', '20']);
    expect(once.code, once.stderr).toBe(0);
    expect(once.stderr).toContain('1 of the 2 approvals it needs');
    expect(once.stderr).toContain(
      `It needs 1 approval more; another approver signs: payctl policy approve ${hash} (on their own machine, with their own key and a profile that shares this ledger)`,
    );
    const shown = await run('dave', ['policy', 'show', '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const doc = JSON.parse(shown.stdout) as { team_policy: { version: number }; proposals: Array<{ hash: string; counted: string[]; required_approvals: number }> };
    expect(doc.team_policy.version).toBe(1);
    expect(doc.proposals).toMatchObject([{ hash, counted: ['Bob'], required_approvals: 2 }]);

    const twice = await run('carol', ['policy', 'approve', hash.slice(7, 19)]);
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stderr).toContain("It is adopted as the team's policy, version 2.");
    const after = await run('dave', ['policy', 'show']);
    expect(after.stdout).toContain(`Team policy: version 2, ${hash}`);
    expect(after.stdout).toContain('Approved by  Bob, Carol');
    expect(after.stdout).toContain('Proposals: none.');
    expect(await counts(url)).toEqual([2, 2]);
  });

  it('refused, exit 2 and nothing stored: the proposer, a key not listed as an approver, one key twice, an unknown hash', async () => {
    const { url, hash } = await adoptedThenProposed();
    const before = await counts(url);
    const own = await run('alice', ['policy', 'approve', hash]);
    expect(own.code, own.stderr).toBe(2);
    expect(own.stderr).toContain('its proposer cannot approve it');
    const stranger = await run('dave', ['policy', 'approve', hash]);
    expect(stranger.code, stranger.stderr).toBe(2);
    expect(stranger.stderr).toContain("is not an approver's in the team's policy (version 1)");
    const unknown = await run('bob', ['policy', 'approve', 'sha256:' + 'ab'.repeat(32)]);
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain('No proposal sha256:abab');
    // Not a hash at all: the command it prints keeps the run's --profile, as the unknown hash's does (before: "payctl policy show").
    await writeLoggedIn(ctx.sb, dir.bob, undefined, 'team');
    expect((await run('bob', ['config', 'set', 'ledger', '--stdin', '--profile', 'team'], `${url}\n`)).code).toBe(0);
    for (const arg of ['abc', 'sha256:' + 'ab'.repeat(32)]) {
      const named = await run('bob', ['policy', 'approve', arg, '--profile', 'team']);
      expect(named.code, named.stderr).toBe(2);
      expect(named.stderr).toContain('See the proposals with: payctl policy show --profile team\n');
    }
    expect(await counts(url)).toEqual(before);

    expect((await run('bob', ['policy', 'approve', hash])).code).toBe(0);
    const again = await run('bob', ['policy', 'approve', hash]);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain('carries an approval by Bob already');
    expect(await counts(url)).toEqual([before[0], before[1] + 1]);
  });

  it("the team's policy is used whatever the profile says: no policy set, or another file (warned once)", async () => {
    await adoptedThenProposed();
    const other = join(work.dir, 'lenient.json');
    writeFileSync(other, JSON.stringify({ daily_total: { SLE: '1000000' } }));
    expect((await run('bob', ['config', 'set', 'policy', other])).code).toBe(0);
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const from = ctx.sb.requests().length;
    const first = await run('dave', bankPayout(wallet, '1500.00'));
    expect(first.code, first.stderr).toBe(0);
    for (const who of ['dave', 'bob'] as const) {
      const r = await run(who, bankPayout(wallet, '600.00'));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('policy daily_total.SLE');
      expect(r.stderr).toContain('v1 in the shared ledger');
      expect(r.stderr.split("is not the team's").length - 1).toBe(who === 'bob' ? 1 : 0);
    }
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
  });

  it('a policy row or an approval changed in the database: show and approve exit 2 naming it, and nothing is sent', async () => {
    const { url, hash } = await adoptedThenProposed();
    expect((await run('bob', ['policy', 'approve', hash])).code).toBe(0);
    expect((await run('carol', ['policy', 'approve', hash])).code).toBe(0);
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');

    // An approval of version 2 changed in the database no longer verifies: left out, version 2 has 1 of its 2 approvals.
    await sql(url, `UPDATE payctl_policy_approvals SET signed_at = signed_at || ' ' WHERE name = 'Carol'`);
    let from = ctx.sb.requests().length;
    const send = await run('dave', bankPayout(wallet, '10.00'));
    expect(send.code, send.stderr).toBe(2);
    expect(send.stderr).toContain(`version 2 (${hash}) was changed outside payctl`);
    expect(send.stderr).toContain('it was adopted with 1 of the 2 approvals version 1 asks');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    const shown = await run('dave', ['policy', 'show']);
    expect(shown.code, shown.stderr).toBe(2);
    expect(shown.stderr).toContain(`version 2 (${hash}) was changed outside payctl`);
    await sql(url, `UPDATE payctl_policy_approvals SET signed_at = rtrim(signed_at) WHERE name = 'Carol'`);
    expect((await run('dave', ['policy', 'show'])).code).toBe(0);

    // Version 1's content raised in the database (its hash no longer matches): refused, nothing sent.
    await sql(url, `UPDATE payctl_policies SET content = replace(content, '"2000"', '"900000"') WHERE version = 1`);
    from = ctx.sb.requests().length;
    const raised = await run('dave', bankPayout(wallet, '11.00'));
    expect(raised.code, raised.stderr).toBe(2);
    expect(raised.stderr).toContain('version 1 (sha256:');
    expect(raised.stderr).toContain('its content no longer matches its hash');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);

    // A proposal adopted in the database without its approvals: refused too.
    await sql(url, `UPDATE payctl_policies SET content = replace(content, '"900000"', '"2000"') WHERE version = 1`);
    await sql(url, `DELETE FROM payctl_policy_approvals WHERE name = 'Carol'`);
    const unapproved = await run('dave', bankPayout(wallet, '12.00'));
    expect(unapproved.code, unapproved.stderr).toBe(2);
    expect(unapproved.stderr).toContain('it was adopted with 1 of the 2 approvals version 1 asks');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
  });
});

describe('a proposal row written outside payctl', () => {
  it('is left out by policy show (text and --json), never an exit 2 for the whole team; approving it is refused, sends go on (probe 49-E)', async () => {
    const { url, hash } = await adoptedThenProposed();
    const rows = await sql<{ hash: string }>(url, 'SELECT hash FROM payctl_policies WHERE version IS NULL');
    expect(rows.map((r) => r.hash)).toEqual([hash]);
    // A proposal of a change to version 1 whose hash and signature do not hold, as anyone with write access can insert.
    const key = loadSigningKey(dir.alice)!;
    const forged = { ...signedProposal(key, contentOf(policyFile('999999', 1)), 1, new Date().toISOString(), null), signature: 'AAAA' };
    await insertPolicyRow(url, { ...forged, hash: `sha256:${'ab'.repeat(32)}` });

    const shown = await run('dave', ['policy', 'show']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`sha256:${'ab'.repeat(32)}, a change to version 1`);
    expect(shown.stdout).toContain('Left out: changed outside payctl, it cannot be approved and holds nothing back (its content no longer matches its hash).');
    expect(shown.stdout).toContain(`An approver signs: payctl policy approve ${hash}`);
    const json = JSON.parse((await run('dave', ['policy', 'show', '--json'])).stdout) as { proposals: Array<{ hash: string; left_out: unknown; policy: unknown }> };
    expect(json.proposals.find((p) => p.hash === `sha256:${'ab'.repeat(32)}`)).toMatchObject({
      policy: null,
      left_out: expect.stringContaining('changed outside payctl'),
    });
    const approve = await run('bob', ['policy', 'approve', `sha256:${'ab'.repeat(32)}`]);
    expect(approve.code, approve.stderr).toBe(2);
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    expect((await run('dave', bankPayout(wallet, '10.00'))).code).toBe(0);
  });
});

/** A second signing key of Alice's, made in a config folder of its own (the policy does not list it), on the ledger at `url`. */
async function alicesSecondKey(url: string): Promise<{ dir: string; key: SigningKey }> {
  const folder = tempConfigDir();
  folders.push(folder);
  await writeLoggedIn(ctx.sb, folder.dir);
  expect((await payctl(['keys', 'create', '--name', 'Alice'], { dir: folder.dir })).code).toBe(0);
  expect((await payctl(['config', 'set', 'ledger', '--stdin'], { dir: folder.dir, input: `${url}\n` })).code).toBe(0);
  return { dir: folder.dir, key: loadSigningKey(folder.dir)! };
}

/** A policy row written with SQL (as anyone with write access to the database can), adopted as `row.version` when it has one. */
async function insertPolicyRow(url: string, row: ReturnType<typeof signedProposal>): Promise<void> {
  await sql(
    url,
    `INSERT INTO payctl_policies (hash, base_version, content, proposer_name, proposer_public_key, proposer_fingerprint, proposed_at, signature, version, adopted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $9::integer IS NULL THEN NULL ELSE now() END)`,
    [row.hash, row.baseVersion, row.content, row.proposer.name, row.proposer.public_key, row.proposer.fingerprint, row.proposedAt, row.signature, row.version],
  );
}

/** An approval row written with SQL: signed by `key`, or (`forged`) under its name and fingerprint with a signature that does not verify. */
async function insertApproval(url: string, hash: string, baseVersion: number, key: SigningKey, forged: boolean, fingerprint = key.fingerprint): Promise<void> {
  const a = signPolicyApproval(key, hash, baseVersion, new Date().toISOString());
  await sql(
    url,
    `INSERT INTO payctl_policy_approvals (policy_hash, base_version, fingerprint, name, public_key, signed_at, signature) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [hash, baseVersion, fingerprint, a.name, a.public_key, a.signed_at, forged ? Buffer.from('x'.repeat(64)).toString('base64') : a.signature],
  );
}

/** The ledger's canonical content of a policy file. */
const contentOf = (file: string) => (canonicalPolicy(readFileSync(file, 'utf8')) as { content: string }).content;

describe('a change proposed with a key the policy in force does not list (a second key of a listed person)', () => {
  it('is refused at propose: exit 2, nothing stored, saying which key to use', async () => {
    const url = await onFreshLedger();
    expect((await run('alice', ['policy', 'propose', policyFile('2000', 1)])).code).toBe(0);
    const second = await alicesSecondKey(url);
    const before = await counts(url);
    const r = await payctl(['policy', 'propose', policyFile('9000', 1)], { dir: second.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`cannot be proposed with the key ${second.key.fingerprint} (calling itself "Alice"), which version 1 of the team's policy does not list`);
    expect(r.stderr).toContain('Nothing was proposed.');
    expect(r.stderr).toContain("Propose it with your key that the team's policy lists");
    expect(await counts(url)).toEqual(before);
  });

  it('a proposal by such a key written with SQL is refused at approve (exit 2, nothing stored) and shown as not approvable', async () => {
    const url = await onFreshLedger();
    expect((await run('alice', ['policy', 'propose', policyFile('2000', 1)])).code).toBe(0);
    const second = await alicesSecondKey(url);
    const row = signedProposal(second.key, contentOf(policyFile('9000', 1)), 1, new Date().toISOString(), null);
    await insertPolicyRow(url, row);
    const before = await counts(url);
    for (const who of ['alice', 'bob'] as const) {
      const r = await run(who, ['policy', 'approve', row.hash]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${row.hash} cannot be approved: it was proposed with the key ${second.key.fingerprint}`);
    }
    expect(await counts(url)).toEqual(before);
    const shown = await run('dave', ['policy', 'show']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Team policy: version 1');
    expect(shown.stdout).toContain(`Not approvable: proposed with the key ${second.key.fingerprint}`);
  });

  it('a version adopted from such a proposal (written with SQL) is refused when read: nothing is sent', async () => {
    const url = await onFreshLedger();
    expect((await run('alice', ['policy', 'propose', policyFile('2000', 1)])).code).toBe(0);
    const second = await alicesSecondKey(url);
    const row = signedProposal(second.key, contentOf(policyFile('9000', 1)), 1, new Date().toISOString(), 2);
    await insertPolicyRow(url, row);
    await insertApproval(url, row.hash, 1, loadSigningKey(dir.alice)!, false);
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const from = ctx.sb.requests().length;
    const send = await run('dave', bankPayout(wallet, '10.00'));
    expect(send.code, send.stderr).toBe(2);
    expect(send.stderr).toContain(
      `version 2 (${row.hash}) was changed outside payctl (it was adopted against the rules: proposed with the key ${second.key.fingerprint}`,
    );
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    const shown = await run('dave', ['policy', 'show']);
    expect(shown.code, shown.stderr).toBe(2);
    expect(shown.stderr).toContain('adopted against the rules');
  });
});

describe('an approval row written in the database that does not verify is left out, never a refusal', () => {
  it("on a proposal (under Bob's fingerprint and a made-up one): Bob's approval replaces it, Carol's adopts it, show lists it left out", async () => {
    const { url, hash } = await adoptedThenProposed();
    const bob = loadSigningKey(dir.bob)!;
    await insertApproval(url, hash, 1, bob, true);
    await insertApproval(url, hash, 1, bob, true, 'SHA256:' + 'A'.repeat(43));
    const shown = await run('dave', ['policy', 'show', '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const doc = JSON.parse(shown.stdout) as { proposals: Array<{ approvals: unknown[]; left_out: Array<{ fingerprint: string }>; counted: string[] }> };
    expect(doc.proposals[0]!.approvals).toEqual([]);
    expect(doc.proposals[0]!.counted).toEqual([]);
    expect(doc.proposals[0]!.left_out.map((a) => a.fingerprint).sort()).toEqual([bob.fingerprint, 'SHA256:' + 'A'.repeat(43)].sort());

    const byBob = await run('bob', ['policy', 'approve', hash]);
    expect(byBob.code, byBob.stderr).toBe(0);
    expect(byBob.stderr).toContain('1 of the 2 approvals it needs');
    expect(await counts(url)).toEqual([2, 2]);
    const again = await run('bob', ['policy', 'approve', hash]);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain('carries an approval by Bob already');
    const byCarol = await run('carol', ['policy', 'approve', hash]);
    expect(byCarol.code, byCarol.stderr).toBe(0);
    expect(byCarol.stderr).toContain("It is adopted as the team's policy, version 2.");

    const after = await run('dave', ['policy', 'show']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain(`Team policy: version 2, ${hash}`);
    expect(after.stdout).toContain('Approved by  Bob, Carol');
    expect(after.stdout).toContain(`Left out     Bob (SHA256:${'A'.repeat(43)}): its signature does not verify`);
  });

  it('on the version in force: payouts are sent, and show lists it left out', async () => {
    const url = await onFreshLedger();
    expect((await run('alice', ['policy', 'propose', policyFile('2000')])).code).toBe(0);
    const [v1] = await sql<{ hash: string }>(url, 'SELECT hash FROM payctl_policies WHERE version = 1');
    const bob = loadSigningKey(dir.bob)!;
    await insertApproval(url, v1!.hash, 0, bob, true);
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const from = ctx.sb.requests().length;
    const send = await run('dave', bankPayout(wallet, '10.00'));
    expect(send.code, send.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
    const shown = await run('dave', ['policy', 'show']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Left out     Bob (${bob.fingerprint}): its signature does not verify`);
    const json = await run('dave', ['policy', 'show', '--json']);
    const doc = JSON.parse(json.stdout) as { team_policy: { approved_by: unknown[]; left_out: Array<{ fingerprint: string }> } };
    expect(doc.team_policy.approved_by).toEqual([]);
    expect(doc.team_policy.left_out.map((a) => a.fingerprint)).toEqual([bob.fingerprint]);
  });
});
