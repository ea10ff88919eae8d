/**
 * `payctl sandbox status`: whether the background sandbox runs, and where.
 * Exit 0 when it runs, 1 when it does not. A record whose pid is alive but not proven to be
 * its sandbox (record.ts: a reused pid) is stale, and said to be; `stop` removes it. A damaged
 * record is refused (exit 2): its sandbox may run, and nothing can tell.
 */
import { write, type Deps } from '../../deps.js';
import { findRecord, processAlive, recordedSandboxRuns } from '../../sandbox/record.js';
import { damagedRecord } from './damaged-record.js';
import { configDir } from '../../config/paths.js';

export async function run(_opts: Record<string, unknown>, deps: Deps): Promise<number> {
  const found = await findRecord(deps.env);
  if (found && 'damaged' in found) throw damagedRecord(deps.env, found, 'Its status is unknown.');
  const record = found?.record;
  const running = record !== undefined && (await recordedSandboxRuns(record, deps.host, deps.env));
  if (record && !running && processAlive(deps.host, record.pid)) {
    deps.log.info(
      `The sandbox record is stale: pid ${record.pid} is not this config folder's sandbox. \`payctl sandbox stop\` removes the record and leaves that process alone.`,
    );
  }
  if (deps.globals.json) {
    const out = running ? { running: true, base_url: record.baseUrl, pid: record.pid, port: record.port, started_at: record.startedAt } : { running: false };
    await write(deps.io.stdout, JSON.stringify(out) + '\n');
  } else if (running) {
    await write(deps.io.stdout, `Sandbox running at ${record.baseUrl} (pid ${record.pid}, started ${record.startedAt})\n`);
  } else {
    await write(deps.io.stdout, 'No sandbox is running.\n');
    // Said with the folder looked in: one started under another PAYCTL_CONFIG_DIR runs on unseen.
    deps.log.info(`(None recorded in the config folder ${configDir(deps.env)}.) Start one with: payctl sandbox start --detach`);
  }
  return running ? 0 : 1;
}
