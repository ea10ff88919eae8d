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

/**
 * A base URL as people may see it: a user name and password in it (`https://user:pass@host/v2`,
 * refused as a base URL but possible in a config file edited by hand, a flag or the
 * environment) shown as `****`. Found in the text, not by parsing: a URL that does not parse is
 * shown in the refusal too, and everything up to the last `@` after the scheme is masked (more
 * masked, never less).
 */
export function maskBaseUrl(raw: string): string {
  const start = /^[A-Za-z][A-Za-z0-9+.-]*:[/\\]*/.exec(raw)?.[0].length ?? 0;
  const at = raw.lastIndexOf('@');
  return at >= start ? `${raw.slice(0, start)}****${raw.slice(at)}` : raw;
}
