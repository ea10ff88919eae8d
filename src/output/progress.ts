/**
 * Progress of a long run on stderr: a redrawn bar at a terminal (done, failed, in
 * flight, rate, time left), plain periodic lines otherwise.
 */
export interface ProgressStats {
  total: number;
  done: number;
  failed: number;
  unknown: number;
  inFlight: number;
}

export class Progress {
  readonly #stream: NodeJS.WritableStream;
  readonly #tty: boolean;
  readonly #started = Date.now();
  readonly #intervalMs: number;
  readonly #label: string | undefined;
  readonly #live: LiveLine;
  #last = 0;

  /** `label` names the run (a batch id): after plain lines, before the bar. */
  constructor(stream: NodeJS.WritableStream, tty: boolean, intervalMs = tty ? 100 : 2000, label?: string) {
    this.#label = label;
    this.#stream = stream;
    this.#tty = tty;
    this.#intervalMs = intervalMs;
    this.#live = new LiveLine(stream, tty);
    // Plain lines start after one interval: a short run prints only its final line.
    if (!tty) this.#last = Date.now();
  }

  #line(s: ProgressStats): string {
    const elapsed = (Date.now() - this.#started) / 1000;
    const finished = s.done + s.failed + s.unknown;
    const rate = elapsed > 0 ? finished / elapsed : 0;
    const left = rate > 0 ? Math.ceil((s.total - finished) / rate) : undefined;
    const parts = [
      `${finished}/${s.total}`,
      `${s.done} done`,
      `${s.failed} failed`,
      ...(s.unknown ? [`${s.unknown} unknown`] : []),
      `${s.inFlight} in flight`,
      `${rate.toFixed(1)}/s`,
      left === undefined ? '' : `~${left}s left`,
    ].filter(Boolean);
    if (!this.#tty) return `progress: ${parts.join(', ')}${this.#label ? ` (${this.#label})` : ''}`;
    const width = 24;
    const filled = s.total ? Math.round((finished / s.total) * width) : width;
    return `${this.#label ? `${this.#label} ` : ''}[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${parts.join(' · ')}`;
  }

  update(s: ProgressStats, force = false): void {
    const now = Date.now();
    if (!force && now - this.#last < this.#intervalMs) return;
    this.#last = now;
    if (this.#tty) this.#live.set(this.#line(s));
    else this.#stream.write(this.#line(s) + '\n');
  }

  /** Final state; at a terminal the bar stays on its own line. */
  finish(s: ProgressStats): void {
    this.update(s, true);
    this.#live.keep();
  }
}

/**
 * One status line redrawn in place on a terminal (the bar above, `Waiting for payout …:
 * Pending (12 s)`); off a terminal it writes nothing.
 */
export class LiveLine {
  readonly #stream: NodeJS.WritableStream;
  readonly #tty: boolean;
  #drawn = false;

  constructor(stream: NodeJS.WritableStream, tty: boolean) {
    this.#stream = stream;
    this.#tty = tty;
  }

  set(line: string): void {
    if (!this.#tty) return;
    this.#stream.write(`\r\u001b[2K${line}`);
    this.#drawn = true;
  }

  /** Leaves the line as drawn and moves to the next one. */
  keep(): void {
    if (!this.#drawn) return;
    this.#stream.write('\n');
    this.#drawn = false;
  }

  /** Erases the line, so that what follows starts on a clean one. */
  clear(): void {
    if (!this.#drawn) return;
    this.#stream.write('\r\u001b[2K');
    this.#drawn = false;
  }
}
