/**
 * Characters typed text must not hide (a payout's fields, request.ts, and ids given to options,
 * filters.ts idOption): controls, and invisible or direction-changing ones. Apart from request.ts,
 * which loads node:crypto, so that a read (`balances --wallet`) checks its option without it.
 */

// Control characters have no place in a name, account or note.
// eslint-disable-next-line no-control-regex
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/**
 * Invisible and direction-changing characters (bidi embeddings, overrides and isolates,
 * zero-width characters, the soft hyphen, the BOM, and the line and paragraph separators
 * U+2028/U+2029, which some terminals show as nothing and others as a line break): a name
 * or account holding U+202E is shown reversed in a confirmation, so what a person approves
 * is not what is paid.
 */
export const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

// eslint-disable-next-line no-control-regex
const NOT_ASCII = /[^\u0000-\u007f]/;
/**
 * Beyond INVISIBLE: every other default-ignorable code point, which a terminal draws as nothing
 * (the tag characters U+E0000-E007F, a surrogate pair each, which carry a whole hidden text: a
 * note "Pay \u{E0073}\u{E0065}...salary" read "Pay salary" on the approver's screen and was sent
 * with the hidden words; variation selectors; the Hangul fillers U+115F, U+1160, U+3164,
 * U+FFA0), and the blank braille pattern U+2800, which draws as a space. Made on first need: a
 * property class costs every start that makes it, and ASCII text never needs it.
 */
let ignorable: RegExp | undefined;

/** The first control-free character of `v` that a person cannot see (INVISIBLE's, or any default-ignorable one), or undefined. */
export function hiddenCharacter(v: string): string | undefined {
  const bidiOrZeroWidth = INVISIBLE.exec(v)?.[0];
  if (bidiOrZeroWidth !== undefined || !NOT_ASCII.test(v)) return bidiOrZeroWidth;
  return (ignorable ??= /[\p{Default_Ignorable_Code_Point}\u2800]/u).exec(v)?.[0];
}

/** A character as a person can look it up: `U+200B`, `U+E0041`. */
export function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Typed text's control, invisible or direction-changing characters as problems: the one rule for a payout's fields and for ids given to options (filters.ts idOption). */
export function unseenCharacters(v: string): string[] {
  const hidden = hiddenCharacter(v);
  const control = CONTROL.test(v) ? ['must not contain control characters'] : [];
  return hidden === undefined ? control : [...control, `must not contain invisible or direction-changing characters (${codePoint(hidden)})`];
}
