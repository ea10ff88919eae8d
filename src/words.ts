/**
 * How far a typed word is from a known one, for "did you mean" (a mistyped command, profile,
 * provider or batch-file column): the optimal string alignment distance (Damerau-Levenshtein
 * without repeated edits, as commander counts it: a letter inserted, deleted or changed, or two
 * neighbours swapped, each one edit). The one copy of the rule; each caller keeps its own
 * threshold of what still counts as a slip. Also what a chat app makes of typed text, and a
 * typed word echoed with what it holds made visible (visibleWord).
 */

/** Edits from `a` to `b`; once certain to be more than `limit`, `limit + 1` (linear in the rows read). */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
      least = Math.min(least, d);
    }
    if (least > limit) return limit + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** At most this many edits from a known word still count as a slip, as commander counts for a mistyped command. */
const MAX_SLIP = 3;

/**
 * The candidates whose word (`wordOf`) `typed` is most likely a slip for, by commander's rule
 * for "Did you mean": the closest ones, at most three edits away, and only those that keep
 * more than 40% of the longer word. Empty when none is close.
 */
export function closestWords<T>(typed: string, candidates: readonly T[], wordOf: (c: T) => string): T[] {
  let best = MAX_SLIP;
  let close: T[] = [];
  for (const c of candidates) {
    const word = wordOf(c);
    const d = editDistance(typed, word, MAX_SLIP);
    const length = Math.max(typed.length, word.length);
    if ((length - d) / length <= 0.4 || d > best) continue;
    if (d < best) close = [];
    best = d;
    close.push(c);
  }
  return close;
}

/*
 * What a chat app or word processor makes of typed text, as regular-expression character
 * classes (the one copy; help.ts names such words in a command line, request.ts refuses a name
 * or note wrapped in curly quotes, copiedId below reads an id copied with them):
 */
/** Dashes that are not the hyphen-minus: en and em dashes, the minus sign and the like. */
export const DASHES = '\\u2010-\\u2015\\u2212\\ufe58\\ufe63\\uff0d';
/** Quotes that open: curly single and double, low-9, and the guillemet «. */
export const OPENING_QUOTES = '\\u2018\\u201a\\u201c\\u201e\\u00ab';
/** Quotes that close: curly single and double, and the guillemet ». (Some keyboards close with an opening one.) */
export const CLOSING_QUOTES = '\\u2019\\u201d\\u00bb';
/** Spaces a shell does not split at: the no-break spaces, and the typographic ones. */
export const ODD_SPACES = '\\u00a0\\u2000-\\u200a\\u202f\\u205f\\u3000';

const DASH_ANY = new RegExp(`[${DASHES}]`, 'g');
const COPIED_BEFORE = new RegExp(`^["'\`${OPENING_QUOTES}${CLOSING_QUOTES}(<[{]+`);
const COPIED_AFTER = new RegExp(`["'\`${OPENING_QUOTES}${CLOSING_QUOTES})>\\]}.,;:]+$`);

/**
 * An id as it reads without what copying brought along: quotes, brackets or a trailing comma
 * or full stop around it (copied from JSON, CSV or a sentence), and a word processor's or chat
 * app's dashes in it ("TXN‐BOK‐…"); undefined when there is nothing such to take away.
 */
export function copiedId(id: string): string | undefined {
  const bare = id.replace(DASH_ANY, '-').replace(COPIED_BEFORE, '').replace(COPIED_AFTER, '').trim();
  return bare && bare !== id ? bare : undefined;
}

/** Words as a sentence starts them: "this config folder's journal" -> "This config folder's journal". */
export function capitalized(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A word echoed so that what it holds can be seen: every character but printable ASCII as a
 * visible escape (`"1\u200b"`, `"base-url\u001b]0;pwn\u0007"`), never dropped, which would show
 * another word than the one given. For words whose valid forms are ASCII (a profile, a setting,
 * a header name, a status): a status "Verified\u2060" is not verified and must not print as
 * "Verified (not verified)"; a setting typed with a zero-width space must not read as one payctl
 * knows. Written with escapes, never "?n?", which reads as typed question marks.
 */
export function visibleWord(word: string): string {
  return word.replace(/[^\x20-\x7e]/gu, visibleEscape);
}

/**
 * An id or a name echoed as visibleWord echoes a word, a space written as an escape too
 * (`TXN-1\u000a2026-11-28\u002000:00:00`): a webhook event's transaction id, event name or
 * webhook id with a line break or spaces in it cannot then draw what looks like more columns,
 * or another record, on the listener's line.
 */
export function visibleToken(word: string): string {
  return word.replace(/[^\x21-\x7e]/gu, visibleEscape);
}

function visibleEscape(c: string): string {
  const n = c.codePointAt(0)!;
  return n > 0xffff ? `\\u{${n.toString(16)}}` : `\\u${n.toString(16).padStart(4, '0')}`;
}
