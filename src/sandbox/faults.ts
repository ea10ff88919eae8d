/**
 * Fault injection for tests. A fault matches requests on /v2 by method and path and
 * applies to the next `times` of them (in the order faults were added):
 *
 * - `reset-before-commit`: the socket is destroyed before anything is processed.
 * - `reset-after-commit`: the request is processed in full (a payout is created and its
 *   idempotent answer stored), then the socket is destroyed without an answer.
 * - `status`: answers `status` with an error body (INTERNAL_ERROR for 5xx, RATE_LIMITED
 *   with Retry-After: 1 for 429, ...) without processing; `body` replaces the JSON body
 *   with raw text (an HTML page from a proxy, say).
 * - `delay`: waits `delayMs` and then processes normally; on POST /payout the wait comes
 *   after the Idempotency-Key is locked and before the payout is committed, so a second
 *   request with that key meanwhile sees 409 IDEMPOTENCY_IN_PROGRESS.
 * - `hang`: never answers; the socket stays open until the client gives up or the
 *   sandbox closes.
 *
 * `path` matches the exact path or anything below it (`/v2/payout` matches
 * `/v2/payout/TXN-BOK-…` and `/v2/payout/summary` but `/v2/payout` does not match
 * `/v2/payouts`); a trailing `*` makes it a plain prefix. No `path` matches every path.
 */

export const FAULT_KINDS = ['reset-after-commit', 'reset-before-commit', 'status', 'delay', 'hang'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  method?: string;
  path?: string;
  kind: FaultKind;
  /** For `status`. */
  status?: number;
  /** For `status`: override the error code / message, or send this raw body instead. */
  code?: string;
  message?: string;
  body?: string;
  /** For `delay`. */
  delayMs?: number;
  /** How many matching requests it applies to: default 1; Infinity for every one. */
  times?: number;
}

export interface Fault extends FaultSpec {
  readonly id: string;
  /** Matching requests left (Infinity for a permanent fault). */
  remaining: number;
}

export class Faults {
  private faults: Fault[] = [];
  private nextId = 1;

  /** Adds a fault; throws a TypeError naming the problem when the spec is invalid. */
  add(spec: FaultSpec): Fault {
    const problems = checkSpec(spec);
    if (problems.length) throw new TypeError(`Invalid fault: ${problems.join('; ')}.`);
    const times = spec.times ?? 1;
    const fault: Fault = { ...spec, id: `flt_${this.nextId++}`, remaining: times };
    if (spec.method) fault.method = spec.method.toUpperCase();
    this.faults.push(fault);
    return fault;
  }

  clear(): void {
    this.faults = [];
  }

  /** Faults still active, in the order they apply. */
  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  /** The first fault matching this request, counted down (and removed when used up). */
  take(method: string, path: string): Fault | undefined {
    const i = this.faults.findIndex((f) => matches(f, method, path));
    if (i < 0) return undefined;
    const f = this.faults[i]!;
    f.remaining -= 1;
    if (f.remaining <= 0) this.faults.splice(i, 1);
    return { ...f };
  }
}

function matches(f: Fault, method: string, path: string): boolean {
  if (f.method && f.method !== method.toUpperCase()) return false;
  if (!f.path) return true;
  if (f.path.endsWith('*')) return path.startsWith(f.path.slice(0, -1));
  const base = f.path.replace(/\/+$/, '');
  return path === base || path.startsWith(base + '/');
}

function checkSpec(spec: FaultSpec): string[] {
  const problems: string[] = [];
  if (typeof spec !== 'object' || spec === null) return ['the fault must be an object'];
  if (!FAULT_KINDS.includes(spec.kind)) problems.push(`kind must be one of ${FAULT_KINDS.join(', ')}`);
  if (spec.method !== undefined && (typeof spec.method !== 'string' || !/^[A-Za-z]+$/.test(spec.method))) {
    problems.push('method must be an HTTP method');
  }
  if (spec.path !== undefined && (typeof spec.path !== 'string' || !spec.path.startsWith('/'))) {
    problems.push('path must start with /');
  }
  if (spec.kind === 'status') {
    if (!Number.isInteger(spec.status) || spec.status! < 400 || spec.status! > 599) {
      problems.push('status must be a whole number from 400 to 599');
    }
  }
  if (spec.kind === 'delay') {
    if (typeof spec.delayMs !== 'number' || !Number.isFinite(spec.delayMs) || spec.delayMs < 0) {
      problems.push('delayMs must be a number of milliseconds');
    }
  }
  if (spec.times !== undefined && spec.times !== Infinity && (!Number.isInteger(spec.times) || spec.times < 1)) {
    problems.push('times must be a whole number of at least 1, or Infinity');
  }
  for (const key of ['code', 'message', 'body'] as const) {
    if (spec[key] !== undefined && typeof spec[key] !== 'string') problems.push(`${key} must be a string`);
  }
  return problems;
}
