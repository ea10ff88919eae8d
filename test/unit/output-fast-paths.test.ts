/**
 * The fast paths of the output code give exactly what the code they stand in for gives:
 * measure (one regex test for text whose every character takes one column) against the
 * code-point loop it falls back to, fitWidth and fitWidthOf against a copy of fitWidth as it
 * was, and sanitize (one scan for text with nothing to remove, back-to-back sequences removed
 * as one match, controls and bidi controls in one pass) against a copy of the four replaces it
 * was. On thousands of generated strings (ASCII, controls, escapes, emoji sequences, flags,
 * ZWJ, wide CJK, combining marks, newlines, tabs, bidi controls, lone surrogates) and room and
 * stop values that include 0, fractions, Infinity and NaN. Seeded: a failure repeats. And a
 * table, which measures each line once and keeps a line known to fit, still cuts as fitWidth.
 */
import { describe, expect, it } from 'vitest';
import { sanitize, sanitizeInline } from '../../src/output/sanitize.js';
import { makeStyle } from '../../src/output/style.js';
import { StreamedTable } from '../../src/output/table.js';
import { displayWidth, fitWidth, fitWidthOf, measure, measureByCodePoint } from '../../src/output/text-width.js';

// --- The code before its fast paths, kept here as the reference. ---

const REF_ESCAPE_SEQUENCES = /\u001b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)|[ -/]*[0-~]?)/g;
const REF_C1_SEQUENCES = /\u009b[0-?]*[ -/]*[@-~]?|[\u009d\u0090\u0098\u009e\u009f][\s\S]*?(?:\u0007|\u009c|$)/g;
const REF_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// With the hidden format characters removed since (zero-width space, word joiner, BOM, U+180E, tag characters).
const REF_BIDI = /[\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

function referenceSanitize(text: string): string {
  return text.replace(REF_ESCAPE_SEQUENCES, '').replace(REF_C1_SEQUENCES, '').replace(REF_CONTROLS, '').replace(REF_BIDI, '');
}

function referenceSanitizeInline(text: string): string {
  return referenceSanitize(text).replace(/[\t\r\n\u2028\u2029]+/g, ' ');
}

function referenceEscapeEnd(s: string, i: number): number {
  if (s.charCodeAt(i) !== 0x1b || s.charCodeAt(i + 1) !== 0x5b) return i;
  let j = i + 2;
  while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x3f) j++;
  if (j < s.length && s.charCodeAt(j) >= 0x40 && s.charCodeAt(j) <= 0x7e) j++;
  return j;
}

/** fitWidth as it was: the code-point loop for every measure, and the tail read code unit by code unit. */
function referenceFitWidth(s: string, width: number): string {
  if (width <= 0) return '';
  const { width: w, fits: room } = measureByCodePoint(s, width - 1, width);
  if (w <= width) return s;
  let fits = room;
  while (fits > 0 && s.charCodeAt(fits - 1) === 0x20) fits--;
  if (measureByCodePoint(s.slice(0, fits)).width === 0) return '…';
  const codes: string[] = [];
  for (let i = fits; i < s.length; i++) {
    const e = referenceEscapeEnd(s, i);
    if (e > i) {
      codes.push(s.slice(i, e));
      i = e - 1;
    }
  }
  return s.slice(0, fits) + codes.join('') + '…';
}

// --- Generated text. ---

/** A small seeded generator (mulberry32): the same strings on every run. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Characters that take one column whatever is around them (the fast path's set), digits and # * © ® among them: they can take VS16. */
const ONE_COLUMN = [...'abcXYZ 09#*~!-=.,', 'é', 'ŝ', '\u00a0', '\u00ad', '©', '®', '\u02ff'];

/** Anything else: controls, escapes, emoji sequences and their parts, flags, wide, zero-width, bidi, lone surrogates. */
const OTHER = [
  ...['\u0000', '\u0007', '\t', '\n', '\r', '\r\n', '\u001b', '\u001b[', '\u001b[31m', '\u001b[0m', '\u001b[1;2', '\u001b]0;t\u0007', '\u001b]8;;u\u001b\\'],
  ...['\u001bP', '\u001b(B', '\u001b ', '\u007f', '\u0085', '\u0090', '\u0098', '\u009b', '\u009b31m', '\u009c', '\u009d', '\u009d0;t\u009c', '\u009e', '\u009f'],
  ...['\u061c', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', '\u206f', '\ufff9', '\ufffb', '\u2028', '\u2029'],
  ...['\u180e', '\u2060', '\u2064', '\ufeff', '\udb40\udc41', '\udb40\udc7f', '\udb40', '\udb40\udc80'],
  ...['\u0300', '\u0301', '\u200b', '\u200c', '\u200d', '\ufe0f', '\u20e3', '1\ufe0f\u20e3', '❤', '❤\ufe0f', '☎', '💸', '👩', '🏽', '👩🏽‍💻', '👩\u200d'],
  ...['🇸', '🇱', '🇸🇱', '🇸🇱🇸', '支', '払い', '\u3000', '\uff01', '𠀀', '…', 'أمينة', '\ud800', '\udc00', '\udbff', '\ud83d'],
];

const pick = <T>(rand: () => number, from: T[]): T => from[Math.floor(rand() * from.length)]!;

/**
 * Where measure and the loop differ for `s` at each room and stop (none, when the fast path is
 * right). Compared directly, not with an expect each: half a million comparisons stay cheap.
 */
function measureDiffs(s: string, rooms: number[], stops: number[]): string[] {
  const diffs: string[] = [];
  for (const room of rooms) {
    for (const stop of stops) {
      const got = measure(s, room, stop);
      const want = measureByCodePoint(s, room, stop);
      if (!Object.is(got.width, want.width) || !Object.is(got.fits, want.fits)) diffs.push(JSON.stringify({ s, room, stop, got, want }));
    }
  }
  return diffs;
}

function oneColumn(rand: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += pick(rand, ONE_COLUMN);
  return s;
}

/** A string of one of four kinds: one-column text only, such text with one other character somewhere, a mix, a long mix. */
function generated(rand: () => number): string {
  const kind = rand();
  if (kind < 0.3) return oneColumn(rand, Math.floor(rand() * 30));
  if (kind < 0.55) return oneColumn(rand, Math.floor(rand() * 12)) + pick(rand, OTHER) + oneColumn(rand, Math.floor(rand() * 12));
  let s = '';
  const n = Math.floor(rand() * (kind < 0.9 ? 12 : 80));
  for (let i = 0; i < n; i++) s += rand() < 0.5 ? pick(rand, ONE_COLUMN) : pick(rand, OTHER);
  return s;
}

/** Room and stop values: the edges (0, negative, fractional, infinite, NaN) and whole numbers around the text's length. */
function limits(rand: () => number, s: string): number[] {
  const near = Math.floor(rand() * (s.length + 3));
  return [0, -1, 0.5, 1, 2.5, 3, 7, Infinity, -Infinity, NaN, near, near + 0.25, near - 1];
}

describe('measure: the one-column fast path gives what the code-point loop gives', () => {
  it('for every room and stop, on 3,000 generated strings', () => {
    const rand = generator(1);
    const diffs: string[] = [];
    let fast = 0;
    for (let n = 0; n < 3000; n++) {
      const s = generated(rand);
      const values = limits(rand, s);
      diffs.push(...measureDiffs(s, values, values));
      if (displayWidth(s) !== measureByCodePoint(s).width) diffs.push(JSON.stringify({ displayWidth: s }));
      if (!/[^\x20-\x7e\u00a0-\u02ff]/.test(s)) fast++;
    }
    expect(diffs.slice(0, 5)).toEqual([]);
    // The fast path was taken for a good share of them, not only the loop compared with itself.
    expect(fast).toBeGreaterThan(700);
  });

  it('on long one-column text with another character just before, at or after where the loop stops', () => {
    const rand = generator(2);
    const diffs: string[] = [];
    for (let n = 0; n < 1000; n++) {
      const stop = Math.floor(rand() * 40) + (rand() < 0.3 ? 0.5 : 0);
      const at = Math.max(0, Math.floor(stop) - 2 + Math.floor(rand() * 5));
      const s = oneColumn(rand, at) + pick(rand, OTHER) + oneColumn(rand, 200);
      diffs.push(...measureDiffs(s, [0, stop - 1, stop, Math.floor(rand() * 50), Infinity], [stop]));
    }
    expect(diffs.slice(0, 5)).toEqual([]);
  });
});

describe('fitWidth and fitWidthOf give what fitWidth gave', () => {
  it('on 3,000 generated strings, widths from -1 to 12, fractional and infinite', () => {
    const rand = generator(3);
    const diffs: string[] = [];
    for (let n = 0; n < 3000; n++) {
      const s = generated(rand);
      for (const width of [-1, 0, 0.5, 1, 2, 3, 4.5, 6, 8, 12, Infinity, NaN, Math.floor(rand() * (s.length + 2))]) {
        const want = referenceFitWidth(s, width);
        const of = fitWidthOf(s, width);
        if (fitWidth(s, width) !== want || of.text !== want || of.width !== measureByCodePoint(want).width) diffs.push(JSON.stringify({ s, width, want, of }));
      }
    }
    expect(diffs.slice(0, 5)).toEqual([]);
  });
});

describe('sanitize and sanitizeInline give what the four replaces gave', () => {
  it('on 5,000 generated strings', () => {
    const rand = generator(4);
    const diffs: string[] = [];
    for (let n = 0; n < 5000; n++) {
      const s = generated(rand);
      if (sanitize(s) !== referenceSanitize(s) || sanitizeInline(s) !== referenceSanitizeInline(s)) diffs.push(JSON.stringify(s));
    }
    expect(diffs.slice(0, 5)).toEqual([]);
  });

  it('on long runs of back-to-back sequences (more than one match of 256), with text between and after', () => {
    const rand = generator(5);
    const units = [
      '\u001b[',
      '\u001b]',
      '\u001b',
      '\u001b[1m',
      '\u001b\\',
      '\u009b',
      '\u009b1',
      '\u009d',
      '\u009c',
      '\u0007',
      '\u202e',
      '\u0001',
      '\t',
      '\r\n',
      'a',
      ' ',
      '支',
    ];
    for (let n = 0; n < 300; n++) {
      let s = '';
      for (let parts = 1 + Math.floor(rand() * 4); parts > 0; parts--) {
        s += (pick(rand, units) + (rand() < 0.5 ? pick(rand, units) : '')).repeat(Math.floor(rand() * 700));
      }
      expect(sanitize(s), JSON.stringify(s.slice(0, 40))).toBe(referenceSanitize(s));
      expect(sanitizeInline(s), JSON.stringify(s.slice(0, 40))).toBe(referenceSanitizeInline(s));
    }
  });
});

describe('tables: a line measured once is drawn as fitWidth draws it', () => {
  it('keeps a measured line that fits, and cuts one in a column 0 wide to nothing, as fitWidth(line, 0) does', () => {
    const t = new StreamedTable([{ header: '', minWidth: 1 }, { header: 'N' }], makeStyle(false), undefined);
    // The first page makes the first column 0 wide: its header and its line (a combining mark) take no column.
    expect(t.page([['\u0301', '1']])).toBe('  N\n  1\n');
    expect(t.page([['e\u0301', '22']])).toBe('e\u0301  22\n');
  });
});
