/**
 * What an API key may hold before it is sent. The key is the bearer token (docs/service.md), so it
 * travels in the Authorization header: white space around it (the line break of a key file, the
 * CR of a CRLF one, a pasted space) is trimmed wherever the key comes from, as login always did,
 * and a key that still holds a control character, white space or anything but visible ASCII is
 * refused (exit 2) before anything is sent, naming where it came from. Sent as it was, HTTP
 * refused it as "invalid authorization header", which read as a network failure (exit 4,
 * retried, and for a payout an unknown outcome though nothing had left). So is a key longer than
 * MAX_API_KEY_LENGTH (a file or a blob pasted by mistake): sent, the service dropped the header
 * as too large, which read as a network failure to try again (exit 4).
 */
import { UsageError } from '../errors.js';
import { capitalized } from '../words.js';

/** A key as payctl uses it: without the white space around it. */
export function trimKey(key: string | undefined): string | undefined {
  return key?.trim();
}

/** The longest API key payctl sends: keys are tens of characters; 1024 leaves room for any token format. */
export const MAX_API_KEY_LENGTH = 1024;

/** Why `key` is too long to be an API key ("20,000 characters long: an API key is at most 1,024"), or undefined. */
export function apiKeyLengthProblem(key: string): string | undefined {
  if (key.length <= MAX_API_KEY_LENGTH) return undefined;
  return `${key.length.toLocaleString('en-US')} characters long: an API key is at most ${MAX_API_KEY_LENGTH.toLocaleString('en-US')}`;
}

/** Names of the characters people meet in a broken key, by code point. */
const NAMED: Record<number, string> = {
  0x00: 'a NUL character',
  0x09: 'a tab',
  0x0a: 'a line break',
  0x0d: 'a carriage return',
  0x1b: 'an escape character',
  0x20: 'a space',
  0x7f: 'a delete character',
  0xa0: 'a no-break space',
  0xfeff: 'a byte order mark',
};

function codePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Why `key` (already trimmed) cannot be a bearer token, or undefined when it can: its first
 * character that is not visible ASCII, named, with its code point and position
 * ("a carriage return (U+000D) at character 25").
 */
export function apiKeyProblem(key: string): string | undefined {
  let position = 0;
  for (const c of key) {
    position++;
    const code = c.codePointAt(0)!;
    if (code >= 0x21 && code <= 0x7e) continue;
    const name =
      NAMED[code] ??
      (code < 0x20 || (code >= 0x7f && code <= 0x9f)
        ? 'a control character'
        : /\s/u.test(c)
          ? 'a white-space character'
          : /\p{Cf}/u.test(c)
            ? 'an invisible formatting character'
            : 'a character that is not plain ASCII');
    return `${name} (${codePoint(code)}) at character ${position}`;
  }
  return undefined;
}

/**
 * Refuses (exit 2, nothing sent) a key that cannot be sent: `from` says where it came from, as
 * the message names it ("PAYCTL_API_KEY", `the API key of profile "prod"`), `hint` what to do.
 */
export function checkApiKey(key: string, from: string, hint: string): void {
  const long = apiKeyLengthProblem(key);
  if (long) throw new UsageError(`${capitalized(from)} is ${long}. Nothing was sent.`, [], hint);
  const pasted = pastedWithKey(key);
  if (pasted) throw new UsageError(`${capitalized(from)} ${pasted}: an API key is the key alone. Nothing was sent.`, [], hint);
  const problem = apiKeyProblem(key);
  if (problem === undefined) return;
  throw new UsageError(`${capitalized(from)} contains ${problem}: an API key is visible ASCII characters only. Nothing was sent.`, [], hint);
}

/**
 * What came with a key copied from a request or a file, said before the character it makes
 * wrong: the header's "Bearer " (a curl command's `Authorization: Bearer sk_...`), a whole header
 * line, or the quotes of a JSON or shell string. The quotes are visible ASCII, so a key in
 * quotes was sent, and the service's 401 read as a revoked key.
 */
export function pastedWithKey(key: string): string | undefined {
  if (/^bearer\s/i.test(key)) return 'starts with "Bearer ", the Authorization header\'s word before the key';
  const header = /^([A-Za-z][A-Za-z-]*):\s/.exec(key);
  if (header) return `is a header line ("${header[1]}: ...")`;
  const q = key[0];
  if (key.length > 2 && (q === '"' || q === "'") && key.endsWith(q)) return `is in quotes (${q}...${q})`;
  return undefined;
}
