/**
 * What a test file undoes after each of its tests (servers, processes, folders), the last
 * registered first, and the temp config folders it makes, removed the same way.
 */
import { afterEach } from 'vitest';
import { tempConfigDir } from './cli.js';

export function useCleanups(): { cleanups: Array<() => unknown>; configDir: () => string } {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const configDir = (): string => {
    const { dir, cleanup } = tempConfigDir();
    cleanups.push(cleanup);
    return dir;
  };
  return { cleanups, configDir };
}
