// Where PostgreSQL's server programs are, for scripts/test-prereqs.mjs (are they installed?) and
// test/helpers/postgres-cluster.ts (run them). Debian's `postgresql` package puts initdb, pg_ctl
// and postgres in /usr/lib/postgresql/<version>/bin, which is not on PATH; a machine may also have
// them on PATH (another distribution, a source build, symlinks in /usr/local/bin). The three must
// come from one folder (one version): PATH's first initdb with the others beside it (symlinks
// followed), else the highest version under /usr/lib/postgresql.
import { accessSync, constants, readdirSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** The programs a throw-away cluster needs. */
export const POSTGRES_PROGRAMS = ['initdb', 'pg_ctl', 'postgres'];

const DEBIAN_ROOT = '/usr/lib/postgresql';

function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const complete = (dir) => POSTGRES_PROGRAMS.every((p) => executable(join(dir, p)));

/** The folder holding initdb, pg_ctl and postgres, or undefined when this machine has none. */
export function postgresBinDir(path = process.env.PATH ?? '') {
  for (const dir of path.split(delimiter)) {
    if (!dir || !executable(join(dir, 'initdb'))) continue;
    // The folder the link points into, when complete: the cluster's other programs (psql,
    // pg_isready) are beside it.
    try {
      const real = dirname(realpathSync(join(dir, 'initdb')));
      if (complete(real)) return real;
    } catch {
      // a dangling link: not this one
    }
    if (complete(dir)) return dir;
  }
  let versions;
  try {
    versions = readdirSync(DEBIAN_ROOT);
  } catch {
    return undefined;
  }
  // 15, 16, 9.6: the highest first, compared as numbers part by part.
  const key = (v) => v.split('.').map(Number);
  versions = versions.filter((v) => /^\d+(\.\d+)?$/.test(v)).sort((a, b) => key(b)[0] - key(a)[0] || (key(b)[1] ?? 0) - (key(a)[1] ?? 0));
  for (const v of versions) if (complete(join(DEBIAN_ROOT, v, 'bin'))) return join(DEBIAN_ROOT, v, 'bin');
  return undefined;
}
