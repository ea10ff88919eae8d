/**
 * The sandbox refuses what a browser page could send it (issue 11, "Input gaps"): a
 * request whose Host is not a loopback name (DNS rebinding: evil.example resolving to
 * 127.0.0.1), a request from a page of another origin, and a POST body that is not
 * application/json (a cross-origin page can send text/plain or a form without a CORS
 * preflight). Everything over real HTTP with node:http, so the Host header is exactly
 * the one written here; and what payctl itself sends still works.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkLocalRequest, hostHeaderAllowed, isJsonContentType, originAllowed } from '../../src/sandbox/host-check.js';
import { payoutBody, freshWallet, startSandbox, useSandbox } from '../helpers/sandbox.js';
import { randomUUID } from 'node:crypto';

const ctx = useSandbox();

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: any;
}

/** One request to the sandbox's port with exactly these headers (Host included when given). */
function raw(port: number, method: string, path: string, headers: Record<string, string>, body?: string, host = '127.0.0.1'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string> = { ...headers };
    if (body !== undefined) h['content-length'] = String(Buffer.byteLength(body));
    const req = request({ host, port, method, path, headers: h, setHost: !('host' in headers), timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

describe('the Host check (DNS rebinding)', () => {
  it('answers 421 with a JSON error to a request for evil.example, on /v2 and on the admin routes', async () => {
    const port = ctx.sb.port;
    for (const [method, path] of [
      ['GET', '/_sandbox/health'],
      ['GET', '/v2/wallets/balances'],
      ['GET', '/v2/auth/user'],
      ['POST', '/_sandbox/shapes'],
      ['DELETE', '/_sandbox/faults'],
    ] as const) {
      const res = await raw(port, method, path, { host: 'evil.example', authorization: `Bearer ${ctx.sb.apiKey}` });
      expect(res.status, `${method} ${path}`).toBe(421);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json, res.body).toMatchObject({ status: 'Failed', code: 'MISDIRECTED_REQUEST' });
      expect(res.json.message).toContain('evil.example');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
    }
    // With the sandbox's own port, and names that only look local.
    for (const host of [
      `evil.example:${port}`,
      'localhost.evil.example',
      `127.0.0.1.nip.io:${port}`,
      'sub.localhost',
      '0.0.0.0',
      `10.0.0.1:${port}`,
      '[::2]',
      '',
      'localhost:notaport',
      'localhost:1:2',
    ]) {
      const res = await raw(port, 'GET', '/_sandbox/health', { host });
      expect(res.status, `Host: ${JSON.stringify(host)}`).toBe(421);
    }
  });

  it('a refused request reached nothing: no account, no recorded request, no revoked key', async () => {
    const before = ctx.sb.apiKey;
    ctx.sb.clearRequests();
    const revoke = await raw(ctx.sb.port, 'POST', '/_sandbox/revoke-key', { host: 'evil.example', 'content-type': 'application/json' }, '{}');
    expect(revoke.status).toBe(421);
    expect(ctx.sb.apiKey).toBe(before);
    const user = await raw(ctx.sb.port, 'GET', '/v2/auth/user', { host: 'rebind.attacker.test', authorization: `Bearer ${before}` });
    expect(user.status).toBe(421);
    expect(user.body).not.toContain('walletId');
    expect(ctx.sb.requests()).toEqual([]);
  });

  it('answers loopback names, with or without a port: localhost, 127.x.y.z, [::1]', async () => {
    const port = ctx.sb.port;
    for (const host of ['localhost', `localhost:${port}`, 'LOCALHOST', '127.0.0.1', `127.0.0.1:${port}`, '127.45.6.7:80', '[::1]', `[::1]:${port}`]) {
      const res = await raw(port, 'GET', '/_sandbox/health', { host });
      expect(res.status, `Host: ${host}`).toBe(200);
      expect(res.json.data.port).toBe(port);
    }
  });

  it('a sandbox bound to a specific non-loopback address also answers to that address', () => {
    expect(hostHeaderAllowed('192.168.1.20:4010', ['192.168.1.20'])).toBe(true);
    expect(hostHeaderAllowed('192.168.1.21:4010', ['192.168.1.20'])).toBe(false);
    expect(hostHeaderAllowed('[fe80::1]:4010', ['fe80::1'])).toBe(true);
    // A wildcard bind does not make every name acceptable.
    expect(hostHeaderAllowed('evil.example', ['0.0.0.0'])).toBe(false);
    expect(hostHeaderAllowed('evil.example', ['::'])).toBe(false);
    expect(hostHeaderAllowed(undefined)).toBe(false);
  });
});

describe('the Origin check (a page of another site)', () => {
  it('answers 403 to a request carrying a foreign Origin, even an empty POST that a page can send without a preflight', async () => {
    const before = ctx.sb.apiKey;
    for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example', 'not a url']) {
      const res = await raw(ctx.sb.port, 'POST', '/_sandbox/revoke-key', { origin });
      expect(res.status, `Origin: ${origin}`).toBe(403);
      expect(res.json).toMatchObject({ status: 'Failed', code: 'FORBIDDEN_ORIGIN' });
    }
    expect(ctx.sb.apiKey).toBe(before);
    // A page served from this machine is fine (a local dev app).
    const local = await raw(ctx.sb.port, 'GET', '/_sandbox/health', { origin: 'http://localhost:3000' });
    expect(local.status).toBe(200);
    expect(originAllowed('http://127.0.0.1:5173')).toBe(true);
    expect(originAllowed('https://evil.example')).toBe(false);
  });
});

describe('the Content-Type check (POST bodies must be JSON)', () => {
  it('answers 415 to text/plain, a form and no Content-Type on a POST with a body; nothing is created', async () => {
    const token = ctx.sb.apiKey;
    const walletId = freshWallet(ctx.sb, '5000');
    const body = JSON.stringify(payoutBody(walletId));
    const before = ctx.sb.payouts().length;
    for (const contentType of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      'application/json-seq',
      undefined,
    ]) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'idempotency-key': randomUUID() };
      if (contentType !== undefined) headers['content-type'] = contentType;
      const res = await raw(ctx.sb.port, 'POST', '/v2/payout', headers, body);
      expect(res.status, `Content-Type: ${contentType}`).toBe(415);
      expect(res.json).toMatchObject({ status: 'Failed', code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
    expect(ctx.sb.payouts().length).toBe(before);
    // Admin POST routes too.
    const fault = await raw(ctx.sb.port, 'POST', '/_sandbox/faults', { 'content-type': 'text/plain' }, '{"kind":"hang","times":-1}');
    expect(fault.status).toBe(415);
    expect(ctx.sb.faults.list()).toEqual([]);
  });

  it('accepts application/json with parameters or in any case, and an empty POST without a Content-Type', async () => {
    const token = ctx.sb.apiKey;
    const walletId = freshWallet(ctx.sb, '50000');
    for (const contentType of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', 'application/json ; charset="utf-8"']) {
      const res = await raw(
        ctx.sb.port,
        'POST',
        '/v2/payout',
        { authorization: `Bearer ${token}`, 'idempotency-key': randomUUID(), 'content-type': contentType },
        JSON.stringify(payoutBody(walletId)),
      );
      expect(res.status, `${contentType}: ${res.body}`).toBe(201);
    }
    // payctl's admin helpers and `curl -X POST` send no body and no Content-Type.
    const sb = await startSandbox();
    try {
      const shapes = await raw(sb.port, 'POST', '/_sandbox/shapes', {});
      expect(shapes.status, shapes.body).toBe(200);
    } finally {
      await sb.close();
    }
  });

  it('classifies Content-Type values', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('application/json;charset=utf-8')).toBe(true);
    expect(isJsonContentType(' APPLICATION/JSON ')).toBe(true);
    expect(isJsonContentType('application/jsonx')).toBe(false);
    expect(isJsonContentType('application/json-patch+json')).toBe(false);
    expect(isJsonContentType('text/json')).toBe(false);
    expect(isJsonContentType(undefined)).toBe(false);
    expect(checkLocalRequest({ method: 'GET', headers: { host: 'localhost' } })).toBeUndefined();
    expect(checkLocalRequest({ method: 'POST', headers: { host: 'localhost', 'content-length': '2' } })?.status).toBe(415);
    expect(checkLocalRequest({ method: 'POST', headers: { host: 'localhost', 'transfer-encoding': 'chunked' } })?.status).toBe(415);
    expect(checkLocalRequest({ method: 'POST', headers: { host: 'localhost', 'content-length': '0' } })).toBeUndefined();
    expect(checkLocalRequest({ method: 'POST', headers: { host: 'evil.example', 'content-type': 'text/plain' } })?.status).toBe(421);
  });
});
