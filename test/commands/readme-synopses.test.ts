/**
 * Every option the README's command synopses name (`payctl sandbox start [--port N] …`) is one the
 * command has: its --help lists it. Before, the sandbox synopsis still named --token-ttl, an option
 * of the token exchange the real service does not have, and the binary refused it (probe 51-I).
 * In process: each command's help once.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';

const GLOBAL = new Set(['--profile', '--base-url', '--json', '--timeout', '--verbose', '--no-color', '--help', '--version', '--no-input']);

/** The README's inline commands that name options, one synopsis each (alternatives written with `|` are left to the tables). */
function synopses(): Array<{ words: string[]; flags: string[]; span: string }> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const out: Array<{ words: string[]; flags: string[]; span: string }> = [];
  for (const m of readme.matchAll(/`(payctl [^`]+)`/g)) {
    const span = m[1]!.replace(/\s+/g, ' ');
    if (span.includes(' | ')) continue;
    const words: string[] = [];
    for (const t of span.split(' ').slice(1)) {
      if (!/^[a-z][a-z-]*$/.test(t) || words.length === 3) break;
      words.push(t);
    }
    const flags = [...new Set([...span.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((f) => f[0]))].filter((f) => !GLOBAL.has(f));
    if (flags.length) out.push({ words, flags, span });
  }
  return out;
}

describe("the README's command synopses", () => {
  it('name only options the command has (its --help lists each)', async () => {
    const dir = tempConfigDir();
    const helps = new Map<string, string>();
    const list = synopses();
    expect(list.length).toBeGreaterThan(20);
    const missing: string[] = [];
    for (const s of list) {
      // The longest run of the synopsis's words that is a command (`config set base-url` is `config set`).
      let help: string | undefined;
      for (let n = s.words.length; n >= 1 && help === undefined; n--) {
        const key = s.words.slice(0, n).join(' ');
        if (!helps.has(key)) {
          const r = await payctl([...s.words.slice(0, n), '--help'], { dir: dir.dir });
          if (r.code === 0 && r.stdout.includes(`Usage: payctl ${key}`)) helps.set(key, r.stdout);
        }
        help = helps.get(key);
      }
      expect(help, s.span).toBeDefined();
      for (const f of s.flags) if (!help!.includes(f)) missing.push(`${s.span} :: ${f}`);
    }
    dir.cleanup();
    expect(missing).toEqual([]);
  });
});
