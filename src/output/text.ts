/**
 * Text for people, without table drawing: sanitized cells, key/value cards, UTC times.
 */
import { sanitizeInline } from './sanitize.js';
import type { Style } from './style.js';

/** A count and its noun: plural(1, 'row') -> "1 row", plural(3, 'row was', 'rows were') -> "3 rows were". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** A cell of service or user text: sanitized here. */
export function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- cells are scalars (strings, numbers, booleans, bigints)
  return sanitizeInline(String(value));
}

/** A text cut to 40 characters (an ellipsis its 40th): how an odd value is named in a warning, once it is sanitized (and masked). */
export function shortened(t: string): string {
  return t.length > 40 ? `${t.slice(0, 39)}…` : t;
}

/** The first `ids` of `n` (sanitized), and how many more: "a, b, and 3 more" (journal entries missing: journalGaps names the first ten). */
export function idsAndMore(ids: readonly string[], n: number): string {
  return `${ids.map(text).join(', ')}${n > ids.length ? `${ids.length ? ', and ' : ''}${n - ids.length} more` : ''}`;
}

/**
 * Key/value lines ("card"): labels aligned, values as given, no trailing spaces. trimEnd
 * removes exactly what /\s+$/ did (WhiteSpace and LineTerminator) in linear time; the
 * regex retried from every space of a long run, quadratic (9.8 s for a 100 KB name).
 */
export function renderCard(pairs: Array<[string, string]>, style: Style): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${style.dim(k.padEnd(width))}  ${v}`.trimEnd()).join('\n') + '\n';
}

/** A UTC time for tables: "2026-11-21 10:15:30 UTC"; unreadable values are shown sanitized as they came. */
export function utcTime(value: string | undefined | null): string {
  if (!value) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return text(value);
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}
