import { describe, expect, it } from 'vitest';
import { parseServiceJson, quoteInexactNumbers } from '../../src/service/exact-json.js';

describe('parseServiceJson: numbers a double cannot hold come back as their text', () => {
  it('keeps every digit of a long amount, a long fraction, a long integer id', () => {
    expect(parseServiceJson('{"amount":12345678901234567890.12,"fee":1.10}')).toEqual({ amount: '12345678901234567890.12', fee: 1.1 });
    expect(parseServiceJson('{"amount":1469.950000000000001}')).toEqual({ amount: '1469.950000000000001' });
    expect(parseServiceJson('{"wallet_id":90071992547409931234}')).toEqual({ wallet_id: '90071992547409931234' });
    expect(parseServiceJson('[9007199254740993]')).toEqual(['9007199254740993']);
  });

  it('numbers past a double range come back as text (the schema then refuses them as amounts)', () => {
    expect(parseServiceJson('[1e400,-1e400,1e-400]')).toEqual(['1e400', '-1e400', '1e-400']);
  });

  it('leaves numbers JSON.parse keeps exactly as numbers, however many digits they are written with', () => {
    const text = '{"a":0.0000000000000001234,"b":1e21,"c":100000000000000000000000,"d":1.5e300,"e":-0,"f":1000.5000000000000000,"g":9007199254740992}';
    expect(quoteInexactNumbers(text)).toBe(text);
    expect(parseServiceJson(text)).toEqual(JSON.parse(text));
  });

  it('numbers written with an exponent come back as their text: an exponent form is no amount (docs/service.md)', () => {
    expect(parseServiceJson('{"amount":1e2,"fee":1E-2,"total":100.01,"n":38}', { exponents: 'text' })).toEqual({ amount: '1e2', fee: '1E-2', total: 100.01, n: 38 });
    expect(parseServiceJson('[1e2]')).toEqual([100]);
  });

  it('never looks inside strings, escaped quotes included', () => {
    const text = '{"s":"a\\"12345678901234567890.12","t":"1e400","n":12345678901234567890}';
    expect(parseServiceJson(text)).toEqual({ s: 'a"12345678901234567890.12', t: '1e400', n: '12345678901234567890' });
  });

  it('finds such numbers wherever JSON lets a number start: after white space and new lines, in arrays, at the top', () => {
    const pretty = '{\n  "amount" :\t12345678901234567890.12,\n  "list": [ 1e400 ,\r\n 9007199254740993],\n  "id": "TXN-BOK-5E3A1e2"\n}';
    expect(parseServiceJson(pretty)).toEqual({ amount: '12345678901234567890.12', list: ['1e400', '9007199254740993'], id: 'TXN-BOK-5E3A1e2' });
    expect(parseServiceJson('12345678901234567890')).toBe('12345678901234567890');
    expect(parseServiceJson(' -1.5E3', { exponents: 'text' })).toBe('-1.5E3');
    expect(parseServiceJson('[0,\n-0.1e2]', { exponents: 'text' })).toEqual([0, '-0.1e2']);
  });

  it('a byte order mark before the JSON is passed over', () => {
    expect(parseServiceJson('\ufeff{"status":"Successful","n":12345678901234567890}')).toEqual({ status: 'Successful', n: '12345678901234567890' });
    expect(parseServiceJson('\ufeff[1]')).toEqual([1]);
  });

  it('text that is not JSON stays an error', () => {
    expect(() => parseServiceJson('{"a":12345678901234567890')).toThrow(SyntaxError);
    expect(() => parseServiceJson('{"a":"12345678901234567890}')).toThrow(SyntaxError);
  });

  it('agrees with JSON.parse on 5,000 random documents whose numbers have up to 15 significant digits (exponent forms as their text)', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5_000; i++) {
      const digits = String(Math.floor(rand() * 1e15)).slice(0, 1 + Math.floor(rand() * 15));
      const point = Math.floor(rand() * (digits.length + 1));
      const n = `${rand() < 0.2 ? '-' : ''}${digits.slice(0, point) || '0'}${point < digits.length ? '.' + digits.slice(point) : ''}${rand() < 0.2 ? `e${Math.floor(rand() * 40) - 20}` : ''}`;
      const text = `{"x":"${n}","n":${n},"pad":"${'7'.repeat(16)}"}`;
      expect(parseServiceJson(text), text).toEqual(JSON.parse(text));
      expect(parseServiceJson(text, { exponents: 'text' }), text).toEqual(n.includes('e') ? { x: n, n, pad: '7'.repeat(16) } : JSON.parse(text));
    }
  });
});
