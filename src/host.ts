/**
 * The processes payctl's commands may know of and touch: this process's id, the user's
 * id, the node binary that runs payctl, and signals to other processes. The entry
 * (cli.ts) makes it from the real process and hands it on in Deps; nothing below the
 * entry reads the process globals.
 */
export interface Host {
  pid: number;
  /** The user's id; undefined where the platform has none. */
  uid: number | undefined;
  /** The node binary that runs payctl: how a detached sandbox is started. */
  execPath: string;
  /** Sends `signal` to `pid` (0 only checks that it exists); throws as kill(2) fails (ESRCH, EPERM). */
  kill(pid: number, signal: NodeJS.Signals | 0): void;
}
