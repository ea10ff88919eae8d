/**
 * Checks HTTP exchanges against openapi/v2.yaml (the documented Bokumonie API, with its
 * assumed parts marked) with openapi-backend: routing, request validation (security, headers,
 * query, JSON body) and response validation (documented status, required headers, body
 * against the schema of its content type). Each function returns problems as sentences
 * naming the operation; [] means the exchange conforms. `description()` and
 * `schemaProblems()` give the dereferenced document and its validator to tests that check
 * examples or generate requests from the schemas.
 *
 * Paths are given as the client sends them, with the `/v2` prefix (the servers of the
 * document carry it). An answer to a request that matches no operation (unknown path: 404;
 * known path, other method: 405) is checked against the document's generic error responses.
 */
import { fileURLToPath } from 'node:url';
import { OpenAPIBackend, ValidationContext, type Operation, type ValidationResult } from 'openapi-backend';

export interface Exchange {
  method: string;
  /** Full path including /v2, without the query. */
  path: string;
  query: Record<string, string>;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

type AjvError = NonNullable<ValidationResult['errors']>[number];
type Schema = Record<string, unknown>;

interface HeaderObject {
  required?: boolean;
  schema?: Schema;
}

interface ResponseObject {
  description?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: Schema }>;
}

interface RequestBodyObject {
  required?: boolean;
  content: Record<string, { schema?: Schema }>;
}

const SPEC = fileURLToPath(new URL('../../openapi/v2.yaml', import.meta.url));
const PREFIX = '/v2';
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A JSON number's shortest decimal form as whole and fraction digits (`1.5e-7` -> ['0', '00000015']). */
function decimalDigits(n: number): [string, string] {
  const s = Math.abs(n).toString();
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) {
    const [whole = '0', frac = ''] = s.split('.');
    return [whole, frac];
  }
  const digits = m[1]! + (m[2] ?? '');
  const point = 1 + Number(m[3]);
  if (point <= 0) return ['0', '0'.repeat(-point) + digits];
  return point >= digits.length ? [digits + '0'.repeat(point - digits.length), ''] : [digits.slice(0, point), digits.slice(point)];
}

type KeywordCheck = ((schema: any, data: number, parentSchema?: unknown, cxt?: { parentData?: unknown }) => boolean) & { errors?: Array<Record<string, unknown>> };

/** `x-minor-digits: { currencyProperty, default, byCurrency }`: at most the decimals of the currency beside the amount. */
const minorDigitsKeyword: KeywordCheck = (spec: { currencyProperty: string; default: number; byCurrency: Record<string, number> }, data, _parent, cxt) => {
  const parent = cxt?.parentData as Record<string, unknown> | undefined;
  const currency = parent?.[spec.currencyProperty];
  if (typeof currency !== 'string') return true;
  const digits = spec.byCurrency[currency] ?? spec.default;
  if (decimalDigits(data)[1].length <= digits) return true;
  minorDigitsKeyword.errors = [{ keyword: 'x-minor-digits', message: `must have at most ${digits} decimal places for ${currency}`, params: { digits } }];
  return false;
};

/** `x-max-significant-digits: n`: trailing zeros of the whole part count (as the sandbox counts them). */
const significantDigitsKeyword: KeywordCheck = (max: number, data) => {
  const [whole, frac] = decimalDigits(data);
  if ((whole.replace(/^0+/, '') + frac).replace(/^0+/, '').length <= max) return true;
  significantDigitsKeyword.errors = [{ keyword: 'x-max-significant-digits', message: `must have at most ${max} significant digits`, params: { max } }];
  return false;
};

function isAbsoluteUri(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value);
}

class Backend extends OpenAPIBackend {
  // openapi-backend checks the document with openapi-schema-validator, which knows OpenAPI 2.0 and
  // 3.0 only and refuses 3.1 (webhooks, info.summary, `examples` in schemas). `npm run lint`
  // checks the document with Redocly instead; here it is only loaded and dereferenced.
  override validateDefinition() {
    return this.document;
  }
}

let ready: Promise<Backend> | undefined;

/** The document, loaded and dereferenced once per process. */
function backend(): Promise<Backend> {
  return (ready ??= (async () => {
    const api = new Backend({
      definition: SPEC,
      strict: true,
      // Each operation's validators compiled when it is first checked, not all of them at start:
      // 2.1 s of CPU per test worker, most of it for operations the worker's files never call.
      // (openapi-backend's quick mode: the document is still dereferenced as without it, from
      // the file; it only skips the definition check, which validateDefinition below skips anyway.)
      quick: true,
      ajvOpts: { allErrors: true },
      // The formats the document uses: `date-time` (timestamps, also held to a pattern), `uuid` (keys and
      // webhook ids, also held to a pattern), `uri` (page URLs of the list) and `uri-reference` (problem `type`).
      // The two amount extensions (`x-minor-digits`, `x-max-significant-digits`) are checked as keywords too.
      customizeAjv: (ajv) =>
        ajv
          .addFormat('date-time', RFC3339)
          .addFormat('uuid', UUID)
          .addFormat('uri', isAbsoluteUri)
          .addFormat('uri-reference', true)
          .addKeyword({ keyword: 'x-minor-digits', type: 'number', schemaType: 'object', validate: minorDigitsKeyword })
          .addKeyword({ keyword: 'x-max-significant-digits', type: 'number', schemaType: 'number', validate: significantDigitsKeyword }),
    });
    await api.init();
    return api;
  })());
}

/** The document, dereferenced (every `$ref` replaced by what it points at). */
export async function description(): Promise<Record<string, any>> {
  return (await backend()).definition as Record<string, any>;
}

/** Problems of a value against a schema of the dereferenced document, each rooted at `root`. */
export async function schemaProblems(schema: Schema, value: unknown, root = 'value'): Promise<string[]> {
  return schemaErrors(await backend(), schema, value).map((e) => describe(e, root));
}

const compiled = new WeakMap<Schema, (value: unknown) => AjvError[]>();

/** Validates against a schema of the dereferenced document, with openapi-backend's Ajv setup. */
function schemaErrors(api: Backend, schema: Schema, value: unknown): AjvError[] {
  let check = compiled.get(schema);
  if (!check) {
    const validate = api.validator.getAjv(ValidationContext.Response).compile(schema);
    check = (v) => (validate(v) ? [] : [...(validate.errors ?? [])]);
    compiled.set(schema, check);
  }
  return check(value);
}

/** `/recipient/accountDetails` -> `recipient.accountDetails`. */
function dotted(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/** One Ajv error as `<where> <what>`, `where` rooted at `root` (body, headers, query …). */
function describe(e: AjvError, root: string): string {
  const at = dotted(e.instancePath);
  const where = at ? `${root}.${at}` : root;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${where}.${String(p.missingProperty)} is missing`;
    case 'additionalProperties':
      return `${where} has an undocumented ${String(p.additionalProperty)}`;
    case 'enum':
      return `${where} must be one of ${JSON.stringify(p.allowedValues)}`;
    case 'const':
      return `${where} must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return `${where} ${e.message ?? e.keyword}`;
  }
}

/** Request validation errors, with the parts openapi-backend validates as one object split out. */
function describeRequest(e: AjvError): string {
  const m = /^\/(requestBody|query|header|path)(\/.*)?$/.exec(e.instancePath);
  if (!m) return describe(e, 'request');
  const root = { requestBody: 'body', query: 'query', header: 'headers', path: 'path' }[m[1] as 'requestBody' | 'query' | 'header' | 'path'];
  return describe({ ...e, instancePath: m[2] ?? '' }, root);
}

function mediaType(value: string | undefined): string {
  return (value ?? '').split(';')[0]!.trim().toLowerCase();
}

function relativePath(path: string): string | undefined {
  if (path === PREFIX) return '/';
  return path.startsWith(PREFIX + '/') ? path.slice(PREFIX.length) : undefined;
}

type Route = { kind: 'operation'; op: Operation; label: string } | { kind: 'none'; status: 404 | 405; label: string };

/** The operation a request is for, or why there is none. */
function route(api: Backend, req: Exchange): Route {
  const method = req.method.toUpperCase();
  const rel = relativePath(req.path);
  if (rel === undefined) return { kind: 'none', status: 404, label: `${method} ${req.path}` };
  try {
    const op = api.router.matchOperation({ method, path: rel, headers: req.headers, query: req.query }, true);
    return { kind: 'operation', op, label: `${method} ${req.path} (${op.operationId ?? op.path})` };
  } catch (err) {
    const status = err instanceof Error && err.message.startsWith('405') ? 405 : 404;
    return { kind: 'none', status, label: `${method} ${req.path}` };
  }
}

/** The methods a known path has, for messages: a literal path (`/payout/list`) before a template that also matches it (`/payout/{transactionId}`). */
function methodsOf(api: Backend, rel: string): string[] {
  const ops = api.getOperations();
  const exact = ops.filter((op) => op.path === rel);
  const matching = exact.length ? exact : ops.filter((op) => new RegExp('^' + op.path.replace(/\{[^}]+\}/g, '[^/]+') + '$').test(rel));
  return [...new Set(matching.map((op) => op.method.toUpperCase()))];
}

function bearerGiven(headers: Record<string, string>): boolean {
  return /^Bearer\s+\S+\s*$/i.test(headers.authorization ?? '');
}

/** Security requirements (alternatives; each an AND of schemes) that the request meets, as problems when none is met. */
function securityProblems(api: Backend, op: Operation, headers: Record<string, string>): string[] {
  const requirements = (op.security ?? []) as Array<Record<string, string[]>>;
  if (requirements.length === 0) return [];
  const schemes = (api.definition.components?.securitySchemes ?? {}) as Record<string, { type: string; scheme?: string; in?: string; name?: string }>;
  const missing = requirements.map((req) =>
    Object.keys(req).flatMap((name) => {
      const s = schemes[name];
      if (!s) return [`security scheme ${name} is not defined`];
      if (s.type === 'http' && s.scheme?.toLowerCase() === 'bearer') return bearerGiven(headers) ? [] : ['an Authorization: Bearer <token> header'];
      if (s.type === 'apiKey' && s.in === 'header') return headers[s.name!.toLowerCase()] ? [] : [`an ${s.name} header`];
      return [];
    }),
  );
  if (missing.some((m) => m.length === 0)) return [];
  return [`needs ${missing.map((m) => m.join(' and ')).join(', or ')}`];
}

/** Problems of a request against the document ([] = conforms). Unknown paths/methods are problems. */
export async function requestProblems(req: Exchange): Promise<string[]> {
  const api = await backend();
  const r = route(api, req);
  if (r.kind === 'none') {
    const rel = relativePath(req.path);
    if (rel === undefined) return [`${r.label}: no operation (the API lives under ${PREFIX})`];
    return r.status === 405
      ? [`${r.label}: no operation (the path has ${methodsOf(api, rel).join(', ')}, not ${req.method.toUpperCase()})`]
      : [`${r.label}: no operation (unknown path)`];
  }
  const { op, label } = r;
  const problems = securityProblems(api, op, req.headers);

  const requestBody = op.requestBody as RequestBodyObject | undefined;
  let body: unknown;
  let bodyUnreadable = false;
  if (req.body !== '') {
    const type = mediaType(req.headers['content-type']);
    if (!requestBody) problems.push('takes no request body, but one was sent');
    else if (!requestBody.content[type]) {
      problems.push(`the body's Content-Type is ${JSON.stringify(req.headers['content-type'] ?? '(none)')}, not one of ${Object.keys(requestBody.content).join(', ')}`);
    }
    try {
      body = JSON.parse(req.body);
    } catch {
      bodyUnreadable = true;
      if (requestBody) problems.push('the body is not JSON');
    }
  } else if (requestBody?.required) {
    problems.push('needs a JSON body');
  }

  // Only the parsed body goes to openapi-backend (it would try to parse a string itself); the
  // content type is set so that a JSON null, number or string body is validated too.
  const headers = requestBody && req.body !== '' && !bodyUnreadable ? { ...req.headers, 'content-type': 'application/json' } : req.headers;
  const result = api.validateRequest({ method: req.method.toUpperCase(), path: relativePath(req.path)!, headers, query: req.query, body }, op);
  for (const e of result.errors ?? []) {
    // Already reported above: a missing or unreadable body.
    if (e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === 'requestBody') continue;
    problems.push(describeRequest(e));
  }
  return [...new Set(problems)].map((p) => `${label} request: ${p}`);
}

/** Picks a documented response: exact status, then `4XX`-style ranges, then `default`. */
function documentedResponse(responses: Record<string, ResponseObject>, status: number): ResponseObject | undefined {
  return responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses.default;
}

/** The responses an answer to a request that matches no operation may be. */
function genericResponses(api: Backend, status: 404 | 405): Record<string, ResponseObject> {
  const c = (api.definition.components?.responses ?? {}) as Record<string, ResponseObject>;
  const pick = (name: string): ResponseObject => {
    const r = c[name];
    if (!r) throw new Error(`openapi/v2.yaml has no components.responses.${name}`);
    return r;
  };
  // What a server may answer before it routes: body too large or not JSON, rate limits, failures.
  return {
    [String(status)]: pick(status === 404 ? 'NotFound' : 'MethodNotAllowed'),
    '413': pick('PayloadTooLarge'),
    '415': pick('UnsupportedMediaType'),
    '429': pick('RateLimited'),
    '5XX': pick('InternalError'),
  };
}

/** Problems of a response (status documented for the operation, body against its schema for that status and content type, required response headers present). */
export async function responseProblems(req: Exchange, res: Answer): Promise<string[]> {
  const api = await backend();
  const r = route(api, req);
  const responses = r.kind === 'operation' ? (r.op.responses as Record<string, ResponseObject>) : genericResponses(api, r.status);
  const label = `${r.label} response ${res.status}`;
  const response = documentedResponse(responses, res.status);
  if (!response) return [`${label}: status ${res.status} is not documented (documented: ${Object.keys(responses).join(', ')})`];

  const problems: string[] = [];
  const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), v]));

  // Headers: presence of the required ones here, values against their schemas.
  for (const [name, h] of Object.entries(response.headers ?? {})) {
    const value = headers[name.toLowerCase()];
    if (value === undefined) {
      if (h.required) problems.push(`the required header ${name} is missing`);
      continue;
    }
    if (r.kind === 'none' && h.schema) {
      for (const e of schemaErrors(api, { type: 'object', properties: { [name.toLowerCase()]: h.schema } }, coerceHeader(h.schema, name, value))) {
        problems.push(describe(e, 'headers'));
      }
    }
  }
  if (r.kind === 'operation') {
    const result = api.validateResponseHeaders(headers, r.op, { statusCode: res.status });
    for (const e of result.errors ?? []) problems.push(describe({ ...e, instancePath: e.instancePath.replace(/^\/headers/, '') }, 'headers'));
  }

  // Body: by content type.
  const content = response.content;
  if (!content) {
    if (res.body !== '') problems.push(`has a body, but the document describes none for ${res.status}`);
    return problems.map((p) => `${label}: ${p}`);
  }
  const type = mediaType(headers['content-type']);
  const media = content[type];
  if (!media) {
    problems.push(`Content-Type ${JSON.stringify(headers['content-type'] ?? '(none)')} is not documented (documented: ${Object.keys(content).join(', ')})`);
    return problems.map((p) => `${label}: ${p}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    problems.push('the body is not JSON');
    return problems.map((p) => `${label}: ${p}`);
  }
  if (media.schema) {
    const errors =
      r.kind === 'operation' && type === 'application/json' ? (api.validateResponse(body, r.op, res.status).errors ?? []) : schemaErrors(api, media.schema, body);
    for (const e of errors) problems.push(describe(e, 'body'));
  }
  return [...new Set(problems)].map((p) => `${label}: ${p}`);
}

/** A header's text as the type its schema gives (header values are strings on the wire). */
function coerceHeader(schema: Schema, name: string, value: string): Record<string, unknown> {
  const type = schema.type;
  const n = Number(value);
  const typed = (type === 'integer' || type === 'number') && value.trim() !== '' && !Number.isNaN(n) ? n : value;
  return { [name.toLowerCase()]: typed };
}
