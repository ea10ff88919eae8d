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
import { displayWidth, fitWidth, fitWidthOf } from './text-width.js';

// Text width and wrapping live in text-width.ts; these names are imported from here by many views.
export { displayWidth, fitWidth, wrapSegments, wrapText } from './text-width.js';

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
  /** Never cut, in a card either, however long (a status word payctl does not know: cut, it could read as a known one). */
  whole?: boolean;
}

export interface TableOptions {
  /** false: rows only (a later page of a streamed table). */
  header?: boolean;
  /** The terminal's columns: the table is fitted to them. Undefined (a pipe, a file): nothing is cut. */
  width?: number;
}

/** Spaces between columns. */
const GAP = 2;

/** A line of a cell, and its width once something measured it: a table measures a line once. */
interface CellLine {
  text: string;
  width?: number;
}

/** A line's width, measured the first time it is asked for. */
const widthOf = (l: CellLine) => (l.width ??= displayWidth(l.text));

/** A line of a cell as drawn: its text (cut to fit when its column is), that text's width, its alignment. */
interface DrawnLine {
  text: string;
  width: number;
  align: 'left' | 'right';
}

/** Where a cell has fewer lines than its row: padding only. */
const NO_LINE: DrawnLine = { text: '', width: 0, align: 'left' };

function pad(l: DrawnLine, width: number): string {
  const fill = ' '.repeat(Math.max(0, width - l.width));
  return l.align === 'right' ? fill + l.text : l.text + fill;
}

/** A cell as its lines (a cell holding a newline takes several lines of its row), not yet measured. */
const cellOf = (value: string | undefined): CellLine[] =>
  String(value ?? '')
    .split('\n')
    .map((text) => ({ text }));

/** Each cell of the rows as its lines: measured when a column's width needs them, then drawn from the same lines. */
function cellLines(columns: Column[], rows: string[][]): CellLine[][][] {
  return rows.map((r) => columns.map((_, i) => cellOf(r[i])));
}

/** The width of each column: its fixed width, or its widest line (the header too, unless `header` is false). */
function naturalWidths(columns: Column[], cells: CellLine[][][], header = true): number[] {
  return columns.map((c, i) => {
    if (c.width !== undefined) return c.width;
    let max = header ? displayWidth(c.header) : 0;
    for (const r of cells) for (const l of r[i]!) max = Math.max(max, widthOf(l));
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
function fitSlots(columns: Column[], cells: CellLine[][][], width: number, header: boolean): Slot[] | undefined {
  const natural = naturalWidths(columns, cells, header);
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
 * A line drawn in `room` columns: cut with … when wider (see fitWidth), and its width. A line
 * already measured and no wider is kept as fitWidth keeps it, without a second pass (but
 * fitWidth gives '' for a room of 0 or less, even for a line that takes no column).
 */
function drawnLine(l: CellLine, room: number, align: 'left' | 'right'): DrawnLine {
  if (room === Infinity || (l.width !== undefined && room > 0 && l.width <= room)) return { text: l.text, width: widthOf(l), align };
  return { ...fitWidthOf(l.text, room), align };
}

/**
 * The lines of a table drawn in `slots` (`cells`: the rows' cells, as cellLines gives them):
 * each part's lines padded as its column aligns them; a line of a column that may be cut (or
 * of a fixed width) is cut with … to the width, any other line is never cut (an id, an
 * amount: a later page wider than the first overflows rather than lose a character).
 */
function draw(columns: Column[], slots: Slot[], cells: CellLine[][][], style: Style, header: boolean): string {
  const all = header ? [columns.map((c) => cellOf(style.bold(c.header))), ...cells] : cells;
  const drawn = all.map((r) =>
    slots.map((s) =>
      s.parts.flatMap((p) => {
        const c = columns[p]!;
        const room = Math.min(c.width ?? Infinity, cuttable(c) && s.width !== undefined ? s.width : Infinity);
        return r[p]!.map((l) => drawnLine(l, room, c.align ?? 'left'));
      }),
    ),
  );
  const widths = slots.map((s, i) => {
    if (s.width !== undefined) return s.width;
    let max = 0;
    for (const r of drawn) for (const l of r[i]!) max = Math.max(max, l.width);
    return max;
  });
  const out: string[] = [];
  for (const r of drawn) {
    const height = r.reduce((m, lines) => Math.max(m, lines.length), 1);
    for (let k = 0; k < height; k++) {
      const line = r.map((lines, i) => pad(lines[k] ?? NO_LINE, widths[i]!) + ' '.repeat(GAP)).join('');
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
  const cells = cellLines(columns, rows);
  if (opts.width === undefined) return draw(columns, slotsOf(columns), cells, style, header);
  const slots = fitSlots(columns, cells, opts.width, header);
  return slots ? draw(columns, slots, cells, style, header) : renderCards(columns, rows, style, opts.width);
}

/**
 * One row as one line without a header (a line of a stream: `webhooks listen`), fitted to
 * `width` as renderTable fits a table: its empty cells take no room; undefined when it
 * cannot fit (show it as a card: renderCards).
 */
export function renderLine(columns: Column[], cells: string[], style: Style, width: number | undefined): string | undefined {
  const kept = columns.map((_, i) => i).filter((i) => (cells[i] ?? '') !== '');
  const cols = kept.map((i) => columns[i]!);
  const row = cellLines(cols, [kept.map((i) => cells[i]!)]);
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
/** The widest value a card keeps whole though it does not fit: a payout id may have 128 characters. */
const LONGEST_ID = 128;

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
            // Only what a table may cut is cut here too: an id, an amount or a time overflows
            // the terminal (it wraps) rather than lose the characters a person pastes; one longer
            // than any id (a service's 1 MB "wallet id") is cut all the same.
            const cut = room !== undefined && !c.whole && (cuttable(c) || c.width !== undefined || displayWidth(value) > LONGEST_ID);
            const line = `${label ? style.dim(label) : ''}${' '.repeat(labelWidth - displayWidth(label) + GAP)}${cut ? fitWidth(value, room) : value}`.trimEnd();
            return width === undefined || !cut ? line : fitWidth(line, width);
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
    const cells = cellLines(this.#columns, rows);
    const natural = naturalWidths(this.#columns, cells);
    if (this.#width === undefined) {
      // Never cut: each column as wide as the widest cell so far.
      const before = this.#layout;
      this.#layout = this.#columns.map((_, i) => ({ parts: [i], width: Math.max(natural[i]!, before?.[i]!.width ?? 0) }));
    } else if (!this.#layout) {
      const fitted = fitSlots(this.#columns, cells, this.#width, true);
      if (!fitted) {
        this.#layout = 'cards';
        return renderCards(this.#columns, rows, this.#style, this.#width);
      }
      this.#layout = fitted.map((s) => ({ parts: s.parts, width: s.width ?? Math.max(...s.parts.map((p) => natural[p]!)) }));
    }
    return draw(this.#columns, this.#layout, cells, this.#style, first);
  }
}
