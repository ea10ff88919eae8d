/**
 * A config file others can read that keeps a ledger URL with its password (README "Security
 * notes": the password is "kept in the 0600 config file") is refused as one keeping an API key
 * or webhook secret is: exit 2, nothing sent, the message naming the secret it keeps, the
 * `chmod 600` printed. A URL without a password keeps no secret and is used; PAYCTL_LEDGER_URL
 * is no file, and is used as before. In process, against a stand-in for the service
 * (test/helpers/hostile.ts) and a TCP server standing where the ledger would be, counting
 * connections.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { configFile, newKey, writeProfiles, type ProfileFile } from '../helpers/e2e.js';
import { configDir, deferCleanup, standIn, useHostileCleanups } from '../helpers/hostile.js';
import { payctl } from '../helpers/in-process.js';

useHostileCleanups();

const PASSWORD = 'pw_secret9';

/** A TCP server where the ledger would be: how many connections reached it. */
async function ledgerHost(): Promise<{ port: number; connections: () => number }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  deferCleanup(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.address() as AddressInfo).port, connections: () => n };
}

/** A config folder whose file holds these profiles, at `mode`. */
function configWith(profiles: Record<string, ProfileFile>, mode: number): string {
  const dir = configDir();
  writeProfiles(dir, profiles);
  chmodSync(configFile(dir), mode);
  return dir;
}

describe('a config file others can read that keeps a ledger password', () => {
  it('is refused (0644, 0640), naming the ledger password, in any URL form; chmod 600 as printed, and it is used', async () => {
    const key = newKey();
    const service = await standIn(key);
    const ledger = await ledgerHost();
    const urls = [
      `postgres://payctl:${PASSWORD}@127.0.0.1:${ledger.port}/payctl`,
      `postgresql://payctl@127.0.0.1:${ledger.port}/payctl?password=${PASSWORD}`,
      `postgres://payctl:${PASSWORD}@/payctl?host=/run/postgresql`,
    ];
    for (const mode of [0o644, 0o640]) {
      for (const url of urls) {
        const dir = configWith({ default: { baseUrl: service.baseUrl, ledger: url } }, mode);
        for (const args of [['balances'], ['config', 'get', 'ledger'], ['payout', 'get', 'TXN-BOK-83BD4FB5EF52C8CB2329510901']]) {
          const r = await payctl(args, { dir, env: { PAYCTL_API_KEY: key } });
          const name = `${mode.toString(8)} ${url} ${args.join(' ')}`;
          // Before: read and used, without a word, the password readable by others.
          expect(r.code, `${name}: ${r.stderr}`).toBe(2);
          expect(r.stderr, name).toContain(
            `Refusing to use the config file ${configFile(dir)}: it keeps profile "default"'s ledger password, and others can read it (mode ${mode.toString(8)}). Nothing was sent.`,
          );
          expect(r.stderr, name).toContain(
            "If others may have read it, change the ledger's database password and give the new URL to `payctl config set ledger --profile default --stdin`.",
          );
          expect(r.stdout + r.stderr, name).not.toContain(PASSWORD);
        }
        expect(service.seen).toEqual([]);
        expect(ledger.connections()).toBe(0);
        const chmod = /^ {2}(chmod 600 .*)$/m.exec((await payctl(['balances'], { dir, env: { PAYCTL_API_KEY: key } })).stderr)![1]!;
        expect(spawnSync('sh', ['-c', chmod]).status).toBe(0);
        const after = await payctl(['balances', '--json'], { dir, env: { PAYCTL_API_KEY: key } });
        expect(after.code, after.stderr).toBe(0);
        service.seen.length = 0;
      }
    }
  });

  it('names every secret it keeps: one profile with a key and a ledger password, or several profiles', async () => {
    const url = `postgres://payctl:${PASSWORD}@db.example.com/payctl`;
    const one = configWith({ default: { baseUrl: 'https://api.example.com/v2', apiKey: newKey(), ledger: url } }, 0o644);
    const r1 = await payctl(['config', 'list'], { dir: one });
    expect(r1.code, r1.stderr).toBe(2);
    expect(r1.stderr).toContain(`it keeps profile "default"'s API key and ledger password, and others can read it (mode 644)`);
    expect(r1.stderr).toContain(
      "If others may have read it, make new keys at the service and log in again; change the ledger's database password and give the new URL to `payctl config set ledger --profile default --stdin`.",
    );
    const several = configWith(
      {
        default: { baseUrl: 'https://api.example.com/v2', webhookSecret: 'whsec_0123456789' },
        team: { baseUrl: 'https://api.example.com/v2', ledger: url },
        other: { baseUrl: 'https://api.example.com/v2', ledger: 'postgres://payctl@db.example.com/payctl' },
      },
      0o640,
    );
    const r2 = await payctl(['config', 'list'], { dir: several });
    expect(r2.code, r2.stderr).toBe(2);
    expect(r2.stderr).toContain(`it keeps 2 profiles' webhook secrets and ledger passwords, and others can read it (mode 640)`);
    for (const r of [r1, r2]) expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });

  it('a ledger URL without a password keeps no secret: used at 0644; PAYCTL_LEDGER_URL with a password is no file, and is used', async () => {
    const key = newKey();
    const service = await standIn(key);
    const plain = `postgres://payctl@127.0.0.1:5432/payctl`;
    const dir = configWith({ default: { baseUrl: service.baseUrl, ledger: plain } }, 0o644);
    const get = await payctl(['config', 'get', 'ledger'], { dir, env: { PAYCTL_API_KEY: key } });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout.trim()).toBe(plain);
    const balances = await payctl(['balances', '--json'], { dir, env: { PAYCTL_API_KEY: key } });
    expect(balances.code, balances.stderr).toBe(0);
    // The environment's URL, password and all, beside a readable file that keeps none.
    const fromEnv = await payctl(['status', '--json'], { dir, env: { PAYCTL_API_KEY: key, PAYCTL_LEDGER_URL: `postgres://payctl:${PASSWORD}@127.0.0.1:5432/payctl` } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ ledger: { backend: 'postgresql', url: 'postgres://payctl:****@127.0.0.1:5432/payctl', source: 'env' } });
    expect(fromEnv.stdout + fromEnv.stderr).not.toContain(PASSWORD);
  });
});
