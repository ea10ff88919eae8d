/**
 * `payctl sandbox stop`: ends the background sandbox (SIGTERM, then SIGKILL after
 * 5 s), waits until its process is gone and removes its record. Idempotent: with no
 * sandbox running it says so and exits 0. Only a process proven to be the record's sandbox
 * is signalled (record.ts): a record whose pid now names anything else is stale, removed,
 * and that process left alone. A damaged record is refused (exit 2, nothing signalled, the
 * record kept): its sandbox may still run, and "stopped" or "none runs" would be a guess.
 */
import { write, type Deps } from '../../deps.js';
import type { Host } from '../../host.js';
import { findRecord, processAlive, recordedSandboxRuns, removeRecord } from '../../sandbox/record.js';
import { damagedRecord } from './damaged-record.js';
import { configDir } from '../../config/paths.js';

const GRACE_MS = 5000;
const KILL_WAIT_MS = 2000;

async function waitGone(deps: Deps, pid: number, ms: number): Promise<boolean> {
  const deadline = deps.clock.now().getTime() + ms;
  while (deps.clock.now().getTime() < deadline) {
    if (!processAlive(deps.host, pid)) return true;
    await deps.clock.sleep(50);
  }
  return !processAlive(deps.host, pid);
}

function signal(host: Host, pid: number, sig: NodeJS.Signals): void {
  try {
    host.kill(pid, sig);
  } catch {
    // gone already
  }
}

/** What is said of a stale record: its process is gone, or is some other program, which is not signalled. */
function staleRecord(deps: Deps, pid: number): string {
  return processAlive(deps.host, pid)
    ? `No sandbox is running (removed a stale record of pid ${pid}; that process is not this config folder's sandbox and was left alone).`
    : `No sandbox is running (removed a stale record of pid ${pid}).`;
}

export async function run(_opts: Record<string, unknown>, deps: Deps): Promise<number> {
  const found = await findRecord(deps.env);
  if (found && 'damaged' in found) throw damagedRecord(deps.env, found, 'Nothing was stopped.');
  const record = found?.record;
  const say = (text: string, json: Record<string, unknown>) => (deps.globals.json ? write(deps.io.stdout, JSON.stringify(json) + '\n') : deps.log.info(text));
  if (!record) {
    // Said with the folder looked in: one started under another PAYCTL_CONFIG_DIR runs on unseen.
    await say(`No sandbox is running from the config folder ${configDir(deps.env)}: nothing was stopped.`, { stopped: false, running: false });
    return 0;
  }
  if (!(await recordedSandboxRuns(record, deps.host, deps.env))) {
    await removeRecord(deps.env, { pid: record.pid, instance: record.instance });
    await say(staleRecord(deps, record.pid), { stopped: false, running: false });
    return 0;
  }
  signal(deps.host, record.pid, 'SIGTERM');
  let gone = await waitGone(deps, record.pid, GRACE_MS);
  if (!gone) {
    deps.log.warn(`The sandbox (pid ${record.pid}) did not stop within ${GRACE_MS / 1000} s; killing it.`);
    signal(deps.host, record.pid, 'SIGKILL');
    gone = await waitGone(deps, record.pid, KILL_WAIT_MS);
  }
  await removeRecord(deps.env, { pid: record.pid, instance: record.instance });
  if (!gone) {
    const { LocalError } = await import('../../errors.js');
    throw new LocalError(`The sandbox (pid ${record.pid}) could not be stopped.`, `Try: kill -9 ${record.pid}`);
  }
  await say('Sandbox stopped.', { stopped: true, pid: record.pid, base_url: record.baseUrl });
  return 0;
}
