/**
 * Where payctl keeps its files (the config folder) and whether a folder there is safe to
 * use: not a symlink, not another user's, not writable by others.
 */
import { accessSync, chmodSync, constants, existsSync, lstatSync, type Stats } from 'node:fs';
import { userInfo } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { shellQuote } from './shell.js';
import { folderFault, makeFolders } from './folder-fault.js';

/**
 * The config folder: PAYCTL_CONFIG_DIR, else $XDG_CONFIG_HOME/payctl, else ~/.config/payctl.
 * The profile store, the payout journal and the detached sandbox's record live here. Always an
 * absolute path: a relative one (`PAYCTL_CONFIG_DIR=-rel`) would make the commands printed with
 * its files in them (chmod, mv, rm) depend on the folder they are pasted in, or read as options.
 * A relative XDG_CONFIG_HOME is ignored, as the XDG Base Directory spec says (it is invalid), and
 * the home folder is homeFolder's: never the working folder, where the API key would be saved
 * under whatever folder payctl was started from (a project's checkout), and another folder would
 * be "not logged in". `from`: the working folder a relative PAYCTL_CONFIG_DIR is read from
 * (another process's: sandbox/record.ts).
 */
export function configDir(env: NodeJS.ProcessEnv, from?: string): string {
  const home = () => homeFolder(env);
  // resolve() alone reads a relative path from this process's working folder.
  const at = (...parts: string[]) => (from === undefined ? resolve(...parts) : resolve(from, ...parts));
  if (env.PAYCTL_CONFIG_DIR) return at(tilde(env.PAYCTL_CONFIG_DIR, home));
  const xdg = env.XDG_CONFIG_HOME ? tilde(env.XDG_CONFIG_HOME, home) : '';
  if (isAbsolute(xdg)) return join(xdg, 'payctl');
  return join(home(), '.config', 'payctl');
}

/**
 * The home folder, absolute: HOME when it is an absolute path, else the user's home in the
 * password database (an empty `HOME=` or a relative one is read as an unset HOME), else
 * undefined.
 */
export function homeOf(env: { HOME?: string }): string | undefined {
  if (env.HOME && isAbsolute(env.HOME)) return env.HOME;
  try {
    const passwd = userInfo().homedir;
    return passwd && isAbsolute(passwd) ? passwd : undefined;
  } catch {
    return undefined; // no entry for this user in the password database
  }
}

/** homeOf, or refused (exit 2) when there is none: payctl never keeps its files under the working folder. */
function homeFolder(env: NodeJS.ProcessEnv): string {
  const home = homeOf(env);
  if (home !== undefined) return home;
  throw new ConfigError(
    `Cannot find your home folder: HOME is ${env.HOME ? `not an absolute path (${JSON.stringify(env.HOME)})` : env.HOME === '' ? 'empty' : 'not set'} and the password database has no home folder for this user, so payctl has no config folder. Nothing was sent.`,
    'Set HOME to your home folder, or PAYCTL_CONFIG_DIR to the config folder (an absolute path).',
  );
}

/**
 * A leading `~` or `~/` as the home folder. Only a shell expands it, and a value set where none
 * runs (a crontab's or systemd unit's variable, an .env file, quoted) named a folder "~" in the
 * folder payctl was started from: another config folder, with other keys and another journal,
 * for each place a job ran from.
 */
function tilde(path: string, home: () => string): string {
  return path === '~' || path.startsWith('~/') ? home() + path.slice(1) : path;
}

/** The local journal's folder: `journal/` in the config folder (payouts/ledger/local.ts), as messages name it. */
export function journalFolder(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'journal');
}

let myUid: number | undefined;

/**
 * Who payctl runs as: said once by the entry (cli.ts, from Deps' host), so that a folder
 * of another user is refused. Undefined where the platform has no user ids.
 */
export function runningAs(uid: number | undefined): void {
  myUid = uid;
}

/** The user payctl runs as (runningAs), for checks on files in the folder; undefined when not said. */
export function ownerId(): number | undefined {
  return myUid;
}

/**
 * Why a folder that holds keys, tokens or the journal is not safe to use: a symlink (it
 * may lead anywhere), owned by another user, or writable by others (anyone could plant
 * or change an entry). Undefined when it is safe.
 */
export function unsafeFolder(st: Stats): string | undefined {
  if (st.isSymbolicLink()) return 'it is a symbolic link';
  if (!st.isDirectory()) return 'it is not a folder';
  if (myUid !== undefined && st.uid !== myUid) return `it is owned by another user (uid ${st.uid})`;
  if ((st.mode & 0o022) !== 0) return `others can write to it (mode ${(st.mode & 0o777).toString(8)})`;
  return undefined;
}

/**
 * `${base}${ext}`, or `${base}-2${ext}`, `${base}-3${ext}`…: the first path nothing is at, a
 * dangling symbolic link included (a printed `mv -n` or `--failed-out` to such a name would be
 * refused): the one rule of every file or folder name payctl prints for a person to make.
 */
export function freePath(base: string, ext = ''): string {
  for (let n = 1; ; n++) {
    const candidate = `${base}${n === 1 ? '' : `-${n}`}${ext}`;
    if (!lstatSync(candidate, { throwIfNoEntry: false })) return candidate;
  }
}

/** Refuses an unsafe folder (exit 2) with what to do; `what` names it in the message. */
export function checkFolder(dir: string, what: string): void {
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch {
    return; // not there (yet)
  }
  const why = unsafeFolder(st);
  if (why) {
    throw new ConfigError(
      `Refusing to use the ${what} ${dir}: ${why}. Nothing was sent.`,
      st.isSymbolicLink() || (myUid !== undefined && st.uid !== myUid)
        ? 'Use a folder of your own: remove or move it, or set PAYCTL_CONFIG_DIR to a folder that only you can write.'
        : !st.isDirectory()
          ? // chmod would not make a file a folder: move it away (it may be something to keep), and payctl makes the folder.
            `Move it out of the way (mv -n ${shellQuote(dir)} ${shellQuote(freePath(`${dir}.moved`))}), look at what it is, and run the same command again: payctl makes the folder.`
          : `Make it private with: chmod 700 ${shellQuote(dir)}`,
    );
  }
}

/** Refuses (exit 2) a folder every user can write to, whoever owns it. */
function checkWorldWritable(dir: string): void {
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch {
    return;
  }
  if (st.isDirectory() && (st.mode & 0o002) !== 0) {
    throw new ConfigError(
      `Refusing to use the config folder ${dir}: every user can write to it (mode ${(st.mode & 0o777).toString(8)}), so its config file and journal may not be yours. Nothing was sent.`,
      `Check what is in it, then make it private with: chmod 700 ${shellQuote(dir)}; or set PAYCTL_CONFIG_DIR to a folder only you can write.`,
    );
  }
}

/**
 * Ensures the config folder exists with mode 0700. The default folder is refused when it is
 * a symlink, another user's, or writable by others. A folder named by PAYCTL_CONFIG_DIR is
 * the user's explicit choice: another user's is allowed, and one of theirs is tightened to
 * 0700, but one that every user can write (mode o+w) is refused either way: anyone could
 * have put a config file or journal entries there, so it is not tightened silently.
 */
export function ensureConfigDir(dir: string, env: NodeJS.ProcessEnv = {}): void {
  try {
    makeFolders(dir, `make the config folder ${dir}`);
  } catch (err) {
    throw missingHome(dir, env) ?? err;
  }
  const explicit = !!env.PAYCTL_CONFIG_DIR;
  if (!explicit) checkFolder(dir, 'config folder');
  else checkWorldWritable(dir);
  try {
    const st = lstatSync(dir);
    if ((st.mode & 0o077) !== 0 && st.isDirectory() && myUid !== undefined && st.uid === myUid) chmodSync(dir, 0o700);
  } catch {
    // The folder is there; a failed tightening is not fatal.
  }
}

/**
 * The config folder that could not be made is under a home folder that does not exist (a service
 * account's HOME=/nonexistent, as cron and systemd set it): that is said, naming HOME, with
 * PAYCTL_CONFIG_DIR; not the folder above the home that refused (`chmod u+w /`). Else undefined.
 */
function missingHome(dir: string, env: NodeJS.ProcessEnv): ConfigError | undefined {
  // A folder named by PAYCTL_CONFIG_DIR is the user's choice, not the home's.
  const home = env.PAYCTL_CONFIG_DIR ? undefined : homeOf(env);
  const inside = home === undefined ? '' : relative(home, dir);
  if (home === undefined || !inside || inside.startsWith('..') || isAbsolute(inside) || existsSync(home)) return undefined;
  const who = env.HOME === home ? `the home folder ${home} (HOME)` : `the home folder ${home} (this user's in the password database)`;
  return new ConfigError(
    `Cannot make the config folder ${dir}: ${who} does not exist. Nothing was changed.`,
    'Set PAYCTL_CONFIG_DIR to a folder this user may write (for a service account, one of its own, such as PAYCTL_CONFIG_DIR=/var/lib/NAME/payctl), or HOME to a home folder that exists.',
  );
}

/**
 * Refuses (exit 2) a config folder this process cannot change: the folder, its lock folder or
 * its config file not writable (permission denied, a read-only file system). Asked before
 * anything is sent whose whole point is what is saved after it (login checks the key with the
 * service, then stores it), so that the key does not leave for nothing. `doing`: what could not
 * be done ("log in").
 */
export function checkConfigWritable(dir: string, doing: string): void {
  for (const path of [dir, join(dir, 'locks'), join(dir, 'config.json')]) {
    try {
      accessSync(path, constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && path !== dir) continue; // made when it is first written
      throw folderFault(path, err, doing, ', where it would be saved. Nothing was sent.');
    }
  }
}
