import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from '../../src/output/csv.js';

describe('csvCell', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['=HYPERLINK("http://evil","x")', `"'=HYPERLINK(""http://evil"",""x"")"`],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1+1', "'\t=1+1"],
    ['\tcmd', "'\tcmd"],
  ])('neutralizes %j as %j', (value, out) => {
    expect(csvCell(value)).toBe(out);
  });

  it('neutralizes a leading carriage return (removed, as a control character)', () => {
    // CR is stripped by sanitize before the formula check, so what is left is checked.
    expect(csvCell('\r=1+1')).toBe("'=1+1");
    expect(csvCell('\rtext')).toBe('text');
  });

  it.each([
    ['plain', 'plain'],
    ['a=b', 'a=b'],
    ['1500.50', '1500.50'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['line1\nline2', '"line1\nline2"'],
    ['', ''],
  ])('quotes %j as %j', (value, out) => {
    expect(csvCell(value)).toBe(out);
  });

  it('writes null and undefined as empty, numbers as they are', () => {
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(null)).toBe('');
    expect(csvCell(1500.5)).toBe('1500.5');
    expect(csvCell(-3)).toBe("'-3");
    expect(csvCell(true)).toBe('true');
  });

  it('removes escape sequences', () => {
    expect(csvCell('\x1b[31mred\x1b]0;evil\x07')).toBe('red');
    expect(csvCell('\x1b[31m=1+1')).toBe("'=1+1");
  });
});

describe('csvRow', () => {
  it('joins cells with commas and ends with CRLF', () => {
    expect(csvRow(['a', 'b,c', '=x', undefined, 7])).toBe('a,"b,c",\'=x,,7\r\n');
  });

  it('writes an empty row as CRLF', () => {
    expect(csvRow([])).toBe('\r\n');
  });
});
