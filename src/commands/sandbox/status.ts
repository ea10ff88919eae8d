/**
 * `payctl sandbox status`: whether the background sandbox runs, and where.
 * Exit 0 when it runs, 1 when it does not.
 */
import { write, type Deps } from '../../deps.js';
import { readRecord, recordedSandboxRuns } from '../../sandbox/record.js';

export async function run(_opts: Record<string, unknown>, deps: Deps): Promise<number> {
  const record = await readRecord(deps.env);
  const running = record !== undefined && (await recordedSandboxRuns(record, deps.host));
  if (deps.globals.json) {
    const out = running ? { running: true, base_url: record.baseUrl, pid: record.pid, port: record.port, started_at: record.startedAt } : { running: false };
    await write(deps.io.stdout, JSON.stringify(out) + '\n');
  } else if (running) {
    await write(deps.io.stdout, `Sandbox running at ${record.baseUrl} (pid ${record.pid}, started ${record.startedAt})\n`);
  } else {
    await write(deps.io.stdout, 'No sandbox is running.\n');
    deps.log.info('Start one with: payctl sandbox start --detach');
  }
  return running ? 0 : 1;
}
