// `npm run build && node scripts/prism-check.mjs`: checks the sandbox and payctl against
// openapi/v2.yaml (the documented Bokumonie API) with Stoplight Prism's validation proxy.
// payctl's main commands (login and status through GET /auth/user, balances, payout create,
// payout get by transaction id and by payout id, payouts list, summary) run through Prism in
// front of the built-in sandbox; every request and response Prism finds outside the description
// is printed, and the run exits 0 only when there are none and every command exited as expected.
// Prism knows JSON Schema only: the two amount extensions of the description (x-minor-digits,
// x-max-significant-digits) are checked by the in-suite validator (test/helpers/openapi.ts).
//
//   payctl --> hop (127.0.0.1:H/v2/...) --> Prism proxy (127.0.0.1:P/...) --> sandbox (127.0.0.1:S/v2/...)
//
// Why the hop: Prism 5 matches the request path against `paths` as is and ignores the path of
// `servers` (it would use a server only when the request names one with `?__server=`), so
// `GET /v2/auth/user` is "Selected route not found". And Prism forwards by appending the
// request path to the upstream URL, so pointing payctl at `http://127.0.0.1:P/v2` sends
// `/v2/v2/auth/user` upstream. payctl insists on a base URL ending in /v2, so a small
// node:http hop takes payctl's `/v2/...`, strips `/v2` for Prism, and Prism's upstream is
// `http://127.0.0.1:S/v2` (the sandbox's own base URL), which puts `/v2` back.
//
// Prism (@stoplight/prism-cli 5.14.2, the last release that runs on Node 20) is installed on
// demand into ${XDG_CACHE_HOME:-~/.cache}/payctl-prism, outside the repo and package.json.
// Prism logs one line per violation ("[VALIDATOR] ... Violation: request.body... <message>" or
// "Violation: response.body..."); those lines are counted, and the `sl-violations` header
// Prism adds to each answer is recorded by the hop to tell which request they belong to. A count
// is of Prism's diagnostics: one per failed schema keyword (a oneOf mismatch gives several).
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, createServer, Agent } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PRISM_VERSION = '5.14.2';
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'payctl.js');
const spec = join(root, 'openapi', 'v2.yaml');
const cacheDir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'payctl-prism');
const prismBin = join(cacheDir, 'node_modules', '.bin', 'prism');
const prismPkg = join(cacheDir, 'node_modules', '@stoplight', 'prism-cli', 'package.json');
const PROFILE = 'prism';
const TRANSACTION_ID = /TXN-BOK-[0-9A-F]{26}/;
const started = Date.now();

const log = (s = '') => process.stdout.write(s + '\n');
const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''); // eslint-disable-line no-control-regex
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const secs = (ms) => (ms / 1000).toFixed(1) + ' s';

// ---------------------------------------------------------------------------------------------
// Prism, installed on demand

function ensurePrism() {
  let version;
  try {
    version = JSON.parse(readFileSync(prismPkg, 'utf8')).version;
  } catch {
    // not installed
  }
  if (existsSync(prismBin) && version === PRISM_VERSION) return;
  log(`Installing @stoplight/prism-cli@${PRISM_VERSION} into ${cacheDir} ...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', cacheDir, `@stoplight/prism-cli@${PRISM_VERSION}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
    shell: process.platform === 'win32',
  });
  if (r.status !== 0 || !existsSync(prismBin)) throw new Error(`npm install of @stoplight/prism-cli@${PRISM_VERSION} failed (exit ${r.status ?? r.signal})`);
}

// ---------------------------------------------------------------------------------------------
// Child processes: every one is tracked and stopped in cleanup(), also on failure or Ctrl-C.

const children = new Set();

/** Spawns a long-running child and keeps its combined output, line by line. */
function startChild(name, cmd, args, env) {
  const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const state = { name, child, lines: [], exited: null, listeners: new Set() };
  children.add(state);
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const parts = (rest + chunk).split(/\r?\n/);
      rest = parts.pop();
      for (const line of parts) {
        state.lines.push(stripAnsi(line));
        for (const fn of state.listeners) fn();
      }
    });
    stream.on('end', () => {
      if (rest) state.lines.push(stripAnsi(rest));
      rest = '';
    });
  }
  child.on('exit', (code, signal) => {
    state.exited = { code, signal };
    for (const fn of state.listeners) fn();
  });
  child.on('error', (err) => {
    state.exited = { code: null, signal: null, error: err };
    for (const fn of state.listeners) fn();
  });
  return state;
}

/** Resolves with the first match of `re` in the child's output; rejects if it exits or times out. */
function waitForLine(state, re, timeoutMs) {
  return new Promise((resolve, reject) => {
    const check = () => {
      for (const line of state.lines) {
        const m = re.exec(line);
        if (m) return done(null, m);
      }
      if (state.exited) done(new Error(`${state.name} exited (${state.exited.error?.message ?? state.exited.code ?? state.exited.signal}) before printing ${re}`));
    };
    const timer = setTimeout(() => done(new Error(`${state.name} did not print ${re} within ${secs(timeoutMs)}`)), timeoutMs);
    const done = (err, m) => {
      clearTimeout(timer);
      state.listeners.delete(check);
      if (err) reject(new Error(`${err.message}\n--- ${state.name} output ---\n${state.lines.join('\n')}`));
      else resolve(m);
    };
    state.listeners.add(check);
    check();
  });
}

async function stopChild(state) {
  if (state.exited || state.child.exitCode !== null || state.child.signalCode !== null) return;
  const exited = new Promise((resolve) => state.child.once('exit', resolve));
  state.child.kill('SIGTERM');
  const timer = setTimeout(() => state.child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// The hop: payctl's /v2/... to Prism's /..., recording each exchange.

const exchanges = [];
const hopAgent = new Agent({ keepAlive: true });

function startHop(prismOrigin) {
  const target = new URL(prismOrigin);
  const server = createServer((req, res) => {
    const rec = { method: req.method, path: req.url, status: 0, violations: [], replayed: false, idempotencyKey: req.headers['idempotency-key'] };
    exchanges.push(rec);
    const m = /^\/v2(\/.*|$|\?.*)/.exec(req.url);
    if (!m) {
      rec.status = 404;
      rec.violations.push({ location: ['hop'], severity: 'Error', message: `payctl asked for ${req.url}, outside its /v2 base URL` });
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not under /v2"}');
      return;
    }
    const path = m[1].startsWith('/') ? m[1] : '/' + m[1];
    const headers = { ...req.headers, host: target.host };
    const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path, headers, agent: hopAgent }, (upRes) => {
      rec.status = upRes.statusCode;
      rec.replayed = upRes.headers['idempotent-replayed'] === 'true';
      const raw = upRes.headers['sl-violations'];
      if (raw) {
        try {
          rec.violations = JSON.parse(raw);
        } catch {
          rec.violations = [{ location: ['?'], severity: '?', message: raw }];
        }
      }
      res.writeHead(upRes.statusCode, upRes.rawHeaders);
      upRes.pipe(res);
    });
    up.on('error', (err) => {
      rec.status = 502;
      rec.violations.push({ location: ['hop'], severity: 'Error', message: `Prism did not answer: ${err.message}` });
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`hop: ${err.message}`);
    });
    req.pipe(up);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/**
 * Waits until Prism has logged `count` requests ("Request received") and then for its log to go
 * quiet (it is written asynchronously, after the answer may have reached payctl). Returns the
 * number of requests Prism logged.
 */
async function settle(count) {
  const received = () => prism.lines.filter((l) => /\bRequest received\b/.test(l)).length;
  for (let i = 0; i < 100 && received() < count; i++) await sleep(100);
  for (let n = -1; n !== prism.lines.length;) {
    n = prism.lines.length;
    await sleep(300);
  }
  return received();
}

// ---------------------------------------------------------------------------------------------
// payctl, run asynchronously (the hop lives in this process, so spawnSync would deadlock it).

let payctlEnv;
const results = [];

function quote(a) {
  return /[^\w\-.,:/@=+]/.test(a) ? `'${a}'` : a;
}

function runPayctl(args, { input, expect = 0, check } = {}) {
  const shown = `payctl ${args.map(quote).join(' ')}`;
  const before = exchanges.length;
  const t0 = Date.now();
  if (cleaning) return Promise.reject(new Error('stopped'));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args, '--profile', PROFILE], { cwd: root, env: payctlEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    const state = { name: 'payctl', child, exited: null };
    children.add(state);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      state.exited = { code, signal };
      const r = { cmd: shown, code: code ?? signal, expect, stdout, stderr, requests: exchanges.slice(before), ms: Date.now() - t0, problems: [] };
      if (r.code !== expect) r.problems.push(`exited ${r.code}, expected ${expect}`);
      if (check && r.code === expect) {
        const problem = check(r);
        if (problem) r.problems.push(problem);
      }
      results.push(r);
      const ok = r.problems.length === 0;
      log(`\n$ ${shown}  -> exit ${r.code} (${r.requests.length} HTTP, ${secs(r.ms)})${ok ? '' : '  UNEXPECTED: ' + r.problems.join('; ')}`);
      const out = (stdout + stderr).trimEnd().split('\n');
      const shownLines = ok && out.length > 12 ? [...out.slice(0, 10), `  ... (${out.length - 10} more lines)`] : out;
      for (const line of shownLines) if (line) log('  | ' + line);
      resolve(r);
    });
    child.stdin.end(input ?? '');
  });
}

// ---------------------------------------------------------------------------------------------

let tmp;
let sandbox;
let prism;
let hop;
let cleaning;

/** Stops every child (payctl first, then Prism and the sandbox), the hop, and removes the temp folder. */
function cleanup() {
  cleaning ??= (async () => {
    const payctls = [...children].filter((c) => c.name === 'payctl');
    await Promise.all(payctls.map(stopChild));
    await Promise.all([...children].filter((c) => c.name !== 'payctl').map(stopChild));
    hop?.close();
    hopAgent.destroy();
    if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  })();
  return cleaning;
}

let signalled = false;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (!signalled) process.stderr.write(`\nprism-check: ${sig}, stopping\n`);
    signalled = true;
    void cleanup().then(() => process.exit(130));
  });
}

async function main() {
  if (!existsSync(join(root, 'dist', 'cli.cjs'))) throw new Error('dist/ is missing: run `npm run build` first');
  ensurePrism();

  tmp = mkdtempSync(join(tmpdir(), 'payctl-prism-'));
  const env = { ...process.env, PAYCTL_CONFIG_DIR: tmp, NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const k of ['PAYCTL_API_KEY', 'PAYCTL_TOKEN', 'PAYCTL_BASE_URL', 'PAYCTL_PROFILE', 'PAYCTL_SANDBOX_API_KEY', 'PAYCTL_SANDBOX_WEBHOOK_SECRET']) delete env[k];
  payctlEnv = env;

  // 1. The sandbox, in the foreground, in the temp config folder.
  sandbox = startChild('sandbox', process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--settle-after', '500'], env);
  const [, sandboxBase] = await waitForLine(sandbox, /^Sandbox running at (\S+)/, 15_000);
  const [, apiKey] = await waitForLine(sandbox, /^API key: (\S+)/, 5_000);
  const sandboxOrigin = new URL(sandboxBase).origin;

  // 2. Prism in front of it, then the hop in front of Prism. --multiprocess false: one process, so
  // the log is written in request order (and a SIGTERM stops all of Prism). --errors false: Prism
  // passes the sandbox's answer through unchanged and only logs what it finds (with --errors it
  // replaces an answer that violates the description with its own problem+json error, so payctl
  // would fail on Prism's answer instead of showing the sandbox's).
  const t0 = Date.now();
  prism = startChild(
    'prism',
    process.execPath,
    [prismBin, 'proxy', spec, sandboxBase, '--port', '0', '--host', '127.0.0.1', '--multiprocess', 'false', '--errors', 'false'],
    env,
  );
  const [, prismOrigin] = await waitForLine(prism, /Prism is listening on (http:\/\/\S+)/, 90_000);
  const prismStartMs = Date.now() - t0;
  hop = await startHop(prismOrigin);
  const baseUrl = `http://127.0.0.1:${hop.address().port}/v2`;
  log(`Sandbox ${sandboxBase}; Prism ${PRISM_VERSION} ${prismOrigin} -> ${sandboxBase} (ready in ${secs(prismStartMs)}); payctl uses ${baseUrl}`);

  // Self-test, so that "0 violations" means something: a request without credentials must be
  // flagged ("Violation: request Invalid security scheme used"). Its lines are left out of the counts,
  // except response violations (the sandbox's 401 is checked against the description too).
  const canary = await fetch(`${baseUrl}/wallets/balances`);
  await canary.arrayBuffer();
  await settle(1);
  const canaryLines = prism.lines.filter((l) => /\bViolation: /.test(l));
  const canaryCount = exchanges.length;
  log(
    `Self-test: GET /v2/wallets/balances without a key -> ${canary.status}; Prism: ${canaryLines.map((l) => l.replace(/^.*?Violation: /, '')).join(' | ') || 'nothing'}`,
  );
  if (!canaryLines.some((l) => /Violation: request\b.*security/i.test(l))) throw new Error('Prism did not flag a request without credentials: it is not validating');
  const logMark = prism.lines.length;

  // 3. The commands. login and status check the key with GET /auth/user (the key is the bearer token).
  const walletPayoutId = randomUUID();
  await runPayctl(['login', '--api-key-stdin', '--base-url', baseUrl, '--insecure-storage'], {
    input: apiKey + '\n',
    check: (r) => (r.requests.some((x) => x.method === 'GET' && x.path === '/v2/auth/user' && x.status === 200) ? undefined : 'no 200 for GET /v2/auth/user'),
  });
  await runPayctl(['status']);
  await runPayctl(['balances']);
  const balances = await runPayctl(['balances', '--json'], {
    check: (r) => {
      try {
        return JSON.parse(r.stdout).data.some((w) => w.currency === 'SLE') ? undefined : 'no SLE wallet';
      } catch (err) {
        return `stdout is not JSON: ${err.message}`;
      }
    },
  });
  let sle = [];
  try {
    sle = JSON.parse(balances.stdout).data.filter((w) => w.currency === 'SLE');
  } catch {
    // reported above
  }
  if (sle.length === 0) throw new Error('no SLE wallet in `balances --json`; cannot send payouts');
  const walletA = sle[0].wallet_id;
  const walletB = (sle[1] ?? sle[0]).wallet_id;

  const bank = await runPayctl(
    [
      'payout',
      'create',
      '--wallet',
      walletB,
      '--amount',
      '125.25',
      '--currency',
      'SLE',
      '--type',
      'bank',
      '--name',
      'Mariama Conteh',
      '--provider',
      'uba',
      '--account',
      '0123456789',
      '--yes',
    ],
    { check: (r) => (TRANSACTION_ID.test(r.stdout) ? undefined : 'no transaction id printed') },
  );
  const bankTransaction = TRANSACTION_ID.exec(bank.stdout)?.[0];

  const walletArgs = [
    'payout',
    'create',
    '--wallet',
    walletA,
    '--amount',
    '1500.50',
    '--currency',
    'SLE',
    '--type',
    'wallet',
    '--name',
    'Aminata Kamara',
    '--provider',
    'orange_money',
    '--account',
    '076123456',
    '--phone',
    '+23276123456',
    '--note',
    'October stipend',
    '--payout-id',
    walletPayoutId,
    '--yes',
  ];
  const first = await runPayctl(walletArgs, {
    check: (r) => (r.requests.some((x) => x.method === 'POST' && x.status === 201 && !x.replayed) ? undefined : 'no new 201 for POST /payout'),
  });
  // The journaled idempotency key of that payout (what payctl printed as the safe retry uses).
  const history = await runPayctl(['history', '--json']);
  let journaledKey;
  try {
    const entry = JSON.parse(history.stdout).data.find((e) => Object.values(e).includes(walletPayoutId));
    journaledKey = entry && (entry.idempotency_key ?? entry.idempotencyKey);
  } catch {
    // checked below
  }
  const sentKey = first.requests.find((x) => x.method === 'POST')?.idempotencyKey;
  if (!journaledKey || journaledKey !== sentKey) {
    results.at(-1).problems.push(`journaled key ${journaledKey} is not the Idempotency-Key sent (${sentKey})`);
  }
  // A rerun with the same --payout-id (and the journaled key): same key, same body, and the
  // sandbox replays its first answer with Idempotent-Replayed: true.
  await runPayctl([...walletArgs, '--idempotency-key', journaledKey ?? sentKey ?? 'missing'], {
    check: (r) => {
      const post = r.requests.find((x) => x.method === 'POST');
      if (!post) return 'no POST /payout was sent';
      if (post.idempotencyKey !== sentKey) return `sent key ${post.idempotencyKey}, not ${sentKey}`;
      if (!post.replayed) return 'the answer had no Idempotent-Replayed: true';
      return /already submitted/i.test(r.stderr) ? undefined : 'not reported as already submitted';
    },
  });

  // By transaction id (the service's only look-up), and by a payout id the journal maps to one.
  const lookedUp = (r) =>
    r.requests.some((x) => x.method === 'GET' && /^\/v2\/payout\/TXN-BOK-/.test(x.path) && x.status === 200) ? undefined : 'no 200 for GET /v2/payout/{transactionId}';
  await runPayctl(['payout', 'get', bankTransaction ?? 'TXN-BOK-00000000000000000000000000'], { check: lookedUp });
  await runPayctl(['payout', 'get', walletPayoutId], { check: lookedUp });

  // Enough payouts for --all to follow several pages of 100.
  const gen = await fetch(`${sandboxOrigin}/_sandbox/payouts/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count: 250 }),
  });
  log(`\nPOST ${sandboxOrigin}/_sandbox/payouts/generate {"count":250} -> ${gen.status}`);
  if (gen.status !== 201) throw new Error(`generating payouts failed: ${gen.status} ${await gen.text()}`);

  await runPayctl(['payouts', 'list']);
  await runPayctl(['payouts', 'list', '--all'], {
    check: (r) => {
      const pages = r.requests.filter((x) => x.method === 'GET' && x.path.startsWith('/v2/payout/list')).length;
      return pages >= 3 ? undefined : `followed ${pages} page(s), expected at least 3`;
    },
  });
  // Filters are applied by payctl; the service gets page and per_page only.
  await runPayctl(['payouts', 'list', '--status', 'Pending', '--currency', 'SLE']);
  const summarized = (r) =>
    r.requests.some((x) => x.method === 'POST' && x.path === '/v2/payout/summary' && x.status === 200) ? undefined : 'no 200 for POST /v2/payout/summary';
  await runPayctl(['summary'], { check: summarized });
  await runPayctl(['summary', '--json'], { check: summarized });

  // 4. Let Prism's log catch up with every request the hop passed on, then count.
  const forwarded = exchanges.filter((x) => !x.violations.some((v) => v.location[0] === 'hop')).length;
  const received = await settle(forwarded);
  if (process.env.PRISM_CHECK_LOG) log('\n=== Prism log ===\n' + prism.lines.join('\n'));

  const canaryResponse = canaryLines.filter((l) => /\bViolation: response\b/.test(l));
  const violationLines = [...canaryResponse, ...prism.lines.slice(logMark).filter((l) => /\bViolation: /.test(l))];
  const requestViolations = violationLines.filter((l) => /\bViolation: request\b/.test(l));
  const responseViolations = violationLines.filter((l) => /\bViolation: response\b/.test(l));
  const otherViolations = violationLines.filter((l) => !requestViolations.includes(l) && !responseViolations.includes(l));
  const prismErrors = prism.lines.filter((l) => /Request terminated with error|\bfatal\b/i.test(l));
  const hopViolations = exchanges.flatMap((x) => x.violations.filter((v) => v.location[0] === 'hop').map((v) => ({ x, v })));

  log('\n=== Violations (Prism log) ===');
  if (violationLines.length === 0) log('none');
  for (const l of violationLines) log(l.trim());
  for (const l of prismErrors) log('PRISM ERROR: ' + l.trim());
  const flagged = exchanges.filter((x, i) => x.violations.length > 0 && (i >= canaryCount || x.violations.some((v) => v.location[0] === 'response')));
  if (flagged.length > 0) {
    log('\n=== By request (sl-violations header) ===');
    for (const x of flagged) {
      log(`${x.method} ${x.path} -> ${x.status}`);
      for (const v of x.violations) log(`    ${v.severity}: ${v.location.join('.')} ${v.message}`);
    }
  }
  const headerCount = exchanges.reduce(
    (n, x, i) => n + x.violations.filter((v) => v.location[0] !== 'hop' && (i >= canaryCount || v.location[0] === 'response')).length,
    0,
  );
  const inconsistent = headerCount !== violationLines.length;
  const requests = exchanges.length - canaryCount;
  const unseen = received !== forwarded;

  const bad = results.filter((r) => r.problems.length > 0);
  log('\n=== Commands ===');
  for (const r of results)
    log(`${r.problems.length ? 'FAIL' : 'ok  '} exit ${String(r.code).padEnd(3)} ${r.cmd}${r.problems.length ? '  <- ' + r.problems.join('; ') : ''}`);
  log(
    `\nPrism ${PRISM_VERSION} validation proxy: ${requests} requests, ${requestViolations.length} request violations, ${responseViolations.length} response violations` +
      (otherViolations.length ? `, ${otherViolations.length} other violations` : ''),
  );
  if (inconsistent) log(`note: the sl-violations headers held ${headerCount} violations, the log ${violationLines.length}`);
  if (unseen) log(`Prism logged ${received} requests; the hop passed on ${forwarded}`);
  if (hopViolations.length) log(`${hopViolations.length} request(s) payctl sent outside /v2 or that Prism did not answer`);
  log(`${results.length - bad.length}/${results.length} commands exited as expected; wall time ${secs(Date.now() - started)}`);
  const pass =
    requestViolations.length === 0 &&
    responseViolations.length === 0 &&
    otherViolations.length === 0 &&
    prismErrors.length === 0 &&
    hopViolations.length === 0 &&
    !unseen &&
    bad.length === 0;
  return pass ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!signalled) process.stderr.write(`\nprism-check failed: ${err.stack ?? err}\n`);
  code = 1;
} finally {
  await cleanup();
}
process.exit(signalled ? 130 : code);
