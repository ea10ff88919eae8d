/**
 * The commit-msg check (scripts/commit-msg.mjs, installed as .githooks/commit-msg by
 * `npm ci`): subjects of at most 72 characters, a blank second line; and the hook refusing a
 * long subject in a real repository.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without types
import { commitMessageProblems } from '../../scripts/commit-msg.mjs';

const problems = commitMessageProblems as (text: string) => string[];

describe('commit messages', () => {
  it('a 72-character subject with a body after a blank line passes; git comment lines are ignored', () => {
    expect(problems(`${'x'.repeat(72)}\n\nWhy, and the numbers.\n# Please enter the commit message\n`)).toEqual([]);
    expect(problems('# comment first\nShort subject\n')).toEqual([]);
  });

  it('73 characters, an empty subject, or a body glued to the subject are refused, each named', () => {
    expect(problems(`${'é'.repeat(73)}\n`)).toEqual(['the subject line is 73 characters; keep it to 72 and put the detail in the body']);
    expect(problems('\n\n# only comments\n')).toEqual(['the subject line is empty']);
    expect(problems('Subject\nbody right under it\n')).toEqual(['the second line must be blank: the subject is one line, the body starts after a blank line']);
  });

  it('the hook refuses a long subject in a real repository and lets a short one through', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-hook-'));
    try {
      const git = (...args: string[]) =>
        spawnSync('git', ['-C', dir, '-c', 'user.name=T', '-c', 'user.email=t@example.com', '-c', `core.hooksPath=${resolve('.githooks')}`, ...args], {
          encoding: 'utf8',
        });
      expect(git('init', '-q').status).toBe(0);
      writeFileSync(join(dir, 'a.txt'), 'a\n');
      git('add', 'a.txt');
      const long = git('commit', '-q', '-m', 'y'.repeat(80));
      expect(long.status).toBe(1);
      expect(long.stderr).toContain('the subject line is 80 characters');
      const short = git('commit', '-q', '-m', 'Add a', '-m', 'Body.');
      expect(short.status, short.stderr).toBe(0);
      expect(git('log', '--format=%s').stdout.trim()).toBe('Add a');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
