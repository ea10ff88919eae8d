/**
 * stdout written straight to its descriptor (src/output/direct-stdout.ts): the first
 * kilobytes when it is certainly no terminal, the stream for everything else, in order, and
 * every refusal (EAGAIN, EPIPE, partial writes) handed to the stream with the bytes not yet
 * written. The descriptor here is a recording fake; the built binary writes to real pipes and
 * files in test/e2e/direct-stdout.test.ts.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { certainlyNotTerminal, DIRECT_BYTES, directStdout } from '../../src/output/direct-stdout.js';

function errno(code: string): Error {
  return Object.assign(new Error(code), { code });
}

/** A descriptor that records what it took, taking at most `room` bytes a call, or throwing `refuse` from the n-th call on. */
function fakeFd(o: { room?: number; refuseFrom?: number; refuse?: string } = {}) {
  const taken: Buffer[] = [];
  let calls = 0;
  return {
    taken,
    text: () => Buffer.concat(taken).toString('utf8'),
    writeSync: (buf: Uint8Array, offset: number, length: number): number => {
      calls += 1;
      if (o.refuseFrom !== undefined && calls >= o.refuseFrom) throw errno(o.refuse ?? 'EAGAIN');
      const n = Math.min(length, o.room ?? length);
      taken.push(Buffer.from(buf.subarray(offset, offset + n)));
      return n;
    },
  };
}

/** The stream side: made on first call, counted, its bytes kept. */
function fakeStream(extra: Record<string, unknown> = {}) {
  let made = 0;
  const chunks: Buffer[] = [];
  const stream = Object.assign(new PassThrough(), extra);
  stream.on('data', (c: Buffer) => chunks.push(c));
  return {
    made: () => made,
    text: () => Buffer.concat(chunks).toString('utf8'),
    make: () => {
      made += 1;
      return stream;
    },
  };
}

const now = (fn: () => void) => fn();

/** A recording descriptor, a stream, and directStdout over them (direct unless said). */
function setup(o: { direct?: boolean; fd?: Parameters<typeof fakeFd>[0]; stream?: Record<string, unknown>; onError?: (e: NodeJS.ErrnoException) => void } = {}) {
  const fd = fakeFd(o.fd);
  const st = fakeStream(o.stream);
  const out = directStdout({ direct: o.direct ?? true, writeSync: fd.writeSync, stream: st.make, defer: now, onError: o.onError });
  return { fd, st, out };
}

describe('directStdout', () => {
  it('writes a short output straight to the descriptor and never makes the stream', async () => {
    const { fd, st, out } = setup();
    let called = false;
    expect(out.write('{"wallets":[]}\n', () => (called = true))).toBe(true);
    expect(out.write(Buffer.from('ünïcode ✓\n'))).toBe(true);
    expect(out.isTTY).toBe(false);
    expect(fd.text()).toBe('{"wallets":[]}\nünïcode ✓\n');
    expect(called).toBe(true);
    expect(st.made()).toBe(0);
    await Promise.resolve();
  });

  it('finishes a partial write on the descriptor (a write(2) that took part of the chunk)', () => {
    const { fd, st, out } = setup({ fd: { room: 3 } });
    out.write('0123456789');
    expect(fd.text()).toBe('0123456789');
    expect(fd.taken.map((b) => b.length)).toEqual([3, 3, 3, 1]);
    expect(st.made()).toBe(0);
  });

  it('goes to the stream after DIRECT_BYTES, in order, and stays there', async () => {
    const { fd, st, out } = setup();
    const line = 'x'.repeat(1023) + '\n';
    for (let i = 0; i < DIRECT_BYTES / 1024; i++) out.write(line);
    expect(st.made()).toBe(0);
    out.write('after the budget\n');
    out.write('short again\n');
    await new Promise((r) => setImmediate(r));
    expect(fd.text()).toBe(line.repeat(DIRECT_BYTES / 1024));
    expect(st.text()).toBe('after the budget\nshort again\n');
    expect(st.made()).toBe(1);
  });

  it('hands a chunk larger than what is left to the stream whole', async () => {
    const { fd, st, out } = setup();
    out.write('head\n');
    const big = 'y'.repeat(DIRECT_BYTES);
    out.write(big);
    await new Promise((r) => setImmediate(r));
    expect(fd.text()).toBe('head\n');
    expect(st.text()).toBe(big);
  });

  it.each(['EAGAIN', 'EPIPE', 'EIO'])('on %s hands the bytes not yet written to the stream, which reports it', async (code) => {
    // The second call refuses, after the first took 4 bytes of the chunk.
    const { fd, st, out } = setup({ fd: { room: 4, refuseFrom: 2, refuse: code } });
    let called = false;
    out.write('abcdefghij', () => (called = true));
    out.write('next\n');
    await new Promise((r) => setImmediate(r));
    expect(fd.text()).toBe('abcd');
    expect(st.text()).toBe('efghijnext\n');
    expect(called).toBe(true);
  });

  it('is the stream from the start when stdout may be a terminal: its isTTY, its columns, its events', () => {
    const { fd, st, out } = setup({ direct: false, stream: { isTTY: true, columns: 91 } });
    expect(st.made()).toBe(0); // made on first need, not before
    expect(out.isTTY).toBe(true);
    expect((out as unknown as { columns: number }).columns).toBe(91);
    out.write('to the terminal\n');
    expect(fd.taken).toEqual([]);
    expect(st.made()).toBe(1);
  });

  it('makes the stream for anything but write and isTTY, and writes through it from then on', async () => {
    const { fd, st, out } = setup();
    out.write('before\n');
    out.once('drain', () => {});
    out.write('after\n');
    await new Promise((r) => setImmediate(r));
    expect(fd.text()).toBe('before\n');
    expect(st.text()).toBe('after\n');
  });

  it('an empty write makes no stream: its callback is called, nothing written (cli.ts asks so at the end of every run)', () => {
    for (const direct of [true, false]) {
      const { fd, st, out } = setup({ direct });
      let called = false;
      expect(out.write('', () => (called = true))).toBe(true);
      expect(out.write(new Uint8Array(0))).toBe(true);
      expect(called).toBe(true);
      expect(st.made()).toBe(0);
      expect(fd.taken).toEqual([]);
    }
  });

  it('tells onError of what the stream reports, listening from when the stream is made', async () => {
    const seen: string[] = [];
    const { st, out } = setup({ fd: { refuseFrom: 1, refuse: 'ENOSPC' }, onError: (e) => seen.push(String(e.code)) });
    expect(out.write('')).toBe(true);
    expect(st.made()).toBe(0);
    out.write('refused by the descriptor\n'); // handed to the stream, made now
    expect(st.made()).toBe(1);
    st.make().emit('error', errno('ENOSPC'));
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['ENOSPC']);
  });
});

describe('certainlyNotTerminal', () => {
  const stat = (kind: 'fifo' | 'file' | 'socket' | 'char', rdev = 0) => ({
    isFIFO: () => kind === 'fifo',
    isFile: () => kind === 'file',
    isSocket: () => kind === 'socket',
    isCharacterDevice: () => kind === 'char',
    rdev,
  });

  it('says so for pipes, files and sockets anywhere, and for /dev/null (1,3), /dev/zero (1,5) on Linux', () => {
    for (const k of ['fifo', 'file', 'socket'] as const) expect(certainlyNotTerminal(stat(k), 'darwin')).toBe(true);
    expect(certainlyNotTerminal(stat('char', 0x103), 'linux')).toBe(true);
    expect(certainlyNotTerminal(stat('char', 0x105), 'linux')).toBe(true);
  });

  it('leaves terminals and other devices to isatty: /dev/tty (5,0), a pty (136,2), /dev/null off Linux', () => {
    expect(certainlyNotTerminal(stat('char', 0x500), 'linux')).toBe(false);
    expect(certainlyNotTerminal(stat('char', (136 << 8) | 2), 'linux')).toBe(false);
    expect(certainlyNotTerminal(stat('char', 0x400), 'linux')).toBe(false);
    expect(certainlyNotTerminal(stat('char', 0x103), 'darwin')).toBe(false);
  });
});
