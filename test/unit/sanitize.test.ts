import { describe, expect, it } from 'vitest';
import { sanitize, sanitizeInline } from '../../src/output/sanitize.js';
import { escapeJsonText } from '../../src/output/json.js';

describe('sanitize', () => {
  it.each([
    ['colour', '\x1b[31mred\x1b[0m text', 'red text'],
    ['bold and 256-colour', '\x1b[1;38;5;196mA\x1b[m', 'A'],
    ['cursor movement', 'a\x1b[2Ab\x1b[10;20Hc\x1b[K', 'abc'],
    ['clear screen', '\x1b[2Jhello', 'hello'],
    ['private mode', '\x1b[?25lhidden cursor\x1b[?1049h', 'hidden cursor'],
    ['OSC title with BEL', '\x1b]0;evil\x07title', 'title'],
    ['OSC title with ST', '\x1b]2;evil\x1b\\title', 'title'],
    ['OSC 8 hyperlink', '\x1b]8;;http://x\x1b\\click\x1b]8;;\x1b\\', 'click'],
    ['OSC 52 clipboard', 'a\x1b]52;c;ZXZpbA==\x07b', 'ab'],
    ['unterminated OSC eats the rest', 'safe\x1b]0;evil title', 'safe'],
    ['DCS', 'a\x1bPq#0;2;0;0;0\x1b\\b', 'ab'],
    ['APC/PM/SOS', 'a\x1b_apc\x1b\\b\x1b^pm\x07c\x1bXsos\x1b\\d', 'abcd'],
    ['two-byte ESC Fe sequences', 'a\x1bMb\x1bDc\x1bEd', 'abcd'],
    ['lone ESC at the end', 'abc\x1b', 'abc'],
    ['8-bit CSI', 'a\x9b31mred\x9b0m', 'ared'],
    ['8-bit OSC', 'a\x9d0;evil\x9cb', 'ab'],
    ['8-bit DCS', 'a\x90data\x9cb', 'ab'],
    ['BEL', 'ding\x07dong', 'dingdong'],
    ['backspace', 'paid\x08\x08\x08\x08FAIL', 'paidFAIL'],
    ['carriage return overwrite', 'Failed\rSuccessful', 'FailedSuccessful'],
    ['NUL, vertical tab, form feed', 'a\x00b\x0bc\x0cd', 'abcd'],
    ['DEL', 'a\x7fb', 'ab'],
    ['C1 controls', 'a\x80b\x85c\x8dd\x9ae', 'abcde'],
    ['8-bit APC up to the end', 'a\x9fhidden', 'a'],
    ['RLO override', 'invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['LRE/RLE/PDF/LRO', '\u202Aa\u202Bb\u202Cc\u202Dd', 'abcd'],
    ['isolates', '\u2066a\u2067b\u2068c\u2069d', 'abcd'],
    ['marks', 'a\u200Eb\u200Fc\u061Cd', 'abcd'],
    ['deprecated format controls (symmetric swapping, shaping, digit shapes)', 'a\u206Ab\u206Bc\u206Cd\u206De\u206Ef\u206Fg', 'abcdefg'],
    ['interlinear annotation (hides the text it annotates)', 'pay\uFFF9 10\uFFFA1000\uFFFB', 'pay 101000'],
    ['RLO disguising a file name in the middle of a line', 'report-\u202Egpj.exe and more', 'report-gpj.exe and more'],
    // Drawn as nothing: "Ali\u200Bce" read as "Alice" in a table and was another name.
    ['zero-width space, word joiner, invisible operators, U+180E, a BOM inside text', 'A\u200Bli\u2060c\u2061e\u2064 K\u180Eo\uFEFFroma', 'Alice Koroma'],
    ['tag characters (a whole hidden text)', 'Alice\u{E0001}\u{E0070}\u{E0061}\u{E0079}\u{E007F}', 'Alice'],
  ])('removes %s', (_, input, out) => {
    expect(sanitize(input)).toBe(out);
  });

  it.each([
    ['accents', 'Aminata Kamara, Séverine, Ñandú, Zoë'],
    ['emoji', 'paid 💸 ✅ 👩🏽‍💻'],
    ['Arabic letters', 'أمينة كمارا'],
    ['CJK', '支払い完了'],
    ['tab and newline', 'a\tb\nc'],
    ['plain ASCII punctuation', '[31m] ~!@#$%^&*()_+{}|:"<>?'],
    ['ZWJ emoji and ZWNJ in Persian', '👩🏽‍💻 می‌خواهم'],
  ])('keeps %s', (_, input) => {
    expect(sanitize(input)).toBe(input);
  });

  it('leaves no ESC, BEL, CSI or bidi control in a nasty mix', () => {
    const nasty =
      '\x1b[31m\x1b]0;t\x07\x1b]8;;http://e\x1b\\x\x1b]8;;\x1b\\\x1bPdcs\x1b\\\x9b2J\x9d0;t\x9c\x07\x08\x7f' +
      '\x1b\x1b[\x1b]\x1b[1\x1b]0;\x1b\x07\x1b\x00[31m\u202Eok\u2066\x85\x1b[0m\r\x1b';
    const out = sanitize(nasty);
    expect(out).not.toMatch(/[\x1b\x07\x9b\x9d\x90\x9c\r\x08\x7f]/);
    expect(out).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
    expect(out).toContain('ok');
    for (const ch of out) {
      const c = ch.codePointAt(0)!;
      expect(c === 0x09 || c === 0x0a || (c >= 0x20 && c !== 0x7f && (c < 0x80 || c > 0x9f))).toBe(true);
    }
  });

  // Regression (src/output/sanitize.ts, fixed): only ESC + 0x40..0x5F is taken as a two-byte
  // sequence. ESC 7 / ESC 8 / ESC c (Fp/Fs, 0x30..0x7E) and nF sequences such as
  // ESC ( B (what `tput sgr0` prints) lose the ESC but leave their other bytes as text.
  it.each([
    ['ESC ( B from tput sgr0', '\x1b(B\x1b[mplain', 'plain'],
    ['ESC 7 / ESC 8 save and restore cursor', 'a\x1b7b\x1b8c', 'abc'],
    ['ESC c reset', 'a\x1bcb', 'ab'],
    ['ESC = keypad mode', 'a\x1b=b', 'ab'],
    ['ESC # 8 screen fill', 'a\x1b#8b', 'ab'],
  ])('removes every byte of %s', (_, input, out) => {
    expect(sanitize(input)).toBe(out);
  });

  it('is idempotent', () => {
    const input = 'a\x1b[31mb\x1b]0;x\x07c\u202Ed\x85e';
    expect(sanitize(sanitize(input))).toBe(sanitize(input));
  });
});

describe('sanitizeInline', () => {
  it('turns tabs and newlines into single spaces', () => {
    expect(sanitizeInline('a\tb\nc\r\nd\n\n\te')).toBe('a b c d e');
  });

  it('turns Unicode line and paragraph separators into spaces too', () => {
    expect(sanitizeInline('a\u2028b\u2029\nc')).toBe('a b c');
  });

  it('sanitizes too', () => {
    expect(sanitizeInline('\x1b[31mred\x1b[0m\nline\u202E')).toBe('red line');
  });

  it('keeps ordinary text', () => {
    expect(sanitizeInline('Aminata Kamara 💸 أمينة')).toBe('Aminata Kamara 💸 أمينة');
  });
});

describe('escapeJsonText', () => {
  it('writes the hidden format characters as escapes (a tag character as its two), which JSON.parse reads back to the same data', () => {
    const value = { name: 'Ali\u200Bce\u2060 K\uFEFFo\u{E0041}' };
    const out = escapeJsonText(JSON.stringify(value));
    expect(out).toBe('{"name":"Ali\\u200bce\\u2060 K\\ufeffo\\udb40\\udc41"}');
    expect(JSON.parse(out)).toEqual(value);
  });
});
