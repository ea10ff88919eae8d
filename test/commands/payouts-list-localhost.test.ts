/**
 * `payouts list` against the sandbox reached as localhost (`--base-url http://localhost:PORT/v2`,
 * the key from PAYCTL_API_KEY): the sandbox's next-page links are on that origin, so payctl
 * follows them and warns of no link elsewhere. Before, the sandbox wrote its links on
 * 127.0.0.1, another origin to payctl, and a list of one page warned that payctl had asked for
 * a next page it never asked for.
 */
import { describe, expect, it } from 'vitest';
import { useConfigDir } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const cfg = useConfigDir();

describe('payouts list at http://localhost:PORT/v2', () => {
  it('one page: one request, no warning; --all follows the sandbox links, on localhost, without a warning', async () => {
    const base = `http://localhost:${new URL(ctx.sb.url).port}/v2`;
    const env = { PAYCTL_API_KEY: ctx.sb.apiKey };
    ctx.sb.generatePayouts(150); // two pages of 100
    const from = ctx.sb.requests().length;
    const one = await payctl(['payouts', 'list', '--limit', '1', '--base-url', base, '-v'], { dir: cfg.dir, env });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).not.toContain('Warning:');
    const lists = () =>
      ctx.sb
        .requests()
        .slice(from)
        .filter((r) => r.path === '/v2/payout/list');
    expect(lists()).toHaveLength(1);

    const all = await payctl(['payouts', 'list', '--all', '--base-url', base, '--json'], { dir: cfg.dir, env });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).not.toContain('another origin');
    const paged = lists().slice(1);
    expect(paged.length).toBeGreaterThan(1);
    for (const r of paged) expect(r.headers.host).toBe(`localhost:${new URL(ctx.sb.url).port}`);
  });
});
