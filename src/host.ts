/**
 * The processes payctl's commands may know of and touch: this process's id, the user's
 * id, the node binary that runs payctl, and signals to other processes. The entry
 * (cli.ts) makes it from the real process and hands it on in Deps; nothing below the
 * entry reads the process globals. And what /proc says of a process (procStat).
 */
import { readFileSync } from 'node:fs';

export interface Host {
  pid: number;
  /** The user's id; undefined where the platform has none. */
  uid: number | undefined;
  /** The node binary that runs payctl: how a detached sandbox is started. */
  execPath: string;
  /** Sends `signal` to `pid` (0 only checks that it exists); throws as kill(2) fails (ESRCH, EPERM). */
  kill(pid: number, signal: NodeJS.Signals | 0): void;
}

/** What Linux's /proc says of a process: its state letter ("Z": a zombie) and when it started, in clock ticks after the boot. */
export interface ProcStat {
  state: string;
  startTicks: number;
}

/**
 * /proc/<pid>/stat, read (Linux); undefined where it does not show the process (macOS, a /proc
 * mounted with hidepid, a process gone). The one reading of it: a sandbox's process checked
 * alive (sandbox/record.ts), a lock's holder checked to be the process that took it (a pid is
 * reused: config/lock-files.ts).
 */
export function procStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command's name, in parentheses, may hold spaces and parentheses: fields are counted after the last one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const startTicks = Number(fields[19]); // field 22 of proc(5), starttime
  return fields[0] && Number.isSafeInteger(startTicks) ? { state: fields[0], startTicks } : undefined;
}
