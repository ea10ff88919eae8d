/**
 * A key the service echoes back in disguise (README "Security notes": masked "also when it comes
 * back ... percent-encoded, or with ... escape sequences slipped inside"): percent-encoded in
 * small letters or only in part, with an escape sequence written `\u001b[0m` in the raw JSON
 * answer that --verbose shows, or as a page or a wrapped line shows it (HTML references, white
 * space or fullwidth forms inside). A node:http server answers 422 (or 400) with the echo; payctl
 * runs in process with the key in PAYCTL_API_KEY, in text, --json and --verbose.
 */
import { describe, expect, it } from 'vitest';
import { configDir, hostile, useHostileCleanups } from '../helpers/hostile.js';
import { payctl } from '../helpers/in-process.js';

useHostileCleanups();

/** Runs balances against a server that answers `status` (422) with `body`, in text, --json and --verbose. */
async function echoed(key: string, body: string, status = 422): Promise<Array<[string, { code: number | null; out: string }]>> {
  const h = await hostile((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
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

  it('as a probe sent it: a line feed, HTML references, a no-break space inside (JSON escapes in the answer): masked whole', async () => {
    const key = 'sk_sandbox_4d3b53575535f91deb17c900';
    const body =
      '{"message":"bad key sk_sandbox_4d3b5\\n3575535f91deb17c900 or sk&#95;sandbox&#95;4d3b53575535f91deb17c900 or sk_sandbox_4d3b5\\u00a03575535f91deb17c900"}';
    const runs = await echoed(key, body, 400);
    for (const [name, r] of runs) {
      // Before: all three printed whole (text: `bad key sk_sandbox_4d3b5 3575535f91deb17c900 or sk&#95;sandbox&#95;…`).
      expect(r.code, `${name}: ${r.out}`).toBe(1);
      expect(r.out, name).not.toMatch(/3575535f91deb17c900|4d3b5/);
      expect(r.out, name).toContain('bad key *** or *** or ***');
    }
    expect(runs.find(([name]) => name === '-v')![1].out).toContain('< {"message":"bad key *** or *** or ***"}');
  });

  it('as other pages show it: &#115;, &#x5f;, &lowbar;, spaced out, CR LF, U+202F, U+2007, a fullwidth ＿ inside: masked whole', async () => {
    const key = 'sk_sandbox_4d3b53575535f91deb17c900';
    const echoes = [
      '&#115;k_&#115;andbox_4d3b53575535f91deb17c900',
      'sk&#x5f;sandbox&#X5F;4d3b53575535f91deb17c900',
      'sk&lowbar;sandbox&lowbar;4d3b53575535f91deb17c900',
      [...key].join(' '),
      'sk_sandbox_4d3b5\r\n3575535f91deb17c900',
      'sk_sandbox\u202f_4d3b5\u20073575535f91deb17c900',
      'sk\uff3fsandbox\uff3f4d3b53575535f91deb17c900',
    ];
    const runs = await echoed(key, JSON.stringify({ message: `bad key ${echoes.join(' or ')}.` }));
    for (const [name, r] of runs) {
      expect(r.code, `${name}: ${r.out}`).toBe(1);
      expect(r.out, name).not.toMatch(/3575535f91deb17c900|4d3b5|5 3 5 7/);
      expect(r.out, name).toContain(`bad key ${Array(echoes.length).fill('***').join(' or ')}.`);
    }
  });
});
