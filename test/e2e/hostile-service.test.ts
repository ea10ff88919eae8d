/**
 * Hostile services (issue 11): answers that drip forever, a 1 GB body, a Retry-After: 0
 * storm, a 2xx payctl cannot read (or that describes another payout), the journal taken
 * away after the service accepted a payout, services that echo the key and token back,
 * and a profile's key offered to another --base-url. Small node:http servers written
 * here play the hostile service; for payouts, a forwarding proxy in front of the real
 * in-process sandbox rewrites one answer. The built binary is spawned for every case.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payctlShim, runAsPrinted, tempConfigDir } from '../helpers/cli.js';
import { expectNoSecrets, newKey, payctl, stackLines, startCli, until, writeLoggedIn, writeProfile, type Run } from '../helpers/e2e.js';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { payoutPosts, postedPayoutId } from '../helpers/batch.js';

const ctx = useSandbox();

let shim: string;
const cleanups: Array<() => void | Promise<void>> = [];

beforeAll(() => {
  // `payctl` on PATH, so printed commands run exactly as printed.
  shim = payctlShim().dir;
});

afterAll(() => {
  if (shim) rmSync(shim, { recursive: true, force: true });
});

afterEach(async () => {
  ctx.sb.faults.clear();
  while (cleanups.length) await cleanups.pop()!();
});

/** A temp config folder removed after the test. */
function configDir(): string {
  const c = tempConfigDir();
  cleanups.push(c.cleanup);
  return c.dir;
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  at: number;
}

interface Hostile {
  url: string;
  baseUrl: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** A hostile service on 127.0.0.1 port 0 that records every request; closed after the test. */
async function hostile(handler: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void): Promise<Hostile> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, at: Date.now() };
    seen.push(s);
    req.resume();
    handler(req, res, s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  const h: Hostile = {
    url,
    baseUrl: `${url}/v2`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  cleanups.push(h.close);
  return h;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}

/** A profile for a hostile server: its own base URL, a key and a fresh token (so no token request is needed). */
function hostileProfile(dir: string, h: Hostile, key = newKey(), token = `tok_${randomBytes(16).toString('hex')}`): { key: string; token: string } {
  writeProfile(dir, { baseUrl: h.baseUrl, apiKey: key, token, tokenExpiresAt: new Date(Date.now() + 3_600_000).toISOString() });
  return { key, token };
}

type Rewrite = (status: number, raw: string) => { status: number; body: string; contentType: string };

interface Proxy {
  baseUrl: string;
  /** Rewrites the next answer to POST /v2/payout (after the sandbox processed the request), once. */
  rewriteNextPayout(fn: Rewrite): void;
  rewritten: number;
}

/** A forwarding proxy in front of the sandbox: passes everything through, except one rewritten answer. */
async function sandboxProxy(sb: Sandbox): Promise<Proxy> {
  let pending: Rewrite | undefined;
  const state = { rewritten: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = { ...req.headers, host: `127.0.0.1:${sb.port}` };
      const up = httpRequest({ host: '127.0.0.1', port: sb.port, method: req.method, path: req.url, headers }, (upRes) => {
        const body: Buffer[] = [];
        upRes.on('data', (c: Buffer) => body.push(c));
        upRes.on('end', () => {
          const raw = Buffer.concat(body);
          const rewrite = req.method === 'POST' && req.url === '/v2/payout' ? pending : undefined;
          if (rewrite) {
            pending = undefined;
            state.rewritten++;
            const out = rewrite(upRes.statusCode ?? 0, raw.toString('utf8'));
            res.writeHead(out.status, { 'content-type': out.contentType, 'content-length': Buffer.byteLength(out.body) }).end(out.body);
            return;
          }
          const h = { ...upRes.headers };
          delete h['transfer-encoding'];
          h['content-length'] = String(raw.length);
          res.writeHead(upRes.statusCode ?? 502, h).end(raw);
        });
      });
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return {
    baseUrl: `http://127.0.0.1:${port}/v2`,
    rewriteNextPayout: (fn) => (pending = fn),
    get rewritten() {
      return state.rewritten;
    },
  };
}

/** A wallet payout of 12.50 SLE from `walletId`, with --yes. */
function payoutArgs(walletId: string, payoutId: string): string[] {
  return [
    'payout', 'create',
    '--wallet', walletId,
    '--amount', '12.50',
    '--currency', 'SLE',
    '--type', 'wallet',
    '--name', 'Fatmata Sesay',
    '--provider', 'orange_money',
    '--account', '076555111',
    '--phone', '+23276555111',
    '--note', "Fatmata's refund",
    '--payout-id', payoutId,
    '--yes',
  ];
}

interface JournalFile {
  payoutId: string;
  idempotencyKey: string;
  outcome?: { kind: string; reason?: string };
}

/** The journal entries (<config>/journal/*.json) of `payoutId`. */
function journalOf(dir: string, payoutId: string): JournalFile[] {
  const folder = join(dir, 'journal');
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(folder, f), 'utf8')) as JournalFile)
    .filter((e) => e.payoutId === payoutId);
}

/** The line after the one starting with `intro`. */
function lineAfter(text: string, intro: string): string {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.startsWith(intro));
  expect(i, `a line starting with ${JSON.stringify(intro)} in:\n${text}`).toBeGreaterThanOrEqual(0);
  return lines[i + 1] ?? '';
}


function heldFor(sb: Sandbox, payoutId: string) {
  return sb.payouts().filter((p) => p.payout_id === payoutId);
}

function postsFor(sb: Sandbox, payoutId: string) {
  return payoutPosts(sb).filter((p) => postedPayoutId(p) === payoutId);
}

function expectNoCrash(r: Run): void {
  expect(r.stderr).not.toContain('This is a bug');
  expect(stackLines(r.stderr)).toEqual([]);
}

describe('answers that never end', () => {
  it('a 200 that drips one byte every 500 ms: --timeout 2 ends within 3.5 s with exit 4, one request, text and --json', async () => {
    const timers = new Set<NodeJS.Timeout>();
    const h = await hostile((req, res) => {
      if (!req.url?.startsWith('/v2/wallets/balances')) return json(res, 404, { status: 'error', message: 'no' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      res.write('{');
      const t = setInterval(() => res.write(' '), 500);
      timers.add(t);
      res.on('close', () => clearInterval(t));
    });
    cleanups.push(() => timers.forEach((t) => clearInterval(t)));
    const dir = configDir();
    hostileProfile(dir, h);

    // From the moment the request reached the server to the exit: within --timeout + 1 s.
    // (Measured from the request, not the spawn: node's start-up on a loaded machine is not
    // the request's deadline. The spawn-to-exit time gets a loose bound too.)
    const text = await payctl(['balances', '--timeout', '2'], { dir, timeoutMs: 20_000 });
    const textEnd = Date.now();
    expect(text.stderr).toMatch(/did not finish within 2 s/);
    expect(text.code, text.stderr).toBe(4);
    expect(textEnd - h.seen[0]!.at).toBeLessThan(3000);
    expect(textEnd - h.seen[0]!.at).toBeGreaterThanOrEqual(1900);
    expect(text.ms).toBeLessThan(6000);
    expect(text.stdout).toBe('');
    expectNoCrash(text);
    expect(h.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /v2/wallets/balances']);

    const js = await payctl(['balances', '--timeout', '2', '--json'], { dir, timeoutMs: 20_000 });
    const jsEnd = Date.now();
    expect(js.code, js.stderr).toBe(4);
    expect(h.seen).toHaveLength(2);
    expect(jsEnd - h.seen[1]!.at).toBeLessThan(3000);
    expect(js.ms).toBeLessThan(6000);
    expect(js.stdout).toBe('');
    const err = JSON.parse(js.stderr) as { error: { message: string } };
    expect(err.error.message).toMatch(/did not finish within 2 s/);
  });

  it('a 1 GB body: exit 1 "larger than 64 MiB", peak RSS under 200 MB, no stack trace', async () => {
    let written = 0;
    let socketClosed = false;
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const h = await hostile((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let closed = false;
      res.on('close', () => {
        closed = true;
        socketClosed = true;
      });
      const pump = () => {
        while (!closed && written < 1024 * chunk.length) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!closed) res.end();
      };
      pump();
    });
    const dir = configDir();
    hostileProfile(dir, h);

    const { child, done } = startCli(['balances'], { dir, timeoutMs: 25_000 });
    let peakKb = 0;
    const poll = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        for (const field of ['VmHWM', 'VmRSS']) {
          const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
          if (m) peakKb = Math.max(peakKb, Number(m[1]));
        }
      } catch {
        // the process has exited
      }
    }, 20);
    const r = await done.finally(() => clearInterval(poll));
    expect(r.stderr).toContain('larger than 64 MiB');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expectNoCrash(r);
    expect(peakKb, 'RSS was sampled').toBeGreaterThan(10_000);
    expect(peakKb, `peak RSS ${Math.round(peakKb / 1024)} MB`).toBeLessThan(200 * 1024);
    // payctl stopped reading: the server never got to write the whole gigabyte.
    await until(() => socketClosed, 5000);
    expect(written).toBeLessThan(512 * 1024 * 1024);
    expect(h.seen).toHaveLength(1);
  });
});

describe('Retry-After: 0 storm', () => {
  it('every request answered 429 Retry-After: 0: gives up after at most 4 requests, at least 250 ms apart', async () => {
    const h = await hostile((_req, res) => json(res, 429, { status: 'error', code: 'RATE_LIMITED', message: 'slow down' }, { 'retry-after': '0' }));
    const dir = configDir();
    hostileProfile(dir, h);

    const r = await payctl(['balances'], { dir, timeoutMs: 20_000 });
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('HTTP 429');
    expectNoCrash(r);
    expect(h.seen.length).toBeGreaterThanOrEqual(2);
    expect(h.seen.length).toBeLessThanOrEqual(4);
    const at = h.seen.map((s) => s.at);
    expect(at.at(-1)! - at[0]!).toBeGreaterThanOrEqual(3 * 250);
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(240);
  });
});

describe('a 2xx payctl cannot trust is an unknown outcome, never "refused"', () => {
  it('an HTML 201 after the sandbox made the payout: exit 4, journal "unknown", the printed retry makes it exactly once', async () => {
    const sb = ctx.sb;
    const proxy = await sandboxProxy(sb);
    const dir = configDir();
    const p = await writeLoggedIn(sb, dir);
    writeProfile(dir, { ...p, baseUrl: proxy.baseUrl });
    const wallet = freshWallet(sb, '1000.00', 'SLE');
    const id = `html201-${randomUUID()}`;
    proxy.rewriteNextPayout(() => ({ status: 201, body: '<html>ok</html>', contentType: 'text/html' }));

    const r = await payctl(payoutArgs(wallet, id), { dir });
    expect(proxy.rewritten, r.stderr).toBe(1);
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(r.code, r.stderr).toBe(4);
    expectNoCrash(r);
    expect(r.stdout).toBe('');
    // The sandbox did make it.
    expect(postsFor(sb, id).map((x) => x.outcome)).toEqual([201]);
    expect(heldFor(sb, id)).toHaveLength(1);
    const key = postsFor(sb, id)[0]!.headers['idempotency-key']!;

    const entries = journalOf(dir, id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.outcome?.kind).toBe('unknown');
    expect(entries[0]!.idempotencyKey).toBe(key);

    const line = lineAfter(r.stderr, 'Retry safely');
    expect(line.trimStart().startsWith('payctl payout create ')).toBe(true);
    expect(line).toContain(`--payout-id ${id}`);
    expect(line).toContain(`--idempotency-key ${key}`);

    const again = await runAsPrinted(line, { shim, configDir: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Already submitted/);
    const posts = postsFor(sb, id);
    expect(posts).toHaveLength(2);
    expect(posts.every((x) => x.headers['idempotency-key'] === key)).toBe(true);
    expect(heldFor(sb, id)).toHaveLength(1);
    expect(again.stdout).toContain(heldFor(sb, id)[0]!.transaction_id);
    expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('accepted');
  });

  it('a 201 whose JSON describes another payout (payout id, or amount rewritten): exit 4 "describes another payout"', async () => {
    const sb = ctx.sb;
    const rewrites: Array<[string, (data: Record<string, unknown>) => void]> = [
      ['otherid', (d) => (d.payout_id = 'someone-elses-payout')],
      ['otheramount', (d) => (d.amount = 9999.99)],
    ];
    for (const [name, change] of rewrites) {
      const proxy = await sandboxProxy(sb);
      const dir = configDir();
      const p = await writeLoggedIn(sb, dir);
      writeProfile(dir, { ...p, baseUrl: proxy.baseUrl });
      const wallet = freshWallet(sb, '1000.00', 'SLE');
      const id = `${name}-${randomUUID()}`;
      proxy.rewriteNextPayout((status, raw) => {
        expect(status).toBe(201);
        const answer = JSON.parse(raw) as { data: Record<string, unknown> };
        change(answer.data);
        return { status: 201, body: JSON.stringify(answer), contentType: 'application/json' };
      });

      const r = await payctl(payoutArgs(wallet, id), { dir });
      expect(proxy.rewritten, r.stderr).toBe(1);
      expect(r.stderr, name).toContain('describes another payout');
      expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
      expect(r.stderr).toContain('Retry safely');
      expect(r.code, r.stderr).toBe(4);
      expectNoCrash(r);
      expect(heldFor(sb, id)).toHaveLength(1);
      expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('unknown');
    }
  });

  it('the journal folder replaced by a file while the sandbox holds the accepted request: exit 4, then the printed retry pays once', async () => {
    const sb = ctx.sb;
    const dir = configDir();
    await writeLoggedIn(sb, dir);
    const wallet = freshWallet(sb, '1000.00', 'SLE');
    const id = `nojournal-${randomUUID()}`;
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 1500 });

    const { done } = startCli(payoutArgs(wallet, id), { dir });
    await until(() => postsFor(sb, id).length === 1, 15_000);
    const journal = join(dir, 'journal');
    expect(statSync(journal).isDirectory()).toBe(true);
    renameSync(journal, `${journal}.moved`);
    writeFileSync(journal, '');
    const r = await done;
    expect(r.stderr).toMatch(/could not record .*in its journal/);
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(r.code, r.stderr).toBe(4);
    expectNoCrash(r);
    expect(heldFor(sb, id)).toHaveLength(1);
    const key = postsFor(sb, id)[0]!.headers['idempotency-key']!;
    const line = lineAfter(r.stderr, 'Retry safely');
    expect(line).toContain(`--idempotency-key ${key}`);

    rmSync(journal);
    renameSync(`${journal}.moved`, journal);
    expect(existsSync(journal)).toBe(true);
    const again = await runAsPrinted(line, { shim, configDir: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Already submitted/);
    const posts = postsFor(sb, id);
    expect(posts).toHaveLength(2);
    expect(posts.every((x) => x.headers['idempotency-key'] === key)).toBe(true);
    expect(heldFor(sb, id)).toHaveLength(1);
    expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('accepted');
  });
});

describe('a full disk after the service accepted', () => {
  it('ENOSPC when recording the outcome (config folder on a 1 MiB tmpfs, filled while the request is held): exit 4, then the printed retry pays once', async () => {
    const sb = ctx.sb;
    const mount = mkdtempSync(join(tmpdir(), 'payctl-tinyfs-'));
    // A real full disk: a small tmpfs (this needs root, as CI and the developers' machines have).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', mount]);
    cleanups.push(() => {
      execFileSync('umount', [mount]);
      rmSync(mount, { recursive: true, force: true });
    });
    const dir = join(mount, 'config');
    await writeLoggedIn(sb, dir);
    const wallet = freshWallet(sb, '1000.00', 'SLE');
    const id = `enospc-${randomUUID()}`;
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 1500 });

    const { done } = startCli(payoutArgs(wallet, id), { dir });
    await until(() => postsFor(sb, id).length === 1, 15_000);
    // The entry is journaled; now nothing more fits.
    const filler = join(mount, 'filler');
    try {
      writeFileSync(filler, Buffer.alloc(2 * 1024 * 1024));
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    const r = await done;
    expect(r.stderr).toContain('the service accepted it (transaction TRX');
    expect(r.stderr).toContain('but payctl could not record that in its journal: the disk is full');
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(r.code, r.stderr).toBe(4);
    expectNoCrash(r);
    expect(heldFor(sb, id)).toHaveLength(1);
    const key = postsFor(sb, id)[0]!.headers['idempotency-key']!;
    const line = lineAfter(r.stderr, 'Retry safely');
    expect(line).toContain(`--idempotency-key ${key}`);

    rmSync(filler);
    const again = await runAsPrinted(line, { shim, configDir: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Already submitted/);
    expect(postsFor(sb, id).every((x) => x.headers['idempotency-key'] === key)).toBe(true);
    expect(heldFor(sb, id)).toHaveLength(1);
    expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('accepted');
  });
});

describe('credentials echoed back by the service are never printed', () => {
  it('a 401 "Invalid API key <key>" and a 502 HTML page with "authorization: Bearer <token>": masked in balances, --json, payout get, status', async () => {
    const key = newKey();
    const token = `tok_${randomBytes(16).toString('hex')}`;
    const issued: string[] = [];
    const echo401 = await hostile((req, res) => {
      if (req.url === '/v2/auth/token' && req.headers['api-key'] === key) {
        const t = `tok_${randomBytes(16).toString('hex')}`;
        issued.push(t);
        return json(res, 200, { status: 'success', data: { access_token: t, expires_in: 3600 } });
      }
      json(res, 401, { status: 'error', code: 'UNAUTHORIZED', message: `Invalid API key ${key} (authorization: ${String(req.headers.authorization)})` });
    });
    const echo502 = await hostile((_req, res) => {
      const page = `<html><body>authorization: Bearer ${token}<br>api-key: ${key}</body></html>`;
      res.writeHead(502, { 'content-type': 'text/html' }).end(page);
    });
    const commands = [['balances'], ['balances', '--json'], ['payout', 'get', 'x'], ['status']];
    const runs: Array<Promise<[string, Run]>> = [];
    for (const h of [echo401, echo502]) {
      const dir = configDir();
      hostileProfile(dir, h, key, token);
      for (const args of commands) runs.push(payctl(args, { dir }).then((r) => [`${h === echo401 ? '401' : '502'} ${args.join(' ')}`, r]));
    }
    for (const [name, r] of await Promise.all(runs)) {
      expect(r.code, `${name}: ${r.stderr}`).not.toBe(0);
      expect([1, 3], `${name}: ${r.stderr}`).toContain(r.code);
      expectNoSecrets(r, [key, token, ...issued]);
      // The echoed text did reach the output, masked.
      expect(r.stderr, name).toContain('***');
      expectNoCrash(r);
    }
    expect(issued.length).toBeGreaterThan(0);
    expect(echo502.seen.length).toBeGreaterThanOrEqual(4);
  });

  it('an echoed token or key cut in half by the 120-character excerpt of a non-JSON body: no part of it is printed', async () => {
    const key = newKey();
    const token = `tok_${randomBytes(16).toString('hex')}`;
    // The excerpt of the body is `<html><body>` + pad + ` authorization: Bearer <token> api-key: <key>`,
    // cut at 120 characters: pad 70 cuts the token after 15 characters, pad 25 the key after 14.
    const runs: Array<Promise<[string, Run]>> = [];
    for (const pad of [70, 25]) {
      const h = await hostile((_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' }).end(`<html><body>${'x'.repeat(pad)} authorization: Bearer ${token} api-key: ${key}</body></html>`);
      });
      const dir = configDir();
      hostileProfile(dir, h, key, token);
      for (const args of [['balances'], ['balances', '--json']]) runs.push(payctl(args, { dir }).then((r) => [`pad ${pad}: ${args.join(' ')}`, r]));
    }
    for (const [name, r] of await Promise.all(runs)) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr, name).toContain('HTTP 502');
      expectNoSecrets(r, [key, token]);
      // No run of 10 characters from the random part of either secret.
      const out = r.stdout + r.stderr;
      for (const s of [key.slice('sk_sandbox_e2e_'.length), token.slice('tok_'.length)]) {
        for (let i = 0; i + 10 <= s.length; i++) expect(out, `${name}: leaks ${s.slice(i, i + 10)} of a secret:\n${r.stderr}`).not.toContain(s.slice(i, i + 10));
      }
    }
  });
});

describe('a profile key is sent only to its own base URL', () => {
  it('--base-url of another server: exit 3 with the PAYCTL_API_KEY / PAYCTL_TOKEN hint, nothing carrying a credential reaches it; PAYCTL_TOKEN works', async () => {
    const sb = ctx.sb;
    const dir = configDir();
    const profile = await writeLoggedIn(sb, dir);
    const token2 = `tok2_${randomBytes(16).toString('hex')}`;
    const two = await hostile((req, res) => {
      if (req.url === '/v2/wallets/balances' && req.headers.authorization === `Bearer ${token2}`) {
        return json(res, 200, { status: 'success', data: [{ wallet_id: 'wal_server_two', wallet_name: 'Server Two Wallet', currency: 'SLE', balance: '12.50' }] });
      }
      json(res, 401, { status: 'error', code: 'UNAUTHORIZED', message: 'no' });
    });

    const r = await payctl(['balances', '--base-url', two.baseUrl], { dir });
    expect(r.stderr).toMatch(/set PAYCTL_API_KEY or PAYCTL_TOKEN/i);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expectNoCrash(r);
    for (const s of two.seen) {
      expect(s.headers['api-key']).toBeUndefined();
      expect(s.headers.authorization).toBeUndefined();
      expect(JSON.stringify(s)).not.toContain(profile.apiKey!);
      expect(JSON.stringify(s)).not.toContain(profile.token!);
    }

    const ok = await payctl(['balances', '--base-url', two.baseUrl], { dir, env: { PAYCTL_TOKEN: token2 } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Server Two Wallet');
    expect(two.seen.length).toBeGreaterThan(0);
    for (const s of two.seen) {
      expect(s.headers['api-key']).toBeUndefined();
      expect(JSON.stringify(s)).not.toContain(profile.apiKey!);
      expect(JSON.stringify(s)).not.toContain(profile.token!);
    }
    expect(two.seen.at(-1)!.headers.authorization).toBe(`Bearer ${token2}`);
  });
});

describe('--timeout', () => {
  it('--timeout 0.0001 (which would round to no limit) is refused with exit 2 before anything is sent', async () => {
    const h = await hostile((_req, res) => json(res, 200, { status: 'success', data: [] }));
    const dir = configDir();
    hostileProfile(dir, h);
    for (const t of ['0.0001', '0']) {
      const r = await payctl(['balances', '--timeout', t], { dir });
      expect(r.stderr).toContain('--timeout must be a number of seconds, at least 0.1');
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
    }
    expect(h.seen).toEqual([]);
  });
});
