/**
 * Tables for people (cli-table3): borderless like `gh`, a bold header, right-aligned
 * numeric columns. Every cell is sanitized; callers colour cells after sanitizing.
 */
import Table from 'cli-table3';
import { sanitizeInline } from './sanitize.js';
import type { Style } from './style.js';

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** Fixed width (cells are cut with …); by default the width fits the content. */
  width?: number;
}

export interface Cell {
  /** Shown text (may carry colour codes added after sanitizing). */
  text: string;
}

/** A cell of service or user text: sanitized here. */
export function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return sanitizeInline(String(value));
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

/** Key/value lines ("card"): labels aligned, values as given. */
export function renderCard(pairs: Array<[string, string]>, style: Style): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${style.dim(k.padEnd(width))}  ${v}`.replace(/\s+$/, '')).join('\n') + '\n';
}

/** A UTC time for tables: "2026-11-21 10:15:30 UTC"; unreadable values are shown sanitized as they came. */
export function utcTime(value: string | undefined | null): string {
  if (!value) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return text(value);
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}
