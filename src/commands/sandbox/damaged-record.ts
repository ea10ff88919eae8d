/**
 * A damaged record of the background sandbox (record.ts findRecord: `sandbox.json` cut short,
 * emptied or edited): `status`, `stop` and `start` refuse it (exit 2, as any damaged file of
 * the config folder), never taking it for "no sandbox". The sandbox it recorded may still run
 * and hold its port, and nothing proves which process that is, so nothing is signalled and the
 * record is left for the user to remove once sure.
 */
import { ConfigError } from '../../errors.js';
import { shellQuote } from '../../config/shell.js';
import { logPath, recordPath } from '../../sandbox/record.js';

/** `outcome` ends the message: what this command did not do ("Nothing was stopped."). */
export function damagedRecord(env: NodeJS.ProcessEnv, found: { damaged: string; port?: number }, outcome: string): ConfigError {
  const file = recordPath(env);
  const port = found.port !== undefined ? String(found.port) : 'PORT';
  const where = found.port !== undefined ? `port ${found.port}, as the record says` : `the port it printed at start ("Sandbox running at …" in ${logPath(env)})`;
  return new ConfigError(
    `The sandbox record ${file} is damaged (${found.damaged}): payctl cannot tell whether the background sandbox it recorded still runs. ${outcome}`,
    [
      `That sandbox may still run and hold ${where}. Find its process with: ss -ltnp 'sport = :${port}'  (or: lsof -i :${port})`,
      'and end it with: kill PID',
      `Once sure no sandbox of this config folder runs, remove the record: rm ${shellQuote(file)}`,
    ].join('\n'),
  );
}
