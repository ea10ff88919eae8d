/**
 * How wide text is on a terminal, and text fitted to a width: the column width of each code
 * point (wide East Asian characters and emoji take two, combining marks and format characters
 * none, escape sequences none), a cell cut with … to fit, and prose wrapped at spaces. In time
 * linear in the text: a service string of any length is measured and cut in one pass. Tables
 * (table.ts), the progress bar and help text use it.
 *
 * The pass goes code point by code point; text where each character takes one column (plain
 * ASCII, Latin names) is measured with one native regex test instead, to the same result
 * (test/unit/output-fast-paths.test.ts compares the two on generated text).
 */

const ELLIPSIS = '…';

// What a code point is, for its width: found once per code point with Unicode property
// escapes, then kept in a table (1.1 MB, made when the first table is drawn).
const UNKNOWN = 0;
const ZERO = 1; // controls, combining marks, format characters (ZWJ, ZWSP, ...)
const NARROW = 2;
const PICTOGRAPH = 3; // one column as text (❤, ☎, keycap digits, ©); VS16 makes it an emoji
const EMOJI = 4; // two columns, can take a skin tone, a ZWJ join
const WIDE = 5; // East Asian wide and fullwidth: two columns
const FLAG_LETTER = 6; // regional indicator: two of them draw one flag

/**
 * The Unicode property patterns classify reads, made on first need: a pattern of property classes
 * is built when made, and making these three at load cost every start about 0.3 ms (every command
 * loads this module), for the first character past U+02FF a run prints.
 */
let properties: { zeroWidth: RegExp; emojiPresentation: RegExp; pictographic: RegExp } | undefined;
let classes: Uint8Array | undefined;

/** East Asian wide and fullwidth code points (the ranges of EastAsianWidth.txt that terminals draw in two cells). */
function isWide(cp: number): boolean {
  return (
    cp >= 0x1100 &&
    (cp <= 0x115f ||
      cp === 0x2329 ||
      cp === 0x232a ||
      (cp >= 0x2e80 && cp <= 0x3247 && cp !== 0x303f) ||
      (cp >= 0x3250 && cp <= 0x4dbf) ||
      (cp >= 0x4e00 && cp <= 0xa4c6) ||
      (cp >= 0xa960 && cp <= 0xa97c) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe10 && cp <= 0xfe19) ||
      (cp >= 0xfe30 && cp <= 0xfe6b) ||
      (cp >= 0xff01 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x1b000 && cp <= 0x1b001) ||
      (cp >= 0x1f200 && cp <= 0x1f251) ||
      (cp >= 0x20000 && cp <= 0x3fffd))
  );
}

function classify(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return ZERO;
  if ((cp >= 0x30 && cp <= 0x39) || cp === 0x23 || cp === 0x2a || cp === 0xa9 || cp === 0xae) return PICTOGRAPH;
  if (cp < 0x300) return NARROW; // Latin-1 and Latin Extended (U+00AD too, as terminals draw it)
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return FLAG_LETTER;
  const ch = String.fromCodePoint(cp);
  const p = (properties ??= {
    zeroWidth: /^[\p{Mn}\p{Me}\p{Cf}]$/u,
    emojiPresentation: /^\p{Emoji_Presentation}$/u,
    pictographic: /^\p{Extended_Pictographic}$/u,
  });
  if (p.zeroWidth.test(ch)) return ZERO;
  if (isWide(cp)) return WIDE;
  if (p.emojiPresentation.test(ch)) return EMOJI;
  return p.pictographic.test(ch) ? PICTOGRAPH : NARROW;
}

function classOf(cp: number): number {
  classes ??= new Uint8Array(0x110000);
  let k = classes[cp]!;
  if (k === UNKNOWN) classes[cp] = k = classify(cp);
  return k;
}

/** The end of an escape sequence at i (ESC [, parameters and intermediates 0x20-0x3F, a final byte 0x40-0x7E), or i when there is none. */
function escapeEnd(s: string, i: number): number {
  if (s.charCodeAt(i) !== 0x1b || s.charCodeAt(i + 1) !== 0x5b) return i;
  let j = i + 2;
  while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x3f) j++;
  if (j < s.length && s.charCodeAt(j) >= 0x40 && s.charCodeAt(j) <= 0x7e) j++;
  return j;
}

// Finds a code unit other than printable ASCII and U+00A0-U+02FF (Latin-1 and Latin Extended,
// U+00AD too). Each of those takes one column whatever is around it: none is a control, an
// escape, a newline, a ZWJ, VS16, a skin tone or a flag letter, nor half of a surrogate pair.
const NOT_ONE_COLUMN = /[^\x20-\x7e\u00a0-\u02ff]/;

/**
 * A cell's width in terminal columns (the widest line), and the end of its longest
 * first-line prefix that fits in `room` columns; it stops early once wider than `stop`.
 * Exactly what measureByCodePoint returns, faster where each code unit it reads takes one
 * column. Exported for test/unit/output-fast-paths.test.ts.
 */
export function measure(s: string, room = Infinity, stop = Infinity): { width: number; fits: number } {
  // The pass reads up to the code unit that takes it past `stop` (its width after j code
  // units of such text is j), or all of the text when it never gets there.
  const n = s.length;
  const read = n > stop ? Math.min(n, Math.max(1, Math.floor(stop) + 1)) : n;
  if (NOT_ONE_COLUMN.test(read === n ? s : s.slice(0, read))) return measureByCodePoint(s, room, stop);
  // The pass would find the first column past `room` starting at code unit max(0, floor(room)),
  // if it reads that far (a NaN room never does), else report the whole text as fitting.
  const over = Math.max(0, Math.floor(room));
  return { width: read, fits: over < read ? over : n };
}

/**
 * One pass over a cell, code point by code point: see measure. Escape sequences (the colour
 * codes of ./style.ts; service text has none left after sanitizing) take no width; an emoji
 * sequence (skin tone, ZWJ joins, VS16, the two letters of a flag) counts as one emoji.
 * Exported for test/unit/output-fast-paths.test.ts.
 */
export function measureByCodePoint(s: string, room = Infinity, stop = Infinity): { width: number; fits: number } {
  let width = 0;
  let line = 0;
  let fits = -1;
  let prev = UNKNOWN; // class of the last code point that took a column
  let joined = false; // the previous code point was a ZWJ after an emoji
  let flagHalf = false; // the last visible code point was the first letter of a flag
  for (let i = 0; i < s.length;) {
    const e = escapeEnd(s, i);
    if (e > i) {
      i = e;
      continue;
    }
    const c = s.charCodeAt(i);
    if (c === 0x0a) {
      if (fits < 0) fits = i;
      line = 0;
      prev = UNKNOWN;
      i++;
      continue;
    }
    const cp = c >= 0xd800 && c <= 0xdbff ? s.codePointAt(i)! : c;
    const k = classOf(cp);
    let w = 0;
    if (joined) joined = false; // the part after a ZWJ joins the emoji before it
    else if (cp === 0x200d) joined = prev === EMOJI;
    else if (cp === 0xfe0f) {
      // VS16: a text-style pictograph becomes a two-column emoji.
      if (prev === PICTOGRAPH) {
        w = 1;
        prev = EMOJI;
      }
    } else if (cp >= 0x1f3fb && cp <= 0x1f3ff && prev === EMOJI) w = 0; // skin tone of the emoji before
    else if (k === FLAG_LETTER) {
      w = flagHalf ? 0 : 2;
      flagHalf = !flagHalf;
      prev = EMOJI;
    } else if (k !== ZERO) {
      w = k === WIDE || k === EMOJI ? 2 : 1;
      prev = k;
      flagHalf = false;
    }
    line += w;
    if (line > width) width = line;
    i += cp > 0xffff ? 2 : 1;
    if (fits < 0 && line > room) fits = i - (cp > 0xffff ? 2 : 1);
    if (width > stop) break; // the caller only needs to know that it does not fit
  }
  return { width, fits: fits < 0 ? s.length : fits };
}

/** Columns a (possibly coloured) string takes in a terminal; the widest line counts. */
export function displayWidth(s: string): number {
  return measure(s).width;
}

/**
 * Cuts a one-line cell to `width` columns, ending with …, keeping every colour code (so
 * what was opened is closed; a code is never cut inside). A cell that fits is returned as
 * it is.
 */
export function fitWidth(s: string, width: number): string {
  if (width <= 0) return '';
  const m = measure(s, width - 1, width); // room for the ellipsis
  return m.width <= width ? s : cut(s, m.fits);
}

/**
 * fitWidth, and the width of the text it gives: a cell that fits was measured whole by the
 * same pass (it stops early only past `width`), so a table measures each cell once.
 */
export function fitWidthOf(s: string, width: number): { text: string; width: number } {
  if (width <= 0) return { text: '', width: 0 };
  const m = measure(s, width - 1, width);
  if (m.width <= width) return { text: s, width: m.width };
  const text = cut(s, m.fits);
  return { text, width: measure(text).width };
}

/** A cell too wide for its width: the first `fits` code units, the colour codes after them, then …. */
function cut(s: string, room: number): string {
  // "Chinedu…", not "Chinedu …": spaces before the cut go.
  let fits = room;
  while (fits > 0 && s.charCodeAt(fits - 1) === 0x20) fits--;
  // Nothing visible kept: no colour codes around nothing. Only whether the width is 0 matters,
  // so the pass may stop at the first column instead of measuring all that is kept.
  if (measure(s.slice(0, fits), Infinity, 0).width === 0) return ELLIPSIS;
  const codes: string[] = [];
  // Every colour code starts with ESC: jump from one ESC to the next instead of reading each
  // code unit of a 1 MB tail.
  for (let i = s.indexOf('\u001b', fits); i >= 0;) {
    const e = escapeEnd(s, i);
    if (e > i) codes.push(s.slice(i, e));
    i = s.indexOf('\u001b', Math.max(e, i + 1));
  }
  return s.slice(0, fits) + codes.join('') + ELLIPSIS;
}

/**
 * Prose broken at spaces into lines of at most `width` columns (a word longer than a line
 * is broken inside); colour codes take no width. Off a terminal (no width) it is unchanged.
 */
export function wrapText(s: string, width: number | undefined): string {
  if (width === undefined || width < 1) return s;
  return s
    .split('\n')
    .map((para) => {
      const lines: string[] = [];
      let line: string | undefined;
      let lineWidth = 0;
      for (let word of para.split(' ')) {
        // Measured only as far as a line: a 1 MB word costs one pass, not one per line.
        let m = measure(word, width, width);
        if (line !== undefined && lineWidth + 1 + m.width <= width) {
          line += ' ' + word;
          lineWidth += 1 + m.width;
          continue;
        }
        if (line !== undefined) lines.push(line);
        // A word wider than a line: whole lines of it, then the rest starts the next line.
        while (m.width > width) {
          const at = Math.max(m.fits, word.codePointAt(0)! > 0xffff ? 2 : 1);
          lines.push(word.slice(0, at));
          word = word.slice(at);
          m = measure(word, width, width);
        }
        const w = m.width;
        line = word;
        lineWidth = w;
      }
      lines.push(line ?? '');
      return lines.join('\n');
    })
    .join('\n');
}

/**
 * A line made of segments (a payout: its id and amount, where from, to whom) fitted to
 * `width` columns: one line when it fits; else broken between segments, each later line
 * starting with `indent`, and a segment too wide for a line broken at its spaces (a word
 * wider than a line, only then, inside). Off a terminal (no width) it is one line.
 */
export function wrapSegments(segments: string[], width: number | undefined, indent = '    '): string {
  const parts = segments.filter((s) => s !== '');
  const one = parts.join(' ');
  if (width === undefined || displayWidth(one) <= width) return one;
  const lines: string[] = [];
  let line = '';
  for (const s of parts) {
    if (line === '') line = lines.length ? indent + s : s;
    else if (displayWidth(line) + 1 + displayWidth(s) <= width) line += ' ' + s;
    else {
      lines.push(line);
      line = indent + s;
    }
  }
  lines.push(line);
  const room = Math.max(1, width - displayWidth(indent));
  return lines
    .flatMap((l, k) => {
      if (displayWidth(l) <= width) return [l];
      // The first line keeps its own start; a later one is re-indented under `indent`.
      const head = k === 0 ? (/^\s*/.exec(l)?.[0] ?? '') : indent;
      return wrapText(l.slice(head.length), Math.max(1, Math.min(room, width - displayWidth(head))))
        .split('\n')
        .map((w, n) => (n === 0 ? head : indent) + w);
    })
    .join('\n');
}
