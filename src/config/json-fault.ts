/**
 * Why a file payctl reads is not JSON (a policy, a plan, the config file, a key, a journal entry, a
 * batch file's line): the line and column of the fault and the character found there, in words
 * of its own. V8's message gives only an offset ("in JSON at position 16"), or quotes the text
 * around the fault (`Unexpected token 's', ..."apiKey": sk_live_4e"... is not valid JSON`), and in
 * the config file or a key file that text can be a secret's; stderr ends up in logs. So the text
 * is never quoted, and in a file that may hold a secret a letter or a digit is not named either.
 */

export interface JsonFaultOptions {
  /** The file holds no secret (a policy, a plan, a batch file): the character at the fault is named whatever it is. */
  quote?: boolean;
  /** The text is one line of a file whose lines are numbered elsewhere (a batch file's row): only the column is said. */
  oneLine?: boolean;
}

/** Why `text`, which JSON.parse refused with `err`, is not JSON. */
export function jsonFault(err: unknown, text: string, opts: JsonFaultOptions = {}): string {
  if (text.charCodeAt(0) === 0xfeff) return 'it starts with a byte order mark (U+FEFF); save it as UTF-8 without one';
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
  const offset = faultOffset(text);
  if (message.startsWith('Unexpected end of JSON input')) return 'not valid JSON: it ends before the JSON does';
  const at = `not valid JSON${where(text, offset, opts)}${offset < text.length ? `, ${named(text, offset, opts)}` : ' (its end)'}`;
  if (/^Unexpected token /.test(message)) return `${at}: a character where none may be, as in a value without its quotes`;
  const v8 = /^(.*?) in JSON at position \d+/.exec(message) ?? /^(Unexpected non-whitespace character after JSON) at position \d+/.exec(message);
  if (!v8) return at;
  return `${at}: ${v8[1]!.charAt(0).toLowerCase()}${v8[1]!.slice(1)}${hint(v8[1]!, text[offset])}`;
}

/** What usually causes a fault: a comma left out between two entries, or one left after the last. */
function hint(said: string, ch: string | undefined): string {
  if (/^Expected ',' or '[}\]]' after/.test(said) && (ch === '"' || ch === '{' || ch === '[')) return ' (a comma missing before it?)';
  if (said.startsWith('Expected double-quoted property name') && ch === '}') return ' (a comma after the last entry?)';
  if (said.startsWith('Expected property name') && ch === '{') return ' (an object pasted whole where its entries go?)';
  return '';
}

/** Why `text` is not JSON (jsonFault), parsed as it is; undefined when it is JSON. */
export function textFault(text: string, opts: JsonFaultOptions = {}): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    return jsonFault(err, text, opts);
  }
}

/**
 * The offset of the first character no JSON text could have there: the end of the longest
 * prefix that is still the start of some JSON text (JSON.parse says so of a prefix by running out
 * of input, or faulting at its very end), found by bisection. V8 names no offset for an
 * unexpected token, and another one than the character at fault for some faults (a number's).
 */
function faultOffset(text: string): number {
  let lo = 0; // a prefix that can go on
  let hi = text.length + 1; // one that cannot (the whole text, when even it can go on: its end)
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (canGoOn(text.slice(0, mid))) lo = mid;
    else hi = mid;
  }
  return lo;
}

function canGoOn(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return true;
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    const position = / at position (\d+)/.exec(message);
    return message.startsWith('Unexpected end of JSON input') || (position !== null && Number(position[1]) >= prefix.length);
  }
}

/** " at line 5, column 14" of an offset into the text (columns in characters, as an editor counts them). */
function where(text: string, offset: number, opts: JsonFaultOptions): string {
  const before = text.slice(0, offset);
  const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
  return opts.oneLine ? ` at column ${column}` : ` at line ${before.split('\n').length}, column ${column}`;
}

/** The character at `offset`, named: "the character '{'", "a tab (U+0009)", or "a letter" where the file may hold a secret. */
function named(text: string, offset: number, opts: JsonFaultOptions): string {
  const code = text.codePointAt(offset)!;
  const ch = String.fromCodePoint(code);
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (ch === ' ') return 'a space';
  if (ch === '\t') return `a tab (${hex})`;
  if (ch === '\n' || ch === '\r') return `a line break (${hex})`;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return `a control character (${hex})`;
  if (!opts.quote && /[\p{L}\p{N}]/u.test(ch)) return /\p{N}/u.test(ch) ? 'a digit' : 'a letter';
  return code < 0x80 ? `the character '${ch}'` : `the character '${ch}' (${hex})`;
}
