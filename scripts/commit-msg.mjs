// The commit-msg check (.githooks/commit-msg, installed by `npm ci` through scripts/install-hooks.mjs):
// a subject line of at most 72 characters, so `git log --oneline` reads; the detail and the
// numbers go in the body, after one blank line. `node scripts/commit-msg.mjs FILE` exits 1
// naming what is wrong; comment lines (git's template) are ignored.
import { readFileSync } from 'node:fs';

const LIMIT = 72;

/** What is wrong with a commit message, or an empty list. */
export function commitMessageProblems(text) {
  const lines = text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .map((l) => l.replace(/\s+$/, ''));
  while (lines.length && lines[0] === '') lines.shift();
  const [subject = '', second] = lines;
  const problems = [];
  if (subject === '') problems.push('the subject line is empty');
  else if ([...subject].length > LIMIT) problems.push(`the subject line is ${[...subject].length} characters; keep it to ${LIMIT} and put the detail in the body`);
  if (second !== undefined && second !== '') problems.push('the second line must be blank: the subject is one line, the body starts after a blank line');
  return problems;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node scripts/commit-msg.mjs COMMIT_MSG_FILE');
    process.exit(2);
  }
  const problems = commitMessageProblems(readFileSync(file, 'utf8'));
  if (problems.length) {
    for (const p of problems) console.error(`commit-msg: ${p}`);
    process.exit(1);
  }
}
