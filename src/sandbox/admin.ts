/**
 * Admin routes outside /v2, so tests can drive a sandbox running in another process
 * over HTTP. No auth (the sandbox listens on loopback only, and host-check.ts refuses
 * a foreign Host or Origin and non-JSON POST bodies before a request gets here); not
 * recorded, not rate-limited. Bodies and answers are JSON; answers use the success envelope.
 *
 *   GET    /_sandbox/health            { status: "ok", pid, port, base_url, wallets, payouts }
 *   POST   /_sandbox/faults            body: a fault spec; "times": null or absent = 1, -1 = forever
 *   GET    /_sandbox/faults            active faults ("remaining": -1 = forever)
 *   DELETE /_sandbox/faults            removes every fault
 *   GET    /_sandbox/requests          recorded /v2 requests, oldest first (credentials masked)
 *   DELETE /_sandbox/requests          forgets them
 *   POST   /_sandbox/wallets           { wallet_id?, wallet_name, currency, balance: "1250000.75" }
 *   POST   /_sandbox/payouts/generate  { count, walletId?, status? }
 *   POST   /_sandbox/revoke-key        { apiKey? } -> { api_key }
 *   POST   /_sandbox/account           { kycStatus } -> the account GET /v2/auth/user describes
 *   POST   /_sandbox/shapes            { list?, error? } -> { list, error }: the answer shapes to serve
 *   GET    /_sandbox/webhooks          recent webhook delivery attempts
 *
 * Errors here are 400 VALIDATION_ERROR (404 for an unknown route) in one shape of their
 * own, whatever error shape the /v2 routes are set to.
 */
import { apiKeyProblem } from '../config/api-key.js';
import { MAX_JSON_DEPTH } from '../service/error-body.js';
import { tooDeepMember } from './body.js';
import type { Fault, FaultSpec, Faults } from './faults.js';
import { failure, notFound, success, type Reply } from './respond.js';
import { ERROR_SHAPES, LIST_SHAPES, type ErrorShape, type ListShape } from './shapes.js';
import type { RecordedRequest } from './recording.js';
import type { Wallet } from './state.js';
import type { DeliveryLog } from './webhooks.js';
import { walletWire } from './wire.js';

export interface AdminControl {
  readonly faults: Faults;
  readonly apiKey: string;
  requests(): RecordedRequest[];
  clearRequests(): void;
  putWallet(w: { wallet_id?: string; wallet_name: string; currency: string; balance: string }): Wallet;
  generatePayouts(count: number, opts?: { walletId?: string; status?: string }): void;
  revokeApiKey(newKey?: string): void;
  kycStatus: string;
  shapes: { list: ListShape; error: ErrorShape };
  health(): Record<string, unknown>;
  deliveries(): DeliveryLog[];
}

function faultOut(f: Fault): Record<string, unknown> {
  return { ...f, times: f.times === Infinity ? -1 : (f.times ?? 1), remaining: f.remaining === Infinity ? -1 : f.remaining };
}

function invalid(field: string, message: string): Reply {
  return failure(400, 'VALIDATION_ERROR', `${field} ${message}.`, { fields: [{ field, message }] });
}

/**
 * Credentials never leave through the admin routes (the API key is the bearer token):
 * these headers, query parameters and JSON body members named like a key, token, secret
 * or password are shown as `***`. A body is kept byte for byte apart from those values.
 */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'api-key', 'x-api-key', 'apikey', 'x-auth-token', 'x-access-token', 'cookie', 'set-cookie']);
/** A header, parameter or member name that carries a credential: compared without case, `-` or `_`. */
const SECRET_NAME = /^(x)?(api|access|auth|refresh|id|client|webhook|session)?(key|token|secret|password|passwd|pwd|credentials?|authorization|bearer)$/;

function isSecretName(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase()) || SECRET_NAME.test(name.toLowerCase().replace(/[-_\s]/g, ''));
}

/**
 * The raw body with every string (or other value) under a secret-like name masked. A body
 * nested deeper than MAX_JSON_DEPTH is not walked (the walk, and writing it again, would
 * overflow the stack): it is shown as a note, since what it holds cannot be masked.
 */
function maskedBody(raw: string): string {
  if (tooDeepMember(raw, MAX_JSON_DEPTH) !== undefined) return `(not shown: JSON nested more than ${MAX_JSON_DEPTH} levels deep, ${raw.length} characters)`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw;
  }
  const values: unknown[] = [];
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!isObject(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (isSecretName(k) && x !== null && x !== '') {
        values.push(x);
        out[k] = '***';
      } else out[k] = walk(x);
    }
    return out;
  };
  const masked = walk(parsed);
  if (values.length === 0) return raw;
  // Byte for byte where each value is written as JSON.stringify writes it; else the whole body again.
  let out = raw;
  for (const v of values) {
    const written = JSON.stringify(v);
    if (typeof v !== 'string' || !out.includes(written)) return JSON.stringify(masked);
    out = out.split(written).join('"***"');
  }
  return out;
}

function masked(r: RecordedRequest): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) {
    if (!isSecretName(k)) headers[k] = v;
    else headers[k] = /^(bearer|basic)\s/i.test(v) ? `${v.split(/\s/)[0]} ***` : '***';
  }
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.query)) query[k] = isSecretName(k) ? '***' : v;
  return { ...r, headers, query, body: maskedBody(r.body) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type AdminHandler = (c: AdminControl, body: Record<string, unknown>) => Reply;

function addFault(c: AdminControl, body: Record<string, unknown>): Reply {
  const spec = { ...body } as unknown as FaultSpec & { times?: number | null };
  if (spec.times === null || spec.times === undefined) delete spec.times;
  else if (spec.times === -1) spec.times = Infinity;
  const f = c.faults.add(spec);
  return success(201, 'Fault added', faultOut(f));
}

function putWallet(c: AdminControl, body: Record<string, unknown>): Reply {
  const w = c.putWallet(body as unknown as { wallet_id?: string; wallet_name: string; currency: string; balance: string });
  return success(201, 'Wallet saved', walletWire(w));
}

function generatePayouts(c: AdminControl, body: Record<string, unknown>): Reply {
  const count = body.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 1_000_000) {
    return invalid('count', 'must be a whole number from 1 to 1000000');
  }
  const opts: { walletId?: string; status?: string } = {};
  if (typeof body.walletId === 'string') opts.walletId = body.walletId;
  if (typeof body.status === 'string') opts.status = body.status;
  c.generatePayouts(count, opts);
  return success(201, 'Payouts generated', { generated: count });
}

function revokeKey(c: AdminControl, body: Record<string, unknown>): Reply {
  if (body.apiKey !== undefined && (typeof body.apiKey !== 'string' || body.apiKey === '')) {
    return invalid('apiKey', 'must be a non-empty string');
  }
  // The key is the bearer token: one a client cannot send (a space, a control character) is refused, and not echoed.
  const problem = typeof body.apiKey === 'string' ? apiKeyProblem(body.apiKey) : undefined;
  if (problem !== undefined) return invalid('apiKey', `contains ${problem}: an API key is visible ASCII characters only`);
  c.revokeApiKey(body.apiKey);
  return success(200, 'API key revoked', { api_key: c.apiKey });
}

function setAccount(c: AdminControl, body: Record<string, unknown>): Reply {
  if (typeof body.kycStatus !== 'string' || body.kycStatus.trim() === '') return invalid('kycStatus', 'must be a non-empty string');
  c.kycStatus = body.kycStatus;
  return success(200, 'Account updated', { kycStatus: c.kycStatus });
}

function setShapes(c: AdminControl, body: Record<string, unknown>): Reply {
  const { list, error } = body;
  if (list !== undefined && !LIST_SHAPES.includes(list as ListShape)) return invalid('list', `must be one of ${LIST_SHAPES.join(', ')}`);
  if (error !== undefined && !ERROR_SHAPES.includes(error as ErrorShape)) return invalid('error', `must be one of ${ERROR_SHAPES.join(', ')}`);
  if (list !== undefined) c.shapes.list = list as ListShape;
  if (error !== undefined) c.shapes.error = error as ErrorShape;
  return success(200, 'Shapes set', { ...c.shapes });
}

/** The admin routes, by `METHOD path` (the list at the top of this file). */
const ADMIN_ROUTES: Readonly<Record<string, AdminHandler>> = {
  'GET /_sandbox/health': (c) => success(200, 'Sandbox is running', c.health()),
  'POST /_sandbox/faults': addFault,
  'GET /_sandbox/faults': (c) => success(200, 'Faults', c.faults.list().map(faultOut)),
  'DELETE /_sandbox/faults': (c) => {
    c.faults.clear();
    return success(200, 'Faults cleared', []);
  },
  'GET /_sandbox/requests': (c) => success(200, 'Recorded requests', c.requests().map(masked)),
  'DELETE /_sandbox/requests': (c) => {
    c.clearRequests();
    return success(200, 'Recorded requests cleared', []);
  },
  'POST /_sandbox/wallets': putWallet,
  'POST /_sandbox/payouts/generate': generatePayouts,
  'POST /_sandbox/revoke-key': revokeKey,
  'POST /_sandbox/account': setAccount,
  'POST /_sandbox/shapes': setShapes,
  'GET /_sandbox/webhooks': (c) => success(200, 'Webhook deliveries', c.deliveries()),
};

/** Whether a path (without its query) is one of the admin routes'. */
export function isAdminPath(path: string): boolean {
  return path === '/_sandbox' || path.startsWith('/_sandbox/');
}

/** The body of an admin request: none, or a JSON object. */
function adminBody(rawBody: string): { ok: true; body: Record<string, unknown> } | { ok: false; reply: Reply } {
  if (rawBody.trim() === '') return { ok: true, body: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    return { ok: false, reply: invalid('body', 'is not valid JSON') };
  }
  if (!isObject(parsed)) return { ok: false, reply: invalid('body', 'must be a JSON object') };
  return { ok: true, body: parsed };
}

export function handleAdmin(c: AdminControl, method: string, path: string, rawBody: string): Reply {
  const body = adminBody(rawBody);
  if (!body.ok) return body.reply;
  const route = `${method} ${path}`;
  const handler = Object.hasOwn(ADMIN_ROUTES, route) ? ADMIN_ROUTES[route] : undefined;
  if (!handler) return notFound(`No admin route ${route}.`);
  try {
    return handler(c, body.body);
  } catch (err) {
    if (err instanceof TypeError || err instanceof RangeError) {
      return failure(400, 'VALIDATION_ERROR', err.message);
    }
    throw err;
  }
}
