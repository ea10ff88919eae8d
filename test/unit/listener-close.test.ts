/**
 * The webhook listener's close() (src/webhooks/listener.ts) is idempotent: a second call, made
 * while the first is under way or after it, resolves once the first has, never throws (the
 * forwarder's connections closed twice). The listener is real, on a free
 * port of 127.0.0.1, with and without --forward-to.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startListener, type ListenerSettings } from '../../src/webhooks/listener.js';
import { tempConfigDir } from '../helpers/cli.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A listener started as `webhooks listen` starts it. */
async function listener(more: Partial<ListenerSettings>) {
  const { dir, cleanup } = tempConfigDir();
  cleanups.push(cleanup);
  const f = fakeDeps({ dir });
  const d = f.deps;
  const l = await startListener(
    { host: '127.0.0.1', port: 0, path: '/webhooks', secret: 'whsec_close_twice', headerName: 'Signature', tolerance: 300, forwardTo: undefined, ...more },
    { io: d.io, log: d.log, clock: d.clock, env: d.env, json: false, timeoutMs: 10_000 },
  );
  return { l };
}

/** Whether a TCP connection to the port is refused (nothing listens there any more). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

describe('webhooks listener close()', () => {
  for (const [what, more] of [
    ['without --forward-to', {}],
    ['with --forward-to', { forwardTo: new URL('http://127.0.0.1:9/app') }],
  ] as Array<[string, Partial<ListenerSettings>]>) {
    it(`${what}: called twice at once, then again after, every call resolves and the port is closed`, async () => {
      const { l } = await listener(more);
      let firstDone = false;
      const first = l.close().then(() => (firstDone = true));
      // The second call resolves only once the first has.
      const second = l.close().then(() => firstDone);
      await expect(first).resolves.toBe(true);
      await expect(second).resolves.toBe(true);
      await expect(l.close()).resolves.toBeUndefined();
      expect(await refused(l.port)).toBe(true);
    });
  }
});
