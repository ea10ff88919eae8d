/**
 * The webhook listener's secrets kept out of what it writes (README "Security notes": every key
 * and webhook secret payctl knows is written as ***): one mask of the webhook secret, whatever
 * its source (--secret-stdin, --secret, the environment, the profile), and a --forward-to
 * password, applied to the command's streams and log and to each shown field of an event.
 */
import type { Log } from '../output/io.js';
import { maskedStream, SecretMask } from '../output/secrets.js';
import type { EventSummary, ParsedEvent } from './event.js';
import type { ListenerDeps, ListenerSettings } from './listener.js';

/**
 * Every secret the listener knows (the webhook secret, whatever its source, and a --forward-to
 * password) in one mask: the entry masks only the secrets it read itself (the environment,
 * the profile), never one from --secret-stdin or --secret.
 */
export function listenerMask(s: ListenerSettings): SecretMask {
  // From 4 characters, as the API key is masked (api/client.ts): a short secret is still the
  // secret; before, one of 5 ("Zq9x7") echoed in an event's failure reason was printed.
  const mask = new SecretMask(4);
  const password = s.forwardTo?.password;
  // Each in every form it could be written in (output/secrets.ts, secretForms); the password also percent-decoded.
  mask.add(s.secret, password, password && safeDecode(password));
  return mask;
}

/** decodeURIComponent, or the text as it is when it is not valid percent-encoding. */
function safeDecode(t: string): string {
  try {
    return decodeURIComponent(t);
  } catch {
    return t;
  }
}

/** The command's streams and log with every secret in `mask` written as `***`. */
export function maskedDeps(d: ListenerDeps, mask: SecretMask): ListenerDeps {
  const stdout = maskedStream(d.io.stdout, mask);
  let stderr: NodeJS.WritableStream | undefined;
  // A Proxy keeps the IO's getters live (terminal width, a stderr made on first use).
  const io = new Proxy(d.io, {
    get(target, prop) {
      if (prop === 'stdout') return stdout;
      if (prop === 'stderr') return (stderr ??= maskedStream(target.stderr, mask));
      return Reflect.get(target, prop, target) as unknown;
    },
  });
  const m = (t: string) => mask.apply(t);
  const log: Log = {
    info: (line) => d.log.info(m(line)),
    warn: (line) => d.log.warn(m(line)),
    success: (line) => d.log.success(m(line)),
    verbose: (line) => d.log.verbose(m(line)),
    block: (text) => d.log.block(m(text)),
  };
  return { ...d, io, log };
}

/**
 * What is shown of an event with every secret masked, field by field: before a line is cut to
 * the terminal (a cut could leave part of a secret) and before JSON escaping (which would hide
 * a secret from the stream's mask).
 */
export function maskedEvent(ev: ParsedEvent | undefined, mask: SecretMask): ParsedEvent | undefined {
  if (!ev || !mask.size) return ev;
  const shown: EventSummary = { ...ev.shown };
  for (const k of Object.keys(shown) as Array<keyof EventSummary>) {
    const v = shown[k];
    if (typeof v === 'string') (shown as Record<string, unknown>)[k] = mask.apply(v);
  }
  const sent = shown.asSent;
  if (sent) shown.asSent = Object.fromEntries(Object.entries(sent).map(([k, v]) => [k, mask.apply(v)]));
  return { ...ev, shown };
}
