/**
 * Tables for people: borderless like `gh`, a bold header, right-aligned numeric columns,
 * two spaces between columns, no trailing spaces. Cells arrive sanitized (see text() in
 * ./text.ts), coloured after; colour codes take no width.
 *
 * At a terminal (`width` given) a table fits the screen: columns of text that may be cut
 * (`minWidth`) are cut with …, the longest first, as `gh` does; ids, amounts, times and
 * statuses are never cut. When that is not enough, the least useful columns give way, one
 * at a time in the order the table gives (`giveWay`): left out, or moved under another
 * column as a second line of each row. Only when even that cannot fit is each row shown as
 * a card of label/value lines (every column). Off a terminal (a pipe, a file) nothing is
 * ever cut, moved or left out.
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
  /**
   * At a terminal too narrow for the table even with its text cut, this column gives way at
   * step `step` (the lowest first): it is left out, or with `under`, moved under the column
   * of that header (a second line of each row, aligned as this column). A pipe, --csv and
   * --json always have it; so do cards.
   */
  giveWay?: { step: number; under?: string };
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

/** The width of each column: its fixed width, or its widest line (the header too, unless `header` is false). */
function naturalWidths(columns: Column[], cells: string[][][], header = true): number[] {
  return columns.map((c, i) => {
    if (c.width !== undefined) return c.width;
    let max = header ? displayWidth(c.header) : 0;
    for (const r of cells) for (const l of r[i]!) max = Math.max(max, displayWidth(l));
    return max;
  });
}

/**
 * The widths of columns that fit in `width` terminal columns, two spaces apart: `natural`
 * when they fit; else the columns whose `least` is below their natural width are cut, the
 * widest first (a cap on all of them, as large as fits), none below its least, what the cap
 * leaves over going one column each to the cut columns, left to right; undefined when even
 * that cannot fit.
 */
function fitWidths(natural: number[], least: number[], width: number): number[] | undefined {
  const gaps = GAP * Math.max(0, natural.length - 1);
  if (natural.reduce((a, w) => a + w, 0) + gaps <= width) return natural;
  const cut = natural.map((w, i) => least[i]! < w);
  const room = width - gaps - natural.reduce((a, w, i) => a + (cut[i] ? 0 : w), 0);
  const sum = (ws: number[]) => ws.reduce((a, w, i) => a + (cut[i] ? w : 0), 0);
  if (!cut.some(Boolean) || sum(least) > room) return undefined;
  const capped = (cap: number) => natural.map((w, i) => (cut[i] ? Math.max(least[i]!, Math.min(w, cap)) : w));
  let lo = 0;
  let hi = room;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sum(capped(mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  const widths = capped(lo);
  let left = room - sum(widths);
  for (let i = 0; i < widths.length && left > 0; i++) {
    if (cut[i] && widths[i]! < natural[i]!) {
      widths[i]! += 1;
      left -= 1;
    }
  }
  return widths;
}

/** Whether a column's text may be cut to fit a terminal. */
const cuttable = (c: Column) => c.width === undefined && c.minWidth !== undefined;

/**
 * The least width of a column: its minWidth (no less than its header, when the header is
 * drawn: a header is never cut) when it may be cut and is wider, else its natural width.
 */
const leastOf = (c: Column, natural: number, header = true) => (cuttable(c) ? Math.min(natural, Math.max(1, c.minWidth!, header ? displayWidth(c.header) : 0)) : natural);

/**
 * The columns of a table that fits in `width` terminal columns: as given when the table
 * fits, else with fixed widths that cut the columns of text (those with `minWidth`), the
 * widest first, none below its minWidth or its header; undefined when even that cannot fit
 * (show cards).
 * Columns are neither left out nor moved here (see `giveWay`: renderTable does that).
 */
export function fitColumns(columns: Column[], rows: string[][], width: number): Column[] | undefined {
  const natural = naturalWidths(columns, cellLines(columns, rows));
  const widths = fitWidths(
    natural,
    columns.map((c, i) => leastOf(c, natural[i]!)),
    width,
  );
  if (!widths) return undefined;
  return columns.map((c, i) => (cuttable(c) && widths[i]! < natural[i]! ? { ...c, width: widths[i]! } : c));
}

/**
 * A column as drawn: one or more of the given columns (their indexes), the first on top and
 * each later one a line below it (see `giveWay.under`), and its width when it is fixed (lines
 * of text that may be cut are cut to it).
 */
interface Slot {
  parts: number[];
  width?: number;
}

const slotsOf = (columns: Column[]): Slot[] => columns.map((c, i) => ({ parts: [i], ...(c.width !== undefined ? { width: c.width } : {}) }));

/** The slots after the column `i` gave way: left out, or moved (with what was under it) under the column it names. */
function givenWay(columns: Column[], slots: Slot[], i: number): Slot[] {
  const from = slots.findIndex((s) => s.parts.includes(i));
  if (from < 0) return slots; // already left out with a column it was under
  const moved = slots[from]!.parts.slice(slots[from]!.parts.indexOf(i));
  const under = columns[i]!.giveWay!.under;
  const to = under === undefined ? -1 : slots.findIndex((s, k) => k !== from && s.parts.some((p) => columns[p]!.header === under));
  return slots.flatMap((s, k) => {
    if (k === from) {
      const kept = s.parts.filter((p) => !moved.includes(p));
      return kept.length ? [{ parts: kept }] : [];
    }
    return k === to ? [{ parts: [...s.parts, ...moved] }] : [s];
  });
}

/**
 * The slots of a table fitted to `width` terminal columns: every column beside the others
 * when they fit, text cut as fitColumns does; else the columns give way one at a time, in
 * the order of their `giveWay.step` (each time the text is cut again, from its full width),
 * until the table fits. Undefined when even every step taken cannot fit: show cards.
 */
function fitSlots(columns: Column[], rows: string[][], width: number, header: boolean): Slot[] | undefined {
  const natural = naturalWidths(columns, cellLines(columns, rows), header);
  const steps = columns
    .map((c, i) => ({ step: c.giveWay?.step, i }))
    .filter((s): s is { step: number; i: number } => s.step !== undefined)
    .sort((a, b) => a.step - b.step || a.i - b.i);
  let slots = slotsOf(columns);
  for (let k = 0; ; k++) {
    // A slot is as wide as its widest part, and can be cut no further than its widest least.
    const slotNatural = slots.map((s) => Math.max(0, ...s.parts.map((p) => natural[p]!)));
    const slotLeast = slots.map((s) => Math.max(0, ...s.parts.map((p) => leastOf(columns[p]!, natural[p]!, header))));
    const widths = fitWidths(slotNatural, slotLeast, width);
    if (widths)
      return slots.map((s, j) => ({ parts: s.parts, ...(widths[j]! < slotNatural[j]! ? { width: widths[j]! } : s.width !== undefined ? { width: s.width } : {}) }));
    if (k >= steps.length) return undefined;
    slots = givenWay(columns, slots, steps[k]!.i);
  }
}

/**
 * The lines of a table drawn in `slots`: each part's lines padded as its column aligns
 * them; a line of a column that may be cut (or of a fixed width) is cut with … to the width,
 * any other line is never cut (an id, an amount: a later page wider than the first overflows
 * rather than lose a character).
 */
function draw(columns: Column[], slots: Slot[], rows: string[][], style: Style, header: boolean): string {
  const all = header ? [columns.map((c) => style.bold(c.header)), ...rows] : rows;
  const cells = all.map((r) =>
    slots.map((s) =>
      s.parts.flatMap((p) => {
        const c = columns[p]!;
        const room = Math.min(c.width ?? Infinity, cuttable(c) && s.width !== undefined ? s.width : Infinity);
        return String(r[p] ?? '')
          .split('\n')
          .map((l) => ({ text: room === Infinity ? l : fitWidth(l, room), align: c.align ?? 'left' }));
      }),
    ),
  );
  const widths = slots.map((s, i) => {
    if (s.width !== undefined) return s.width;
    let max = 0;
    for (const r of cells) for (const l of r[i]!) max = Math.max(max, displayWidth(l.text));
    return max;
  });
  const out: string[] = [];
  for (const r of cells) {
    const height = r.reduce((m, lines) => Math.max(m, lines.length), 1);
    for (let k = 0; k < height; k++) {
      const line = r.map((lines, i) => pad(lines[k]?.text ?? '', widths[i]!, lines[k]?.align ?? 'left') + ' '.repeat(GAP)).join('');
      // Trailing padding is noise in a terminal and in tests (trimEnd: linear, unlike /\s+$/);
      // a second line with nothing in it (no transaction id under the payout id yet) is left out.
      const trimmed = line.trimEnd();
      if (k === 0 || trimmed !== '') out.push(trimmed);
    }
  }
  return out.join('\n') + '\n';
}

/**
 * A table; at a terminal (`opts.width`) fitted to it: text cut, then columns giving way
 * (`giveWay`), else a card per row.
 */
export function renderTable(columns: Column[], rows: string[][], style: Style, opts: TableOptions = {}): string {
  const header = opts.header !== false;
  if (opts.width === undefined) return draw(columns, slotsOf(columns), rows, style, header);
  const slots = fitSlots(columns, rows, opts.width, header);
  return slots ? draw(columns, slots, rows, style, header) : renderCards(columns, rows, style, opts.width);
}

/**
 * One row as one line without a header (a line of a stream: `webhooks listen`), fitted to
 * `width` as renderTable fits a table: its empty cells take no room; undefined when it
 * cannot fit (show it as a card: renderCards).
 */
export function renderLine(columns: Column[], cells: string[], style: Style, width: number | undefined): string | undefined {
  const kept = columns.map((_, i) => i).filter((i) => (cells[i] ?? '') !== '');
  const cols = kept.map((i) => columns[i]!);
  const row = [kept.map((i) => cells[i]!)];
  if (width === undefined) return draw(cols, slotsOf(cols), row, style, false).replace(/\n$/, '');
  const slots = fitSlots(cols, row, width, false);
  // One line or none: a column moved under another would make two.
  if (!slots || slots.some((s) => s.parts.length > 1)) return undefined;
  return draw(cols, slots, row, style, false).replace(/\n$/, '');
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
 * A table written page by page (`payouts list --all`, `history`), the header once. At a
 * terminal the layout the first page fits to (cut and moved columns, or cards) holds for
 * every page, so pages line up; elsewhere nothing is cut: a column only grows when a later
 * page needs it.
 */
export class StreamedTable {
  readonly #columns: Column[];
  readonly #style: Style;
  readonly #width: number | undefined;
  #layout: Slot[] | 'cards' | undefined;
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
      this.#layout = this.#columns.map((_, i) => ({ parts: [i], width: Math.max(natural[i]!, before?.[i]!.width ?? 0) }));
    } else if (!this.#layout) {
      const fitted = fitSlots(this.#columns, rows, this.#width, true);
      if (!fitted) {
        this.#layout = 'cards';
        return renderCards(this.#columns, rows, this.#style, this.#width);
      }
      this.#layout = fitted.map((s) => ({ parts: s.parts, width: s.width ?? Math.max(...s.parts.map((p) => natural[p]!)) }));
    }
    return draw(this.#columns, this.#layout, rows, this.#style, first);
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
