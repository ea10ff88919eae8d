/**
 * `payctl ledger verify` through payctl's main, in process, against a real PostgreSQL and the
 * sandbox (README "Working as a team"): a ledger whose rows payctl wrote verifies (exit 0, the
 * signer named: this config folder's ledger key, then the person's key once `keys create` made
 * one, then a member of the policy); a row edited with plain SQL is listed by payout id with
 * why (exit 1), and `payout create` of that payout id is refused before anything is sent; a
 * local ledger has nothing to verify (exit 2). No secret in any output.
 */
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectNoSecrets, newKey, oneJson, useConfigDir, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { tempConfigDir } from '../helpers/cli.js';
import { payoutPosts } from '../helpers/batch.js';
import { payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { sharedPostgres, sql, type SharedPostgres } from '../helpers/postgres.js';
import { journalBase } from '../../src/payouts/ledger/base-url.js';
import { loadLedgerKey } from '../../src/payouts/ledger/ledger-key.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const run = (args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<Run> => payctl(args, { dir: cfg.dir, ...opts });

let server: SharedPostgres;
beforeAll(async () => {
  server = await sharedPostgres();
});
beforeEach(async () => {
  await writeLoggedIn(ctx.sb, cfg.dir, KEY);
  ctx.sb.clearRequests();
});

/** A fresh database as the profile's ledger: its URL and the URL as payctl shows it. */
async function sharedLedger(): Promise<{ url: string; masked: string }> {
  const url = await server.freshDatabase('verifycmd');
  const set = await run(['config', 'set', 'ledger', '--stdin'], { input: `${url}\n` });
  expect(set.code, set.stderr).toBe(0);
  return { url, masked: url.replace(`:${server.password}@`, ':****@') };
}

describe('ledger verify', () => {
  // Rows name their base URL as the ledger keeps it (normalized: base-url.ts).
  it('every row payctl wrote verifies: exit 0, the signer named; after an UPDATE of one row: exit 1 naming it, and it is never sent', async () => {
    const { url, masked } = await sharedLedger();
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    for (const id of ['verify-001', 'verify-002']) {
      const sent = await run(payoutArgs(wallet, id));
      expect(sent.code, sent.stderr).toBe(0);
    }
    const fingerprint = loadLedgerKey(cfg.dir)!.fingerprint;
    const clean = await run(['ledger', 'verify']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toBe(
      `Ledger  ${masked}\nRows    2: 2 verified\n\nSigned by:\n  ${fingerprint}  this config folder's ledger key: 2 rows; host ${hostname()}; profile default\n\nEvery row verifies.\n`,
    );

    await sql(url, `UPDATE payctl_ledger_entries SET entry = replace(entry, '1500.5', '9500.5') WHERE payout_id = 'verify-002'`);
    const r = await run(['ledger', 'verify']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('Rows    2: 1 verified, 1 does not\n');
    expect(r.stdout).toContain('1 row does not verify (changed outside payctl: payctl will not act on it):\n');
    expect(r.stdout).toContain(`  verify-002 (${journalBase(ctx.sb.baseUrl)}): its signature does not match its contents: the row was changed after it was signed\n`);
    const j = await run(['ledger', 'verify', '--json']);
    expect(j.code).toBe(1);
    expect(oneJson(j.stdout)).toEqual({
      profile: 'default',
      url: masked,
      rows: 2,
      verified: 1,
      not_verified: [
        {
          payout_id: 'verify-002',
          base_url: journalBase(ctx.sb.baseUrl),
          problem: 'changed',
          reason: 'its signature does not match its contents: the row was changed after it was signed',
        },
      ],
      signers: [
        {
          fingerprint,
          public_key: loadLedgerKey(cfg.dir)!.publicKey,
          name: "this config folder's ledger key",
          known_as: 'ledger',
          rows: 1,
          hosts: [hostname()],
          profiles: ['default'],
        },
      ],
    });

    // payctl does not act on it: the same payout again is refused before anything is sent.
    ctx.sb.clearRequests();
    const again = await run(payoutArgs(wallet, 'verify-002'));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('payout verify-002');
    expect(again.stderr).toContain('the shared ledger row was changed outside payctl');
    expect(payoutPosts(ctx.sb)).toEqual([]);
    for (const x of [clean, r, j, again]) expectNoSecrets(x, [server.password, KEY]);
  });

  it("rows signed with the person's key once keys create made one; named from the policy's members; another key moved into signer", async () => {
    const { url } = await sharedLedger();
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const before = await run(payoutArgs(wallet, 'verify-101'));
    expect(before.code, before.stderr).toBe(0);
    const made = await run(['keys', 'create', '--name', 'Aminata Kamara', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const person = oneJson(made.stdout) as { public_key: string; fingerprint: string };
    const after = await run(payoutArgs(wallet, 'verify-102'));
    expect(after.code, after.stderr).toBe(0);

    const r = await run(['ledger', 'verify']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`  ${person.fingerprint}  Aminata Kamara (your key): 1 row; host ${hostname()}; profile default\n`);
    expect(r.stdout).toContain(`  ${loadLedgerKey(cfg.dir)!.fingerprint}  this config folder's ledger key: 1 row;`);

    // Seen from another machine, whose policy lists the person: named from the policy.
    const other = tempConfigDir();
    try {
      await writeLoggedIn(ctx.sb, other.dir, KEY);
      const policy = join(other.dir, 'policy.json');
      writeFileSync(policy, JSON.stringify({ members: { 'Aminata K.': { keys: [person.public_key], roles: ['maker'] } } }));
      for (const args of [
        ['config', 'set', 'policy', policy],
        ['config', 'set', 'ledger', url],
      ])
        expect((await payctl(args, { dir: other.dir })).code).toBe(0);
      const named = await payctl(['ledger', 'verify', '--json'], { dir: other.dir });
      expect(named.code, named.stderr).toBe(0);
      const signers = oneJson(named.stdout).signers as unknown[];
      expect(signers).toHaveLength(2);
      expect(signers).toContainEqual(expect.objectContaining({ fingerprint: person.fingerprint, name: 'Aminata K.', known_as: 'policy', rows: 1 }));
      expect(signers).toContainEqual(expect.objectContaining({ name: null, known_as: null, rows: 1 }));

      // The same policy adopted as the team's (proposed by the person): a machine with no policy
      // file of its own names the person from it, as every machine goes by the team's policy.
      const proposed = await run(['policy', 'propose', policy]);
      expect(proposed.code, proposed.stderr).toBe(0);
      const third = tempConfigDir();
      try {
        await writeLoggedIn(ctx.sb, third.dir, KEY);
        expect((await payctl(['config', 'set', 'ledger', url], { dir: third.dir })).code).toBe(0);
        const team = await payctl(['ledger', 'verify', '--json'], { dir: third.dir });
        expect(team.code, team.stderr).toBe(0);
        expect(oneJson(team.stdout).signers as unknown[]).toContainEqual(
          expect.objectContaining({ fingerprint: person.fingerprint, name: 'Aminata K.', known_as: 'policy', rows: 1 }),
        );
      } finally {
        third.cleanup();
      }
    } finally {
      other.cleanup();
    }

    // The ledger key's row re-labelled as the person's: signed by another key than the one it names.
    await sql(url, `UPDATE payctl_ledger_entries SET signer = $1 WHERE payout_id = 'verify-101'`, [person.public_key]);
    const moved = await run(['ledger', 'verify', '--json']);
    expect(moved.code).toBe(1);
    expect(oneJson(moved.stdout).not_verified).toEqual([
      expect.objectContaining({
        payout_id: 'verify-101',
        problem: 'other-key',
        signed_by: loadLedgerKey(cfg.dir)!.fingerprint,
        reason: `it is signed by another key (${loadLedgerKey(cfg.dir)!.fingerprint}) than the one its signer column names`,
      }),
    ]);
  });

  it('a local ledger: nothing to verify, exit 2', async () => {
    const r = await run(['ledger', 'verify']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Nothing to verify: profile "default" keeps its journal locally, and the local journal is checked on every read with its MAC');
    const e = await run(['ledger', 'verify'], { env: { PAYCTL_LEDGER_URL: 'local' } });
    expect(e.code).toBe(2);
    expect(e.stderr).toContain('Nothing to verify: PAYCTL_LEDGER_URL is local');
  });
});
