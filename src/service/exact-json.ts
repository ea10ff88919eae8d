/**
 * JSON from the service with every number kept as written. JSON.parse makes each number a
 * binary double: one of up to 15 significant digits comes back as the service wrote it (String(n)
 * is the shortest form that reads back, and money/amount.ts reads amounts from it), but a longer
 * one ("12345678901234567890.12", "1469.950000000000001") or one past a double's range ("1e400")
 * would silently become another number. Such a number is read as a string of its own text
 * instead: the schema layer reads amounts and ids from strings exactly (money, wallet ids), and
 * refuses what it cannot read (an exponent form as an amount), so a value is shown as sent or
 * refused, never changed. `--json` passes records on as their text (raw-json.ts), such a number
 * too (docs/service.md).
 *
 * In the service's answers and webhook events (`exponents: 'text'`) a number written with an
 * exponent (`1e2`, `1E-2`) comes back as its text too, even when a
 * double holds it: the documented amounts are plain numbers or grouped strings, and an exponent
 * form is no amount (docs/service.md). Before, JSON.parse made `1e2` the number 100, which
 * `payout get`, `payouts list`, the create answer and webhooks took as the amount 100, while
 * `summary` (which reads numbers as written) called the same `1e2` no exact amount.
 */

/**
 * A number that may need its text: one of 16 digits or more (one point allowed between them), or
 * one with an exponent. Only where a JSON number can start (the text's start, or after `:`, `,` or
 * `[` and white space): matched anywhere, it took a transaction id or a key with a digit before an
 * "e" (`TXN-BOK-...5E3...`) for one, and every answer of a batch was read token by token (a
 * 10,000-row batch allocated 24 MB in that pass). A match inside a string costs only that pass.
 */
const MAYBE_INEXACT = /(?:^|[[:,])\s*-?(?:\d(?:\.?\d){15}|\d+(?:\.\d+)?[eE])/;

/** Whether a number literal is written with an exponent ("1e2", "1.5E-3"). */
const EXPONENT = /[eE]/;

/** A JSON string (skipped whole, escapes included) or a JSON number. */
const TOKEN = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * JSON.parse, except that a number a double cannot hold exactly comes back as its text (a
 * string), and a byte order mark before the JSON (U+FEFF, as some servers write UTF-8) is
 * passed over: JSON.parse refused such a body, and the message quoting it could not show why.
 * `exponents: 'text'` (the service's answers and webhook events) gives every number written
 * with an exponent as its text too; without it one a double holds is its number, as JSON.parse
 * reads it (batch files and policies, which say of exponents in their own words).
 */
export function parseServiceJson(text: string, options: { exponents?: 'text' | 'value' } = {}): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!MAYBE_INEXACT.test(body)) return JSON.parse(body);
  return JSON.parse(quoteInexactNumbers(body, options.exponents === 'text' ? (token) => !EXPONENT.test(token) && readsBack(token) : readsBack));
}

/**
 * JSON.parse, except that every number but a plain safe integer ("38") comes back as its text
 * as written ("1e30", "36.0", "7281.78"): for figures shown as the service wrote them (the
 * summary's counts), where even a number a double holds would be shown in another form.
 */
export function parseNumbersAsWritten(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return JSON.parse(quoteInexactNumbers(body, (token) => /^-?\d+$/.test(token) && Number.isSafeInteger(Number(token))));
}

/**
 * The text with each number that JSON.parse would change (or that `keep` does not keep) put
 * in quotes. Linear: one pass of TOKEN, which skips strings whole. Text that is not JSON stays
 * not JSON (JSON.parse says so).
 */
export function quoteInexactNumbers(text: string, keep: (token: string) => boolean = readsBack): string {
  const parts: string[] = [];
  let last = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    const token = m[0];
    if (token.charCodeAt(0) === 34 || keep(token)) continue;
    parts.push(text.slice(last, m.index), '"', token, '"');
    last = m.index + token.length;
  }
  if (!parts.length) return text;
  parts.push(text.slice(last));
  return parts.join('');
}

/** Whether JSON.parse keeps the number's value: its shortest form is the same decimal value. */
function readsBack(token: string): boolean {
  const n = Number(token);
  return Number.isFinite(n) && valueOf(token) === valueOf(String(n));
}

/** A number literal's exact value as sign, significant digits and exponent ("-15e-1"); zero is "0". */
function valueOf(literal: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!m) return literal;
  const frac = m[3] ?? '';
  const all = (m[2]! + frac).replace(/^0+/, '');
  if (!all) return '0';
  const digits = all.replace(/0+$/, '');
  // Exponents as decimal strings of bigints: a 400-digit exponent stays exact too.
  const exp = BigInt(m[4] ?? '0') - BigInt(frac.length) + BigInt(all.length - digits.length);
  return `${m[1]}${digits}e${exp}`;
}
