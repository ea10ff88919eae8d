/**
 * A key the service echoes back in disguise (README "Security notes": masked "also when it comes
 * back ... percent-encoded, or with ... escape sequences slipped inside"): percent-encoded in
 * small letters or only in part, or with an escape sequence written `\u001b[0m` in the raw JSON
 * answer that --verbose shows. A node:http server answers 422 with the echo; payctl runs in
 * process with the key in PAYCTL_API_KEY, in text, --json and --verbose.
 */
import { describe, expect, it } from 'vitest';
import { configDir, hostile, useHostileCleanups } from '../helpers/hostile.js';
import { payctl } from '../helpers/in-process.js';

useHostileCleanups();

/** Runs balances against a server that answers 422 with `body`, in text, --json and --verbose. */
async function echoed(key: string, body: string): Promise<Array<[string, { code: number | null; out: string }]>> {
  const h = await hostile((_req, res) => res.writeHead(422, { 'content-type': 'application/json' }).end(body));
  const runs: Array<[string, { code: number | null; out: string }]> = [];
  for (const extra of [[], ['--json'], ['-v']]) {
    const r = await payctl(['balances', '--base-url', h.baseUrl, ...extra], { dir: configDir(), env: { PAYCTL_API_KEY: key } });
    runs.push([extra.join(' ') || 'text', { code: r.code, out: r.stdout + r.stderr }]);
  }
  return runs;
}

describe('a key echoed back in disguise is masked in text, --json and --verbose', () => {
  it('percent-encoded in small letters (sk_live_ab%2bcd%2fef%3dgh…): masked on every line', async () => {
    const key = 'sk_live_ab+cd/ef=gh12345XYZ';
    for (const echo of ['sk_live_ab%2bcd%2fef%3dgh12345XYZ', 'sk_live_ab%2Bcd%2fef%3Dgh12345XYZ']) {
      for (const [name, r] of await echoed(key, JSON.stringify({ message: `rejected ${echo}` }))) {
        // Before: `Error: rejected sk_live_ab%2bcd%2fef%3dgh12345XYZ`, and so in the JSON error and the -v body.
        expect(r.code, `${name}: ${r.out}`).toBe(1);
        expect(r.out, name).not.toContain('gh12345XYZ');
        expect(r.out, name).toContain('rejected ***');
      }
    }
  });

  it('with only some characters percent-encoded (sk_live_ZZZZyyyy%58XXXwwww9999): masked', async () => {
    for (const [name, r] of await echoed('sk_live_ZZZZyyyyXXXXwwww9999', '{"message":"rejected sk_live_ZZZZyyyy%58XXXwwww9999"}')) {
      expect(r.code, `${name}: ${r.out}`).toBe(1);
      expect(r.out, name).not.toContain('XXXwwww');
      expect(r.out, name).toContain('rejected ***');
    }
  });

  it('with an escape sequence inside, written \\u001b[0m in the raw JSON: masked in the -v body line too', async () => {
    for (const seq of ['\\u001b[0m', '\\u001b[1m']) {
      const runs = await echoed('sk_live_ZZZZyyyyXXXXwwww9999', `{"message":"rejected sk_live_ZZZZ${seq}yyyyXXXXwwww9999"}`);
      for (const [name, r] of runs) {
        expect(r.code, `${name}: ${r.out}`).toBe(1);
        expect(r.out, name).not.toContain('XXXXwwww9999');
        expect(r.out, name).toContain('rejected ***');
      }
      // Before: `< {"message":"rejected sk_live_ZZZZ\u001b[0myyyyXXXXwwww9999"}` while the Error line said `rejected ***`.
      const verbose = runs.find(([name]) => name === '-v')![1].out;
      expect(verbose).toContain('< {"message":"rejected ***"}');
      expect(verbose).toContain('Error: rejected ***');
    }
  });
});
