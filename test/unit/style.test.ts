import { describe, expect, it, vi } from 'vitest';
import { loadColor, makeStyle, statusColor, wantsColor } from '../../src/output/style.js';

type Opts = Parameters<typeof wantsColor>[0];
const base: Opts = { flag: true, json: false, isTTY: true, env: {} };
const w = (over: Partial<Opts>) => wantsColor({ ...base, ...over });

describe('wantsColor', () => {
  it('colours a terminal by default', () => {
    expect(w({})).toBe(true);
    expect(w({ env: { TERM: 'xterm-256color' } })).toBe(true);
  });

  it('not on a non-terminal', () => {
    expect(w({ isTTY: false })).toBe(false);
  });

  it('never with --no-color or --json, even with FORCE_COLOR', () => {
    expect(w({ flag: false })).toBe(false);
    expect(w({ json: true })).toBe(false);
    expect(w({ flag: false, env: { FORCE_COLOR: '1' } })).toBe(false);
    expect(w({ json: true, env: { FORCE_COLOR: '1' } })).toBe(false);
  });

  it('NO_COLOR (non-empty) wins, even over FORCE_COLOR', () => {
    expect(w({ env: { NO_COLOR: '1' } })).toBe(false);
    expect(w({ env: { NO_COLOR: 'anything' } })).toBe(false);
    expect(w({ env: { NO_COLOR: '1', FORCE_COLOR: '1' } })).toBe(false);
  });

  it('an empty NO_COLOR is ignored', () => {
    expect(w({ env: { NO_COLOR: '' } })).toBe(true);
  });

  it('FORCE_COLOR=1 colours a non-terminal and a dumb terminal', () => {
    expect(w({ isTTY: false, env: { FORCE_COLOR: '1' } })).toBe(true);
    expect(w({ isTTY: false, env: { FORCE_COLOR: 'true' } })).toBe(true);
    expect(w({ isTTY: true, env: { FORCE_COLOR: '3', TERM: 'dumb' } })).toBe(true);
  });

  it('FORCE_COLOR=0 or false turns colour off on a terminal', () => {
    expect(w({ env: { FORCE_COLOR: '0' } })).toBe(false);
    expect(w({ env: { FORCE_COLOR: 'false' } })).toBe(false);
  });

  it('TERM=dumb turns colour off', () => {
    expect(w({ env: { TERM: 'dumb' } })).toBe(false);
  });
});

describe('makeStyle and statusColor', () => {
  it('a no-colour style adds no escape codes', () => {
    const plain = makeStyle(false);
    expect(plain.red('x')).toBe('x');
    expect(statusColor(plain, 'Pending')).toBe('Pending');
  });

  it('makeStyle(true) needs chalk loaded first', async () => {
    // A fresh copy of the module: other test files in this worker may have loaded chalk already.
    vi.resetModules();
    const fresh = await import('../../src/output/style.js');
    expect(() => fresh.makeStyle(true)).toThrow(/loadColor/);
    await fresh.loadColor();
    expect(fresh.makeStyle(true).red('x')).toBe('\x1b[31mx\x1b[39m');
  });

  it('a colour style colours statuses: Pending yellow, Successful green, Failed red', async () => {
    await loadColor();
    const c = makeStyle(true);
    expect(statusColor(c, 'Pending')).toBe('\x1b[33mPending\x1b[39m');
    expect(statusColor(c, 'Successful')).toBe('\x1b[32mSuccessful\x1b[39m');
    expect(statusColor(c, 'Failed')).toBe('\x1b[31mFailed\x1b[39m');
    expect(statusColor(c, 'Reversed')).toBe('Reversed');
  });
});
