/**
 * Why a file payctl keeps is not JSON, in words that quote none of it. V8's own message quotes
 * the text around the fault (`Unexpected token 's', ..."apiKey": sk_live_4e"... is not valid
 * JSON`), and in the config file or a key file that text can be a secret's; stderr ends up in
 * logs. The line and column say where instead.
 */
export function jsonFault(err: unknown, text: string): string {
  if (text.charCodeAt(0) === 0xfeff) return 'it starts with a byte order mark (U+FEFF); save it as UTF-8 without one';
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
  if (message.startsWith('Unexpected end of JSON input')) return 'not valid JSON: it ends before the JSON does';
  // V8 quotes 10 characters before the token ("..." when there are more) and 10 from it.
  const token = /^Unexpected token '(.+?)', (\.\.\.)?"([^]*)"(\.\.\.)? is not valid JSON/.exec(message);
  if (token) {
    const [, tok, cutBefore, quoted, cutAfter] = token as unknown as [string, string, string | undefined, string, string | undefined];
    const start = text.indexOf(quoted);
    const offset = cutBefore ? 10 : cutAfter ? quoted.length - 10 : quoted.indexOf(tok);
    return `not valid JSON${start >= 0 && offset >= 0 ? where(text, start + offset) : ''}: a character where none may be, as in a value without its quotes`;
  }
  const at = /^(.*?) in JSON at position (\d+)/.exec(message) ?? /^(Unexpected non-whitespace character after JSON) at position (\d+)/.exec(message);
  if (!at) return 'not valid JSON';
  return `not valid JSON${where(text, Number(at[2]))}: ${at[1]!.charAt(0).toLowerCase()}${at[1]!.slice(1)}`;
}

/** " at line 5, column 14" of an offset into the text. */
function where(text: string, offset: number): string {
  const before = text.slice(0, offset);
  return ` at line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')}`;
}
