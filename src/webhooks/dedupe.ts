/**
 * What the listener remembers of the events it accepted, by `webhook_id` (docs/service.md,
 * "Webhooks": a retry carries the same id). An id seen before is a duplicate (a retry, or a
 * replay within the timestamp window). One the app already answered with a 2xx is "taken":
 * never forwarded again (the app would act twice), answered with that 2xx at once. One being
 * forwarded now holds its id: a second delivery of it waits for the app's answer to the first.
 * Only accepted events are remembered, so a forgery reusing a real id neither is marked
 * duplicate nor marks the real one. Memory is bounded: the oldest ids are forgotten first.
 */

const MAX_REMEMBERED_IDS = 10_000;

export class Deliveries {
  private readonly seen = new Set<string>();
  /** Ids the app answered with a 2xx, and that status: never forwarded again. */
  private readonly taken = new Map<string, number>();
  /** Ids being forwarded now: a second delivery of one waits for the first's answer. */
  private readonly inFlight = new Map<string, Promise<void>>();

  /** Remembers an accepted event's id; true when it was seen before (a duplicate). */
  accept(id: string | undefined): boolean {
    if (id === undefined) return false;
    const duplicate = this.seen.has(id);
    this.seen.add(id);
    // Remember a bounded number of ids: a long-running listener must not grow without end.
    if (this.seen.size > MAX_REMEMBERED_IDS) this.seen.delete(this.seen.values().next().value!);
    return duplicate;
  }

  /**
   * One forward of an id at a time: waits until no delivery of `id` is being forwarded, then
   * holds it; the returned function lets the next one go.
   */
  async hold(id: string): Promise<() => void> {
    while (this.inFlight.has(id)) await this.inFlight.get(id);
    let release!: () => void;
    this.inFlight.set(id, new Promise<void>((r) => (release = r)));
    return () => {
      this.inFlight.delete(id);
      release();
    };
  }

  /** The 2xx the app answered to this id before, if it did. */
  takenStatus(id: string | undefined): number | undefined {
    return id !== undefined ? this.taken.get(id) : undefined;
  }

  /** Remembers that the app took this event (answered `status`, a 2xx). */
  markTaken(id: string, status: number): void {
    this.taken.set(id, status);
    if (this.taken.size > MAX_REMEMBERED_IDS) this.taken.delete(this.taken.keys().next().value!);
  }
}
