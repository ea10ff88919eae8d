/**
 * Progress of a long run on stderr: a redrawn bar at a terminal (done, failed, in
 * flight, rate, time left), plain periodic lines otherwise. At a terminal the bar line is
 * kept narrower than the screen, so that each redraw replaces it instead of leaving a
 * wrapped line behind: the bar shrinks, the least needed counters go, the label is cut.
 * Nothing is drawn until a row is in flight: a rerun whose rows were all accepted earlier
 * (settled at once, none sent) shows no bar, and leaves no unfinished line for what follows.
 * Plain lines and lines said during the run go through `say` (the run's Log, which makes them
 * JSON lines under --json, where the caller draws no bar).
 */
import { displayWidth, fitWidth } from './table.js';

export interface ProgressStats {
  total: number;
  done: number;
  failed: number;
  unknown: number;
  inFlight: number;
}

export class Progress {
  readonly #tty: boolean;
  readonly #started = Date.now();
  readonly #intervalMs: number;
  readonly #label: string | undefined;
  readonly #live: LiveLine;
  readonly #columns: () => number | undefined;
  readonly #say: (line: string) => void;
  #last = 0;
  /** A row has been in flight: from then on there is something to show. */
  #sending = false;
  /** What was shown last (redrawn after a line said above the bar). */
  #shown: ProgressStats | undefined;

  /**
   * `label` names the run (a batch id): after plain lines, before the bar. `columns` gives
   * the terminal's width at each redraw (undefined: not known, the full line). `say` writes a
   * line for people (default: the line on `stream`).
   */
  constructor(
    stream: NodeJS.WritableStream,
    tty: boolean,
    intervalMs = tty ? 250 : 2000,
    label?: string,
    columns: () => number | undefined = () => undefined,
    say: (line: string) => void = (line) => void stream.write(line + '\n'),
  ) {
    this.#label = label;
    this.#tty = tty;
    this.#intervalMs = intervalMs;
    this.#columns = columns;
    this.#say = say;
    this.#live = new LiveLine(stream, tty, columns);
    // Plain lines start after one interval: a short run prints only its final line.
    if (!tty) this.#last = Date.now();
  }

  #line(s: ProgressStats): string {
    const elapsed = (Date.now() - this.#started) / 1000;
    const finished = s.done + s.failed + s.unknown;
    const rate = elapsed > 0 ? finished / elapsed : 0;
    const left = rate > 0 ? Math.ceil((s.total - finished) / rate) : undefined;
    if (!this.#tty) {
      const parts = [
        `${finished}/${s.total}`,
        `${s.done} done`,
        `${s.failed} failed`,
        ...(s.unknown ? [`${s.unknown} unknown`] : []),
        `${s.inFlight} in flight`,
        `${rate.toFixed(1)}/s`,
        ...(left === undefined ? [] : [`~${left}s left`]),
      ];
      return `progress: ${parts.join(', ')}${this.#label ? ` (${this.#label})` : ''}`;
    }
    const parts: BarPart[] = [
      { text: `${finished}/${s.total}` },
      { text: `${s.done} done`, drop: 4 },
      { text: `${s.failed} failed` },
      ...(s.unknown ? [{ text: `${s.unknown} unknown` }] : []),
      { text: `${s.inFlight} in flight`, drop: 2 },
      { text: `${rate.toFixed(1)}/s`, drop: 1 },
      ...(left === undefined ? [] : [{ text: `~${left}s left`, drop: 3 }]),
    ];
    return barLine(this.#label, s.total ? finished / s.total : 1, parts, this.#columns());
  }

  update(s: ProgressStats, force = false): void {
    if (s.inFlight > 0) this.#sending = true;
    if (!force && !this.#sending) return;
    const now = Date.now();
    if (!force && now - this.#last < this.#intervalMs) return;
    this.#last = now;
    this.#shown = s;
    if (this.#tty) this.#live.set(this.#line(s));
    else this.#say(this.#line(s));
  }

  /** A line for a person said while the run goes on: at a terminal, above the bar, which is drawn again below it. */
  say(line: string): void {
    this.#live.clear();
    this.#say(line);
    if (this.#tty && this.#shown) this.#live.set(this.#line(this.#shown));
  }

  /** Final state; at a terminal the bar stays on its own line. */
  finish(s: ProgressStats): void {
    this.update(s, true);
    this.#live.keep();
  }
}

/** A counter of the bar line; `drop` ranks the ones left out first on a narrow terminal (1 first; none: always kept). */
export interface BarPart {
  text: string;
  drop?: number;
}

/** Cells of the bar at its full width, and the least worth drawing. */
const BAR = 24;
const MIN_BAR = 10;

/**
 * The bar line: `label [████░░░░] 120/200 · 118 done · …`, narrower than `columns` (one
 * column is kept free: a line that fills the last column makes some terminals wrap, and
 * the redraw then leaves it behind). When it does not fit: the label is cut to a third
 * of the line, the bar shrinks (to 10 cells), the counters with a `drop` rank go (rate, in
 * flight, time left, done), then the bar; what is left is cut with …. Undefined
 * `columns`: the full line.
 */
export function barLine(label: string | undefined, fraction: number, parts: BarPart[], columns?: number): string {
  const draw = (cells: number) => {
    const filled = Math.round(Math.min(1, Math.max(0, fraction)) * cells);
    return `[${'█'.repeat(filled)}${'░'.repeat(cells - filled)}]`;
  };
  const counters = (rank: number) =>
    parts
      .filter((p) => p.drop === undefined || p.drop > rank)
      .map((p) => p.text)
      .join(' · ');
  if (columns === undefined) return `${label ? `${label} ` : ''}${draw(BAR)} ${counters(0)}`;
  const max = Math.max(1, columns - 1);
  const head = label ? `${fitWidth(label, Math.max(10, Math.floor(max / 3)))} ` : '';
  const ranks = [0, ...new Set(parts.map((p) => p.drop).filter((d): d is number => d !== undefined))].sort((a, b) => a - b);
  for (const rank of ranks) {
    const text = counters(rank);
    const room = max - displayWidth(head) - displayWidth(text) - 3; // the brackets and a space
    if (room >= MIN_BAR) return `${head}${draw(Math.min(BAR, room))} ${text}`;
  }
  const kept = counters(Infinity);
  return fitWidth(displayWidth(head) + displayWidth(kept) <= max ? head + kept : kept, max);
}

/**
 * One status line redrawn in place on a terminal (the bar above, `Waiting for payout …:
 * Pending (12 s)`); off a terminal it writes nothing.
 */
export class LiveLine {
  readonly #stream: NodeJS.WritableStream;
  readonly #tty: boolean;
  readonly #columns: () => number | undefined;
  #drawn = false;

  /** `columns`: the terminal's width at each redraw; a longer line is cut with … (a wrapped line would not be redrawn). */
  constructor(stream: NodeJS.WritableStream, tty: boolean, columns: () => number | undefined = () => undefined) {
    this.#stream = stream;
    this.#tty = tty;
    this.#columns = columns;
  }

  set(line: string): void {
    if (!this.#tty) return;
    const columns = this.#columns();
    this.#stream.write(`\r\u001b[2K${columns === undefined ? line : fitWidth(line, Math.max(1, columns - 1))}`);
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
