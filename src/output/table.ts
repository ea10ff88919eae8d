/**
 * Tables for people (cli-table3): borderless like `gh`, a bold header, right-aligned
 * numeric columns. Cells arrive sanitized (see text() in ./text.ts), coloured after.
 * Loaded only when a table is drawn: --json and --csv never pay for it.
 */
import Table from 'cli-table3';
import type { Style } from './style.js';

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** Fixed width (cells are cut with …); by default the width fits the content. */
  width?: number;
}

export function renderTable(columns: Column[], rows: string[][], style: Style, opts: { header?: boolean } = {}): string {
  const fixed = columns.every((c) => c.width !== undefined);
  const table = new Table({
    head: opts.header === false ? [] : columns.map((c) => style.bold(c.header)),
    colAligns: columns.map((c) => c.align ?? 'left'),
    ...(fixed ? { colWidths: columns.map((c) => c.width! + 2) } : {}),
    wordWrap: false,
    truncate: '…',
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
      bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '',
      right: '', 'right-mid': '', middle: '',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2, compact: true },
  });
  for (const r of rows) table.push(r);
  // Trailing padding is noise in a terminal and in tests.
  return table
    .toString()
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .join('\n') + '\n';
}

