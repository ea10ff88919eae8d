/**
 * JSON as payctl writes it to stdout and stderr. JSON.stringify (and a service's own
 * answer, passed on as it came) leaves C1 controls (U+0080-U+009F, 8-bit CSI is U+009B),
 * bidi controls (U+061C, U+200E/F, U+202A-E, U+2066-F), the hidden format characters
 * (sanitize.ts), U+FFF9-B and the line separators U+2028/9 raw in strings: a terminal, a log viewer or a `jq -r` pipeline then acts on them.
 * Here they become `\uXXXX` escapes. They can only stand inside JSON strings, where
 * JSON.parse reads the escape back to the same character: the data is unchanged, and an
 * envelope passed on "as the service sent it" stays byte-equal apart from these escapes.
 */

import { BIDI_AND_HIDDEN, TAG_CHARACTER } from './sanitize.js';
import { rewrittenStream } from './secrets.js';

// C1 controls, bidi controls and the hidden format characters sanitize removes (zero-width
// space, word joiner, tag characters...), interlinear annotation marks, line and paragraph separators.
const UNSAFE = new RegExp(`[\\u0080-\\u009f${BIDI_AND_HIDDEN}\\u2028\\u2029]|${TAG_CHARACTER}`, 'g');

/** JSON text with the characters above written as `\uXXXX` escapes (a tag character as its two; linear, one pass). */
export function escapeJsonText(json: string): string {
  UNSAFE.lastIndex = 0;
  if (!UNSAFE.test(json)) return json;
  let out = '';
  return json.replace(UNSAFE, (c) => {
    out = '';
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

/**
 * A string as JSON text of printable ASCII only: every other character (a control, a bidi
 * control, a soft hyphen, a letter of another alphabet) written as `\uXXXX` (a character
 * past U+FFFF as its two), which JSON.parse reads back to the same string. For a word
 * that must reach a script exactly as it came and a person without anything hidden in it
 * (the status_raw of a webhook event).
 */
export function asciiJsonString(s: string): string {
  return JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One value as a line of JSON, escaped as above. */
export function jsonLine(value: unknown): string {
  return escapeJsonText(JSON.stringify(value)) + '\n';
}

/**
 * The stream, with every string or buffer written to it escaped as above: for stdout and
 * stderr under --json, where everything written is JSON (or a message for people, where
 * an escape is as readable and safer).
 */
export function jsonEscapedStream<T extends NodeJS.WritableStream>(stream: T): T {
  return rewrittenStream(stream, (c) => {
    if (typeof c === 'string') return escapeJsonText(c);
    // Only bytes of multi-byte characters can be one of these: plain ASCII passes untouched.
    if (c instanceof Uint8Array && c.some((b) => b >= 0x80)) {
      const text = Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8');
      const escaped = escapeJsonText(text);
      if (escaped !== text) return Buffer.from(escaped, 'utf8');
    }
    return c;
  });
}
