/**
 * The handlers of the /v2 routes of the documented service (docs/service.md): who the key
 * belongs to, balances, payouts (create, look-up, list, summary), one function each; router.ts
 * finds the route. Each handler returns a `Reply`; dispatch.ts applies rate limits and faults
 * around them and writes the reply in the error shape the sandbox is set to.
 */
import type { Auth } from './auth.js';
import { fingerprintOf, type Fingerprint, type IdempotencyStore } from './idempotency.js';
import { JsonNumber } from './json.js';
import { listAnswer } from './paging.js';
import { failure, notFound, success, unauthorized, validationFailure, type Rendered, type Reply } from './respond.js';
import type { Settlement } from './settlement.js';
import type { ListShape } from './shapes.js';
import type { Ledger, Payout } from './state.js';
import { minorToJsonNumber } from '../money/amount.js';
import type { RouteName } from '../service/routes.js';
import { matchRoute } from './router.js';
import { tooDeepProblem, validateListQuery, validatePayout } from './validation.js';
import { initiationWire, listedWire, lookupWire, walletWire } from './wire.js';

/** The account `GET /v2/auth/user` describes (walletId is the first wallet's). */
export interface Account {
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
  status: string;
  kycStatus: string;
  businessName: string;
  address: string;
  country: string;
}

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
  /** A payout was created (webhook transfer.initiated). */
  created(p: Payout): void;
  /** Waits, unless the sandbox closes first (then it rejects). */
  sleep(ms: number): Promise<void>;
  account(): Account;
  listShape(): ListShape;
  /** Absolute URL of the sandbox (http://127.0.0.1:4010), for the list's page URLs of a request without a Host header. */
  origin(): string;
  /** Writes a reply in the sandbox's error shape (what the idempotency store keeps). */
  render(reply: Reply): Rendered;
}

type Handler = (req: ApiRequest, params: string[]) => Promise<Reply> | Reply;

/** The route that waits for the delay fault itself (after locking its idempotency key). */
const OWNS_DELAY: RouteName = 'payoutCreate';

export class Api {
  /** One handler per documented route (router.ts finds the route). */
  private readonly handlers: Record<RouteName, Handler> = {
    authUser: () => this.user(),
    balances: () => this.balances(),
    payoutCreate: (r) => this.createPayout(r),
    payoutGet: (_r, p) => this.getPayout(p[0]!),
    payoutsList: (r) => this.list(r),
    payoutsSummary: () => this.summary(),
  };

  constructor(private readonly d: ApiDeps) {}

  async handle(req: ApiRequest): Promise<Reply> {
    const match = matchRoute(req.method, req.path);
    if (match.kind === 'method') {
      // A known path asked with another method: 405 naming the methods it has (RFC 9110 15.5.6).
      return failure(405, 'METHOD_NOT_ALLOWED', `${req.path} does not take ${req.method}; it takes ${match.allowed.join(', ')}.`, {
        headers: { Allow: match.allowed.join(', ') },
      });
    }
    if (match.kind === 'none') return notFound(`No route for ${req.method} ${req.path}.`);
    // Every route needs the key as the bearer token; why it failed is not told (Laravel's answer).
    if (this.d.auth.check(req.headers.authorization) !== 'ok') return unauthorized();
    if (req.delayMs > 0 && match.name !== OWNS_DELAY) await this.d.sleep(req.delayMs);
    let decoded: string[];
    try {
      decoded = match.params.map((p) => decodeURIComponent(p));
    } catch {
      return notFound(`No route for ${req.method} ${req.path}.`);
    }
    return this.handlers[match.name](req, decoded);
  }

  private user(): Reply {
    const a = this.d.account();
    return success(200, 'User Authenticated successfully', {
      walletId: this.d.ledger.wallets()[0]?.id ?? null,
      email: a.email,
      firstName: a.firstName,
      lastName: a.lastName,
      phone: a.phone,
      status: a.status,
      kycStatus: a.kycStatus,
      businessName: a.businessName,
      address: a.address,
      country: a.country,
    });
  }

  private balances(): Reply {
    return success(200, 'Balances retrieved', this.d.ledger.wallets().map(walletWire));
  }

  private async createPayout(req: ApiRequest): Promise<Reply> {
    const key = req.headers['idempotency-key'];
    if (key === undefined || key.trim() === '') {
      return validationFailure([{ field: 'Idempotency-Key', message: 'The idempotency key header is required.' }]);
    }
    if (key.length > 255) {
      return validationFailure([{ field: 'Idempotency-Key', message: 'The idempotency key header must not be greater than 255 characters.' }]);
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
      case 'replay': {
        const replay: Reply = { status: begin.answer.status, body: begin.answer.body, headers: { 'Idempotent-Replayed': 'true' } };
        if (begin.answer.contentType) replay.contentType = begin.answer.contentType;
        return replay;
      }
      case 'new':
        break;
    }
    let reply: Rendered;
    try {
      if (req.delayMs > 0) await this.d.sleep(req.delayMs);
      // Written now, in the shape of the moment: a replay is the first answer byte for byte.
      reply = this.d.render(this.commitPayout(fingerprint, key));
    } catch (err) {
      this.d.idempotency.release(key);
      throw err;
    }
    this.d.idempotency.finish(key, { status: reply.status, body: reply.body, ...(reply.contentType ? { contentType: reply.contentType } : {}) });
    return reply;
  }

  private commitPayout(body: Fingerprint, key: string): Reply {
    // Nested too deep to be read: refused as a whole (stored for its key like any 422).
    if (body.tooDeep !== undefined) return validationFailure([tooDeepProblem(body.tooDeep)]);
    // A body that is not JSON reads as an empty one: every required field is missing.
    const v = validatePayout(body.parsed);
    if (!v.ok) return validationFailure(v.errors);
    const result = this.d.ledger.commitPayout(v.value, key);
    if (!result.ok) {
      if (result.field) return validationFailure([{ field: result.field, message: result.message }]);
      return failure(result.status, result.code, result.message);
    }
    this.d.settlement.schedule(result.payout);
    this.d.created(result.payout);
    return success(201, 'Transfer initiated successfully', initiationWire(result.payout));
  }

  private getPayout(transactionId: string): Reply {
    const p = this.d.ledger.find(transactionId);
    if (!p) return failure(404, undefined, 'Transfer not found');
    return success(200, 'Transfer status retrieved', lookupWire(p));
  }

  private list(req: ApiRequest): Reply {
    const v = validateListQuery(req.query);
    if (!v.ok) return validationFailure(v.errors);
    const { page, perPage } = v.value;
    const records = this.d.ledger.list(page, perPage).map(listedWire);
    const answer = listAnswer({ records, page, perPage, total: this.d.ledger.count(), path: `${this.originOf(req)}/v2/payout/list` }, this.d.listShape());
    return success(200, 'Transfers retrieved', answer.data, answer.extra ? { extra: answer.extra } : {});
  }

  /**
   * The origin the request was made to, as Laravel builds its page URLs from the request: its Host
   * header (localhost:4010 or 127.0.0.1:4010, which host-check.ts allowed before the request was
   * read); the sandbox's own address without one. A client that reached it as localhost was sent
   * links on 127.0.0.1, another origin, which payctl rightly does not follow.
   */
  private originOf(req: ApiRequest): string {
    return req.headers.host ? `http://${req.headers.host}` : this.d.origin();
  }

  /** Counts of every payout; the body (documented as `{}`) is not read. */
  private summary(): Reply {
    const s = this.d.ledger.summary();
    return success(200, 'Payout summary retrieved', {
      total_transfers: s.total,
      successful: s.successful,
      pending: s.pending,
      failed: s.failed,
      total_sent: new JsonNumber(minorToJsonNumber(s.totalSent.minor, s.totalSent.digits)),
      wallet_transfers: s.walletTransfers,
      bank_transfers: s.bankTransfers,
    });
  }
}
