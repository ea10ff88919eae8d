/**
 * A schema-driven fuzz of the sandbox over real HTTP: requests generated from openapi/v2.yaml
 * (a small deterministic generator over the JSON schemas of each operation: types, enums,
 * const, min/max, lengths, one-of branches, `x-minor-digits` and `x-max-significant-digits`
 * on amounts, and hand-written generators for the exact patterns the document uses, so that a
 * new pattern fails here until it has one). For every operation it sends requests the
 * description calls valid, and some it calls invalid, under every list and error shape, and
 * holds the sandbox to three things: no answer >= 500; no valid request refused (a valid
 * POST /payout gets 201 from a wallet the test made with enough money in that currency; a
 * look-up of an id the sandbox never gave is a 404, not a refusal); every answer, and every
 * webhook event, valid against the description. Each generated request is first checked
 * against the description itself, so the generator cannot drift from it unnoticed.
 */
import { request as httpRequest, Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { description, requestProblems, responseProblems, schemaProblems, type Answer, type Exchange } from '../helpers/openapi.js';
import { startSandbox, webhookReceiver } from '../helpers/sandbox.js';

type Obj = Record<string, any>;

// --- a deterministic random source -------------------------------------------------------------

class Rng {
  constructor(private s: number) {}
  /** mulberry32: [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) | 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chars(alphabet: string, n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
}

const HEX = '0123456789abcdef';
const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';

function uuid(r: Rng): string {
  return `${r.chars(HEX, 8)}-${r.chars(HEX, 4)}-4${r.chars(HEX, 3)}-${r.pick(['8', '9', 'a', 'b'])}${r.chars(HEX, 3)}-${r.chars(HEX, 12)}`;
}

/** Code points for free text: ASCII, Latin-1, RTL, CJK, combining marks and characters outside the BMP (one code point, two UTF-16 units). */
const TEXT_POOLS = [
  [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'],
  [...` .,-'&/()#:;!?"`],
  [...'éèçñüöÅØßÀÉÍÓÚ'],
  [...'مرحباשלום'],
  [...'中文字符払い出し'],
  ['\u0301', '\u0308'],
  [...'😀👍🏽🚀💸🇸🇱𝄞'],
];

/** Text that is not blank, with `min`..`max` code points (JSON Schema counts code points). */
function text(r: Rng, min: number, max: number): string {
  const n = r.chance(0.1) ? max : r.chance(0.3) ? r.int(min, max) : r.int(Math.max(min, 1), Math.min(max, 24));
  const cps: string[] = [];
  for (let i = 0; i < n; i++) cps.push(r.pick(r.pick(TEXT_POOLS)));
  if (!cps.some((c) => /\S/u.test(c))) cps[r.int(0, cps.length - 1)] = 'x';
  return cps.join('');
}

/** Generators for the exact patterns of the document. */
const PATTERNS: Record<string, (r: Rng) => string> = {
  '^[a-z0-9]+(_[a-z0-9]+)*$': (r) => Array.from({ length: r.int(1, 3) }, () => r.chars(LOWER + DIGITS, r.int(1, 10))).join('_'),
  // Some end in 0000: the sandbox fails those payouts when they settle (transfer.failed, failure_reason).
  '^[A-Za-z0-9-]{1,34}$': (r) => {
    const account = r.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-', r.chance(0.1) ? 34 : r.int(1, 14));
    return r.chance(0.15) ? account.slice(0, 30) + '0000' : account;
  },
  '^\\+?[0-9]{6,15}$': (r) => (r.chance(0.5) ? '+' : '') + r.chars(DIGITS, r.chance(0.1) ? r.pick([6, 15]) : r.int(6, 15)),
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$': uuid,
  '^TXN-BOK-[0-9A-F]{26}$': (r) => 'TXN-BOK-' + r.chars('0123456789ABCDEF', 26),
};

// --- the generator -------------------------------------------------------------------------------

/** allOf members folded into one schema (properties merged recursively, required joined). */
function merged(schema: Obj): Obj {
  if (!schema.allOf) return schema;
  const out: Obj = { ...schema };
  delete out.allOf;
  for (const part of schema.allOf as Obj[]) {
    const m = merged(part);
    for (const [k, v] of Object.entries(m)) {
      if (k === 'properties') {
        out.properties = { ...out.properties };
        for (const [name, s] of Object.entries(v as Obj)) out.properties[name] = out.properties[name] ? merged({ allOf: [out.properties[name], s] }) : s;
      } else if (k === 'required') out.required = [...new Set([...(out.required ?? []), ...(v as string[])])];
      else if (k === 'type' && 'type' in out) {
        const types = (t: unknown) => (Array.isArray(t) ? (t as string[]) : [t as string]);
        const both = types(out.type).filter((t) => types(v).includes(t));
        out.type = both.length === 1 ? both[0] : both;
      } else if (!(k in out)) out[k] = v;
    }
  }
  return out;
}

/** An amount with at most the currency's minor digits and 15 significant digits, as an exact JSON number. */
function amount(r: Rng, schema: Obj, siblings: Obj): number {
  const spec = schema['x-minor-digits'] as { currencyProperty: string; default: number; byCurrency: Record<string, number> };
  const currency = siblings[spec.currencyProperty] as string;
  const digits = spec.byCurrency[currency] ?? spec.default;
  const max = schema['x-max-significant-digits'] as number;
  const n = r.chance(0.1) ? max : r.chance(0.1) ? 1 : r.int(1, Math.min(max, digits + 7));
  const minor = r.chance(0.05) ? '1' : String(r.int(1, 9)) + r.chars(DIGITS, n - 1);
  const padded = minor.padStart(digits + 1, '0');
  const literal = digits === 0 ? padded : `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
  return Number(literal);
}

/** A JSON value the schema accepts. `siblings` holds the values already made for the enclosing object. */
function generate(r: Rng, input: Obj, siblings: Obj = {}): unknown {
  const schema = merged(input);
  if ('const' in schema) return schema.const;
  if (schema.enum) return r.pick(schema.enum as unknown[]);
  if (schema.oneOf || schema.anyOf)
    return generate(r, { ...schema, oneOf: undefined, anyOf: undefined, ...merged(r.pick((schema.oneOf ?? schema.anyOf) as Obj[])) }, siblings);
  let type = schema.type as string | string[] | undefined;
  if (Array.isArray(type)) type = type.includes('null') && r.chance(0.25) ? 'null' : r.pick(type.filter((t) => t !== 'null'));
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return r.chance(0.5);
    case 'integer': {
      const min = schema.minimum ?? 0;
      const max = schema.maximum ?? min + (r.chance(0.05) ? 1e9 : 20);
      return r.int(min, max);
    }
    case 'number':
      if (schema['x-minor-digits']) return amount(r, schema, siblings);
      return r.int(0, 1_000_000) / 100;
    case 'string': {
      if (schema.pattern === '\\S') return text(r, schema.minLength ?? 1, schema.maxLength ?? 255);
      if (schema.pattern) {
        const make = PATTERNS[schema.pattern as string];
        if (!make) throw new Error(`no generator for the pattern ${schema.pattern}: add one to PATTERNS`);
        return make(r);
      }
      return text(r, schema.minLength ?? 0, schema.maxLength ?? 60);
    }
    case 'array':
      return Array.from({ length: r.int(schema.minItems ?? 0, 3) }, () => generate(r, schema.items ?? {}));
    case 'object': {
      const out: Obj = {};
      if (schema.maxProperties === 0) return out;
      const props = (schema.properties ?? {}) as Obj;
      const required = new Set((schema.required ?? []) as string[]);
      // Properties others depend on (an amount's currency) first.
      const first = Object.values(props).flatMap((p: Obj) => (p['x-minor-digits'] ? [p['x-minor-digits'].currencyProperty as string] : []));
      const names = [...new Set([...first, ...Object.keys(props)])];
      for (const name of names) if (required.has(name) || r.chance(0.6)) out[name] = generate(r, props[name], out);
      if (Object.keys(props).length === 0 && schema.additionalProperties !== false) {
        // Free key-value pairs (metadata).
        for (let i = r.int(0, 3); i > 0; i--) out[r.chars(LOWER, r.int(1, 8))] = r.pick([text(r, 1, 12), r.int(0, 999), r.chance(0.5), null, { nested: [1, 'two'] }]);
      }
      return out;
    }
    default:
      throw new Error(`cannot generate from ${JSON.stringify(schema).slice(0, 200)}`);
  }
}

// --- HTTP ----------------------------------------------------------------------------------------

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

interface Sent {
  exchange: Exchange;
  answer: Answer;
}

/** One request exactly as given (a GET may carry a body, as the documentation's look-up example does). */
function send(sb: Sandbox, method: string, path: string, headers: Record<string, string>, body = '', query: Record<string, string> = {}): Promise<Sent> {
  const qs = new URLSearchParams(query).toString();
  const target = new URL(sb.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method,
        path: path + (qs ? `?${qs}` : ''),
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const answerHeaders: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) answerHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
          const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
          resolve({
            exchange: { method, path, query, headers: lower, body },
            answer: { status: res.statusCode ?? 0, headers: answerHeaders, body: Buffer.concat(chunks).toString('utf8') },
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// --- the run -------------------------------------------------------------------------------------

const LIST_SHAPES = ['paginator', 'resource', 'array', 'items'] as const;
const ERROR_SHAPES = ['laravel', 'envelope', 'error', 'problem'] as const;

describe('the sandbox against openapi/v2.yaml, fuzzed from its schemas', () => {
  let sb: Sandbox;
  let hooks: Awaited<ReturnType<typeof webhookReceiver>>;
  let doc: Obj;
  const r = new Rng(26);
  const serverErrors: string[] = [];
  const refused: string[] = [];
  const invalidAnswers: string[] = [];
  const counts: Record<string, { valid: number; invalid: number }> = {};
  const transactionIds: string[] = [];

  beforeAll(async () => {
    hooks = await webhookReceiver();
    sb = await startSandbox({ settleAfterMs: 30, webhookUrl: hooks.url, webhookRetryBaseMs: 20, webhookMaxAttempts: 2 });
    doc = await description();
  });

  afterAll(async () => {
    // The test sandbox checks every answer against the description too, and fails close() if one broke it.
    await sb?.close();
    await hooks?.close();
    agent.destroy();
  });

  const auth = () => ({ accept: 'application/json', authorization: `Bearer ${sb.apiKey}` });

  /** No 5xx, no valid request refused, no answer outside the description (the first few of each shown); then starts afresh. */
  function expectClean() {
    const shown = (list: string[]) => `${list.length}: ${list.slice(0, 5).join('\n')}`;
    const found = { serverErrors: shown(serverErrors), refused: shown(refused), invalidAnswers: shown(invalidAnswers) };
    serverErrors.length = refused.length = invalidAnswers.length = 0;
    expect(found).toEqual({ serverErrors: '0: ', refused: '0: ', invalidAnswers: '0: ' });
  }

  /** Sends, counts, and files the answer when it is a 5xx or not as the description says. */
  async function exchange(
    label: string,
    kind: 'valid' | 'invalid',
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
    query?: Record<string, string>,
  ): Promise<Sent> {
    const sent = await send(sb, method, path, headers, body, query);
    (counts[label] ??= { valid: 0, invalid: 0 })[kind]++;
    const said = `${method} ${path}${query && Object.keys(query).length ? '?' + new URLSearchParams(query).toString() : ''} ${body ?? ''}`.slice(0, 400);
    if (sent.answer.status >= 500) serverErrors.push(`${said} -> ${sent.answer.status} ${sent.answer.body.slice(0, 300)}`);
    for (const p of await responseProblems(sent.exchange, sent.answer)) invalidAnswers.push(p);
    return sent;
  }

  /** A valid request: the description must call it valid, and the sandbox must take it (with `status` when given; a 404 for an id it never gave, when `notFoundOk`). */
  async function valid(
    label: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
    query: Record<string, string> = {},
    opts: { notFoundOk?: boolean; status?: number } = {},
  ) {
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const own = await requestProblems({ method, path, query, headers: lower, body: body ?? '' });
    expect(own, `the generator made a request the description calls invalid: ${body ?? ''}`).toEqual([]);
    const sent = await exchange(label, 'valid', method, path, headers, body, query);
    const { status } = sent.answer;
    const taken = opts.status === undefined ? status >= 200 && status < 300 : status === opts.status;
    if (!taken && !(opts.notFoundOk && status === 404))
      refused.push(`${method} ${path} ${JSON.stringify(query)} -> ${status} ${sent.answer.body.slice(0, 400)} for ${body ?? ''}`.slice(0, 1200));
    return sent;
  }

  /** An invalid request: the description must call it invalid, and the sandbox must refuse it with a 4xx. */
  async function invalid(label: string, method: string, path: string, headers: Record<string, string>, body?: string, query: Record<string, string> = {}, what = '') {
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const own = await requestProblems({ method, path, query, headers: lower, body: body ?? '' });
    expect(own.length, `the description calls this request (${what}) valid: ${method} ${path} ${JSON.stringify(query)} ${body ?? ''}`).toBeGreaterThan(0);
    const sent = await exchange(label, 'invalid', method, path, headers, body, query);
    const said = `${what} ${method} ${path} ${JSON.stringify(query)} ${body ?? ''} -> ${sent.answer.status} ${sent.answer.body}`;
    expect(sent.answer.status, said).toBeGreaterThanOrEqual(400);
    expect(sent.answer.status, said).toBeLessThan(500);
    return sent;
  }

  const op = (path: string, method: string) => doc.paths[path][method] as Obj;
  /** Header parameters from the operation: the required ones always, optional ones half the time. */
  const headerParams = (o: Obj): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const p of (o.parameters ?? []) as Obj[]) if (p.in === 'header' && (p.required || r.chance(0.5))) out[p.name as string] = String(generate(r, p.schema));
    return out;
  };
  const queryParams = (o: Obj): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const p of (o.parameters ?? []) as Obj[]) if (p.in === 'query' && (p.required || r.chance(0.7))) out[p.name as string] = String(generate(r, p.schema));
    return out;
  };
  const jsonBody = (o: Obj) => o.requestBody.content['application/json'].schema as Obj;

  /** Minor units to a decimal string with `digits` decimals. */
  const decimal = (minor: bigint, digits: number) => {
    const s = minor.toString().padStart(digits + 1, '0');
    return digits ? `${s.slice(0, -digits)}.${s.slice(-digits)}` : s;
  };
  const minorOf = (amount: number, digits: number) => {
    const [whole = '0', frac = ''] = (amount.toString().includes('e') ? amount.toFixed(digits) : amount.toString()).split('.');
    return BigInt(whole + frac.padEnd(digits, '0'));
  };

  let walletSeq = 0;
  const usedPayoutIds = new Set<string>();

  /** A valid payout body, from the schema, paid from a new wallet that holds enough in its currency. */
  function payoutBody(): Obj {
    const schema = jsonBody(op('/payout', 'post'));
    let body: Obj;
    do body = generate(r, schema) as Obj;
    while (usedPayoutIds.has((body.payoutId as string).trim()));
    usedPayoutIds.add((body.payoutId as string).trim());
    const spec = schema.properties.amount['x-minor-digits'];
    const digits = (spec.byCurrency[body.currency] ?? spec.default) as number;
    const walletId = String(9_000_000_000 + ++walletSeq);
    sb.setWallet({
      wallet_id: walletId,
      wallet_name: `Fuzz ${walletSeq}`,
      currency: body.currency as string,
      balance: decimal(minorOf(body.amount as number, digits) * 2n + 100n, digits),
    });
    body.walletId = walletId;
    return body;
  }

  /** Headers and body text of a POST /payout; `key` null sends no Idempotency-Key. */
  const postPayout = (body: Obj | string, key: string | null = uuid(r)) => {
    const headers: Record<string, string> = { ...auth(), 'content-type': 'application/json' };
    if (key !== null) headers['Idempotency-Key'] = key;
    return [headers, typeof body === 'string' ? body : JSON.stringify(body)] as const;
  };

  it('takes 150 valid POST /payout bodies with 201, and refuses invalid ones with a 4xx', async () => {
    const create = op('/payout', 'post');
    for (let i = 0; i < 150; i++) {
      const body = payoutBody();
      const [headers, raw] = postPayout(body, String(generate(r, create.parameters[0].schema)));
      const sent = await valid('POST /payout', 'POST', '/v2/payout', headers, raw, {}, { status: 201 });
      if (sent.answer.status === 201) {
        const data = (JSON.parse(sent.answer.body) as Obj).data as Obj;
        transactionIds.push(data.transaction_id as string);
        // The answer is about what was asked.
        expect([data.amount, data.currency]).toEqual([body.amount, body.currency]);
      }
    }

    // Invalid by the description, under every error shape.
    const mutations: Array<[string, (b: Obj) => unknown]> = [
      ['no amount', (b) => ({ ...b, amount: undefined })],
      ['amount as a string', (b) => ({ ...b, amount: String(b.amount) })],
      ['amount 0', (b) => ({ ...b, amount: 0 })],
      ['amount below 0', (b) => ({ ...b, amount: -5 })],
      ['too many decimals', (b) => ({ ...b, currency: 'SLE', amount: 10.005 })],
      ['a fraction of yen', (b) => ({ ...b, currency: 'JPY', amount: 10.5 })],
      ['16 significant digits', (b) => ({ ...b, currency: 'USD', amount: 12345678901234.56 })],
      ['unknown currency', (b) => ({ ...b, currency: 'XXX' })],
      ['lower-case currency', (b) => ({ ...b, currency: String(b.currency).toLowerCase() })],
      ['no payoutId', (b) => ({ ...b, payoutId: undefined })],
      ['blank walletId', (b) => ({ ...b, walletId: '   ' })],
      ['recipient type card', (b) => ({ ...b, recipient: { ...b.recipient, type: 'card' } })],
      ['wallet without phone', (b) => ({ ...b, recipient: { type: 'wallet', accountDetails: { ...b.recipient.accountDetails, phoneNumber: null } } })],
      ['short phone', (b) => ({ ...b, recipient: { type: 'wallet', accountDetails: { ...b.recipient.accountDetails, phoneNumber: '12345' } } })],
      ['provider with capitals', (b) => ({ ...b, recipient: { ...b.recipient, accountDetails: { ...b.recipient.accountDetails, provider: 'Orange_Money' } } })],
      ['account with a space', (b) => ({ ...b, recipient: { ...b.recipient, accountDetails: { ...b.recipient.accountDetails, accountNumber: '0427 570182' } } })],
      ['account of 35', (b) => ({ ...b, recipient: { ...b.recipient, accountDetails: { ...b.recipient.accountDetails, accountNumber: '1'.repeat(35) } } })],
      ['blank name', (b) => ({ ...b, recipient: { ...b.recipient, accountDetails: { ...b.recipient.accountDetails, name: ' \t ' } } })],
      ['name of 256', (b) => ({ ...b, recipient: { ...b.recipient, accountDetails: { ...b.recipient.accountDetails, name: 'n'.repeat(256) } } })],
      ['note of 256', (b) => ({ ...b, recipient: { ...b.recipient, accountDetails: { ...b.recipient.accountDetails, note: 'n'.repeat(256) } } })],
      ['no accountDetails', (b) => ({ ...b, recipient: { type: 'bank' } })],
      ['metadata a list', (b) => ({ ...b, metadata: ['a', 'b'] })],
      ['a list for a body', (b) => [b]],
    ];
    for (const shape of ERROR_SHAPES) {
      const set = await send(sb, 'POST', '/_sandbox/shapes', { 'content-type': 'application/json' }, JSON.stringify({ error: shape }));
      expect(set.answer.status).toBe(200);
      for (const [what, mutate] of mutations) {
        const [headers, raw] = postPayout(mutate(payoutBody()) as Obj);
        await invalid('POST /payout', 'POST', '/v2/payout', headers, raw, {}, what);
      }
      const [noKey, raw] = postPayout(payoutBody(), null);
      await invalid('POST /payout', 'POST', '/v2/payout', noKey, raw, {}, 'no Idempotency-Key');
      const [badJson] = postPayout({});
      await invalid('POST /payout', 'POST', '/v2/payout', badJson, '{"amount": 10,');
      const [anonymous, body] = postPayout(payoutBody());
      delete anonymous.authorization;
      await invalid('POST /payout', 'POST', '/v2/payout', anonymous, body);

      // Valid by the description but refused for what only the service knows: a 4xx, never a 5xx.
      const poor = payoutBody();
      sb.setWallet({ wallet_id: poor.walletId as string, wallet_name: 'Empty', currency: poor.currency as string, balance: '0' });
      const unknownWallet = { ...payoutBody(), walletId: '0000000001' };
      const otherCurrency = payoutBody();
      otherCurrency.currency = otherCurrency.currency === 'SLE' ? 'NGN' : 'SLE';
      otherCurrency.amount = 10;
      for (const b of [poor, unknownWallet, otherCurrency]) {
        const [headers, raw] = postPayout(b);
        const sent = await exchange('POST /payout', 'valid', 'POST', '/v2/payout', headers, raw);
        expect([sent.answer.status >= 400 && sent.answer.status < 500, sent.answer.body]).toEqual([true, expect.any(String)]);
      }
    }
    await send(sb, 'POST', '/_sandbox/shapes', { 'content-type': 'application/json' }, JSON.stringify({ error: 'laravel' }));

    expectClean();
  });

  it('answers 30 valid requests to every other operation, under every list and error shape', async () => {
    for (const shape of LIST_SHAPES) {
      const set = await send(
        sb,
        'POST',
        '/_sandbox/shapes',
        { 'content-type': 'application/json' },
        JSON.stringify({ list: shape, error: ERROR_SHAPES[LIST_SHAPES.indexOf(shape)] }),
      );
      expect(set.answer.status).toBe(200);
      const n = shape === 'paginator' ? 30 : 10;
      for (let i = 0; i < n; i++) {
        await valid('GET /auth/user', 'GET', '/v2/auth/user', { ...auth(), ...headerParams(op('/auth/user', 'get')) });
        await valid('GET /wallets/balances', 'GET', '/v2/wallets/balances', { ...auth(), ...headerParams(op('/wallets/balances', 'get')) });

        const list = op('/payout/list', 'get');
        await valid('GET /payout/list', 'GET', '/v2/payout/list', { ...auth(), ...headerParams(list) }, undefined, queryParams(list));

        const summary = op('/payout/summary', 'post');
        await valid(
          'POST /payout/summary',
          'POST',
          '/v2/payout/summary',
          { ...auth(), 'content-type': 'application/json', ...headerParams(summary) },
          JSON.stringify(generate(r, jsonBody(summary))),
        );

        const one = op('/payout/{transactionId}', 'get');
        const known = i % 2 === 0 && transactionIds.length > 0;
        const id = known ? r.pick(transactionIds) : String(generate(r, one.parameters.find((p: Obj) => p.in === 'path').schema));
        // The documentation's look-up example sends the body {} with its GET.
        const withBody = r.chance(0.3);
        const sent = await valid(
          'GET /payout/{transactionId}',
          'GET',
          `/v2/payout/${id}`,
          { ...auth(), ...headerParams(one), ...(withBody ? { 'content-type': 'application/json' } : {}) },
          withBody ? '{}' : undefined,
          {},
          { notFoundOk: !known },
        );
        if (known) expect(sent.answer.status).toBe(200);
      }

      // Parameters the sandbox ignores (the description has none but page and per_page; payctl filters itself).
      const ignored = await exchange('GET /payout/list', 'valid', 'GET', '/v2/payout/list', auth(), undefined, {
        page: '1',
        status: 'failed',
        currency: 'SLE',
        from: '2026-01-01',
      });
      expect(ignored.answer.status).toBe(200);

      // Invalid by the description.
      const queries: Array<Record<string, string>> = [{ page: '0' }, { page: '-1' }, { page: 'two' }, { per_page: '0' }, { per_page: '101' }, { per_page: '1.5' }];
      for (const query of queries) {
        await invalid('GET /payout/list', 'GET', '/v2/payout/list', auth(), undefined, query);
      }
      // No key (invalid by the description), and a key of the right form that is not the sandbox's: 401 both.
      for (const path of ['/v2/auth/user', '/v2/wallets/balances', '/v2/payout/list', `/v2/payout/${transactionIds[0] ?? 'TXN-BOK-00000000000000000000000000'}`]) {
        const label = `GET ${path.replace(/TXN-BOK-\w+/, '{transactionId}')}`;
        expect((await invalid(label, 'GET', path, { accept: 'application/json' })).answer.status).toBe(401);
        expect((await exchange(label, 'invalid', 'GET', path, { accept: 'application/json', authorization: `Bearer ${sb.apiKey}x` })).answer.status).toBe(401);
      }
      // A summary body that is not JSON: Laravel reads it as no input at all, so any answer but a 5xx (counted above).
      await exchange('POST /payout/summary', 'invalid', 'POST', '/v2/payout/summary', { ...auth(), 'content-type': 'application/json' }, '{');
    }

    expectClean();
    for (const label of ['GET /auth/user', 'GET /wallets/balances', 'GET /payout/list', 'POST /payout/summary', 'GET /payout/{transactionId}']) {
      expect(counts[label]?.valid ?? 0, label).toBeGreaterThanOrEqual(60);
    }
  });

  it('sends webhook events the description describes, signed in the Signature header', async () => {
    const start = Date.now();
    // transfer.initiated for every payout made above, then transfer.success / failed as they settle.
    while (Date.now() - start < 5000 && !(hooks.received.length >= transactionIds.length && hooks.received.some((h) => h.body?.event !== 'transfer.initiated'))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(hooks.received.length).toBeGreaterThanOrEqual(transactionIds.length);
    const events = doc.components.schemas.TransferEvent as Obj;
    const signature = doc.components.parameters.Signature as Obj;
    const problems: string[] = [];
    for (const hook of hooks.received) {
      problems.push(...(await schemaProblems(events, hook.body, 'event')));
      problems.push(...(await schemaProblems(signature.schema, hook.headers.signature, 'headers.signature')));
    }
    expect(problems).toEqual([]);
    expect(new Set(hooks.received.map((h) => h.body?.event as string))).toEqual(new Set(['transfer.initiated', 'transfer.success', 'transfer.failed']));
  });
});
