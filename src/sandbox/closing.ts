/**
 * How a sandbox closes promptly: every wait it is in (a delay fault) ends at once with `Closed`,
 * and every socket it accepted, open or hung, is tracked so that closing can destroy it.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** A wait cut short because the sandbox is closing: the request's connection is reset. */
export class Closed extends Error {}

export class Closing {
  /** Set once closing has begun: no new answer is written, no new wait starts. */
  closed = false;
  private readonly sleepers = new Set<() => void>();
  private readonly sockets = new Set<Socket>();

  /** Waits `ms`, unless the sandbox closes first (then it rejects with `Closed`). */
  readonly sleep = (ms: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (this.closed) return reject(new Closed());
      const timer = setTimeout(() => {
        this.sleepers.delete(cancel);
        resolve();
      }, ms);
      const cancel = () => {
        clearTimeout(timer);
        reject(new Closed());
      };
      this.sleepers.add(cancel);
    });

  /** Keeps every connection of `server` until it closes. */
  track(server: Server): void {
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  /** Closing begins: every wait ends. */
  begin(): void {
    this.closed = true;
    for (const cancel of this.sleepers) cancel();
    this.sleepers.clear();
  }

  /** Destroys every socket still open (idle, mid-request or hung). */
  destroySockets(): void {
    for (const s of this.sockets) s.destroy();
  }
}
