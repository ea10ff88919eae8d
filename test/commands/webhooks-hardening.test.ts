/**
 * `webhooks listen` and `config set webhook-secret` hardening, in process (payctl's main, real
 * HTTP on 127.0.0.1): the webhook secret is masked in everything the listener writes whatever
 * its source (--secret-stdin and --secret too, not only the environment and the profile);
 * --path must be a path a URL reaches as typed, and a request it refuses (404, 413) is one
 * warning on stderr; a blank --host, or one with a port, is refused before anything listens, and
 * a bracketed IPv6 address ([::1]) is listened on; a webhook secret typed
 * on the command line warns, and a blank one is refused from every source (exit 2).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readProfile, writeProfile } from '../helpers/e2e.js';
import { TestClock } from '../helpers/clock.js';
import { startPayctl, payctl, type InProcessOptions } from '../helpers/in-process.js';
import { portClosed, postRaw, sign } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope, type InProcessListener } from '../helpers/listen-in-process.js';
import { isoAt, rawRequest } from '../helpers/webhook-events.js';
import { asText } from '../helpers/stderr-json.js';

const { configDir, target } = useListenerScope();

/** A fresh secret with a quote and a backslash in it: as JSON it is written escaped. */
const newSecret = () => `whsec_"hard\\${randomUUID().replace(/-/g, '').slice(0, 16)}`;

/** An event whose webhook_id, transaction_id and failure_reason each hold the secret. */
function leakyEvent(secret: string, timestamp: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      event: 'transfer.failed',
      timestamp,
      webhook_id: `wh-${secret}`,
      attempt: 1,
      data: { transaction_id: `TXN-${secret}`, amount: '10.00', currency: 'SLE', status: 'failed', failure_reason: `echoed ${secret} back` },
    }),
    'utf8',
  );
}

const signedJson = (body: Buffer, secret: string) => ({ 'content-type': 'application/json', signature: sign(secret, body) });

/** Ctrl-C: exit 130, the port closed; the run's result. */
async function stopped(l: InProcessListener) {
  const exit = await l.stop();
  expect(exit.code, exit.stderr).toBe(130);
  expect(await portClosed(l.port)).toBe(true);
  return exit;
}

/**
 * `payctl webhooks listen --port 0 ...args`, expected to be refused before it listens: exit 2,
 * nothing on stdout, no Ready line. A run that listens instead (the bug) is stopped and fails.
 */
async function refusedAtStart(args: string[], opts: InProcessOptions) {
  const run = startPayctl(['webhooks', 'listen', '--port', '0', ...args], opts);
  const deadline = Date.now() + 5000;
  let finished = false;
  void run.done.then(() => (finished = true));
  while (!finished && !run.stderr().includes('Ready:') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  if (!finished) run.interrupt();
  const r = await run.done;
  expect(r.stderr, `${args.join(' ')} listened`).not.toContain('Ready');
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  return r;
}

describe('webhooks listen: the webhook secret is masked whatever its source', () => {
  const sources: Array<[string, (s: string, dir: string) => { args: string[]; opts: Partial<InProcessOptions> }]> = [
    ['--secret-stdin', (s) => ({ args: ['--secret-stdin'], opts: { input: `${s}\n` } })],
    ['--secret', (s) => ({ args: ['--secret', s], opts: {} })],
    ['PAYCTL_WEBHOOK_SECRET', (s) => ({ args: [], opts: { env: { PAYCTL_WEBHOOK_SECRET: s } } })],
    [
      "the profile's webhook-secret",
      (s, dir) => {
        writeProfile(dir, { webhookSecret: s });
        return { args: [], opts: {} };
      },
    ],
  ];

  it('from --secret-stdin, --secret, PAYCTL_WEBHOOK_SECRET or the profile: the stdout line, the stale-timestamp warning and the forward lines show ***', async () => {
    for (const [source, how] of sources) {
      const S = `whsec_hard_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
      const dir = configDir();
      const app = await target(() => 202);
      // The forward URL holds the secret too: the Ready line and every forward line print the URL.
      const forwardTo = app.url.replace('/hooks/in?', `/hooks/${S}?`);
      const { args, opts } = how(S, dir);
      const clock = new TestClock();
      const l = await listen([...args, '--forward-to', forwardTo, '--verbose'], { dir, clock, ...opts });

      const good = leakyEvent(S, isoAt(0, clock.now()));
      expect((await postRaw(l.url, good, signedJson(good, S))).status, source).toBe(202);
      const stale = leakyEvent(S, isoAt(-412, clock.now()));
      expect((await postRaw(l.url, stale, signedJson(stale, S))).status, source).toBe(400);
      await l.waitFor(() => l.stderr().includes('rejected event'), 'the stale-timestamp warning');
      await l.waitFor(() => / 202 \(\d+ ms\)/.test(l.stderr()), 'the forward line');
      await l.waitFor(() => l.lines().length === 1, 'the event line');

      const exit = await stopped(l);
      expect(exit.stdout + exit.stderr, source).not.toContain(S);
      expect(exit.stdout + exit.stderr, source).not.toContain(S.slice(6));
      const line = exit.stdout.trim();
      expect(line, source).toContain('TXN-***');
      expect(line, source).toContain('Failed: echoed *** back');
      expect(line, source).toContain('wh-***');
      expect(exit.stderr, source).toContain('rejected event wh-***: timestamp 412 s old, more than 300 s');
      expect(exit.stderr, source).toMatch(/→ http:\/\/127\.0\.0\.1:\d+\/hooks\/\*\*\*\?src=payctl 202 \(\d+ ms\)/);
      // The app still got the event byte for byte, at the URL as given.
      expect(app.received[0]!.raw.equals(good), source).toBe(true);
      expect(app.received[0]!.url, source).toBe(`/hooks/${S}?src=payctl`);
    }
  });

  it('--json, --secret-stdin: every field of the stdout line and of the {"rejected":…} line on stderr is masked', async () => {
    const S = newSecret();
    const clock = new TestClock();
    const l = await listen(['--json', '--secret-stdin'], { dir: configDir(), clock, input: `${S}\n` });
    const good = leakyEvent(S, isoAt(0, clock.now()));
    expect((await postRaw(l.url, good, signedJson(good, S))).status).toBe(200);
    const stale = leakyEvent(S, isoAt(-412, clock.now()));
    expect((await postRaw(l.url, stale, signedJson(stale, S))).status).toBe(400);
    await l.waitFor(() => l.stderr().includes('{"rejected":'), 'the rejected line');
    await l.waitFor(() => l.lines().length === 1, 'the JSON line');

    const exit = await stopped(l);
    const accepted = JSON.parse(exit.stdout.trim()) as Record<string, unknown>;
    expect(accepted).toMatchObject({ webhook_id: 'wh-***', transaction_id: 'TXN-***', failure_reason: 'echoed *** back', verified: true });
    const rejectedLine = exit.stderr.split('\n').find((x) => x.startsWith('{"rejected":'))!;
    expect((JSON.parse(rejectedLine) as { rejected: unknown }).rejected).toMatchObject({
      reason: 'stale timestamp',
      webhook_id: 'wh-***',
      transaction_id: 'TXN-***',
    });
    for (const needle of [S, JSON.stringify(S).slice(1, -1), S.slice(6)]) {
      expect(exit.stdout).not.toContain(needle);
      expect(exit.stderr).not.toContain(needle);
    }
  });
});

describe('webhooks listen: the webhook secret echoed with a line break inside is masked whole', () => {
  it('a verified event whose failure_reason holds whsec_TopSecret_42a\\n9: *** on the text line and in the --json line', async () => {
    const S = 'whsec_TopSecret_42a9';
    for (const mode of [[], ['--json']]) {
      const clock = new TestClock();
      const l = await listen(mode, { dir: configDir(), clock, env: { PAYCTL_WEBHOOK_SECRET: S } });
      const body = Buffer.from(
        JSON.stringify({
          event: 'transfer.failed',
          timestamp: isoAt(0, clock.now()),
          webhook_id: 'wh-1',
          attempt: 1,
          data: { transaction_id: 'TXN-1', amount: '10.00', currency: 'SLE', status: 'failed', failure_reason: 'echoed whsec_TopSecret_42a\n9 back' },
        }),
        'utf8',
      );
      expect((await postRaw(l.url, body, signedJson(body, S))).status).toBe(200);
      await l.waitFor(() => l.lines().length === 1, 'the event line');
      const exit = await stopped(l);
      // Before: `Failed: echoed whsec_TopSecret_42a 9 back` (text), `"failure_reason":"echoed whsec_TopSecret_42a\n9 back"` (--json).
      expect(exit.stdout + exit.stderr, mode.join(' ')).not.toMatch(/TopSecret|42a/);
      if (mode.length) expect(JSON.parse(exit.stdout.trim())).toMatchObject({ failure_reason: 'echoed *** back', verified: true });
      else expect(exit.stdout).toContain('Failed: echoed *** back');
    }
  });
});

describe('webhooks listen --path: a path a URL reaches as typed, or exit 2', () => {
  it('refuses a path with a space, a query, a fragment, non-ASCII, a dot segment or a backslash (exit 2, nothing listens)', async () => {
    const cases: Array<[string, string]> = [
      ['/a b', 'a URL reaches it as "/a%20b", so no event would ever match it'],
      ['/hooks?x=1', 'a path has no query (?) or fragment (#)'],
      ['/hooks#top', 'a path has no query (?) or fragment (#)'],
      ['/é', 'a URL reaches it as "/%C3%A9", so no event would ever match it'],
      ['/a/../b', 'a URL reaches it as "/b", so no event would ever match it'],
      ['/a/./b', 'a URL reaches it as "/a/b", so no event would ever match it'],
      ['/a/%2e%2e/b', 'a URL reaches it as "/b", so no event would ever match it'],
      ['/a\\b', 'a URL reaches it as "/a/b", so no event would ever match it'],
    ];
    for (const [path, why] of cases) {
      const r = await refusedAtStart(['--path', path], { dir: configDir() });
      expect(r.stderr).toContain(`Error: --path "${path}" is not a plain URL path: ${why}.`);
      expect(r.stderr).toContain('Give the path as it appears in a URL');
    }

    // Percent-encoded, it is taken as typed: the Ready line is the URL to post to, and events posted there arrive.
    const l = await listen(['--path', '/a%20b/hooks', '--json'], { dir: configDir() });
    expect(l.url).toBe(`http://127.0.0.1:${l.port}/a%20b/hooks`);
    expect((await postRaw(l.url, '{"webhook_id":"pasted"}', { 'content-type': 'application/json' })).status).toBe(200);
    await l.waitFor(() => l.lines().length === 1, 'the event line');
    expect(JSON.parse(l.lines()[0]!)).toMatchObject({ webhook_id: 'pasted', answered: 200 });
    await stopped(l);
  });
});

describe('webhooks listen: a refused request is one warning on stderr, never on stdout', () => {
  it('a wrong path or method (404) and a body over 1 MiB (413) are each said once, sanitized, with --json too', async () => {
    const l = await listen(['--json'], { dir: configDir() });
    // Under --json, JSON lines (src/output/log.ts), read back as the text a person sees.
    const origin = `http://127.0.0.1:${l.port}`;
    const json = { 'content-type': 'application/json' };

    expect((await postRaw(`${origin}/wrong?token=abc`, '{}', json)).status).toBe(404);
    await l.waitFor(() => l.stderr().includes('refused POST /wrong'), 'the wrong-path warning');
    expect(asText(l.stderr())).toContain('Warning: refused POST /wrong: not the listening path (404); events are taken at POST /webhooks.\n');
    // The query is left out of the line.
    expect(l.stderr()).not.toContain('token=abc');

    expect((await rawRequest(l.port, 'GET', '/webhooks', { host: '127.0.0.1' })).status).toBe(404);
    await l.waitFor(() => l.stderr().includes('refused GET /webhooks'), 'the wrong-method warning');
    expect(asText(l.stderr())).toContain('Warning: refused GET /webhooks: events are taken with POST only (404).\n');

    // A very long path is cut.
    expect((await postRaw(`${origin}/${'x'.repeat(300)}`, '{}', json)).status).toBe(404);
    await l.waitFor(() => l.stderr().includes(`refused POST /${'x'.repeat(118)}…: not the listening path`), 'the cut path');
    expect(l.stderr()).not.toContain('x'.repeat(200));

    expect((await postRaw(l.url, Buffer.alloc(1024 * 1024 + 1, 0x20), json)).status).toBe(413);
    await l.waitFor(() => l.stderr().includes('(413)'), 'the too-large warning');
    expect(asText(l.stderr())).toContain('Warning: refused POST /webhooks: the body is over 1 MiB (413).\n');

    const exit = await stopped(l);
    expect(exit.stdout).toBe('');
    expect(asText(exit.stderr).match(/Warning: refused /g)).toHaveLength(4);
  });
});

describe('webhooks listen --host: never blank', () => {
  it('an empty or white-space --host is refused (exit 2) before anything listens', async () => {
    for (const host of ['', '   ']) {
      const r = await refusedAtStart(['--host', host], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: 'whsec_host_blank_1' } });
      expect(r.stderr).toContain('Error: --host cannot be empty: it would listen on every interface.');
      expect(r.stderr).not.toContain('http://:');
    }
  });
  it('a bracketed IPv6 address, as the Ready line writes it, is listened on (probe 53 W, finding 5)', async () => {
    // Before: "Cannot listen on [::1] port 0: the name does not resolve to an address (ENOTFOUND)".
    const secret = 'whsec_host_v6_2';
    const run = startPayctl(['webhooks', 'listen', '--port', '0', '--host', '[::1]'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: secret } });
    const deadline = Date.now() + 5000;
    let finished = false;
    void run.done.then(() => (finished = true));
    let ready: RegExpExecArray | null = null;
    while (!(ready = /Ready: listening for webhook events on (http:\/\/\[::1\]:(\d+)\/webhooks)/.exec(run.stderr())) && !finished && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    if (!ready) run.interrupt();
    expect(ready, run.stderr()).not.toBeNull();
    const body = Buffer.from(JSON.stringify({ event: 'transfer.success', timestamp: isoAt(), webhook_id: randomUUID(), attempt: 1, data: {} }));
    expect(await postRaw(ready![1]!, body, signedJson(body, secret))).toEqual({ status: 200, body: '{"received":true}' });
    run.interrupt();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toContain('transfer.success');
  });

  it('a host with a port is refused (exit 2) naming --port; white space around it, or brackets around what is no IPv6 address, too', async () => {
    const cases: Array<[string, string]> = [
      ['127.0.0.1:47116', 'Give the port with --port: --host 127.0.0.1 --port 47116'],
      ['[::1]:4242', 'Give the port with --port: --host [::1] --port 4242'],
      ['localhost:', 'Give the port with --port: --host localhost --port N'],
    ];
    for (const [host, hint] of cases) {
      const r = await refusedAtStart(['--host', host], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: 'whsec_host_port_3' } });
      expect(r.stderr).toContain(`Error: --host ${host} has a port: --host takes the address only.`);
      expect(r.stderr).toContain(hint);
      expect(r.stderr).not.toContain('does not resolve');
    }
    // Probe 54 W, finding 3: before, "Cannot listen on  127.0.0.1 port …: the name does not resolve".
    for (const [host, quoted] of [
      [' 127.0.0.1', '" 127.0.0.1"'],
      ['127.0.0.1 ', '"127.0.0.1 "'],
      ['\t::1', '"\\t::1"'],
    ]) {
      const r = await refusedAtStart(['--host', host!], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: 'whsec_host_port_3' } });
      expect(r.stderr).toContain(`Error: --host ${quoted} has white space around it.`);
      expect(r.stderr).toContain(`Give the address without it: --host ${host!.trim()}`);
      expect(r.stderr).not.toContain('does not resolve');
    }
    const notV6 = await refusedAtStart(['--host', '[localhost]'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: 'whsec_host_port_3' } });
    expect(notV6.stderr).toContain('Error: --host [localhost]: only an IPv6 address is written in brackets.');
  });
});

describe('a blank webhook secret is refused from every source; one typed on a command line warns', () => {
  it('webhooks listen: --secret "" or " ", PAYCTL_WEBHOOK_SECRET " " and a blank profile webhook-secret exit 2, nothing listens', async () => {
    for (const secret of ['', ' ']) {
      const r = await refusedAtStart(['--secret', secret], { dir: configDir() });
      expect(r.stderr).toContain('Error: The webhook secret given with --secret is blank.');
      expect(r.stderr).not.toContain('other users of this machine can see it');
    }
    const env = await refusedAtStart([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: ' \t ' } });
    expect(env.stderr).toContain('Error: PAYCTL_WEBHOOK_SECRET is blank (white space only).');

    const dir = configDir();
    writeProfile(dir, { webhookSecret: '   ' });
    const profile = await refusedAtStart([], { dir });
    expect(profile.stderr).toContain("Error: The profile's webhook-secret is blank (white space only).");
    expect(profile.stderr).toContain(`printf '%s\\n' "$SECRET" | payctl config set webhook-secret --stdin`);
  });

  it('config set webhook-secret --stdin at a terminal asks with a prompt that shows nothing (never an echoed line); a terminal with --no-input is refused', async () => {
    const dir = configDir();
    const S = 'whsec_typed_at_a_terminal_1234';
    const asked = await payctl(['config', 'set', 'webhook-secret', '--stdin'], { dir, prompts: [{ password: /^webhook-secret:$/, answer: S }] });
    expect(asked.code, asked.stderr).toBe(0);
    expect(`${asked.stdout}${asked.stderr}`).not.toContain(S);
    expect(readProfile(dir)?.webhookSecret).toBe(S);
    const refused = await payctl(['--no-input', 'config', 'set', 'webhook-secret', '--stdin'], { dir, tty: { stdin: true, stdout: true } });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('--stdin reads webhook-secret from a pipe, not a terminal');
  });

  it('config set webhook-secret " " is refused (exit 2, nothing saved); a secret on the command line warns, --stdin does not', async () => {
    const dir = configDir();
    const blank = await payctl(['config', 'set', 'webhook-secret', '  '], { dir });
    expect(blank.code, blank.stderr).toBe(2);
    expect(blank.stderr).toContain('The webhook secret cannot be blank (white space only).');
    expect(readProfile(dir)?.webhookSecret).toBeUndefined();

    const S = 'whsec_config_set_typed_1234';
    const typed = await payctl(['config', 'set', 'webhook-secret', S], { dir });
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stderr).toContain(
      'Warning: The webhook secret was given on the command line, where your shell history keeps it and other users of this machine may have seen it (ps).',
    );
    expect(typed.stderr).toContain(`pipe it in with \`printf '%s\\n' "$SECRET" | payctl config set webhook-secret --stdin\`.`);
    expect(typed.stderr).not.toContain(S);
    expect(readProfile(dir)?.webhookSecret).toBe(S);

    const piped = await payctl(['config', 'set', 'webhook-secret', '--stdin'], { dir, input: `${S}_2\n` });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).not.toContain('Warning');
    expect(readProfile(dir)?.webhookSecret).toBe(`${S}_2`);

    // Another profile: the printed command names it.
    writeProfile(dir, { webhookSecret: `${S}_2` }, 'staging');
    const other = await payctl(['config', 'set', 'webhook-secret', S, '--profile', 'staging'], { dir });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toContain('payctl config set webhook-secret --profile staging --stdin');
  });
});
