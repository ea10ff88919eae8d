// The first step of `npm test` (and so of .ci/run, which runs it): the programs the suite drives
// beyond Node and npm, installed when missing. The completion tests run real zsh and fish, the
// width tests a real tmux, the keyring tests a real Secret Service (gnome-keyring under
// dbus-run-session, checked with secret-tool), the ledger tests a throw-away PostgreSQL cluster
// (test/helpers/postgres-cluster.ts: initdb and postgres, which Debian keeps off PATH, in
// /usr/lib/postgresql/<version>/bin, where scripts/pg-bin.mjs finds them; run as the `postgres`
// user, which the package creates, when the suite runs as root), and the shared ledger's day test a
// payctl whose clock is a day ahead (faketime, with libfaketime), the proxy test a TLS
// certificate (openssl). None of them is skipped when its program is missing; so rather than 75
// red tests, this installs them with Debian's apt-get when it can (as root, with apt-get
// present) and otherwise stops at once with the exact command that does.
//
//   node scripts/test-prereqs.mjs            check, install what is missing when possible
//   node scripts/test-prereqs.mjs --check    check only: exit 1 naming what is missing
import { spawnSync } from 'node:child_process';
import { POSTGRES_PROGRAMS, postgresBinDir } from './pg-bin.mjs';

/** Each program the suite runs, and the Debian package that brings it. */
const NEEDED = [
  ['zsh', 'zsh'],
  ['fish', 'fish'],
  ['tmux', 'tmux'],
  ['gnome-keyring-daemon', 'gnome-keyring'],
  ['dbus-run-session', 'dbus-daemon'],
  ['dbus-send', 'dbus-bin'],
  ['secret-tool', 'libsecret-tools'],
  ['faketime', 'faketime'],
  // The proxy test makes a throw-away TLS certificate for the host the proxy tunnels to.
  ['openssl', 'openssl'],
  // The unreadable-config test drops root's read-anything right for one child (setpriv).
  ['setpriv', 'util-linux'],
  ...POSTGRES_PROGRAMS.map((program) => [program, 'postgresql']),
];

const root = typeof process.getuid === 'function' && process.getuid() === 0;

function has(program) {
  // PostgreSQL's programs: all three in one folder, on PATH or Debian's own (scripts/pg-bin.mjs);
  // as root also the user to run them as (initdb and postgres refuse to run as root).
  if (POSTGRES_PROGRAMS.includes(program)) return postgresBinDir() !== undefined && (!root || spawnSync('id', ['-u', 'postgres'], { stdio: 'ignore' }).status === 0);
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

function missingPackages() {
  return [...new Set(NEEDED.filter(([program]) => !has(program)).map(([, pkg]) => pkg))];
}

const checkOnly = process.argv.includes('--check');
let missing = missingPackages();
if (missing.length === 0) process.exit(0);

const command = `apt-get update && apt-get install -y ${missing.join(' ')}`;
if (checkOnly || !root || !has('apt-get')) {
  console.error(`The test suite needs programs this machine lacks (packages: ${missing.join(', ')}).`);
  console.error(`Install them with:\n  ${root ? '' : 'sudo '}${command}`);
  process.exit(1);
}

console.error(`Installing what the test suite needs: ${missing.join(', ')} (apt-get, as root)…`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
for (const args of [
  ['update', '-qq'],
  ['install', '-y', '-qq', ...missing],
]) {
  const r = spawnSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) {
    console.error(`apt-get ${args[0]} failed (exit ${r.status ?? r.signal}). Install them by hand:\n  ${command}`);
    process.exit(1);
  }
}
missing = missingPackages();
if (missing.length) {
  console.error(`Still missing after apt-get: ${missing.join(', ')}. Install them by hand:\n  ${command}`);
  process.exit(1);
}
console.error('Installed.');
