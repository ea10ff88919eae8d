/**
 * jsonFault (src/config/json-fault.ts): why a config or key file is not JSON, with its line and
 * column, never quoting the file (V8's message quotes ten characters either side of the fault,
 * a secret's when the fault is beside one).
 */
import { describe, expect, it } from 'vitest';
import { jsonFault } from '../../src/config/json-fault.js';

function fault(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return jsonFault(err, text);
  }
  throw new Error('parsed');
}

const SECRET = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';

describe('jsonFault', () => {
  it('says what and where, in words of its own', () => {
    expect(fault(`{\n  "profiles": {\n    "default": { "apiKey": ${SECRET} }\n  }\n}`)).toBe(
      'not valid JSON at line 3, column 28: a character where none may be, as in a value without its quotes',
    );
    expect(fault(`{"apiKey": ${SECRET}}`)).toBe('not valid JSON at line 1, column 12: a character where none may be, as in a value without its quotes');
    expect(fault(`{"a": x}`)).toBe('not valid JSON at line 1, column 7: a character where none may be, as in a value without its quotes');
    expect(fault(`{\n "a": "${SECRET}"x\n}`)).toBe("not valid JSON at line 2, column 41: expected ',' or '}' after property value");
    expect(fault(`{\n "a": "${SECRET}\tx"\n}`)).toBe('not valid JSON at line 2, column 40: bad control character in string literal');
    expect(fault(`{"a": "${SECRET}`)).toBe('not valid JSON at line 1, column 40: unterminated string');
    expect(fault(`{"a": 1}}`)).toBe('not valid JSON at line 1, column 9: unexpected non-whitespace character after JSON');
    expect(fault(`{"a": 1`)).toBe("not valid JSON at line 1, column 8: expected ',' or '}' after property value");
    expect(fault('')).toBe('not valid JSON: it ends before the JSON does');
    expect(fault('\ufeff{}')).toBe('it starts with a byte order mark (U+FEFF); save it as UTF-8 without one');
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
