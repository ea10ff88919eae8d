/**
 * Group commit for the PostgreSQL ledger (docs/architecture.md, "The ledger"): writes of the
 * same moment sent as one statement. A write is sent at once (in the next turn of the event
 * loop, with any others of the same turn) while fewer than `inFlight` statements of its kind
 * are running; otherwise it waits for one of them to end, and every write that waited goes in
 * the next statement together. A batch's claims and outcomes then cost a round trip and a
 * commit per group, not per row, and a lone write (payout create) waits for nothing.
 */

interface Waiting<I, O> {
  item: I;
  resolve(o: O): void;
  reject(err: unknown): void;
}

export interface GroupOptions<I> {
  /** Statements of this kind running at once (the pool is shared with the others). */
  inFlight: number;
  /** The most items of one statement. */
  maxGroup: number;
  /**
   * Items of one key go in one statement at most once, and not while a statement with that
   * key runs: a later one waits for it to end (items of one key are written in the order
   * they came). Undefined: any may share a statement.
   */
  keyOf?: (item: I) => string;
}

export class GroupQueue<I, O> {
  #waiting: Array<Waiting<I, O>> = [];
  #scheduled = false;
  #running = 0;
  /** Keys of the statements running. */
  readonly #busy = new Set<string>();
  readonly #ended = new Set<Promise<void>>();

  constructor(
    private readonly send: (items: I[]) => Promise<O[]>,
    private readonly o: GroupOptions<I>,
  ) {}

  /** `item` written, with the others of its moment: its result once its statement ended. */
  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  /** Every item added so far answered. */
  async settled(): Promise<void> {
    while (this.#ended.size || this.#waiting.length) {
      if (!this.#ended.size) this.#flush();
      await Promise.allSettled([...this.#ended]);
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#running >= this.o.inFlight) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    while (this.#waiting.length && this.#running < this.o.inFlight) {
      const group = this.#take();
      if (!group.length) return; // every item waits for a key being written: its end flushes again
      const keys = this.o.keyOf ? group.map((w) => this.o.keyOf!(w.item)) : [];
      for (const k of keys) this.#busy.add(k);
      this.#running++;
      const run = this.#run(group).finally(() => {
        for (const k of keys) this.#busy.delete(k);
        this.#running--;
        this.#ended.delete(run);
        // What waited meanwhile goes now, together.
        if (this.#waiting.length) this.#flush();
      });
      this.#ended.add(run);
    }
  }

  /** The next statement's items: in order, at most maxGroup, one of each key, none of a key being written. */
  #take(): Array<Waiting<I, O>> {
    const keyOf = this.o.keyOf;
    if (!keyOf) return this.#waiting.splice(0, this.o.maxGroup);
    const keys = new Set<string>(this.#busy);
    const group: Array<Waiting<I, O>> = [];
    const left: Array<Waiting<I, O>> = [];
    for (const w of this.#waiting) {
      const k = keyOf(w.item);
      if (group.length < this.o.maxGroup && !keys.has(k)) {
        keys.add(k);
        group.push(w);
      } else {
        keys.add(k); // a later item of a key left waiting waits too: order kept
        left.push(w);
      }
    }
    this.#waiting = left;
    return group;
  }

  async #run(group: Array<Waiting<I, O>>): Promise<void> {
    let out: O[];
    try {
      out = await this.send(group.map((w) => w.item));
    } catch (err) {
      for (const w of group) w.reject(err);
      return;
    }
    group.forEach((w, i) => w.resolve(out[i]!));
  }
}
