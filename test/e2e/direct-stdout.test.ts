/**
 * stdout as the built binary writes it (src/output/direct-stdout.ts): straight to the
 * descriptor for a short output, through the stream for a long one, on every kind of
 * descriptor a shell or a parent process hands it: a pipe (bash's |), a socket pair
 * (Node's child_process), a file, /dev/null, a reader that goes away, a closed stdout.
 * Every kind gets the bytes payctl's main writes to a stream (the in-process run: never
 * written directly), exit 0 and nothing on stderr; a full device (/dev/full) gets exit 1 and
 * the cause on stderr.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv } from '../helpers/cli.js';
import { payctl, useConfigDir } from '../helpers/e2e.js';
import { payctl as inProcess } from '../helpers/in-process.js';
import { DIRECT_BYTES } from '../../src/output/direct-stdout.js';

const cfg = useConfigDir();

/** The command run by bash with `redirect` after it; its exit code, stdout (when kept) and stderr. */
function viaShell(args: string[], redirect: string) {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('bash', ['-c', `${quoted} ${redirect}; echo "rc=\${PIPESTATUS[0]}" >&2`], { env: cliEnv(cfg.dir), encoding: 'utf8' });
  const rc = /rc=(\d+)\s*$/.exec(r.stderr);
  return { code: rc ? Number(rc[1]) : null, stdout: r.stdout, stderr: r.stderr.replace(/rc=\d+\s*$/, '') };
}

describe('stdout on every kind of descriptor', () => {
  // --help is short (written straight to the descriptor); completion fish is longer than
  // DIRECT_BYTES in one chunk (written through the stream).
  it.each([
    ['--help', ['--help']],
    ['completion fish', ['completion', 'fish']],
  ])('%s: the same bytes through a socket pair, a pipe, a file; nothing lost to /dev/null', async (_name, args) => {
    const reference = await inProcess(args, { dir: cfg.dir });
    expect(reference.code).toBe(0);
    expect(reference.stdout.length).toBeGreaterThan(1000);
    const viaNode = await payctl(args, { dir: cfg.dir });
    expect(viaNode).toMatchObject({ code: 0, stdout: reference.stdout, stderr: '' });

    const piped = viaShell(args, '| cat');
    expect(piped).toEqual({ code: 0, stdout: viaNode.stdout, stderr: '' });

    const file = join(cfg.dir, 'out.txt');
    const toFile = viaShell(args, `> '${file}'`);
    expect(toFile).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(file, 'utf8')).toBe(viaNode.stdout);

    expect(viaShell(args, '> /dev/null')).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('the long output really is longer than what is written directly, the short one shorter', async () => {
    expect(Buffer.byteLength((await payctl(['completion', 'fish'], { dir: cfg.dir })).stdout)).toBeGreaterThan(DIRECT_BYTES);
    expect(Buffer.byteLength((await payctl(['--help'], { dir: cfg.dir })).stdout)).toBeLessThan(DIRECT_BYTES);
  });

  it('a reader that goes away (| head -c 5) ends the run quietly with 0, short output or long', () => {
    for (const args of [['--help'], ['completion', 'fish']]) {
      const r = viaShell(args, '| head -c 5');
      expect(r).toEqual({ code: 0, stdout: r.stdout, stderr: '' });
      expect(r.stdout).toHaveLength(5);
    }
  });

  it('a closed stdout (>&-) is no crash: exit 0, nothing on stderr', () => {
    for (const args of [['--help'], ['completion', 'fish']]) expect(viaShell(args, '>&-')).toEqual({ code: 0, stdout: '', stderr: '' });
  });
  // test/commands/output-refused.test.ts has the rest (exit 4 after a payout, a refusal half way).
  it('a full device (> /dev/full): exit 1 and the cause on stderr, written directly or through the stream, --version too (probe 49-F: a stack trace)', () => {
    for (const args of [['--help'], ['completion', 'fish'], ['--version'], ['-V']]) {
      expect(viaShell(args, '> /dev/full')).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'Error: The output could not be written: no space left on device (ENOSPC); what was printed is incomplete.\n' +
          'Nothing was sent. Free the space, or write the output elsewhere, and run the same command again.\n',
      });
    }
  });
});
