/**
 * Tables for people: borderless like `gh`, a bold header, right-aligned numeric columns,
 * two spaces between columns, no trailing spaces. Cells arrive sanitized (see text() in
 * ./text.ts), coloured after; colour codes take no width.
 *
 * At a terminal (`width` given) a table fits the screen: columns of text that may be cut
 * (`minWidth`) are cut with …, the longest first, as `gh` does; amounts, times and statuses
 * are never cut. When even that cannot fit, each row is shown as a card of label/value
 * lines. Off a terminal (a pipe, a file) nothing is ever cut.
 *
 * Drawn here, in time linear in the size of the cells: a service string of any length (a
 * 1 MB wallet name) is measured and cut in one pass. cli-table3, used before, shortens a
 * cell one character at a time and measures it again after each (and does so for every
 * cell, for a debug line), which is quadratic for any text whose width is not its length
 * (CJK, emoji, combining marks): a 16,000-character name took 12 s.
 */
import type { Style } from './style.js';

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** Fixed width (cells are cut with …); by default the width fits the content. */
  width?: number;
  /**
   * Text that may be cut with … to fit a terminal, down to this many columns (IDs, names).
   * A column without it (amounts, times, statuses) is never cut to fit.
   */
  minWidth?: number;
}

export interface TableOptions {
  /** false: rows only (a later page of a streamed table). */
  header?: boolean;
  /** The terminal's columns: the table is fitted to them. Undefined (a pipe, a file): nothing is cut. */
  width?: number;
}

/** Spaces between columns. */
const GAP = 2;
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

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
const EMOJI_PRESENTATION = /^\p{Emoji_Presentation}$/u;
const EXTENDED_PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
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
  if (ZERO_WIDTH.test(ch)) return ZERO;
  if (isWide(cp)) return WIDE;
  if (EMOJI_PRESENTATION.test(ch)) return EMOJI;
  return EXTENDED_PICTOGRAPHIC.test(ch) ? PICTOGRAPH : NARROW;
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

/**
 * One pass over a cell: its width in terminal columns (the widest line), and the end of its
 * longest first-line prefix that fits in `room` columns; it stops early once wider than
 * `stop`. Escape sequences (the colour codes of ./style.ts; service text has none left
 * after sanitizing) take no width; an emoji sequence (skin tone, ZWJ joins, VS16, the two
 * letters of a flag) counts as one emoji.
 */
function measure(s: string, room = Infinity, stop = Infinity): { width: number; fits: number } {
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
    if (joined)
      joined = false; // the part after a ZWJ joins the emoji before it
    else if (cp === 0x200d) joined = prev === EMOJI;
    else if (cp === 0xfe0f) {
      // VS16: a text-style pictograph becomes a two-column emoji.
      if (prev === PICTOGRAPH) {
        w = 1;
        prev = EMOJI;
      }
    } else if (cp >= 0x1f3fb && cp <= 0x1f3ff && prev === EMOJI)
      w = 0; // skin tone of the emoji before
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
  const { width: w, fits: room } = measure(s, width - 1, width); // room for the ellipsis
  if (w <= width) return s;
  // "Chinedu…", not "Chinedu …": spaces before the cut go.
  let fits = room;
  while (fits > 0 && s.charCodeAt(fits - 1) === 0x20) fits--;
  if (measure(s.slice(0, fits)).width === 0) return ELLIPSIS; // nothing visible kept: no colour codes around nothing
  const codes: string[] = [];
  for (let i = fits; i < s.length; i++) {
    const e = escapeEnd(s, i);
    if (e > i) {
      codes.push(s.slice(i, e));
      i = e - 1;
    }
  }
  return s.slice(0, fits) + codes.join('') + ELLIPSIS;
}

function pad(s: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(s)));
  return align === 'right' ? fill + s : s + fill;
}

/** Each cell as its lines (a cell holding a newline takes several lines of its row). */
function cellLines(columns: Column[], rows: string[][]): string[][][] {
  return rows.map((r) => columns.map((_, i) => String(r[i] ?? '').split('\n')));
}

/** The width of each column: its fixed width, or its widest line (header included). */
function naturalWidths(columns: Column[], cells: string[][][]): number[] {
  return columns.map((c, i) => {
    if (c.width !== undefined) return c.width;
    let max = displayWidth(c.header);
    for (const r of cells) for (const l of r[i]!) max = Math.max(max, displayWidth(l));
    return max;
  });
}

/**
 * The columns of a table that fits in `width` terminal columns: as given when the table
 * fits, else with fixed widths that cut the columns of text (those with `minWidth`), the
 * widest first, none below its minWidth; undefined when even that cannot fit (show cards).
 */
export function fitColumns(columns: Column[], rows: string[][], width: number): Column[] | undefined {
  const natural = naturalWidths(columns, cellLines(columns, rows));
  const gaps = GAP * Math.max(0, columns.length - 1);
  if (natural.reduce((a, w) => a + w, 0) + gaps <= width) return columns;
  const cut = columns.map((c) => c.width === undefined && c.minWidth !== undefined);
  const room = width - gaps - natural.reduce((a, w, i) => a + (cut[i] ? 0 : w), 0);
  const least = natural.map((w, i) => (cut[i] ? Math.min(w, Math.max(1, columns[i]!.minWidth!)) : w));
  const sum = (ws: number[]) => ws.reduce((a, w, i) => a + (cut[i] ? w : 0), 0);
  if (!cut.some(Boolean) || sum(least) > room) return undefined;
  // The largest cap that fits: every cut column gets min(natural, cap), at least its minWidth.
  const capped = (cap: number) => natural.map((w, i) => (cut[i] ? Math.max(least[i]!, Math.min(w, cap)) : w));
  let lo = 0;
  let hi = room;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sum(capped(mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  const widths = capped(lo);
  // What the cap leaves over goes one column each to the cut columns, left to right.
  let left = room - sum(widths);
  for (let i = 0; i < widths.length && left > 0; i++) {
    if (cut[i] && widths[i]! < natural[i]!) {
      widths[i]! += 1;
      left -= 1;
    }
  }
  return columns.map((c, i) => (cut[i] && widths[i]! < natural[i]! ? { ...c, width: widths[i]! } : c));
}

export function renderTable(columns: Column[], rows: string[][], style: Style, opts: TableOptions = {}): string {
  if (opts.width !== undefined) {
    const fitted = fitColumns(columns, rows, opts.width);
    if (!fitted) return renderCards(columns, rows, style, opts.width);
    columns = fitted;
  }
  const all = opts.header === false ? rows : [columns.map((c) => style.bold(c.header)), ...rows];
  const cells = cellLines(columns, all).map((r) => r.map((lines, i) => (columns[i]!.width === undefined ? lines : lines.map((l) => fitWidth(l, columns[i]!.width!)))));
  const widths = columns.map((c, i) => {
    if (c.width !== undefined) return c.width;
    let max = 0;
    for (const r of cells) for (const l of r[i]!) max = Math.max(max, displayWidth(l));
    return max;
  });
  const out: string[] = [];
  for (const r of cells) {
    const height = r.reduce((m, lines) => Math.max(m, lines.length), 1);
    for (let k = 0; k < height; k++) {
      const line = r.map((lines, i) => pad(lines[k] ?? '', widths[i]!, columns[i]!.align ?? 'left') + ' '.repeat(GAP)).join('');
      // Trailing padding is noise in a terminal and in tests (trimEnd: linear, unlike /\s+$/).
      out.push(line.trimEnd());
    }
  }
  return out.join('\n') + '\n';
}

/**
 * Rows as cards, for a terminal too narrow for the table: one line per column (the header,
 * then the value, cut with … to the width), a blank line between rows. Nothing is left out.
 */
export function renderCards(columns: Column[], rows: string[][], style: Style, width?: number): string {
  const labelWidth = Math.max(0, ...columns.map((c) => displayWidth(c.header)));
  const room = width === undefined ? undefined : Math.max(1, width - labelWidth - GAP);
  const card = (r: string[]) =>
    columns
      .flatMap((c, i) =>
        String(r[i] ?? '')
          .split('\n')
          .map((value, k) => {
            const label = k === 0 ? c.header : '';
            const line =
              `${label ? style.dim(label) : ''}${' '.repeat(labelWidth - displayWidth(label) + GAP)}${room === undefined ? value : fitWidth(value, room)}`.trimEnd();
            return width === undefined ? line : fitWidth(line, width);
          }),
      )
      .join('\n') + '\n';
  return rows.map(card).join('\n');
}

/**
 * A table written page by page (`payouts list --all`), the header once. At a terminal the
 * layout the first page fits to (cut columns, or cards) holds for every page, so pages line
 * up; elsewhere nothing is cut: a column only grows when a later page needs it.
 */
export class StreamedTable {
  readonly #columns: Column[];
  readonly #style: Style;
  readonly #width: number | undefined;
  #layout: Column[] | 'cards' | undefined;
  #pages = 0;

  constructor(columns: Column[], style: Style, width: number | undefined) {
    this.#columns = columns;
    this.#style = style;
    this.#width = width;
  }

  page(rows: string[][]): string {
    if (rows.length === 0) return '';
    const first = this.#pages++ === 0;
    if (this.#layout === 'cards') return '\n' + renderCards(this.#columns, rows, this.#style, this.#width);
    const natural = naturalWidths(this.#columns, cellLines(this.#columns, rows));
    if (this.#width === undefined) {
      // Never cut: each column as wide as the widest cell so far.
      const before = this.#layout;
      this.#layout = this.#columns.map((c, i) => ({ ...c, width: Math.max(natural[i]!, before?.[i]!.width ?? 0) }));
    } else if (!this.#layout) {
      const fitted = fitColumns(this.#columns, rows, this.#width);
      if (!fitted) {
        this.#layout = 'cards';
        return renderCards(this.#columns, rows, this.#style, this.#width);
      }
      this.#layout = fitted.map((c, i) => ({ ...c, width: c.width ?? natural[i]! }));
    }
    return renderTable(this.#layout, rows, this.#style, { header: first });
  }
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
