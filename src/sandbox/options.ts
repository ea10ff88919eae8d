/**
 * What a sandbox is started with (`startSandbox`, src/sandbox/server.ts), and the answer it
 * reports to `onExchange` for each request on /v2. Kept apart from the server so that the parts
 * the server wires together (parts.ts, dispatch.ts) can read them without importing it.
 */
import type { RecordedRequest } from './recording.js';
import type { ErrorShape, ListShape } from './shapes.js';

/** The longest --settle-after: what setTimeout takes (2^31 - 1 ms, about 24.8 days); longer overflows to 1 ms. */
export const MAX_SETTLE_AFTER_MS = 2_147_483_647;

export interface SandboxOptions {
  /** Default 0 (a free port). */
  port?: number;
  /** The process id that /_sandbox/health reports (how `payctl sandbox stop` knows its sandbox). */
  pid?: number;
  /**
   * A token /_sandbox/health reports beside the pid: the background sandbox's record holds it,
   * so `sandbox stop` signals only the sandbox it started, never a process that got its pid.
   */
  instance?: string;
  /** Told of what goes wrong without stopping the sandbox: a state file write that failed. */
  warn?: (message: string) => void;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: a random `sk_sandbox_` key (or the one kept in the state file). */
  apiKey?: string;
  /** Default 1; the demo data is a pure function of the seed (and the UTC day). */
  seed?: number;
  /** Keep state in this file across restarts (atomic, coalesced writes; flushed on close). */
  stateFile?: string;
  /** The account's `kycStatus` in GET /v2/auth/user; default "Verified". */
  kycStatus?: string;
  /** The answer of GET /v2/payout/list; default 'paginator' (Laravel's). */
  listShape?: ListShape;
  /** How errors are written; default 'laravel'. */
  errorShape?: ErrorShape;
  /** Default 3000; at most MAX_SETTLE_AFTER_MS (a RangeError otherwise). */
  settleAfterMs?: number;
  webhookUrl?: string;
  /** Default 'whsec_sandbox'. */
  webhookSecret?: string;
  /** Requests per second on /v2 before 429 with Retry-After; 0 or undefined: no limit. */
  rateLimit?: number;
  /** Default 500; the backoff doubles with each attempt. */
  webhookRetryBaseMs?: number;
  /** Default 8. */
  webhookMaxAttempts?: number;
  /** Default true: seed about 25 historic payouts in every status. */
  demoPayouts?: boolean;
  /**
   * Told of every request on /v2 and the answer the sandbox gave it (not of requests that got
   * no answer, nor of admin routes): how tests check both against openapi/v2.yaml. `fault` names
   * the injected fault that made the answer, if one did.
   */
  onExchange?: (request: RecordedRequest, answer: SandboxAnswer) => void;
}

/** An answer as it was written: status, headers (lower-case names) and the body text. */
export interface SandboxAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  fault?: string;
}
