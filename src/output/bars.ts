/**
 * Bar charts beside the counts of `payctl summary` (src/output/summary.ts and
 * src/output/service-summary.ts): bars in integer arithmetic, so that counts and amounts of
 * any size are drawn exactly, and tables indented under their heading.
 */
import { renderTable, type Column } from './table.js';
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

/** A table, its lines indented two spaces (under a heading). */
export function indentedTable(columns: Column[], rows: string[][], style: Style): string {
  return renderTable(columns, rows, style)
    .split('\n')
    .map((l) => (l ? '  ' + l : l))
    .join('\n');
}
