/**
 * A text as a person reads it, for finding the secrets a service echoed back in disguise
 * (output/secrets.ts, SecretMask): JSON escapes (`\u0062`, `\/`, `\n`) and percent-escapes (`%2b`,
 * `%2B`, `%C3%A9`, any mix of escaped and plain characters) read as the characters they stand
 * for, escape sequences left out as a terminal draws them (also one whose ESC is written
 * `\u001b` in raw JSON), invisible characters left out; HTML character references (`&#95;`,
 * `&#x5F;`, `&lowbar;`) read as a browser reads them, fullwidth forms (`＿`, U+FF01-FF5E) as the
 * ASCII they stand for and white space left out; and for each character read, where it starts
 * and ends in the text as written, so that a secret found is masked whole there.
 *
 * Four readings, as a text can be read (each only where it differs from the one before):
 * `json` (JSON escapes read, invisible characters left out: a secret that holds a `%XX` of its
 * own is found as written), `percent` (percent-escapes read too), `drawn` (escape sequences
 * left out too, as a terminal draws the text; without it, a character after an ESC that belongs
 * to the secret is found) and `seen` (the fullest of those, with character references and
 * fullwidth forms read and white space left out: a secret broken over lines, spaced out or
 * written with a no-break space inside is found; it is matched against the secrets' forms with
 * their own white space left out too). Everything here runs in linear time on any text.
 */
import { REFERENCES, referenceChar } from './html-references.js';
import { ESCAPE_SEQUENCES, C1_SEQUENCES, sanitize } from './sanitize.js';

/**
 * Characters a service can slip inside an echoed secret that a person does not see, or that
 * sanitizing removes only later: format characters (U+200B, soft hyphen, bidi controls, the
 * tag characters U+E0000-E007F) and controls but tab and line breaks. A text holding one is
 * matched with them left out.
 */
// Combining marks (variation selectors, the grapheme joiner) and blank fillers (Hangul, braille)
// draw nothing between a secret's letters either.
const INVISIBLE_CLASS = '[\\p{Cf}\\p{Mn}\\p{Me}\\u115f\\u1160\\u2800\\u3164\\uffa0\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]';
// The patterns with Unicode property classes, this one included, are made on first need, and a
// text of ASCII alone (most of what payctl prints) is read with their ASCII part: making and first
// running them cost every start about 1.5 ms (`balances --json`, 30 profiled runs), and making
// this one at load (as a literal) about 0.3 ms more, for the rare text that needs them.
let invisible: RegExp | undefined;
// eslint-disable-next-line no-control-regex
const NOT_ASCII = /[^\u0000-\u007f]/;
/** INVISIBLE_CLASS's ASCII part: controls but tab and line breaks. */
// eslint-disable-next-line no-control-regex
const ASCII_INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const ASCII_INVISIBLES = new RegExp(ASCII_INVISIBLE.source, 'g');
let unicodeInvisibles: RegExp | undefined;
/** Whether the text holds an invisible character (INVISIBLE_CLASS), without it for ASCII. */
function hasInvisible(text: string): boolean {
  return NOT_ASCII.test(text) ? (invisible ??= new RegExp(INVISIBLE_CLASS, 'u')).test(text) : ASCII_INVISIBLE.test(text);
}
/** The global pattern of the invisible characters of this text: INVISIBLE_CLASS's, or for ASCII its ASCII part. */
function invisiblesOf(text: string): RegExp {
  return NOT_ASCII.test(text) ? (unicodeInvisibles ??= new RegExp(INVISIBLE_CLASS, 'gu')) : ASCII_INVISIBLES;
}
/** A JSON escape that could spell a secret's character in raw JSON (`\/` as PHP writes every slash, `\u0062`, `\n`). */
export const JSON_ESCAPE = /\\(?:u[0-9A-Fa-f]{4}|[\\/"bfnrt])/;
const JSON_ESCAPES = new RegExp(JSON_ESCAPE.source, 'g');
/** What the escapes of one character but `\uXXXX` stand for. */
const SHORT_ESCAPES: Record<string, string> = { '\\': '\\', '/': '/', '"': '"', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
/** The character a JSON escape (a match of JSON_ESCAPE) stands for. */
const jsonChar = (e: string): string => (e[1] === 'u' ? String.fromCharCode(parseInt(e.slice(2), 16)) : SHORT_ESCAPES[e[1]!]!);
/** A percent-escape, in either letter case. */
export const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;
const PERCENT_RUNS = /(?:%[0-9A-Fa-f]{2})+/g;
// The introducers of escape sequences, 7- and 8-bit.
// eslint-disable-next-line no-control-regex
const SEQUENCE_START = /[\u001b\u0090-\u009f]/;
// Own copies of sanitize's patterns: their lastIndex is this module's.
const ESC_RUNS = new RegExp(ESCAPE_SEQUENCES.source, 'g');
const C1_RUNS = new RegExp(C1_SEQUENCES.source, 'g');
const REFERENCE_RUNS = new RegExp(REFERENCES.source, 'g');
/** Fullwidth forms of ASCII (U+FF01-FF5E, `＿` for `_`), read as the ASCII character (as NFKC reads them). */
const FULLWIDTH = /[\uff01-\uff5e]/;
const FULLWIDTHS = new RegExp(FULLWIDTH.source, 'g');
const ascii = (c: string): string => String.fromCharCode(c.charCodeAt(0) - 0xfee0);
/** Runs of white space (line breaks, no-break spaces) and invisible characters: left out of the `seen` reading. */
let unicodeUnseenRuns: RegExp | undefined;
// eslint-disable-next-line no-control-regex
const ASCII_UNSEEN_RUNS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\s]+/g;
/** The global pattern of the runs the `seen` reading leaves out of this text (as invisiblesOf). */
function unseenRunsOf(text: string): RegExp {
  return NOT_ASCII.test(text) ? (unicodeUnseenRuns ??= new RegExp(`(?:${INVISIBLE_CLASS}|\\s)+`, 'gu')) : ASCII_UNSEEN_RUNS;
}
/** What makes a text read otherwise in the `seen` reading (with INVISIBLE_CLASS and the escapes, for readsAsWritten). */
const SEEN_OTHERWISE = /[\s&\uff01-\uff5e]/;

/** Whether every reading of the text is the text itself: nothing in it is read otherwise (a word, a number). */
export function readsAsWritten(text: string): boolean {
  return !(hasInvisible(text) || JSON_ESCAPE.test(text) || PERCENT_ESCAPE.test(text) || SEEN_OTHERWISE.test(text));
}

/** The value of a hex digit's character code, or -1. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** The byte a `%XX` at `i` stands for, or -1 when there is none. */
function byteAt(text: string, i: number): number {
  if (text.charCodeAt(i) !== 37) return -1;
  const hi = hexValue(text.charCodeAt(i + 1));
  const lo = hexValue(text.charCodeAt(i + 2));
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

let utf8: InstanceType<typeof TextDecoder> | undefined;

/**
 * The character the percent-escapes at `i` stand for (one for ASCII; the two to four of one
 * UTF-8 character), and how many characters of the text they take; undefined when there is
 * none (no escape, or bytes that are no UTF-8 character).
 */
export function percentAt(text: string, i: number): { c: string; len: number } | undefined {
  const lead = byteAt(text, i);
  if (lead < 0) return undefined;
  if (lead < 0x80) return { c: String.fromCharCode(lead), len: 3 };
  const n = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 0;
  if (!n) return undefined;
  const bytes = new Uint8Array(n);
  bytes[0] = lead;
  for (let k = 1; k < n; k++) {
    const b = byteAt(text, i + 3 * k);
    if (b < 0x80 || b > 0xbf) return undefined;
    bytes[k] = b;
  }
  try {
    return { c: (utf8 ??= new TextDecoder('utf-8', { fatal: true })).decode(bytes), len: 3 * n };
  } catch {
    return undefined;
  }
}

/** The text with its percent-escapes read as percentAt reads them (the rest as it is). */
function decodePercents(text: string): string {
  return text.replace(PERCENT_RUNS, (run) => {
    let out = '';
    for (let i = 0; i < run.length;) {
      const p = percentAt(run, i);
      out += p ? p.c : run.slice(i, i + 3);
      i += p ? p.len : 3;
    }
    return out;
  });
}

/**
 * How a text is read: `json`, its JSON escapes read; `percent`, its percent-escapes too; `drawn`,
 * its escape sequences also left out; `seen`, the fullest of those with character references and
 * fullwidth forms read and white space left out.
 */
export type Reading = 'json' | 'percent' | 'drawn' | 'seen';

/**
 * The text (a reading with its invisible characters left out) as `seen` reads it on top; also a
 * secret's form as the `seen` reading looks for it (its own white space left out).
 */
export function seenText(text: string): string {
  const read = text.includes('&') ? text.replace(REFERENCE_RUNS, (r) => referenceChar(r) ?? r) : text;
  const narrow = FULLWIDTH.test(read) ? read.replace(FULLWIDTHS, ascii) : read;
  return narrow.replace(unseenRunsOf(narrow), '');
}

/**
 * The readings of the text (`json`, and the others where they differ from the one before), read
 * natively: quick to make, and each holding every secret the readView of the same reading holds
 * (a text where none holds a secret's form holds none).
 */
export function quickReadings(text: string): Array<[Reading, string]> {
  const decoded = JSON_ESCAPE.test(text) ? text.replace(JSON_ESCAPES, jsonChar) : text;
  const visible = (s: string) => (hasInvisible(s) ? s.replace(invisiblesOf(s), '') : s);
  const out: Array<[Reading, string]> = [['json', visible(decoded)]];
  const percent = PERCENT_ESCAPE.test(decoded) ? decodePercents(decoded) : decoded;
  if (percent !== decoded) out.push(['percent', visible(percent)]);
  if (SEQUENCE_START.test(percent)) out.push(['drawn', visible(sanitize(percent))]);
  const fullest = out[out.length - 1]![1];
  const seen = seenText(fullest);
  if (seen !== fullest) out.push(['seen', seen]);
  return out;
}

/** A reading of a text: its characters read, and for each where it starts and ends in the text. */
export interface View {
  read: string;
  from: number[];
  to: number[];
}

/**
 * The text as it reads: JSON escapes read as their characters (and percent-escapes, but for
 * the `json` reading); then, for `drawn` (and `seen`, where the text holds any), escape
 * sequences left out; then invisible characters; for `seen`, then character references and
 * fullwidth forms read, and white space left out.
 */
export function readView(text: string, reading: Reading): View {
  let view = decodedView(text, reading !== 'json');
  if (reading === 'drawn' || (reading === 'seen' && SEQUENCE_START.test(view.read))) view = without(without(view, ESC_RUNS), C1_RUNS);
  if (hasInvisible(view.read)) view = without(view, invisiblesOf(view.read));
  if (reading !== 'seen') return view;
  view = rewritten(view, REFERENCE_RUNS, referenceChar);
  const narrow = view.read.replace(FULLWIDTHS, ascii);
  return without({ ...view, read: narrow }, unseenRunsOf(narrow));
}

/** The view with every match of the (global) pattern left out. */
function without(view: View, pattern: RegExp): View {
  return rewritten(view, pattern, () => '');
}

/**
 * The view with every match of the (global) pattern read as `as` reads it (a match it gives
 * undefined for is kept as it is): what a match reads as starts and ends where the match does.
 */
function rewritten(view: View, pattern: RegExp, as: (match: string) => string | undefined): View {
  const out: View = { read: '', from: [], to: [] };
  let end = 0;
  const keep = (stop: number) => {
    out.read += view.read.slice(end, stop);
    for (let k = end; k < stop; k++) {
      out.from.push(view.from[k]!);
      out.to.push(view.to[k]!);
    }
  };
  pattern.lastIndex = 0;
  for (let m = pattern.exec(view.read); m; m = pattern.exec(view.read)) {
    // A pattern that matched nothing moves on by one character.
    if (!m[0].length) pattern.lastIndex++;
    const c = m[0].length ? as(m[0]) : undefined;
    if (c === undefined) continue;
    keep(m.index);
    out.read += c;
    for (let k = 0; k < c.length; k++) {
      out.from.push(view.from[m.index]!);
      out.to.push(view.to[m.index + m[0].length - 1]!);
    }
    end = m.index + m[0].length;
  }
  keep(view.read.length);
  return out;
}

/** The text with its JSON escapes (and percent-escapes, with `percent`) read as their characters. */
function decodedView(text: string, percent: boolean): View {
  let read = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < text.length;) {
    let c = String.fromCodePoint(text.codePointAt(i)!);
    let len = c.length;
    const p = percent && c === '%' ? percentAt(text, i) : undefined;
    if (p) {
      c = p.c;
      len = p.len;
    } else if (c === '\\' && Object.hasOwn(SHORT_ESCAPES, text[i + 1] ?? '')) {
      // An escaped backslash is one backslash: the "u0073" after `\\` is text, not an escape.
      c = SHORT_ESCAPES[text[i + 1]!]!;
      len = 2;
    } else if (c === '\\' && text[i + 1] === 'u' && /^[0-9A-Fa-f]{4}$/.test(text.slice(i + 2, i + 6))) {
      c = String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
      len = 6;
      // A character past U+FFFF is written as two escapes, its surrogates: read as the one character.
      const low = /^\\u(d[c-f][0-9a-f]{2})/i.exec(text.slice(i + 6, i + 12));
      if (/[\ud800-\udbff]/.test(c) && low) {
        c = String.fromCodePoint(((c.charCodeAt(0) - 0xd800) << 10) + (parseInt(low[1]!, 16) - 0xdc00) + 0x10000);
        len = 12;
      }
    }
    read += c;
    // A character of two code units is two characters read, as indexOf counts them.
    for (let k = 0; k < c.length; k++) {
      from.push(i);
      to.push(i + len);
    }
    i += len;
  }
  return { read, from, to };
}
