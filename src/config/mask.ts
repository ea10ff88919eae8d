/**
 * Secrets as people may see them: never the value, at most its last four characters, and those
 * only as visible text: a key with a carriage return or an escape in its tail (a key file saved
 * with CRLF, a paste gone wrong) must not rewrite the line that shows it, so such a character is
 * shown as its escape (`\u000d`).
 */
export function maskSecret(value: string | undefined): string {
  if (!value) return '';
  if (value.length < 12) return '****';
  return `****${[...value.slice(-4)].map(visibleChar).join('')}`;
}

/** A character as printed in a masked tail: visible ASCII as it is, anything else as `\uXXXX`. */
function visibleChar(c: string): string {
  const code = c.codePointAt(0)!;
  if (code >= 0x21 && code <= 0x7e) return c;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
