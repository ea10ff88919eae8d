/**
 * The sender's answer when the listener forwards (`webhooks listen --forward-to`; README,
 * "webhooks listen"): the app's own answer (its status, body, Content-Type and Retry-After),
 * 502 when it cannot be reached, and the app's earlier 2xx at once for an event it took already
 * (dedupe.ts), so the app never acts on one event twice.
 *
 * The sender is answered within --timeout: an app that has not answered by then gets the event's
 * sender a 502 saying so in plain words, but its forward is not dropped. It stays open up to the
 * forward limit (forward.ts), holding the event's id: a retry that comes meanwhile waits for the
 * app's answer (up to --timeout, then 502 without forwarding it), and a 2xx that comes late is
 * remembered as the app's answer to the event, so its retry is answered with it and not forwarded
 * again (before, the forward was dropped at --timeout with undici's "Headers Timeout Error", and
 * the retry was forwarded again: the app acted twice). What came late is said on stderr.
 * What is held past --timeout is bounded (HELD_LIMIT: 100 forwards, 32 MiB of events): past it,
 * a forward is ended at --timeout as before, and its retry forwarded again (before the bound, an
 * app that hung made the listener hold every event: 1.8 GB after 900 events of 0.9 MB).
 *
 * A redirect is passed back as its status only: its Location is never followed, nor passed on
 * (the sender would then post the event to the app directly, past every check of the
 * listener); it is named on stderr, sanitized and masked, with the hint to give that URL to
 * --forward-to (before, nothing said where it pointed).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Log } from '../output/io.js';
import { sanitizeInline } from '../output/sanitize.js';
import { visibleToken } from '../words.js';
import type { Deliveries } from './dedupe.js';
import { shownSeconds, shownUrl, type Forwarded, type Forwarder } from './forward.js';

const JSON_TYPE = { 'content-type': 'application/json' };

/** How much may be held past --timeout for late answers: forwards, and their events' bytes. */
export interface HeldLimit {
  forwards: number;
  bytes: number;
}

/** 100 forwards, 32 MiB of events: an app that hangs cannot make the listener grow without bound. */
export const HELD_LIMIT: HeldLimit = { forwards: 100, bytes: 32 * 1024 * 1024 };

const shownMiB = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/** An event as the relay names it: its webhook id, or what it has instead. */
export interface Delivery {
  id: string | undefined;
  /** What the app's answer is remembered by (dedupe.ts Judged.key). */
  key: string | undefined;
  body: Buffer;
}

/** What the sender was answered, and what to say of it after the event's line. */
export interface Relayed {
  answered: number;
  forward?: Forwarded;
  /** The 2xx the app gave this event before, when it was not forwarded again. */
  takenStatus?: number;
  /** Warnings for stderr, after the event's line. */
  notes: string[];
  /** Once the app has answered after the sender was: what to say of it (nothing when the listener stopped). */
  late?: Promise<string | undefined>;
}

/** An event's id for a warning: the listener's secrets masked, escaped as the event's line shows an odd one (words.ts visibleToken), and cut. */
function named(id: string | undefined, mask: (t: string) => string): string {
  if (id === undefined) return 'an event without a webhook_id';
  const shown = visibleToken(mask(id));
  return `event ${shown.length > 80 ? `${shown.slice(0, 79)}…` : shown}`;
}

export class Relay {
  constructor(
    private readonly deliveries: Deliveries,
    private readonly f: Forwarder,
    private readonly log: Log,
    /** --timeout: how long the sender waits for its answer. */
    private readonly timeoutMs: number,
    /** The listener's secrets as `***` (mask.ts), applied before anything is cut. */
    private readonly mask: (t: string) => string,
    /** How many forwards, and how many bytes of their events, may be held past --timeout (HELD_LIMIT unless a test says). */
    private readonly heldLimit: HeldLimit = HELD_LIMIT,
  ) {}

  /** Forwards held past --timeout for a late answer, and their events' bytes. */
  private readonly held = { forwards: 0, bytes: 0 };
  /** Forwards ended at --timeout because the held ones were at the bound. */
  private ended = 0;

  /** Answers the sender of one accepted event: the app's earlier 2xx, the app's answer, or 502. */
  async answer(req: IncomingMessage, res: ServerResponse, d: Delivery): Promise<Relayed> {
    // One forward of an id at a time: a replay sent alongside the original waits for the
    // app's answer to it, then is judged by that answer (an event of its own under the id by its own).
    const held = d.id !== undefined ? await this.deliveries.hold(d.id, this.timeoutMs) : undefined;
    if (held && 'busyMs' in held) return this.busy(res, d, held.busyMs);
    const release = held?.release;
    const takenStatus = this.deliveries.takenStatus(d.key);
    if (takenStatus !== undefined) {
      release?.();
      // The app took this event already: a replay or a retry after a lost answer is not
      // forwarded again; the sender gets the app's 2xx, so it stops retrying.
      res.writeHead(takenStatus, JSON_TYPE).end(JSON.stringify({ received: true, duplicate: true }));
      return { answered: takenStatus, takenStatus, notes: [] };
    }
    this.log.verbose(`  → POST ${this.f.shown} (${d.body.length} bytes)`);
    const end = new AbortController();
    const sending = this.f.send(req, d.body, end.signal);
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([sending, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), this.timeoutMs)))]);
    clearTimeout(timer);
    if (first) {
      release?.();
      return { answered: this.passBack(res, d.key, first), forward: first, notes: this.redirect(first) };
    }
    return this.pastTimeout(res, { id: d.id, key: d.key, bytes: d.body.length }, sending, end, release);
  }

  /**
   * No answer within --timeout: the sender is told so. The forward goes on, holding the id,
   * while what is held stays within the bound (`heldLimit`); past it, it is ended now, as before
   * late answers were awaited, so the event's retry is forwarded again. Only the event's id and
   * key are kept for what comes late, never its body.
   */
  private pastTimeout(
    res: ServerResponse,
    d: { id: string | undefined; key: string | undefined; bytes: number },
    sending: Promise<Forwarded>,
    end: AbortController,
    release: (() => void) | undefined,
  ): Relayed {
    const after = `the app did not answer within ${shownSeconds(this.timeoutMs)} (--timeout)`;
    if (this.held.forwards + 1 > this.heldLimit.forwards || this.held.bytes + d.bytes > this.heldLimit.bytes) {
      end.abort(new Error('ended at --timeout: the listener holds as many unanswered forwards as it may'));
      release?.();
      const notes = this.ended++ === 0 ? [this.boundNote()] : [];
      const error = `${after}, and the forward was ended (the listener holds as many unanswered forwards as it may); it may still act on the event`;
      res.writeHead(502, JSON_TYPE).end(JSON.stringify({ error }));
      return { answered: 502, forward: { status: null, ms: Math.round(this.timeoutMs), error }, notes };
    }
    const error = `${after}; it may still act on the event`;
    res.writeHead(502, JSON_TYPE).end(JSON.stringify({ error }));
    this.held.forwards++;
    this.held.bytes += d.bytes;
    const late = sending.then((f) => {
      this.held.forwards--;
      this.held.bytes -= d.bytes;
      if (d.key !== undefined && f.status !== null && f.status >= 200 && f.status < 300) this.deliveries.markTaken(d.key, f.status);
      release?.();
      return this.f.stopping ? undefined : this.lateNote(d, f);
    });
    return { answered: 502, forward: { status: null, ms: Math.round(this.timeoutMs), error }, notes: [], late };
  }

  /** Said once, at the first forward ended at the bound. */
  private boundNote(): string {
    const { forwards, bytes } = this.heldLimit;
    return (
      `the app has not answered ${this.held.forwards} forwarded events (${shownMiB(this.held.bytes)}) past --timeout, as many as the listener holds (${forwards} events, ${shownMiB(bytes)} of bodies): ` +
      `an event it does not answer within --timeout is now ended then, not held, and its retry will be forwarded again (the app may get it twice). Further ones are counted, and said when the listener stops.`
    );
  }

  /** When stopping: how many forwards were ended at --timeout past the bound (undefined: none). */
  endedNote(): string | undefined {
    if (this.ended === 0) return undefined;
    return `${this.ended === 1 ? 'one forward was' : `${this.ended} forwards were`} ended at --timeout, not held for a late answer, as the listener held as many as it may: their retries are forwarded again.`;
  }

  /** A delivery of an event whose earlier forward the app has still not answered: 502, not forwarded. */
  private busy(res: ServerResponse, d: Delivery, busyMs: number): Relayed {
    res
      .writeHead(502, JSON_TYPE)
      .end(JSON.stringify({ error: 'the app has not yet answered an earlier delivery of this event; not forwarded again while it may still act on it' }));
    return {
      answered: 502,
      notes: [
        `${named(d.id, this.mask)} came again while the app had still not answered its delivery forwarded ${shownSeconds(busyMs)} ago: answered 502, not forwarded again, so the app does not get it twice; ` +
          `once the app answers, a retry is answered with its 2xx, or forwarded again after an error.`,
      ],
    };
  }

  /** What to say of the app's answer that came after the sender was answered 502. */
  private lateNote(d: { id: string | undefined; key: string | undefined }, f: Forwarded): string {
    const when = `the sender was answered 502 at ${shownSeconds(this.timeoutMs)} (--timeout)`;
    if (f.status === null)
      return `${named(d.id, this.mask)}: the forward ended after ${shownSeconds(f.ms)}: ${sanitizeInline(this.f.mask(f.error ?? ''))}; ${when}, and its retry will be forwarded again.`;
    const said = `the app answered ${f.status} to ${named(d.id, this.mask)} after ${shownSeconds(f.ms)}, late: ${when}`;
    if (f.status < 200 || f.status >= 300) return `${said}; its retry will be forwarded again.`;
    if (d.key === undefined) return `${said}; the app took it, but without a webhook_id its retry cannot be recognised and will be forwarded again.`;
    return `${said}; the app took the event, so its retry will be answered ${f.status} without being forwarded again.`;
  }

  /** A redirect's Location named on stderr (sanitized, its password masked), with what to do. */
  private redirect(f: Forwarded): string[] {
    if (f.location === undefined) return [];
    let where: string;
    try {
      where = shownUrl(new URL(f.location, this.f.to));
    } catch {
      where = f.location;
    }
    // Masked whole before it is cut, so no cut leaves part of a secret.
    const chars = Array.from(this.mask(sanitizeInline(this.f.mask(where))));
    where = chars.length > 200 ? `${chars.slice(0, 199).join('')}…` : chars.join('');
    return [
      `the app answered ${f.status} redirecting to ${where}: payctl does not follow redirects, nor pass them to the sender (it would post the event to the app unchecked). ` +
        `If that is where your app takes events, give that URL to --forward-to.`,
    ];
  }

  /** The app's own answer back to the sender (its status, body and content type; never a Location), or 502; the status answered. */
  private passBack(res: ServerResponse, key: string | undefined, forward: Forwarded): number {
    if (forward.status === null) {
      res.writeHead(502, JSON_TYPE).end(JSON.stringify({ error: 'could not forward the event to the app' }));
      return 502;
    }
    const status = forward.status;
    if (key !== undefined && status >= 200 && status < 300) this.deliveries.markTaken(key, status);
    const headers: Record<string, string> = {};
    if (forward.contentType) headers['content-type'] = forward.contentType;
    if (forward.retryAfter) headers['retry-after'] = forward.retryAfter;
    res.writeHead(status, headers).end(forward.body ?? '');
    return status;
  }
}
