/**
 * The request rate limit on /v2: at most `perSecond` requests in any sliding second;
 * above that, 429 RATE_LIMITED with `Retry-After` in whole seconds. Refused requests
 * do not count.
 */
export class RateLimiter {
  private readonly times: number[] = [];

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** undefined when allowed (and counted); otherwise seconds to wait. */
  check(): number | undefined {
    if (!this.perSecond || this.perSecond <= 0) return undefined;
    const now = this.now();
    while (this.times.length && this.times[0]! <= now - 1000) this.times.shift();
    if (this.times.length >= this.perSecond) {
      const waitMs = this.times[0]! + 1000 - now;
      return Math.max(1, Math.ceil(waitMs / 1000));
    }
    this.times.push(now);
    return undefined;
  }
}
