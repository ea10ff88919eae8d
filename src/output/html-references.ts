/**
 * HTML character references as a browser reads them, for finding a secret a proxy's HTML page
 * echoed back with some of its characters written as references (output/secret-reading.ts):
 * numeric ones, decimal and hex in either letter case (`&#95;`, `&#x5f;`, `&#X5F;`, the `;`
 * left out too, as browsers read them), and the named ones for ASCII punctuation and for white
 * space (`&lowbar;`, `&amp;`, `&nbsp;`; the name's case as HTML spells it). Another name is
 * left as written.
 */

/**
 * A character reference: `&#` and decimal digits, `&#x` and hex digits (each with an optional
 * `;`), or `&`, a name and `;`. Linear on any text: each try starts at an `&` and scans at most
 * the digits or 32 name characters after it.
 */
export const REFERENCES = /&(?:#(?:[xX][0-9A-Fa-f]+|[0-9]+);?|[A-Za-z][A-Za-z0-9]{0,31};)/g;

/** The named references a page may write a secret's punctuation or white space with (HTML's names). */
const NAMED: Record<string, string> = {
  Tab: '\t',
  NewLine: '\n',
  excl: '!',
  quot: '"',
  QUOT: '"',
  num: '#',
  dollar: '$',
  percnt: '%',
  amp: '&',
  AMP: '&',
  apos: "'",
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  lt: '<',
  LT: '<',
  equals: '=',
  gt: '>',
  GT: '>',
  quest: '?',
  commat: '@',
  lsqb: '[',
  lbrack: '[',
  bsol: '\\',
  rsqb: ']',
  rbrack: ']',
  Hat: '^',
  lowbar: '_',
  UnderBar: '_',
  grave: '`',
  DiacriticalGrave: '`',
  lcub: '{',
  lbrace: '{',
  verbar: '|',
  vert: '|',
  VerticalLine: '|',
  rcub: '}',
  rbrace: '}',
  nbsp: '\u00a0',
  NonBreakingSpace: '\u00a0',
  ensp: '\u2002',
  emsp: '\u2003',
  emsp13: '\u2004',
  emsp14: '\u2005',
  numsp: '\u2007',
  puncsp: '\u2008',
  thinsp: '\u2009',
  ThinSpace: '\u2009',
  hairsp: '\u200a',
  VeryThinSpace: '\u200a',
  MediumSpace: '\u205f',
  shy: '\u00ad',
  ZeroWidthSpace: '\u200b',
  NoBreak: '\u2060',
  zwnj: '\u200c',
  zwj: '\u200d',
  lrm: '\u200e',
  rlm: '\u200f',
};

/**
 * The character a reference (a match of REFERENCES) stands for; undefined for a name not in
 * the table. A number that is no character (0, a surrogate, past U+10FFFF) reads as U+FFFD, as
 * a browser shows it.
 */
export function referenceChar(ref: string): string | undefined {
  if (ref[1] !== '#') return Object.hasOwn(NAMED, ref.slice(1, -1)) ? NAMED[ref.slice(1, -1)] : undefined;
  const hex = ref[2] === 'x' || ref[2] === 'X';
  const digits = ref.slice(hex ? 3 : 2).replace(';', '');
  // More digits than any character needs: none (parseInt would round it).
  const n = digits.replace(/^0+/, '').length > 8 ? Infinity : parseInt(digits, hex ? 16 : 10);
  return n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) ? '\ufffd' : String.fromCodePoint(n);
}
