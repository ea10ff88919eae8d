/**
 * The text of a value inside a JSON document, exactly as it was written: for output that must
 * pass on what the service wrote (a record's `12345678901234567.89` stays that number, `2.10`
 * keeps its zero), where parsing and writing back would change a number's JSON type or text
 * (exact-json.ts keeps a number's value, not its form). The text given has been read by
 * JSON.parse already (the answer or event it is), so it is JSON: this only walks it, linearly,
 * without recursion (a deep document costs no stack). A key given twice in one object is found
 * at its last place, the one JSON.parse keeps.
 */

/** Where a value stands in the text: `text.slice(start, end)` is the value as written. */
export interface Span {
  start: number;
  end: number;
}

/** A JSON string, from its opening quote (sticky: matched only where lastIndex stands). */
const STRING = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"/y;
/** A number or a literal (sticky). */
const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
/** What matters inside an object or array being skipped: a string opens, a bracket opens or closes. */
const STRUCTURE = /["[\]{}]/g;

/** The index of the first character at or after `i` that is not JSON white space. */
function skipSpace(text: string, i: number): number {
  let c = text.charCodeAt(i);
  while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++i);
  return i;
}

/** The end of the string that opens at `i`. */
function stringEnd(text: string, i: number): number {
  STRING.lastIndex = i;
  if (!STRING.test(text)) throw new SyntaxError(`no JSON string at ${i}`);
  return STRING.lastIndex;
}

/** The end of the value that starts at `i` (no white space before it). */
function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return stringEnd(text, i);
  if (c !== '{' && c !== '[') {
    SCALAR.lastIndex = i;
    if (!SCALAR.test(text)) throw new SyntaxError(`no JSON value at ${i}`);
    return SCALAR.lastIndex;
  }
  let depth = 0;
  STRUCTURE.lastIndex = i;
  for (let m = STRUCTURE.exec(text); m; m = STRUCTURE.exec(text)) {
    const s = m[0];
    if (s === '"') STRUCTURE.lastIndex = stringEnd(text, m.index);
    else if (s === '{' || s === '[') depth++;
    else if (--depth === 0) return m.index + 1;
  }
  throw new SyntaxError('unterminated JSON value');
}

/** The members' values of the object at `start` (its `{`), by key: the last of a key given twice. */
function members(text: string, start: number): Map<string, Span> {
  const found = new Map<string, Span>();
  let i = skipSpace(text, start + 1);
  if (text[i] === '}') return found;
  for (;;) {
    const keyEnd = stringEnd(text, i);
    const written = text.slice(i + 1, keyEnd - 1);
    const key = written.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : written;
    const at = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end = valueEnd(text, at);
    found.set(key, { start: at, end });
    i = skipSpace(text, end);
    if (text[i] === '}') return found;
    i = skipSpace(text, i + 1);
  }
}

/** Each member of the object at `start`, in the order written (a key given twice, twice), with its text as written. */
export function memberTexts(text: string, span: Span): Array<{ key: string; text: string }> {
  const out: Array<{ key: string; text: string }> = [];
  let i = skipSpace(text, span.start + 1);
  if (text[i] === '}') return out;
  for (;;) {
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const end = valueEnd(text, skipSpace(text, skipSpace(text, keyEnd) + 1));
    out.push({ key, text: text.slice(i, end) });
    i = skipSpace(text, end);
    if (text[i] === '}') return out;
    i = skipSpace(text, i + 1);
  }
}

/** The text of each element of the array at `span`, as written, in order. */
export function elementTexts(text: string, span: Span): string[] {
  const out: string[] = [];
  let i = skipSpace(text, span.start + 1);
  if (text[i] === ']') return out;
  for (;;) {
    const end = valueEnd(text, i);
    out.push(text.slice(i, end));
    i = skipSpace(text, end);
    if (text[i] === ']') return out;
    i = skipSpace(text, i + 1);
  }
}

/**
 * Where the value at `path` (object keys, from the top) stands in the JSON text; undefined when
 * a step is missing or not an object. A byte order mark before the document is passed over, as
 * exact-json.ts passes it over.
 */
export function spanAt(text: string, path: readonly string[]): Span | undefined {
  const start = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  let span: Span | undefined = { start, end: valueEnd(text, start) };
  for (const key of path) {
    if (text[span.start] !== '{') return undefined;
    span = members(text, span.start).get(key);
    if (!span) return undefined;
  }
  return span;
}
