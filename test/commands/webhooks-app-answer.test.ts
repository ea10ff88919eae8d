/**
 * `webhooks listen --forward-to` (in process, real HTTP on 127.0.0.1) when the app answers with
 * no 2xx: the sender gets the app's whole answer, and stderr shows why under the forward line,
 * its Content-Type, Retry-After and the start of its body, sanitized onto one line, cut to 200
 * characters, the webhook secret masked. Before, only the status was shown, though README said
 * the body, Content-Type and Retry-After were too. A redirect's Location is named on stderr
 * (masked, cut), never passed to the sender.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { postRaw } from '../helpers/listener.js';
import { listenInProcess as listen, useListenerScope } from '../helpers/listen-in-process.js';
import { event, headersFor } from '../helpers/webhook-events.js';

const S = 'whsec_app_answer_7e21';

const { configDir, cleanups } = useListenerScope();

/** An app that answers every event with this status, headers and body. */
async function app(status: number, headers: Record<string, string>, body: string): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, headers).end(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/h`;
}

describe('webhooks listen: an app answer that is no 2xx is shown', () => {
  it('shows Content-Type, Retry-After and a sanitized, masked excerpt of the body; the sender gets it all', async () => {
    const long = 'x'.repeat(300);
    const said = `database locked\n\u001b[31mretry later\u001b[0m (secret ${S}) ${long}`;
    const url = await app(503, { 'content-type': 'text/plain', 'retry-after': '5' }, said);
    const l = await listen(['--forward-to', url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const b = event();
    expect(await postRaw(l.url, b, headersFor(b, S))).toEqual({ status: 503, body: said });
    const line = await l.waitFor(
      () =>
        l
          .stderr()
          .split('\n')
          .find((x) => x.includes("the app's answer")),
      "the app's answer line",
    );
    const shownBody = `database locked retry later (secret ***) ${long}`.slice(0, 199);
    expect(line).toBe(`    the app's answer (Content-Type text/plain, Retry-After 5): ${shownBody}…`);
    expect(l.stderr()).not.toContain(S);
    await l.stop();
  });

  it('a secret that crosses the 4,096th byte of the body is masked whole, never shown in part (probe Z, 1)', async () => {
    // Before, the body was cut at byte 4096 and masked after: 22 of the secret's characters showed.
    for (const pad of [4074, 4090, 4095]) {
      const said = '\n'.repeat(pad) + S;
      const url = await app(503, { 'content-type': 'text/plain' }, said);
      const l = await listen(['--forward-to', url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
      const b = event();
      expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(503);
      const line = await l.waitFor(
        () =>
          l
            .stderr()
            .split('\n')
            .find((x) => x.includes("the app's answer")),
        "the app's answer line",
      );
      expect(line, `padding ${pad}`).toBe("    the app's answer (Content-Type text/plain): ***");
      expect(l.stderr()).not.toContain(S.slice(0, 8));
      await l.stop();
    }
  });

  it('an answer with no body and no Content-Type says so; a 2xx adds no line', async () => {
    const url = await app(500, {}, '');
    const l = await listen(['--forward-to', url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const b = event();
    expect((await postRaw(l.url, b, headersFor(b, S))).status).toBe(500);
    await l.waitFor(() => l.stderr().includes("    the app's answer (no Content-Type): (no body)"), 'the empty answer line');
    await l.stop();

    const ok = await app(200, { 'content-type': 'application/json' }, '{"ok":true}');
    const l2 = await listen(['--forward-to', ok], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const b2 = event();
    expect((await postRaw(l2.url, b2, headersFor(b2, S))).status).toBe(200);
    await l2.waitFor(() => / 200 \(\d+ ms\)/.test(l2.stderr()), 'the 200 forward line');
    const exit = await l2.stop();
    expect(exit.stderr).not.toContain("the app's answer");
  });
});

/** POSTs the body and gives the status and the headers of the answer. */
function postForHeaders(url: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('webhooks listen: an app that redirects (probe 53 W, finding 6)', () => {
  it('names the Location on stderr, masked, with the hint; the sender gets the status without it', async () => {
    // Before: the sender got 307 without Location, and stderr said nothing of where it pointed.
    const url = await app(307, { location: `/hooks/in/?key=${S}` }, '');
    const l = await listen(['--forward-to', url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const b = event();
    const answer = await postForHeaders(l.url, b, headersFor(b, S));
    expect(answer.status).toBe(307);
    expect(answer.headers.location).toBeUndefined();
    const where = new URL('/hooks/in/?key=***', url).href;
    await l.waitFor(
      () =>
        l
          .stderr()
          .includes(
            `Warning: the app answered 307 redirecting to ${where}: payctl does not follow redirects, nor pass them to the sender (it would post the event to the app unchecked). If that is where your app takes events, give that URL to --forward-to.`,
          ),
      'the redirect warning',
    );
    const exit = await l.stop();
    expect(exit.stderr).not.toContain(S);
  });

  it('a Location past 200 characters is masked whole, then cut', async () => {
    // The secret crosses the 200th character: cut first, its first letters would show.
    const url = await app(308, { location: `http://127.0.0.1:1/${'p'.repeat(175)}${S}${'q'.repeat(50)}` }, '');
    const l = await listen(['--forward-to', url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: S } });
    const b = event();
    expect((await postForHeaders(l.url, b, headersFor(b, S))).status).toBe(308);
    await l.waitFor(() => l.stderr().includes(`redirecting to http://127.0.0.1:1/${'p'.repeat(175)}***${'q'.repeat(2)}…: payctl`), 'the masked Location');
    const exit = await l.stop();
    expect(exit.stderr).not.toContain('whsec');
  });
});
