/** Payouts in flight at once: the default --concurrency (payout batch and plan send; printed commands leave it out), and a pool that runs so many at once. */
/** Payouts in flight at once when --concurrency is not given (payout batch and plan send; printed commands leave it out). */
export const DEFAULT_CONCURRENCY = 4;

/** Runs `fn` on each item, `n` at a time; the first error stops new ones and is thrown. */
export async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (!failed && next < items.length) {
        const item = items[next++]!;
        try {
          await fn(item);
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    }),
  );
}
