/**
 * A plan file of any shape is refused in words, never a crash, by every command that reads one
 * (plan show, approve, send; policy check), in process against the sandbox. Before, `"totals":
 * [null]` crashed them all ("Cannot read properties of null (reading 'wallet_id') This is a bug
 * in payctl", exit 1; with --json the code null): the hash was computed over the totals before
 * each was checked to be an object. Here every field of a real plan, at every depth, is made
 * null, a number, a string and a list, as found and again re-signed by its maker (so the checks
 * after the hash and the maker's signature are reached too).
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { planBatchFile, planPathOf, readPlanFile, remadeByMaker, setUpTeam, useTeamFolders } from '../helpers/four-eyes.js';
import type { Plan } from '../../src/plans/plan.js';

const ctx = useSandbox();
const { work, people } = useTeamFolders();

/** A plan of two payouts made by the maker and approved by Alice, as JSON. */
let good: Plan;

beforeAll(async () => {
  const policy = await setUpTeam(ctx.sb, people, work.dir);
  await writeLoggedIn(ctx.sb, people.bob.dir);
  expect((await payctl(['config', 'set', 'policy', policy], { dir: people.bob.dir })).code).toBe(0);
  const file = planBatchFile(work.dir, freshWallet(ctx.sb, '100000.00', 'SLE'), ['1200.00', '300.00']);
  expect((await payctl(['plan', 'create', file, '--batch-id', 'shape'], { dir: people.maker.dir })).code).toBe(0);
  expect((await payctl(['plan', 'approve', planPathOf(file), '--yes'], { dir: people.alice.dir })).code).toBe(0);
  good = readPlanFile(planPathOf(file));
});

/** Every path into a plan: each field, each field of its maker, and the first element of each list and each of its fields. */
function paths(plan: Plan): string[][] {
  const out: string[][] = [];
  const walk = (value: unknown, at: string[]) => {
    if (at.length) out.push(at);
    if (Array.isArray(value)) {
      if (value.length) walk(value[0], [...at, '0']);
    } else if (value !== null && typeof value === 'object') {
      for (const k of Object.keys(value)) walk((value as Record<string, unknown>)[k], [...at, k]);
    }
  };
  walk(plan, []);
  return out;
}

/** A deep copy of `plan` with the value at `path` replaced. */
function withValue(plan: Plan, path: string[], value: unknown): Plan {
  const copy = structuredClone(plan) as unknown as Record<string, unknown>;
  let node = copy;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string, unknown>;
  node[path.at(-1)!] = value;
  return copy as unknown as Plan;
}

const VALUES: Array<[string, unknown]> = [
  ['null', null],
  ['a number', 7],
  ['a string', 'x'],
  ['a list', []],
];

/** The plan written to a file of its own (plan approve writes to it); its path. */
function written(plan: Plan): string {
  const file = join(work.dir, `shape-${randomUUID().slice(0, 8)}.plan.json`);
  writeFileSync(file, JSON.stringify(plan, null, 2));
  return file;
}

const COMMANDS: Array<{ who: keyof typeof people; args: (file: string) => string[] }> = [
  { who: 'maker', args: (f) => ['plan', 'show', f] },
  { who: 'bob', args: (f) => ['plan', 'approve', f, '--yes'] },
  { who: 'maker', args: (f) => ['plan', 'send', f, '--yes', '--report', `${f}.report.jsonl`] },
  { who: 'maker', args: (f) => ['policy', 'check', f] },
];

/** No crash: exit 0, 1 (policy check: it cannot be sent) or 2, and an error in words (with --json, a USAGE_ERROR, never the code null of a crash). */
function expectNoCrash(r: Run, json: boolean, what: string): void {
  expect([0, 1, 2], `${what}: exit ${r.code}\n${r.stderr}`).toContain(r.code);
  expect(r.stderr, what).not.toContain('This is a bug in payctl');
  const error = json && r.stderr.startsWith('{"error"') ? (JSON.parse(r.stderr) as { error: { code: string | null } }).error : undefined;
  if (error) expect(error.code, `${what}: ${r.stderr}`).toBe('USAGE_ERROR');
}

describe('a plan file of any shape', () => {
  it('"totals": [null] is refused by every plan command: not a valid plan, exit 2 (it crashed them all)', async () => {
    for (const { who, args } of COMMANDS) {
      const file = written({ ...good, totals: [null] } as unknown as Plan);
      const r = await payctl(args(file), { dir: people[who].dir });
      expect(r.code, `${args(file).join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toBe(`Error: ${file} is not a valid payctl plan: totals must be a list of objects. Nothing was sent.\n`);
      const json = await payctl([...args(file), '--json'], { dir: people[who].dir });
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stderr)).toMatchObject({
        error: { code: 'USAGE_ERROR', message: `${file} is not a valid payctl plan: totals must be a list of objects. Nothing was sent.` },
      });
    }
  });

  it('null, a number, a string or a list in any field, as found and re-signed by its maker: every command refuses it in words or takes it, none crashes', async () => {
    const all = paths(good);
    // Each field of the maker, of a payout, of a total and of an approval is among them.
    expect(all.map((p) => p.join('.'))).toEqual(
      expect.arrayContaining(['maker.public_key', 'payouts.0', 'payouts.0.row', 'payouts.0.body', 'totals.0.count', 'approvals.0.signature', 'hash']),
    );
    let n = 0;
    for (const path of all) {
      // A body is JSON in a string: the same shapes inside it too.
      const values = path.at(-1) === 'body' ? [...VALUES, ...VALUES.map(([l, v]): [string, unknown] => [`JSON of ${l}`, JSON.stringify(v)])] : VALUES;
      for (const [label, value] of values) {
        const changed = withValue(good, path, value);
        // Re-signed, the hash and the maker's signature hold: what comes after them is checked (approvals are not hashed).
        const variants = path[0] === 'hash' || path[0] === 'maker_signature' || path[0] === 'approvals' ? [changed] : [changed, remadeByMaker(changed, people.maker.dir)];
        for (const plan of variants) {
          // Every command, in text or --json by turns.
          const json = n++ % 2 === 1;
          for (const { who, args } of COMMANDS) {
            const file = written(plan);
            const argv = [...args(file), ...(json ? ['--json'] : [])];
            expectNoCrash(await payctl(argv, { dir: people[who].dir }), json, `${path.join('.')} as ${label}: ${argv.join(' ')}`);
          }
        }
      }
    }
    expect(n).toBeGreaterThan(150);
  });
});
