/**
 * The parts of one sandbox, made from its options and the state file it was loaded from (if
 * any): the books, the API key, the idempotency store, faults, the request log, the rate limit,
 * webhooks and settlement, the answer shapes and the account (docs/service.md for what each
 * serves). Also what the admin routes and the test handle do with them: generate payouts, set
 * the shapes, take a snapshot for the state file. server.ts puts the parts behind HTTP.
 */
import type { Account } from './api.js';
import { Auth, newApiKey } from './auth.js';
import { Faults } from './faults.js';
import { IdempotencyStore } from './idempotency.js';
import type { SandboxOptions } from './options.js';
import type { PersistedState } from './persist.js';
import { RateLimiter } from './rate-limit.js';
import { RequestLog } from './recording.js';
import { demoData, generatedPayouts } from './seed.js';
import { Settlement } from './settlement.js';
import { ERROR_SHAPES, LIST_SHAPES, type ErrorShape, type ListShape } from './shapes.js';
import { Ledger, type Payout } from './state.js';
import { WebhookSender, type DeliveryLog, type EventType } from './webhooks.js';
import { webhookWire } from './wire.js';

/** Whose key the sandbox's is (GET /v2/auth/user); `walletId` is the first wallet's. */
const SANDBOX_ACCOUNT: Omit<Account, 'kycStatus'> = {
  email: 'aminata.kamara@sandbox.payctl.test',
  firstName: 'Aminata',
  lastName: 'Kamara',
  phone: '+23276123456',
  status: 'ACTIVE',
  businessName: 'Sandbox Payouts Ltd',
  address: '1, Water-side road, Freetown',
  country: 'SL',
};

/** The answer shapes served now (settable while the sandbox runs). */
export interface Shapes {
  list: ListShape;
  error: ErrorShape;
}

/** Refuses a webhook URL that is not http:// or https://. */
export function checkWebhookUrl(url: string | undefined): void {
  if (url === undefined) return;
  let ok = false;
  try {
    ok = ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw new RangeError(`The webhook URL must be an http:// or https:// URL, got "${url}".`);
}

function webhookSender(opts: SandboxOptions, secret: string): WebhookSender | undefined {
  if (!opts.webhookUrl) return undefined;
  return new WebhookSender({ url: opts.webhookUrl, secret, retryBaseMs: opts.webhookRetryBaseMs ?? 500, maxAttempts: opts.webhookMaxAttempts ?? 8 });
}

export class SandboxParts {
  readonly ledger = new Ledger();
  readonly auth: Auth;
  readonly idempotency = new IdempotencyStore();
  readonly faults = new Faults();
  readonly log = new RequestLog();
  readonly limiter: RateLimiter;
  readonly webhookSecret: string;
  readonly webhooks: WebhookSender | undefined;
  readonly settlement: Settlement;
  readonly shapes: Shapes = { list: 'paginator', error: 'laravel' };
  readonly account: Account;

  constructor(opts: SandboxOptions, loaded: PersistedState | undefined) {
    this.auth = new Auth(opts.apiKey ?? loaded?.apiKey ?? newApiKey());
    this.limiter = new RateLimiter(opts.rateLimit ?? 0);
    this.webhookSecret = opts.webhookSecret ?? 'whsec_sandbox';
    this.webhooks = webhookSender(opts, this.webhookSecret);
    this.settlement = new Settlement(this.ledger, opts.settleAfterMs ?? 3000, (p) => this.emit(p.status === 'Failed' ? 'transfer.failed' : 'transfer.success', p));
    this.setShapes({ list: opts.listShape, error: opts.errorShape });
    this.account = { ...SANDBOX_ACCOUNT, kycStatus: opts.kycStatus ?? 'Verified' };
    if (loaded) this.load(loaded);
    else {
      const demo = demoData(opts.seed ?? 1, Date.now(), opts.demoPayouts ?? true);
      for (const w of demo.wallets) this.ledger.putWallet(w);
      this.ledger.insertMany(demo.payouts);
    }
  }

  /** The books, keys and answers of a state file; its Pending payouts settle again. */
  private load(loaded: PersistedState): void {
    for (const w of loaded.wallets) this.ledger.putWallet(w);
    this.ledger.insertMany(loaded.payouts);
    this.idempotency.load(loaded.idempotency);
    for (const p of loaded.payouts) if (p.autoSettle && p.status === 'Pending') this.settlement.schedule(p);
  }

  /** Sends a webhook event; webhooks never fail the request that caused them. */
  emit(event: EventType, p: Payout): void {
    try {
      this.webhooks?.send(event, webhookWire(p));
    } catch {
      // delivery problems show in deliveries()
    }
  }

  /** Bulk records for list tests and benchmarks (they never settle). */
  generate(count: number, o: { walletId?: string; status?: string } = {}): void {
    if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a whole number of at least 1');
    let wallets = this.ledger.wallets();
    if (o.walletId !== undefined) {
      const w = this.ledger.wallet(o.walletId);
      if (!w) throw new RangeError(`no wallet "${o.walletId}"`);
      wallets = [w];
    }
    this.ledger.insertMany(generatedPayouts(count, wallets, Date.now(), o.status));
  }

  /** Serves another list or error shape from now on, refusing a name it does not know. */
  setShapes({ list, error }: { list?: string | undefined; error?: string | undefined }): void {
    if (list !== undefined && !LIST_SHAPES.includes(list as ListShape)) throw new RangeError(`The list shape must be one of ${LIST_SHAPES.join(', ')}, got "${list}".`);
    if (error !== undefined && !ERROR_SHAPES.includes(error as ErrorShape))
      throw new RangeError(`The error shape must be one of ${ERROR_SHAPES.join(', ')}, got "${error}".`);
    if (list !== undefined) this.shapes.list = list as ListShape;
    if (error !== undefined) this.shapes.error = error as ErrorShape;
  }

  /** Recent webhook delivery attempts. */
  deliveries(): DeliveryLog[] {
    return this.webhooks?.deliveries.slice() ?? [];
  }

  /** What the state file keeps. */
  snapshot(): PersistedState {
    return {
      version: 1,
      apiKey: this.auth.apiKey,
      wallets: this.ledger.wallets(),
      payouts: [...this.ledger.allPayouts()],
      idempotency: this.idempotency.stored().map((e) => ({ key: e.key, body: e.fingerprint.raw, createdMs: e.createdMs, answer: e.answer! })),
    };
  }

  /** Stops settlement and webhook retries. */
  close(): void {
    this.settlement.close();
    this.webhooks?.close();
  }
}
