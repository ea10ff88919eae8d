/**
 * `payctl webhooks listen`: a local receiver for the service's webhook events
 * (docs/service.md, "Webhooks"): `{event, timestamp, webhook_id, attempt, data}` with
 * `data` a payout record. Each event's signature (hex HMAC-SHA256 of the raw body, in
 * the `Signature` header unless --signature-header or the profile's
 * webhook-signature-header names another) and its payload `timestamp` (within
 * --tolerance seconds, 300 by default) are verified; the event is printed (a line per
 * event, or one JSON line with --json) and, with --forward-to, forwarded with its raw
 * body and headers to your app, whose status and body are shown and passed back to the
 * sender. stdout carries accepted events only (verified, or unchecked when there is no
 * secret): a delivery that fails a check is answered 400 naming the check, never
 * forwarded, and reported on stderr (a `{"rejected":…}` JSON line with --json).
 * A `webhook_id` seen before is a retry of the same event (or a replay of it within the
 * timestamp window): it is printed as a duplicate with its attempt. One the app has
 * already answered with a 2xx is not forwarded again (the app would act twice): it is
 * answered with that 2xx at once. One the app has not yet taken (an error, or no answer)
 * is forwarded again: the sender retries for a reason. The sender is answered within --timeout
 * (502 when the app has not answered by then), but the forward goes on up to ten minutes, and a
 * late 2xx counts as the app's answer (webhooks/relay.ts). Duplicates are judged among
 * accepted events only, so a forgery reusing a real id neither is marked duplicate nor
 * marks the real one. Ctrl-C stops it (exit 130).
 *
 * The listener binds 127.0.0.1 by default; any other --host (0.0.0.0 above all) is
 * warned about, since other machines can then reach it. An address it cannot listen on
 * (not on this machine, unresolvable, in use) is a plain usage error naming the cause, and so
 * is a --forward-to that is the listener itself (its port on a name of this machine) or has
 * port 0 (no app can be reached there) or one past 65535 (said so, not "not a URL").
 * A password in the --forward-to URL is sent to the app as Basic auth and shown as `***`
 * wherever the URL is printed.
 *
 * The secret comes from --secret-stdin, else --secret (which warns: it shows in `ps`),
 * else PAYCTL_WEBHOOK_SECRET, else the profile's webhook-secret; a blank one, from any of
 * them, is refused (exit 2) rather than used or passed over. Whatever its source, it is
 * masked as `***` in everything the listener writes (webhooks/listener.ts). --path must be
 * a path a URL reaches as typed and --host must not be blank, have white space around it, nor carry a port, an IPv6 address
 * given bare or in brackets (exit 2, nothing listens).
 * Requests a web page could send (a foreign Host or Origin, a body that is not JSON) are
 * refused before they are read (sandbox/host-check.ts). Every string from an event is
 * sanitized before it is printed, in text and in --json, but the status word: it is shown as
 * docs/service.md, "Status words" says (an odd word escaped, never cleaned into a known one).
 *
 * This file turns the options into the listener's settings (the secret, the signature header,
 * the forward URL) and waits for Ctrl-C; the listener itself is src/webhooks/ (listener.ts:
 * the server and its steps; dedupe.ts, forward.ts, print.ts).
 */
import { untilAborted, type Deps } from '../../deps.js';
import { ExitCode, InterruptedError, OutputError, UsageError, fieldProblem, flagRefusal } from '../../errors.js';
import { resolveSettings } from '../../config/resolve.js';
import type { Profile } from '../../config/profile.js';
import { SIGNATURE_HEADER, TOLERANCE_SECONDS, isHeaderName } from '../../service/signature.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { commandLine, commandTemplate, invocationOf } from '../../config/command-line.js';
import { checkListenHost, checkListenPath } from '../../webhooks/addresses.js';
import { startListener } from '../../webhooks/listener.js';
import { visibleWord } from '../../words.js';

export interface ListenOptions {
  port?: number;
  host?: string;
  path?: string;
  secret?: string;
  secretStdin?: boolean;
  /** The header that carries the signature (default: the profile's webhook-signature-header, else `Signature`). */
  signatureHeader?: string;
  /** Seconds an event's timestamp may be from this machine's clock (default 300). */
  tolerance?: number;
  forwardTo?: string;
}

/**
 * Text that may quote the URL as typed (for what is not a URL yet), its `user:password@` part
 * masked up to the last `@` (a password may hold `#` or `/`), or a user name given alone.
 */
function maskUserinfo(raw: string): string {
  return raw.replace(/(\/\/[^/?#@:]*):.*@/, '$1:***@').replace(/\/\/[^/?#@:]+@/, '//***@');
}

/** The --forward-to URL: http or https, and a port an app can listen on (1 to 65535); a usage error otherwise. */
function checkForwardUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    // A port past 65535 makes it no URL: said as such, not as "is not a URL".
    const port = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#]*@)?(?:\[[^\]/?#]*\]|[^/?#:@[\]]*):(\d+)(?=[/?#]|$)/i.exec(raw)?.[1];
    if (port !== undefined && Number(port) > 65535) {
      throw flagRefusal(
        fieldProblem('--forward-to', `${sanitizeInline(maskUserinfo(raw))} has port ${port}: a port is 1 to 65535.`, ' '),
        'Give the port your app listens on, e.g. --forward-to http://localhost:3000/webhooks.',
      );
    }
    throw flagRefusal(fieldProblem('--forward-to', `"${sanitizeInline(maskUserinfo(raw))}" is not a URL.`));
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw flagRefusal(fieldProblem('--forward-to', 'must be an http:// or https:// URL.', ' '));
  // Port 0 picks a free port when listening; nothing answers a connection to it: every event got 502.
  if (u.port === '0') {
    throw flagRefusal(
      fieldProblem('--forward-to', `${sanitizeInline(maskUserinfo(raw))} has port 0, where no app can be reached: every event would be answered 502.`, ' '),
      'Give the port your app listens on, e.g. --forward-to http://localhost:3000/webhooks.',
    );
  }
  return u;
}

/**
 * This listener's command with the secret piped in (--secret-stdin), its other options as given
 * (before: the hint dropped --port, --forward-to and the rest, and pasted back it listened
 * elsewhere). A --forward-to URL with a user name or password is printed as "$FORWARD_TO".
 */
function stdinCommand(opts: ListenOptions, deps: Deps): string {
  const args: string[] = ['--secret-stdin'];
  if (opts.port !== undefined && opts.port !== 4242) args.push('--port', String(opts.port));
  if (opts.host !== undefined && opts.host !== '127.0.0.1') args.push('--host', opts.host);
  if (opts.path !== undefined && opts.path !== '/webhooks') args.push('--path', opts.path);
  if (opts.signatureHeader !== undefined) args.push('--signature-header', opts.signatureHeader);
  if (opts.tolerance !== undefined) args.push('--tolerance', String(opts.tolerance));
  const secretInUrl = opts.forwardTo !== undefined && /\/\/[^/?#]*@/.test(opts.forwardTo);
  if (opts.forwardTo !== undefined && !secretInUrl) args.push('--forward-to', opts.forwardTo);
  const line = commandLine(invocationOf(deps.globals, deps.env), ['webhooks', 'listen'], args);
  return `printf %s "$SECRET" | ${line}${secretInUrl ? ' --forward-to "$FORWARD_TO"' : ''}${deps.globals.json ? ' --json' : ''}`;
}

/**
 * --secret-stdin at a terminal, as `login --api-key-stdin`: a hidden prompt (a line read from a
 * terminal is echoed as typed: the secret stayed on screen and in the scrollback), refused with
 * the pipe to use where no prompt may be shown (--json, --no-input).
 */
async function typedSecret(opts: ListenOptions, deps: Deps): Promise<string> {
  if (!deps.io.interactive) {
    throw new UsageError(
      '--secret-stdin reads the webhook secret from a pipe, not a terminal, where it would be shown as typed.',
      [],
      `Pipe it in: ${stdinCommand(opts, deps)}`,
    );
  }
  const prompter = await deps.prompter();
  const typed = await prompter.password({ message: 'Webhook secret:', validate: (v) => (v.trim() ? true : 'The webhook secret cannot be empty.') });
  return typed.trim();
}

/**
 * The webhook secret: --secret-stdin (first line of stdin; at a terminal a hidden prompt), else --secret (with a
 * warning: the command line of a process is visible to every user of the machine),
 * else PAYCTL_WEBHOOK_SECRET, else the profile's webhook-secret; undefined when none.
 * A blank one (empty or white space only) is refused wherever it comes from: signing with
 * it would make every forgery pass, and passing over it would hide a typo. An empty
 * PAYCTL_WEBHOOK_SECRET is unset, as every empty PAYCTL_ variable is (config/resolve.ts).
 */
async function webhookSecret(opts: ListenOptions, deps: Deps, profile: () => Profile | undefined): Promise<string | undefined> {
  if (opts.secretStdin && opts.secret !== undefined) {
    throw new UsageError('Give the webhook secret one way: --secret-stdin or --secret, not both.');
  }
  if (opts.secretStdin && deps.io.stdinIsTTY) return typedSecret(opts, deps);
  if (opts.secretStdin) {
    // Loaded only here: the same first-line reader as `login --api-key-stdin`, ended at once by Ctrl-C or SIGTERM.
    const { readFirstLine } = await import('../../output/stdin-line.js');
    const nothing = () => new InterruptedError('Interrupted while reading the webhook secret from standard input; nothing was listened for.');
    const secret = (await readFirstLine(deps.io.stdin, deps.signal, nothing)).trim();
    if (!secret) {
      throw new UsageError('The webhook secret from standard input is empty.', [], `Pipe it in: ${stdinCommand(opts, deps)}`);
    }
    return secret;
  }
  if (opts.secret !== undefined) {
    if (!opts.secret.trim()) {
      throw new UsageError('The webhook secret given with --secret is blank.', [], `Pipe it in instead: ${stdinCommand(opts, deps)}`);
    }
    deps.log.warn(
      '--secret puts the webhook secret on the command line, where other users of this machine can see it (ps). ' +
        'Use --secret-stdin or PAYCTL_WEBHOOK_SECRET instead.',
    );
    return opts.secret;
  }
  const { value, source } = resolveSettings(deps.globals, deps.env, profile()).webhookSecret;
  if (value !== undefined && !value.trim()) {
    const set = commandLine(invocationOf(deps.globals, deps.env), ['config', 'set', 'webhook-secret'], ['--stdin']);
    throw source === 'env'
      ? new UsageError('PAYCTL_WEBHOOK_SECRET is blank (white space only).', [], 'Set it to the webhook secret, or unset it: unset PAYCTL_WEBHOOK_SECRET')
      : new UsageError(`The profile's webhook-secret is blank (white space only).`, [], `Set it with: printf '%s\\n' "$SECRET" | ${set}`);
  }
  return value;
}

/** The signature header: --signature-header, else the profile's webhook-signature-header, else `Signature`. */
function signatureHeaderName(opts: ListenOptions, deps: Deps, profile: () => Profile | undefined): string {
  if (opts.signatureHeader !== undefined) {
    if (!isHeaderName(opts.signatureHeader)) throw flagRefusal(fieldProblem('--signature-header', `"${visibleWord(opts.signatureHeader)}" is not an HTTP header name.`));
    return opts.signatureHeader;
  }
  const configured = resolveSettings(deps.globals, deps.env, profile()).webhookSignatureHeader.value;
  if (configured === undefined) return SIGNATURE_HEADER;
  if (!isHeaderName(configured)) {
    throw new UsageError(
      `The profile's webhook-signature-header "${visibleWord(configured)}" is not an HTTP header name.`,
      [],
      `Go back to the documented header (${SIGNATURE_HEADER}) with: ${commandLine(invocationOf(deps.globals, deps.env), ['config', 'unset'], ['webhook-signature-header'])}`,
    );
  }
  return configured;
}

export async function run(opts: ListenOptions, deps: Deps): Promise<number> {
  const path = checkListenPath(opts.path ?? '/webhooks');
  const host = checkListenHost(opts.host ?? '127.0.0.1');
  const forwardTo = opts.forwardTo ? checkForwardUrl(opts.forwardTo) : undefined;
  let profileRead: { p: Profile | undefined } | undefined;
  const profile = () => (profileRead ??= { p: deps.config().getProfile(deps.globals.profile) }).p;
  const headerName = signatureHeaderName(opts, deps, profile);
  const secret = await webhookSecret(opts, deps, profile);
  const inv = invocationOf(deps.globals, deps.env);
  const listener = await startListener(
    {
      host,
      port: opts.port ?? 4242,
      path,
      secret,
      headerName,
      tolerance: opts.tolerance ?? TOLERANCE_SECONDS,
      forwardTo,
      saveSecret: commandLine(inv, ['config', 'set'], ['webhook-secret', '--stdin']),
      nameHeader: commandTemplate(inv, ['config', 'set', 'webhook-signature-header'], 'NAME'),
    },
    { io: deps.io, log: deps.log, clock: deps.clock, env: deps.env, json: deps.globals.json, timeoutMs: deps.globals.timeoutMs },
  );
  deps.log.info('Press Ctrl-C to stop.');

  const fault = await Promise.race([untilAborted(deps.signal).then(() => undefined), listener.failed]);
  await listener.close();
  deps.log.info('Stopped listening.');
  if (fault !== undefined) {
    // A reader that went away (`payctl webhooks listen | head -1`) ends it quietly, as in any pipeline.
    if ((fault as NodeJS.ErrnoException).code === 'EPIPE') return ExitCode.ok;
    const { fsFault } = await import('../../config/fs-fault.js');
    throw new OutputError(
      `The output could not be written: ${fsFault(fault)}. The listener stopped: ${opts.forwardTo ? 'the app was sent the last event, but its line was not printed' : 'the last event was answered 503, so the service sends it again'}.`,
      { sentPayouts: false, hint: 'Free the space, or write the output elsewhere, and start the listener again.' },
    );
  }
  // Ctrl-C is how a listener ends: 130 (interrupted), as for every other command.
  return ExitCode.interrupted;
}
