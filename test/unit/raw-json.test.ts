/**
 * service/raw-json.ts: the text of a value in a JSON document, as written: brackets and quotes
 * inside strings passed over, a key given twice found where JSON.parse keeps it (the last), an
 * escaped key read as its name, a byte order mark passed over, members and elements in order.
 */
import { describe, expect, it } from 'vitest';
import { elementTexts, memberTexts, spanAt } from '../../src/service/raw-json.js';

const at = (text: string, path: string[]) => {
  const s = spanAt(text, path);
  return s && text.slice(s.start, s.end);
};

describe('raw-json', () => {
  it('finds a value by its path, strings with brackets, quotes and escapes passed over', () => {
    const text = '\ufeff { "a" : {"s":"]}\\"[{", "n": 2.10 , "b":[1, {"x":"}"} ,"y"]} }';
    expect(at(text, ['a', 'n'])).toBe('2.10');
    expect(at(text, ['a', 'b'])).toBe('[1, {"x":"}"} ,"y"]');
    expect(elementTexts(text, spanAt(text, ['a', 'b'])!)).toEqual(['1', '{"x":"}"}', '"y"']);
    expect(at(text, ['a', 'missing'])).toBeUndefined();
    expect(at(text, ['a', 'n', 'deeper'])).toBeUndefined();
  });

  it('a key given twice: the last, as JSON.parse keeps it; an escaped key read as its name', () => {
    const text = '{"data":[1],"d\\u0061ta":[2, 12345678901234567.89]}';
    expect(at(text, ['data'])).toBe('[2, 12345678901234567.89]');
    expect(memberTexts(text, spanAt(text, [])!)).toEqual([
      { key: 'data', text: '"data":[1]' },
      { key: 'data', text: '"d\\u0061ta":[2, 12345678901234567.89]' },
    ]);
  });

  it('empty objects and arrays', () => {
    expect(elementTexts('[ ]', spanAt('[ ]', [])!)).toEqual([]);
    expect(memberTexts('{ }', spanAt('{ }', [])!)).toEqual([]);
    expect(at('{"a":{}}', ['a'])).toBe('{}');
  });
});
