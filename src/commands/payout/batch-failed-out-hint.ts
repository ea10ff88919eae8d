/**
 * `payout batch status` without --failed-out, when rows Failed (probe M57, F5): the command that
 * writes them to a batch file to send again, said as the run's last line (and `--json`'s
 * `failed_out_command`): the same invocation (the run's profile, base URL and time limit; its
 * --concurrency when not the default, --wait and --wait-timeout), the report by its absolute path, and a --failed-out
 * file beside it, named from it, that does not exist yet (`pay.report.csv`: `pay.failed.csv`, then
 * `pay.failed-2.csv`, ...; `.jsonl` for a JSON Lines report), each value quoted as commandLine
 * quotes it, so that it runs as printed.
 */
import { basename, dirname, extname, join } from 'node:path';
import { commandLine, fileOperand, type Invocation } from '../../config/command-line.js';
import { freePath } from '../../config/paths.js';
import type { BatchStatusOptions } from './batch-status.js';
import { DEFAULT_STATUS_CONCURRENCY } from './batch-status-spec.js';

/** A --failed-out file beside `report` (absolute), named from it, that does not exist yet. */
export function failedOutName(report: string, format: 'csv' | 'jsonl'): string {
  const stem = basename(report, extname(report)).replace(/\.report$/, '');
  return freePath(join(dirname(report), `${stem}.failed`), format === 'jsonl' ? '.jsonl' : '.csv');
}

/** The run again, `report` (absolute) and its options, with a --failed-out that writes its Failed rows. */
export function failedOutCommand(inv: Invocation, opts: BatchStatusOptions, report: string, format: 'csv' | 'jsonl'): string {
  const options = [
    ...(opts.concurrency !== undefined && opts.concurrency !== DEFAULT_STATUS_CONCURRENCY ? ['--concurrency', String(opts.concurrency)] : []),
    ...(opts.wait ? ['--wait'] : []),
    ...(opts.waitTimeout !== undefined ? ['--wait-timeout', String(opts.waitTimeout)] : []),
    '--failed-out',
    fileOperand(failedOutName(report, format)),
  ];
  return commandLine(inv, ['payout', 'batch', 'status'], [fileOperand(report), ...options]);
}
