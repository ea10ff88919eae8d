/**
 * Bar charts beside the counts of `payctl summary` (src/output/summary.ts and
 * src/output/service-summary.ts): bars in integer arithmetic, so that counts and amounts of
 * any size are drawn exactly, and tables indented under their heading.
 */
import { displayWidth, renderTable, type Column } from './table.js';
import type { Style } from './style.js';

/** The widest bar, off a terminal (and at one wide enough). */
export const BAR_WIDTH = 24;

/** A bar of `width * value / max` cells, in integer arithmetic. */
export function bar(value: bigint, max: bigint, width = BAR_WIDTH): string {
  if (max <= 0n || value <= 0n) return '';
  const cells = Number((value * BigInt(width) + max / 2n) / max);
  return '█'.repeat(Math.max(1, cells));
}

/** The largest of `values` (undefined ones left out), 0n when none. */
export function largest(values: Array<bigint | undefined>): bigint {
  return values.reduce<bigint>((m, v) => (v !== undefined && v > m ? v : m), 0n);
}

/** Spaces before a table's lines (under a heading), and between its columns. */
const INDENT = 2;
const GAP = 2;

const indented = (table: string): string =>
  table
    .split('\n')
    .map((l) => (l ? ' '.repeat(INDENT) + l : l))
    .join('\n');

/** A table, its lines indented two spaces (under a heading). */
export function indentedTable(columns: Column[], rows: string[][], style: Style): string {
  return indented(renderTable(columns, rows, style));
}

/** A table of counts (or amounts) with a bar beside each row: `bars[i](width)` draws row i's bar in at most `width` cells. */
export interface BarTable {
  columns: Column[];
  rows: string[][];
  bars: Array<(width: number) => string>;
}

/**
 * Tables with a column of bars, indented, each as its own string. Off a terminal (no
 * `width`) the bars are BAR_WIDTH cells at most. At a terminal every line fits `width`: the
 * bars shrink to the room the widest table leaves beside its labels and numbers (one width
 * for all, so that their scales match), and are left out when there is no room for a cell;
 * labels and numbers are never cut.
 */
export function barTables(tables: BarTable[], style: Style, width?: number): string[] {
  let room = BAR_WIDTH;
  if (width !== undefined) {
    const widest = Math.max(0, ...tables.map((t) => displayWidth(renderTable(t.columns, t.rows, style))));
    room = Math.min(BAR_WIDTH, width - INDENT - widest - GAP);
  }
  return tables.map((t) =>
    room >= 1
      ? indentedTable(
          [...t.columns, { header: '' }],
          t.rows.map((r, i) => [...r, t.bars[i]!(room)]),
          style,
        )
      : // No room for bars: the table alone, fitted as any table is (a card per row when even that is too wide).
        indented(renderTable(t.columns, t.rows, style, width === undefined ? {} : { width: Math.max(1, width - INDENT) })),
  );
}
