/**
 * Four eyes for tests of both tiers: batch files to make plans of, a plan file read as the
 * file it is (its documented JSON, not payctl's reader), an approval added by hand (as an
 * attacker would: the CLI refuses these), a plan edited by hand and made whole again by its
 * maker (hash and signature recomputed from the documented format, independently of payctl's
 * own code), the flags of a direct bank payout, and the team both tiers set up.
 */
import { createHash, createPrivateKey, randomUUID, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSigningKey, signText, type SigningKey } from '../../src/plans/keys.js';
import { approvalMessage, type Plan } from '../../src/plans/plan.js';
import { afterAll, expect } from 'vitest';
import { tempConfigDir } from './cli.js';
import { tempWorkDir } from './batch.js';
import { writeLoggedIn, type Run } from './e2e.js';
import { payctl } from './in-process.js';
import type { Sandbox } from './sandbox.js';

export const PLAN_BATCH_HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';

/** A batch file in `dir` paying `amounts` SLE from `wallet`, each to a recipient of its own; its path. */
export function planBatchFile(dir: string, wallet: string, amounts: string[], tag = randomUUID().slice(0, 8)): string {
  const file = join(dir, `pay-${tag}.csv`);
  writeFileSync(
    file,
    PLAN_BATCH_HEADER +
      amounts
        .map(
          (a, i) =>
            `${tag}-${i + 1},${wallet},${a},SLE,wallet,Fatmata Sesay ${i + 1},orange_money,07655${String(i).padStart(4, '0')},+2327655${String(i).padStart(4, '0')},stipend`,
        )
        .join('\n') +
      '\n',
  );
  return file;
}

/** The plan `plan create` writes for a batch file: `<name>.plan.json` beside it. */
export function planPathOf(batchFile: string): string {
  return batchFile.replace(/\.csv$/, '.plan.json');
}

/** A plan file as JSON. */
export function readPlanFile(path: string): Plan {
  return JSON.parse(readFileSync(path, 'utf8')) as Plan;
}

/** An approval added by hand (the CLI refuses these), signed with `key`. */
export function addApproval(path: string, key: SigningKey): void {
  const plan = readPlanFile(path);
  const a = { name: key.name, public_key: key.publicKey, fingerprint: key.fingerprint, signed_at: new Date().toISOString() };
  plan.approvals.push({ ...a, signature: signText(key, approvalMessage(plan.hash, a)) });
  writeFileSync(path, JSON.stringify(plan, null, 2));
}

/**
 * RFC 8785 canonical JSON (JCS) of the values a plan holds (strings, safe integers, null,
 * arrays, objects): keys sorted by UTF-16 code units, no whitespace, strings as
 * JSON.stringify writes them (src/plans/canonical.ts documents the same form).
 */
export function jcs(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${jcs(o[k])}`)
    .join(',')}}`;
}

/** `sha256:<hex>` of a plan's content: everything but its hash, the maker's signature and the approvals. */
export function planContentHash(plan: Plan): string {
  const { hash: _hash, maker_signature: _signature, approvals: _approvals, ...content } = plan;
  return `sha256:${createHash('sha256').update(jcs(content), 'utf8').digest('hex')}`;
}

/**
 * A plan edited by hand and made whole again by its maker: the hash recomputed over its
 * content and signed (Ed25519 over {"hash","purpose":"payctl-plan-maker-v1"}) with the private
 * key in the maker's config folder, as a maker who can read their own key file could.
 */
export function remadeByMaker(plan: Plan, makerDir: string): Plan {
  const hash = planContentHash(plan);
  const record = JSON.parse(readFileSync(join(makerDir, 'signing-key.json'), 'utf8')) as { private_key: string };
  const key = createPrivateKey({ key: Buffer.from(record.private_key, 'base64'), format: 'der', type: 'pkcs8' });
  const signature = sign(null, Buffer.from(jcs({ purpose: 'payctl-plan-maker-v1', hash }), 'utf8'), key).toString('base64');
  return { ...plan, hash, maker_signature: signature };
}

/** `payout create` of a bank payout of `amount` SLE from `wallet`, with --yes. */
export function bankPayout(wallet: string, amount: string, id: string = randomUUID()): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    wallet,
    '--amount',
    amount,
    '--currency',
    'SLE',
    '--type',
    'bank',
    '--name',
    'Ibrahim Sesay',
    '--provider',
    'uba',
    '--account',
    '0123456789',
    '--payout-id',
    id,
    '--yes',
  ];
}

/** A person of the four-eyes tests: their own config folder (their own machine) and, once made, their signing key. */
export interface Person {
  dir: string;
  key?: SigningKey;
}

/**
 * The team both tiers test with, made in process: a key for each person (named after them),
 * and a policy in `workDir` under which the maker makes plans and Alice and Bob approve them
 * (1 approval from 1,000 SLE, 2 over 100,000; at most 150,000 SLE a payout and 400,000 a day),
 * set in the maker's profile, logged in to `sb`. Returns the policy file's path.
 */
export async function setUpTeam(sb: Sandbox, people: Record<string, Person> & Record<'maker' | 'alice' | 'bob', Person>, workDir: string): Promise<string> {
  const run = (args: string[], dir: string): Promise<Run> => payctl(args, { dir });
  for (const [name, p] of Object.entries(people)) {
    const r = await run(['keys', 'create', '--name', name[0]!.toUpperCase() + name.slice(1)], p.dir);
    expect(r.code, r.stderr).toBe(0);
    p.key = loadSigningKey(p.dir)!;
  }
  const policyFile = join(workDir, 'policy.json');
  writeFileSync(
    policyFile,
    JSON.stringify({
      members: { Maker: { keys: [people.maker.key!.publicKey], roles: ['maker'] } },
      approvers: { Alice: people.alice.key!.publicKey, Bob: people.bob.key!.publicKey },
      approvals: {
        SLE: [
          { from: '1000', required: 1 },
          { over: '100000', required: 2 },
        ],
      },
      max_per_payout: { SLE: '150000' },
      daily_total: { SLE: '400000' },
    }),
  );
  await writeLoggedIn(sb, people.maker.dir);
  const set = await run(['config', 'set', 'policy', policyFile], people.maker.dir);
  expect(set.code, set.stderr).toBe(0);
  return policyFile;
}

/**
 * setUpTeam, with the maker working under a profile of their own, "office", logged in to `sb`
 * with the team's policy: what a printed command with `--profile office` is tested against.
 */
export async function setUpOfficeTeam(sb: Sandbox, people: Record<'maker' | 'alice' | 'bob', Person>, workDir: string): Promise<string> {
  const policy = await setUpTeam(sb, people, workDir);
  await writeLoggedIn(sb, people.maker.dir, sb.apiKey, 'office');
  const set = await payctl(['config', 'set', 'policy', policy, '--profile', 'office'], { dir: people.maker.dir });
  expect(set.code, set.stderr).toBe(0);
  return policy;
}

/**
 * A test file's team: a work folder and the config folders of a maker and two approvers (alice,
 * bob), removed after the file's tests. setUpTeam gives them keys and a policy.
 */
export function useTeamFolders(): { work: { dir: string }; people: Record<'maker' | 'alice' | 'bob', { dir: string }> } {
  const work = tempWorkDir();
  const people = { maker: tempConfigDir(), alice: tempConfigDir(), bob: tempConfigDir() };
  afterAll(() => {
    for (const p of Object.values(people)) p.cleanup();
    work.cleanup();
  });
  return { work, people };
}
