/**
 * Hostile services (issue 11), what needs a process: a 1 GB body (the peak RSS of the
 * process), a payout whose outcome is unknown followed by the retry command run exactly as
 * printed by a shell (an HTML 201, the journal folder taken away, a full tmpfs). The runs
 * that leave the outcome unknown and print the retry need no process of their own and run
 * in process; the retry runs in a real shell through the built binary. The other
 * hostile-service cases run in process: test/commands/hostile-service.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payctlShim, runAsPrinted } from '../helpers/cli.js';
import { startCli, until, writeLoggedIn, writeProfile } from '../helpers/e2e.js';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import {
  configDir,
  deferCleanup,
  expectDocumentedHeaders,
  expectNoCrash,
  heldFor,
  hostile,
  hostileProfile,
  journalOf,
  lineAfter,
  payoutArgs,
  postsFor,
  sandboxProxy,
  useHostileCleanups,
} from '../helpers/hostile.js';

const ctx = useSandbox();

let shim: string;

beforeAll(() => {
  // `payctl` on PATH, so printed commands run exactly as printed.
  shim = payctlShim().dir;
});

afterAll(() => {
  if (shim) rmSync(shim, { recursive: true, force: true });
});

afterEach(() => ctx.sb.faults.clear());
useHostileCleanups();

describe('answers that never end', () => {
  it('a 1 GB body: exit 1 "larger than 64 MiB", peak RSS under 200 MB, no stack trace', async () => {
    let written = 0;
    let socketClosed = false;
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const h = await hostile((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let closed = false;
      res.on('close', () => {
        closed = true;
        socketClosed = true;
      });
      const pump = () => {
        while (!closed && written < 1024 * chunk.length) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!closed) res.end();
      };
      pump();
    });
    const dir = configDir();
    const { key } = hostileProfile(dir, h);

    const { child, done } = startCli(['balances'], { dir, timeoutMs: 25_000 });
    let peakKb = 0;
    const poll = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        for (const field of ['VmHWM', 'VmRSS']) {
          const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
          if (m) peakKb = Math.max(peakKb, Number(m[1]));
        }
      } catch {
        // the process has exited
      }
    }, 20);
    const r = await done.finally(() => clearInterval(poll));
    expect(r.stderr).toContain('larger than 64 MiB');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expectNoCrash(r);
    expect(peakKb, 'RSS was sampled').toBeGreaterThan(10_000);
    expect(peakKb, `peak RSS ${Math.round(peakKb / 1024)} MB`).toBeLessThan(200 * 1024);
    // payctl stopped reading: the server never got to write the whole gigabyte.
    await until(() => socketClosed, 5000);
    expect(written).toBeLessThan(512 * 1024 * 1024);
    expect(h.seen).toHaveLength(1);
    expectDocumentedHeaders(h.seen, key);
  });
});

describe('a 2xx payctl cannot trust is an unknown outcome, never "refused"', () => {
  it('an HTML 201 after the sandbox made the payout: exit 4, journal "unknown", the printed retry makes it exactly once', async () => {
    const sb = ctx.sb;
    const proxy = await sandboxProxy(sb);
    const dir = configDir();
    const p = await writeLoggedIn(sb, dir);
    writeProfile(dir, { ...p, baseUrl: proxy.baseUrl });
    const wallet = freshWallet(sb, '1000.00', 'SLE');
    const id = `html201-${randomUUID()}`;
    proxy.rewriteNextPayout(() => ({ status: 201, body: '<html>ok</html>', contentType: 'text/html' }));

    const r = await payctl(payoutArgs(wallet, id), { dir });
    expect(proxy.rewritten, r.stderr).toBe(1);
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(r.code, r.stderr).toBe(4);
    expectNoCrash(r);
    expect(r.stdout).toBe('');
    // The sandbox did make it.
    expect(postsFor(sb, id).map((x) => x.outcome)).toEqual([201]);
    expect(heldFor(sb, id)).toHaveLength(1);
    const key = postsFor(sb, id)[0]!.headers['idempotency-key']!;

    const entries = journalOf(dir, id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.outcome?.kind).toBe('unknown');
    expect(entries[0]!.idempotencyKey).toBe(key);

    const line = lineAfter(r.stderr, 'Retry safely');
    expect(line.trimStart().startsWith('payctl payout create ')).toBe(true);
    expect(line).toContain(`--payout-id ${id}`);
    expect(line).toContain(`--idempotency-key ${key}`);

    const again = await runAsPrinted(line, { shim, configDir: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Already submitted/);
    const posts = postsFor(sb, id);
    expect(posts).toHaveLength(2);
    expect(posts.every((x) => x.headers['idempotency-key'] === key)).toBe(true);
    expect(heldFor(sb, id)).toHaveLength(1);
    expect(again.stdout).toContain(heldFor(sb, id)[0]!.transaction_id);
    expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('accepted');
  });

  it('the journal folder replaced by a file while the sandbox holds the accepted request: exit 4, then the printed retry pays once', async () => {
    const sb = ctx.sb;
    const dir = configDir();
    await writeLoggedIn(sb, dir);
    const wallet = freshWallet(sb, '1000.00', 'SLE');
    const id = `nojournal-${randomUUID()}`;
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 1500 });

    const { done } = startPayctl(payoutArgs(wallet, id), { dir });
    await until(() => postsFor(sb, id).length === 1, 15_000);
    const journal = join(dir, 'journal');
    expect(statSync(journal).isDirectory()).toBe(true);
    renameSync(journal, `${journal}.moved`);
    writeFileSync(journal, '');
    const r = await done;
    expect(r.stderr).toMatch(/could not record .*in its journal/);
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(r.code, r.stderr).toBe(4);
    expectNoCrash(r);
    expect(heldFor(sb, id)).toHaveLength(1);
    const key = postsFor(sb, id)[0]!.headers['idempotency-key']!;
    const line = lineAfter(r.stderr, 'Retry safely');
    expect(line).toContain(`--idempotency-key ${key}`);

    rmSync(journal);
    renameSync(`${journal}.moved`, journal);
    expect(existsSync(journal)).toBe(true);
    const again = await runAsPrinted(line, { shim, configDir: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Already submitted/);
    const posts = postsFor(sb, id);
    expect(posts).toHaveLength(2);
    expect(posts.every((x) => x.headers['idempotency-key'] === key)).toBe(true);
    expect(heldFor(sb, id)).toHaveLength(1);
    expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('accepted');
  });
});

describe('a full disk after the service accepted', () => {
  it('ENOSPC when recording the outcome (config folder on a 1 MiB tmpfs, filled while the request is held): exit 4, then the printed retry pays once', async () => {
    const sb = ctx.sb;
    const mount = mkdtempSync(join(tmpdir(), 'payctl-tinyfs-'));
    // A real full disk: a small tmpfs (this needs root, as CI and the developers' machines have).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', mount]);
    deferCleanup(() => {
      execFileSync('umount', [mount]);
      rmSync(mount, { recursive: true, force: true });
    });
    const dir = join(mount, 'config');
    await writeLoggedIn(sb, dir);
    const wallet = freshWallet(sb, '1000.00', 'SLE');
    const id = `enospc-${randomUUID()}`;
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 1500 });

    const { done } = startPayctl(payoutArgs(wallet, id), { dir });
    await until(() => postsFor(sb, id).length === 1, 15_000);
    // The entry is journaled; now nothing more fits.
    const filler = join(mount, 'filler');
    try {
      writeFileSync(filler, Buffer.alloc(2 * 1024 * 1024));
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    const r = await done;
    expect(r.stderr).toMatch(/the service accepted it \(transaction TXN-BOK-[0-9A-F]{26}\)/);
    expect(r.stderr).toContain('but payctl could not record that in its journal: no space left on device (ENOSPC): the disk is full');
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(r.code, r.stderr).toBe(4);
    expectNoCrash(r);
    expect(heldFor(sb, id)).toHaveLength(1);
    expect(r.stderr).toContain(`the service accepted it (transaction ${heldFor(sb, id)[0]!.transaction_id})`);
    const key = postsFor(sb, id)[0]!.headers['idempotency-key']!;
    const line = lineAfter(r.stderr, 'Retry safely');
    expect(line).toContain(`--idempotency-key ${key}`);

    rmSync(filler);
    const again = await runAsPrinted(line, { shim, configDir: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Already submitted/);
    expect(postsFor(sb, id).every((x) => x.headers['idempotency-key'] === key)).toBe(true);
    expect(heldFor(sb, id)).toHaveLength(1);
    expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('accepted');
  });
});
