/**
 * What the listener remembers of the events it accepted, by `webhook_id` (docs/service.md,
 * "Webhooks": a retry carries the same id). A delivery of an id seen before with the same
 * content (content.ts: all but `attempt` and `timestamp`) is a duplicate (a retry, or a replay
 * within the timestamp window). One whose content differs from every earlier delivery of the id
 * (transfer.failed after transfer.initiated) is not a retry but an event of its own: what
 * differs from the id's first delivery is said, and it is forwarded like any new event. An
 * event the app already answered with a 2xx is "taken": never forwarded again (the app would
 * act twice), answered with that 2xx at once, and so is one whose 2xx came after the sender
 * had been answered 502 at --timeout (relay.ts). One being forwarded now holds its id until
 * the app answers (or the forward's limit), however long after the sender's answer: a second
 * delivery of it waits for that answer, up to --timeout. Only accepted events are remembered,
 * so a forgery reusing a real id neither is marked duplicate nor marks the real one. Memory is
 * bounded: the oldest ids are forgotten first, and so are an id's oldest contents.
 */
import { differences, shownFacets, type Difference, type EventContent, type Facet } from './content.js';
import type { ParsedEvent } from './event.js';

const MAX_REMEMBERED_IDS = 10_000;
/** The most distinct contents remembered for one id. */
const MAX_CONTENTS_PER_ID = 16;

/** What came of judging a delivery. */
export interface Judged {
  duplicate: boolean;
  /** Set when the id was seen before with other content: what differs from its first delivery. */
  differs?: Difference[];
  /** What the app's answer is remembered by: the id and the content. */
  key?: string;
}

interface SeenId {
  first: { content: EventContent; shown: Partial<Record<Facet, string>> };
  digests: string[];
}

export class Deliveries {
  private readonly seen = new Map<string, SeenId>();
  /** Events (id and content) the app answered with a 2xx, and that status: never forwarded again. */
  private readonly taken = new Map<string, number>();
  /** Ids being forwarded now: a second delivery of one waits for the first's answer. */
  private readonly inFlight = new Map<string, { done: Promise<void>; since: number }>();

  /** Remembers an accepted event; whether it is a duplicate, or an event of its own under a known id. */
  accept(id: string | undefined, ev: ParsedEvent | undefined): Judged {
    if (id === undefined || !ev) return { duplicate: false };
    const key = `${id}\n${ev.content.digest}`;
    const known = this.seen.get(id);
    if (!known) {
      this.seen.set(id, { first: { content: ev.content, shown: shownFacets(ev.shown) }, digests: [ev.content.digest] });
      // Remember a bounded number of ids: a long-running listener must not grow without end.
      if (this.seen.size > MAX_REMEMBERED_IDS) this.seen.delete(this.seen.keys().next().value!);
      return { duplicate: false, key };
    }
    if (known.digests.includes(ev.content.digest)) return { duplicate: true, key };
    known.digests.push(ev.content.digest);
    if (known.digests.length > MAX_CONTENTS_PER_ID) known.digests.splice(1, 1);
    return { duplicate: false, key, differs: differences(known.first, { content: ev.content, shown: shownFacets(ev.shown) }) };
  }

  /**
   * One forward of an id at a time: waits, up to `waitMs`, until no delivery of `id` is being
   * forwarded, then holds it (`release` lets the next one go). When the earlier forward is still
   * waiting for the app at `waitMs` (the app is slow, past --timeout), nothing is held: `busyMs`
   * says how long ago that forward started, and this delivery must not be forwarded too.
   */
  async hold(id: string, waitMs: number): Promise<{ release: () => void } | { busyMs: number }> {
    const deadline = performance.now() + waitMs;
    for (let held = this.inFlight.get(id); held; held = this.inFlight.get(id)) {
      const left = deadline - performance.now();
      if (left <= 0) return { busyMs: performance.now() - held.since };
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([held.done, new Promise<void>((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    let release!: () => void;
    this.inFlight.set(id, { done: new Promise<void>((r) => (release = r)), since: performance.now() });
    return {
      release: () => {
        this.inFlight.delete(id);
        release();
      },
    };
  }

  /** The 2xx the app answered to this event (its key) before, if it did. */
  takenStatus(key: string | undefined): number | undefined {
    return key !== undefined ? this.taken.get(key) : undefined;
  }

  /** Remembers that the app took this event (answered `status`, a 2xx). */
  markTaken(key: string, status: number): void {
    this.taken.set(key, status);
    if (this.taken.size > MAX_REMEMBERED_IDS) this.taken.delete(this.taken.keys().next().value!);
  }
}
