import { describe, expect, it } from 'vitest';
import { csvCell, csvRow, isFormula } from '../../src/output/csv.js';
import { cpuMs } from '../helpers/cpu.js';

describe('csvCell', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['=HYPERLINK("http://evil","x")', `"'=HYPERLINK(""http://evil"",""x"")"`],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1+1', "'\t=1+1"],
    ['\tcmd', "'\tcmd"],
    // + is neutralized unless a plain number follows (digits and spaces, or a decimal).
    ['+1+1', "'+1+1"],
    ['+SUM(A1)', "'+SUM(A1)"],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ['+232+76000001', "'+232+76000001"],
    ['+232-76000001', "'+232-76000001"],
    ['+1e5', "'+1e5"],
    ['+', "'+"],
    ['+ ', "'+ "],
    ['+232 76 ABC', "'+232 76 ABC"],
    ['+23276000001\tx', "'+23276000001\tx"],
    ['+23276000001\n=1', `"'+23276000001\n=1"`],
    // - is neutralized unless it is a plain negative decimal number.
    ['-1+1', "'-1+1"],
    ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
    ['-SUM(A1)', "'-SUM(A1)"],
    ['-', "'-"],
    ['-.5', "'-.5"],
    ['-1.', "'-1."],
    ['-1.00.1', "'-1.00.1"],
    ['-1,000.00', `"'-1,000.00"`],
    ['-1 2', "'-1 2"],
    ['-1e5', "'-1e5"],
    ['-1.00\n=1', `"'-1.00\n=1"`],
    ['--1', "'--1"],
  ])('neutralizes %j as %j', (value, out) => {
    expect(csvCell(value)).toBe(out);
  });

  it.each([
    ['+23276000001', '+23276000001'],
    ['+232 76 000 001', '+232 76 000 001'],
    ['+ 232 76 000 001', '+ 232 76 000 001'],
    ['+1', '+1'],
    ['+1.50', '+1.50'],
    ['-1', '-1'],
    ['-1.00', '-1.00'],
    ['-1500.50', '-1500.50'],
    ['-0.001', '-0.001'],
  ])('keeps the plain number %j as %j', (value, out) => {
    expect(csvCell(value)).toBe(out);
    expect(isFormula(value)).toBe(false);
  });

  it('checks a phone number after sanitizing: escapes cannot hide a formula behind +digits', () => {
    expect(csvCell('+232\x1b[31m76')).toBe('+23276');
    expect(csvCell('+232\x1b]0;x\x07=1')).toBe("'+232=1");
    expect(csvCell('\x1b[31m+232+1')).toBe("'+232+1");
  });

  it('decides in linear time on 1 MB of digits that end in a formula', () => {
    const t0 = cpuMs();
    expect(isFormula('+' + '1 '.repeat(500_000) + 'x')).toBe(true);
    expect(isFormula('+' + ' '.repeat(1_000_000) + 'x')).toBe(true);
    expect(isFormula('-' + '1'.repeat(1_000_000) + '.x')).toBe(true);
    expect(isFormula('-' + '1'.repeat(1_000_000) + '.' + '1'.repeat(1_000_000))).toBe(false);
    expect(cpuMs() - t0).toBeLessThan(1000);
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
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell(-1e-7)).toBe("'-1e-7");
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
