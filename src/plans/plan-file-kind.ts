/**
 * Whether a file is a payctl plan, without reading it as one: its first 4 KiB hold
 * `"payctl_plan": <PLAN_FORMAT>` (a plan is one JSON object; anything else is read as a batch
 * file), or it is named as a plan of a shared ledger is (`sha256:<64 hex>`, the file a plan
 * send's batch rows are journaled with then). For `policy check` (a plan or a batch file),
 * `payout batch` (a plan given to it is refused with the plan send that sends it) and `history
 * reconcile` (the resume of a plan's rows is plan send, never payout batch).
 */
import { closeSync, readSync } from 'node:fs';
import { openRegular } from '../config/regular-file.js';
import { PLAN_FORMAT } from './plan.js';

/** A plan of a shared ledger, as its rows name their file: `sha256:` and 64 hex digits. */
export function isPlanHash(file: string): boolean {
  return /^sha256:[0-9a-f]{64}$/.test(file);
}

/** A plan file: its first 4 KiB, never blocking on a pipe nor reading a device (openRegular): such a file is no plan. */
export function isPlanFile(path: string): boolean {
  let f: ReturnType<typeof openRegular>;
  try {
    f = openRegular(path, true);
  } catch {
    return false;
  }
  if (!f) return false;
  try {
    const head = Buffer.alloc(4096);
    const n = readSync(f.fd, head, 0, head.length, 0);
    return new RegExp(`"payctl_plan"\\s*:\\s*${PLAN_FORMAT}\\b`).test(head.subarray(0, n).toString('utf8'));
  } catch {
    return false;
  } finally {
    closeSync(f.fd);
  }
}
