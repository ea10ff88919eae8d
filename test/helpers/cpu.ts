/**
 * Milliseconds of CPU this test process has used so far. Bounds on pure computation (a
 * renderer in linear time) are checked against it rather than the wall clock: test files
 * run side by side, each in its own process, and their load must not fail a bound that
 * is about this code's own work.
 */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
