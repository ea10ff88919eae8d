/**
 * jsonFault (src/config/json-fault.ts): why a file payctl reads is not JSON, with its line and
 * column and the character there, never quoting the file (V8's message quotes ten characters
 * either side of the fault, a secret's when the fault is beside one; it names no line or column,
 * only an offset, and for an unexpected token not even that), and where the file may hold a
 * secret naming no letter or digit of it.
 */
import { describe, expect, it } from 'vitest';
import { jsonFault, textFault } from '../../src/config/json-fault.js';

function fault(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return jsonFault(err, text);
  }
  throw new Error('parsed');
}

const SECRET = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
const UNQUOTED = 'a character where none may be, as in a value without its quotes';

describe('jsonFault', () => {
  it('says what and where, in words of its own', () => {
    expect(fault(`{\n  "profiles": {\n    "default": { "apiKey": ${SECRET} }\n  }\n}`)).toBe(`not valid JSON at line 3, column 28, a letter: ${UNQUOTED}`);
    expect(fault(`{"apiKey": ${SECRET}}`)).toBe(`not valid JSON at line 1, column 12, a letter: ${UNQUOTED}`);
    expect(fault(`{"a": x}`)).toBe(`not valid JSON at line 1, column 7, a letter: ${UNQUOTED}`);
    expect(fault(`{\n "a": "${SECRET}"x\n}`)).toBe("not valid JSON at line 2, column 41, a letter: expected ',' or '}' after property value");
    expect(fault(`{\n "a": "${SECRET}\tx"\n}`)).toBe('not valid JSON at line 2, column 40, a tab (U+0009): bad control character in string literal');
    expect(fault(`{"a": "${SECRET}`)).toBe('not valid JSON at line 1, column 40 (its end): unterminated string');
    expect(fault(`{"a": 1}}`)).toBe("not valid JSON at line 1, column 9, the character '}': unexpected non-whitespace character after JSON");
    expect(fault(`{"a": 1`)).toBe("not valid JSON at line 1, column 8 (its end): expected ',' or '}' after property value");
    expect(fault('')).toBe('not valid JSON: it ends before the JSON does');
    expect(fault('\ufeff{}')).toBe('it starts with a byte order mark (U+FEFF); save it as UTF-8 without one');
  });

  it('finds the character V8 names no place for: the first one of its kind is not always it', () => {
    // V8: "Unexpected token 'x', "{"x": x}" is not valid JSON"; the x of "x" was taken for it.
    expect(fault('{"x": x}')).toBe(`not valid JSON at line 1, column 7, a letter: ${UNQUOTED}`);
    expect(fault('{"a":tru}')).toBe(`not valid JSON at line 1, column 9, the character '}': ${UNQUOTED}`);
    const long = `{\n  "note": "${'y'.repeat(40)}",\n  "z": zz\n}`;
    expect(fault(long)).toBe(`not valid JSON at line 3, column 8, a letter: ${UNQUOTED}`);
    // Columns in characters, as an editor counts them (a character past U+FFFF is one).
    expect(fault('{"a": "\u{1F600}" x}')).toBe("not valid JSON at line 1, column 11, a letter: expected ',' or '}' after property value");
  });

  it('a file without secrets (a policy, a plan, a batch line): the character named, whatever it is; the usual causes said', () => {
    const policy = (text: string) => textFault(text, { quote: true });
    expect(policy('{"SLE": 250000x}')).toBe("not valid JSON at line 1, column 15, the character 'x': expected ',' or '}' after property value");
    expect(policy('{"a": 01}')).toBe("not valid JSON at line 1, column 8, the character '1': unexpected number");
    expect(policy('{"a": \u201cx\u201d}')).toBe(`not valid JSON at line 1, column 7, the character '\u201c' (U+201C): ${UNQUOTED}`);
    // Two members pasted as whole objects, the comma between two left out, one left after the last.
    expect(policy('{"members": {\n  {"A":{}}\n}}')).toBe(
      "not valid JSON at line 2, column 3, the character '{': expected property name or '}' (an object pasted whole where its entries go?)",
    );
    expect(policy('{"members": {\n  "A": {}\n  "B": {}\n}}')).toBe(
      "not valid JSON at line 3, column 3, the character '\"': expected ',' or '}' after property value (a comma missing before it?)",
    );
    expect(policy('{"a": [1, 2,\n]}')).toBe(`not valid JSON at line 2, column 1, the character ']': ${UNQUOTED}`);
    expect(policy('{"a": 1,\n}')).toBe("not valid JSON at line 2, column 1, the character '}': expected double-quoted property name (a comma after the last entry?)");
    expect(textFault('{"a":1 x}', { quote: true, oneLine: true })).toBe("not valid JSON at column 8, the character 'x': expected ',' or '}' after property value");
    expect(policy('{"a": 1}')).toBeUndefined();
  });

  it('never quotes the file: a secret beside any fault (each one-character damage of a profile file: about 700) shows none of its characters', () => {
    const text = JSON.stringify({ profiles: { default: { baseUrl: 'https://api.bokumonie.com/v2', apiKey: SECRET, webhookSecret: 'whsec_Zq81nB0pXe' } } }, null, 2);
    const secretPart = SECRET.slice('sk_live_'.length);
    let faults = 0;
    for (let i = 0; i < text.length; i++) {
      for (const edit of ['', 'x', '"', ',', '}', '\\', '\t']) {
        const damaged = text.slice(0, i) + edit + text.slice(i + (edit ? 0 : 1));
        let said: string;
        try {
          JSON.parse(damaged);
          continue;
        } catch (err) {
          said = jsonFault(err, damaged);
        }
        faults++;
        for (let k = 0; k + 3 <= secretPart.length; k++) expect(said).not.toContain(secretPart.slice(k, k + 3));
        expect(said).not.toContain('Zq81');
      }
    }
    expect(faults).toBeGreaterThan(600);
  });
});
