/**
 * main builds only the part of the command tree the typed words can reach (program.ts
 * reachOf: one top-level command, or the program's help without the groups' verbs). Every
 * argv here must come to exactly what the whole tree gives: the same output, the same
 * refusal, the same run with the same options.
 */
import { describe, expect, it } from 'vitest';
import { reachOf } from '../../src/program.js';
import { outcomeOf } from '../helpers/parse.js';

const ARGVS: string[][] = [
  [],
  ['--help'],
  ['-h'],
  ['--json', '--help'],
  ['balances'],
  ['balances', '--json'],
  ['balances', '--help'],
  ['balances', '--jsn'],
  ['balances', 'extra'],
  ['balances', '-yv'],
  ['--json', 'balances', '--currency', 'SLE'],
  ['-p', 'x', 'balances'],
  ['--profile=x', 'status', '--json'],
  ['--timeout', '5', 'status'],
  ['status', '--no-color', '--verbose'],
  ['history', '--status', 'unknown'],
  ['history', 'reconcile'],
  ['history', 'reconcile', '--help'],
  ['login', '--help'],
  ['logout', '--all'],
  ['summary', '--csv'],
  ['bal'],
  ['payout', 'create', '--help'],
  ['payouts', 'list', '--status', 'Bogus'],
  ['help', 'balances'],
  ['help', 'payout', 'batch'],
  ['completion', 'bash'],
  ['--version'],
  ['--help', 'balances'],
  ['balances', '--', '--help'],
];

describe('the tree built for an argv answers as the whole tree does', () => {
  it.each(ARGVS.map((a) => [a.join(' ') || '(nothing)', a] as const))('payctl %s', async (_, argv) => {
    expect(await outcomeOf(argv, true)).toEqual(await outcomeOf(argv, false));
  });

  it('builds less only where it can: one top-level command, or the program help', () => {
    expect(reachOf(['balances', '--json'])).toEqual({ only: 'balances' });
    expect(reachOf(['-p', 'x', 'status'])).toEqual({ only: 'status' });
    expect(reachOf(['--help'])).toEqual({ shallow: true });
    // Groups, help, unknown words and grouped short flags: the whole tree.
    for (const argv of [['payout', 'create'], ['help', 'balances'], ['bal'], ['balances', '-yv'], ['--help', 'balances']]) expect(reachOf(argv)).toEqual({});
  });
});
