/**
 * The /v2 routes of contract.md: auth, balances, payouts (create, get, list,
 * summary). Each route returns a `Reply`; the server applies rate limits and faults
 * around them and writes the reply.
 */
import type { Auth } from './auth.js';
import { fingerprintOf, type IdempotencyStore } from './idempotency.js';
import { money } from './json.js';
import { failure, notFound, success, unauthorized, validationFailure, type Reply } from './respond.js';
import type { Settlement } from './settlement.js';
import { digitsOf, initiationWire, payoutWire, walletWire, type Ledger, type Payout } from './state.js';
import { isoFromMicros } from './time.js';
import { validateListQuery, validatePayout, validateSummaryBody } from './validation.js';

export interface ApiRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** For the `delay` fault: wait this long at the route's commit point. */
  delayMs: number;
}

export interface ApiDeps {
  ledger: Ledger;
  auth: Auth;
  idempotency: IdempotencyStore;
  settlement: Settlement;
  /** A payout was created (webhook payout.pending). */
  created(p: Payout): void;
  /** Waits, unless the sandbox closes first (then it rejects). */
  sleep(ms: number): Promise<void>;
}

type Handler = (req: ApiRequest, params: string[]) => Promise<Reply> | Reply;

interface Route {
  method: string;
  pattern: RegExp;
  auth: boolean;
  handler: Handler;
  /** The route waits for the delay fault itself (after locking its idempotency key). */
  ownsDelay?: boolean;
}

export class Api {
  private readonly routes: Route[];

  constructor(private readonly d: ApiDeps) {
    this.routes = [
      { method: 'GET', pattern: /^\/v2\/auth\/token$/, auth: false, handler: (r) => this.token(r) },
      { method: 'GET', pattern: /^\/v2\/wallets\/balances$/, auth: true, handler: () => this.balances() },
      { method: 'POST', pattern: /^\/v2\/payout$/, auth: true, handler: (r) => this.createPayout(r), ownsDelay: true },
      { method: 'POST', pattern: /^\/v2\/payouts\/summary$/, auth: true, handler: (r) => this.summary(r) },
      { method: 'GET', pattern: /^\/v2\/payouts$/, auth: true, handler: (r) => this.list(r) },
      { method: 'GET', pattern: /^\/v2\/payouts\/([^/]+)$/, auth: true, handler: (_r, p) => this.getPayout(p[0]!) },
    ];
  }

  async handle(req: ApiRequest): Promise<Reply> {
    let params: string[] = [];
    const route = this.routes.find((r) => {
      if (r.method !== req.method) return false;
      const m = r.pattern.exec(req.path);
      if (m) params = m.slice(1);
      return m !== null;
    });
    if (!route) {
      // A known path asked with another method: 405 naming the methods it has (RFC 9110 15.5.6).
      const allowed = this.routes.filter((r) => r.pattern.test(req.path)).map((r) => r.method);
      if (allowed.length) {
        return failure(405, 'METHOD_NOT_ALLOWED', `${req.path} does not take ${req.method}; it takes ${allowed.join(', ')}.`, {
          headers: { Allow: allowed.join(', ') },
        });
      }
      return notFound(`No route for ${req.method} ${req.path}.`);
    }
    if (route.auth) {
      const check = this.d.auth.check(req.headers.authorization);
      if (check !== 'ok') {
        const why = {
          missing: 'Missing Authorization header; send Authorization: Bearer <token> from GET /v2/auth/token.',
          malformed: 'Malformed Authorization header; expected Authorization: Bearer <token>.',
          unknown: 'Invalid access token.',
          expired: 'Access token expired; get a new one from GET /v2/auth/token.',
        }[check];
        return unauthorized(why);
      }
    }
    if (req.delayMs > 0 && !route.ownsDelay) await this.d.sleep(req.delayMs);
    let decoded: string[];
    try {
      decoded = params.map((p) => decodeURIComponent(p));
    } catch {
      return notFound(`No route for ${req.method} ${req.path}.`);
    }
    return route.handler(req, decoded);
  }

  private token(req: ApiRequest): Reply {
    if (!this.d.auth.keyMatches(req.headers['api-key'])) {
      return unauthorized(req.headers['api-key'] ? 'Invalid API key.' : 'Missing Api-Key header.');
    }
    const { token, expiresIn } = this.d.auth.issue();
    return success(200, 'Access token generated successfully', {
      access_token: token,
      token_type: 'Bearer',
      expires_in: expiresIn,
    });
  }

  private balances(): Reply {
    return success(200, 'Wallet balances retrieved successfully', this.d.ledger.wallets().map(walletWire));
  }

  private async createPayout(req: ApiRequest): Promise<Reply> {
    const key = req.headers['idempotency-key'];
    if (key === undefined || key.trim() === '') {
      return validationFailure([{ field: 'Idempotency-Key', message: 'header is required' }]);
    }
    if (key.length > 255) {
      return validationFailure([{ field: 'Idempotency-Key', message: 'header must be at most 255 characters' }]);
    }
    const fingerprint = fingerprintOf(req.body);
    const begin = this.d.idempotency.begin(key, fingerprint);
    switch (begin.kind) {
      case 'in-progress':
        return failure(409, 'IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry shortly.', {
          headers: { 'Retry-After': '1' },
        });
      case 'reused':
        return failure(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request body; use a new key for a new payout.');
      case 'replay':
        return { status: begin.answer.status, body: begin.answer.body, headers: { 'Idempotent-Replayed': 'true' } };
      case 'new':
        break;
    }
    let reply: Reply;
    try {
      if (req.delayMs > 0) await this.d.sleep(req.delayMs);
      reply = this.commitPayout(fingerprint.parsedOk, fingerprint.parsed, key);
    } catch (err) {
      this.d.idempotency.release(key);
      throw err;
    }
    this.d.idempotency.finish(key, { status: reply.status, body: reply.body });
    return reply;
  }

  private commitPayout(parsedOk: boolean, parsed: unknown, key: string): Reply {
    if (!parsedOk) return validationFailure([{ field: 'body', message: 'is not valid JSON' }]);
    const v = validatePayout(parsed);
    if (!v.ok) return validationFailure(v.errors);
    const result = this.d.ledger.commitPayout(v.value, key);
    if (!result.ok) return failure(result.status, result.code, result.message);
    this.d.settlement.schedule(result.payout);
    this.d.created(result.payout);
    return success(201, 'Transfer initiated successfully', initiationWire(result.payout));
  }

  private getPayout(id: string): Reply {
    const p = this.d.ledger.find(id);
    if (!p) return notFound(`No payout with payoutId or transaction_id "${id}".`);
    return success(200, 'Payout retrieved successfully', payoutWire(p));
  }

  private list(req: ApiRequest): Reply {
    const v = validateListQuery(req.query);
    if (!v.ok) return validationFailure(v.errors);
    const { page, limit, filter } = v.value;
    return success(200, 'Payouts retrieved successfully', this.d.ledger.list(filter, page, limit).map(payoutWire));
  }

  private summary(req: ApiRequest): Reply {
    let body: unknown = {};
    if (req.body.trim() !== '') {
      try {
        body = JSON.parse(req.body);
      } catch {
        return validationFailure([{ field: 'body', message: 'is not valid JSON' }]);
      }
    }
    const v = validateSummaryBody(body);
    if (!v.ok) return validationFailure(v.errors);
    const { filter } = v.value;
    const currencies = this.d.ledger.summary(filter).map((c) => {
      const digits = digitsOf(c.currency);
      const statuses: Record<string, unknown> = {};
      for (const [status, s] of c.statuses) statuses[status] = { count: s.count, amount: money(s.amount, digits) };
      return { currency: c.currency, count: c.count, amount: money(c.amount, digits), fee: money(c.fee, digits), statuses };
    });
    return success(200, 'Payout summary retrieved successfully', {
      from: filter.fromUs === undefined ? null : isoFromMicros(filter.fromUs),
      to: filter.toUs === undefined ? null : isoFromMicros(filter.toUs),
      currencies,
    });
  }
}
