/**
 * The progress line (output/progress.ts): a bar redrawn in place at a terminal, plain
 * lines at an interval elsewhere. Time is set with vitest's fake clock so rates and
 * "time left" are exact.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Progress } from '../../src/output/progress.js';

class Sink extends Writable {
  readonly writes: string[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.writes.push(chunk.toString());
    cb();
  }
  text(): string {
    return this.writes.join('');
  }
}

const T0 = new Date('2026-03-01T12:00:00.000Z');
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});
const at = (ms: number) => vi.setSystemTime(T0.getTime() + ms);

describe('Progress at a terminal', () => {
  it('says a line above the bar: the bar erased, the line written, the bar drawn again below it', () => {
    const out = new Sink();
    const p = new Progress(out, true, 100, 'b');
    at(2000);
    p.update({ total: 10, done: 3, failed: 1, unknown: 0, inFlight: 2 });
    const bar = out.writes[0]!;
    p.say('Stopping: waiting for 2 requests in flight.');
    expect(out.writes.slice(1)).toEqual(['\r\u001b[2K', 'Stopping: waiting for 2 requests in flight.\n', bar]);
  });

  it('redraws one bar in place: counts, rate, time left; the final state stays on its own line', async () => {
    const out = new Sink();
    const p = new Progress(out, true, 100, 'batch_2026-03-01');
    at(2000);
    p.update({ total: 10, done: 3, failed: 1, unknown: 0, inFlight: 2 });
    expect(out.writes).toEqual([`\r\u001b[2Kbatch_2026-03-01 [${'█'.repeat(10)}${'░'.repeat(14)}] 4/10 · 3 done · 1 failed · 2 in flight · 2.0/s · ~3s left`]);

    // Within the interval: not redrawn.
    at(2050);
    p.update({ total: 10, done: 4, failed: 1, unknown: 0, inFlight: 2 });
    expect(out.writes).toHaveLength(1);

    at(4000);
    p.finish({ total: 10, done: 8, failed: 1, unknown: 1, inFlight: 0 });
    expect(out.writes.slice(1)).toEqual([`\r\u001b[2Kbatch_2026-03-01 [${'█'.repeat(24)}] 10/10 · 8 done · 1 failed · 1 unknown · 0 in flight · 2.5/s · ~0s left`, '\n']);
  });

  it('without a label, before anything finished: an empty bar, 0.0/s and no time left', () => {
    const out = new Sink();
    const p = new Progress(out, true);
    at(500);
    p.update({ total: 4, done: 0, failed: 0, unknown: 0, inFlight: 4 });
    expect(out.text()).toBe(`\r\u001b[2K[${'░'.repeat(24)}] 0/4 · 0 done · 0 failed · 4 in flight · 0.0/s`);
  });

  it('an empty run draws a full bar; finish with nothing drawn before still ends the line', () => {
    const out = new Sink();
    new Progress(out, true).finish({ total: 0, done: 0, failed: 0, unknown: 0, inFlight: 0 });
    expect(out.text()).toBe(`\r\u001b[2K[${'█'.repeat(24)}] 0/0 · 0 done · 0 failed · 0 in flight · 0.0/s\n`);
  });
});

describe('Progress elsewhere (a pipe or a file)', () => {
  it('plain lines, the first only after one interval; finish always prints the final line', () => {
    const out = new Sink();
    const p = new Progress(out, false, 2000, 'batch_x');
    at(1000);
    p.update({ total: 100, done: 10, failed: 0, unknown: 0, inFlight: 5 });
    expect(out.writes).toEqual([]);
    at(2000);
    p.update({ total: 100, done: 20, failed: 0, unknown: 0, inFlight: 5 });
    expect(out.writes).toEqual(['progress: 20/100, 20 done, 0 failed, 5 in flight, 10.0/s, ~8s left (batch_x)\n']);
    at(2500);
    p.finish({ total: 100, done: 95, failed: 3, unknown: 2, inFlight: 0 });
    expect(out.writes.slice(1)).toEqual(['progress: 100/100, 95 done, 3 failed, 2 unknown, 0 in flight, 40.0/s, ~0s left (batch_x)\n']);
    expect(out.text()).not.toContain('\u001b');
  });

  it('the default interval is 2 s off a terminal', () => {
    const out = new Sink();
    const p = new Progress(out, false);
    at(1999);
    p.update({ total: 2, done: 1, failed: 0, unknown: 0, inFlight: 1 });
    expect(out.writes).toEqual([]);
    at(2000);
    p.update({ total: 2, done: 1, failed: 0, unknown: 0, inFlight: 1 });
    expect(out.writes).toEqual(['progress: 1/2, 1 done, 0 failed, 1 in flight, 0.5/s, ~2s left\n']);
  });
});
