// Run by `npm ci` / `npm install` (the prepare script): points git at the repository's hooks
// (.githooks/, the commit-msg check) when this is a git checkout whose hooks path is not set
// to something else. Outside a checkout (an installed package) it does nothing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const git = (...args) => spawnSync('git', args, { encoding: 'utf8' });
if (existsSync('.git') && existsSync('.githooks')) {
  const current = git('config', '--get', 'core.hooksPath');
  if (current.error === undefined && (current.status !== 0 || current.stdout.trim() === '.githooks')) {
    git('config', 'core.hooksPath', '.githooks');
  }
}
