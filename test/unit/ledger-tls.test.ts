/**
 * The ledger password never in clear text to another machine (src/config/ledger-tls.ts, and
 * where it is applied: checkLedgerSetting, resolveLedger, connectionOf): disable, allow and
 * prefer refused for a host that is not loopback or a socket, no sslmode there meaning
 * verify-full, require warned of; loopback and sockets as before.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { decideTls, isLocalHost, verifyFullForm } from '../../src/config/ledger-tls.js';
import { checkLedgerSetting, ledgerTlsWarning, resolveLedger } from '../../src/config/ledger-setting.js';
import { connectionOf } from '../../src/payouts/ledger/postgres/connect.js';

const PW = 'Hunter2LedgerPw';

function thrown(f: () => unknown): UsageError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('accepted');
}

describe('which hosts are this machine', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.3.4.5', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '/run/postgresql', '/tmp'])('%s is', (h) => {
    expect(isLocalHost(h)).toBe(true);
  });
  it.each([
    'db.example.com',
    '192.0.2.2',
    '10.0.0.1',
    '128.0.0.1',
    '::2',
    '::ffff:192.0.2.2',
    'localhost.example.com',
    '127.0.0.1.nip.io',
    'a,localhost',
    '',
    '127.1',
    '0127.0.0.1',
    '127.0.0.256',
    '::1%lo',
    'fe80::1%eth0',
  ])('%s is not', (h) => {
    expect(isLocalHost(h)).toBe(false);
  });
});

describe('decideTls', () => {
  const masked = 'postgres://u:****@db.example.com/x';

  it('another machine: no sslmode is verify-full; disable, allow and prefer are refused (exit 2) with the verify-full form', () => {
    expect(decideTls({ host: 'db.example.com', sslmode: undefined }, 'The ledger', masked, true)).toEqual({ mode: 'verify-full' });
    for (const mode of ['disable', 'allow', 'prefer']) {
      const err = thrown(() => decideTls({ host: '192.0.2.2', sslmode: mode }, 'The ledger', `${masked}?sslmode=${mode}`, true));
      expect(err.exitCode).toBe(2);
      expect(err.message).toContain(`The ledger "${masked}?sslmode=${mode}" asks for sslmode=${mode}, which would send the password to 192.0.2.2 without TLS`);
      expect(err.hint).toContain(`${masked}?sslmode=verify-full (your password in place of ****)`);
    }
    expect(thrown(() => decideTls({ host: 'db', sslmode: 'prefer', fromEnv: true }, 'PAYCTL_LEDGER_URL', 'postgres://db/x', false)).message).toContain(
      'asks for PGSSLMODE=prefer',
    );
    expect(thrown(() => decideTls({ host: 'db', sslmode: 'prefer', fromEnv: true }, 'PAYCTL_LEDGER_URL', 'postgres://db/x', false)).hint).toContain(
      'postgres://db/x?sslmode=verify-full. ',
    );
  });

  it('another machine: require is kept, with a warning that names the verify-full form; verify-ca, verify-full and require with a root certificate are not warned of', () => {
    const r = decideTls({ host: 'db.example.com', sslmode: 'require' }, 'The ledger', `${masked}?sslmode=require`, true);
    expect(r.mode).toBe('require');
    expect(r.warning).toContain("the server's certificate is not checked, so the password goes to whoever answers for db.example.com");
    expect(r.warning).toContain(`${masked}?sslmode=verify-full`);
    expect(decideTls({ host: 'db.example.com', sslmode: 'require', rootCert: true }, 'The ledger', masked, true)).toEqual({ mode: 'require' });
    expect(decideTls({ host: 'db.example.com', sslmode: 'verify-ca' }, 'The ledger', masked, true)).toEqual({ mode: 'verify-ca' });
    expect(decideTls({ host: 'db.example.com', sslmode: 'verify-full' }, 'The ledger', masked, true)).toEqual({ mode: 'verify-full' });
  });

  it('this machine keeps the default of libpq (prefer) and every mode, without a warning', () => {
    expect(decideTls({ host: '127.0.0.1', sslmode: undefined }, 'The ledger', masked, true)).toEqual({ mode: 'prefer' });
    for (const mode of ['disable', 'allow', 'prefer', 'require']) {
      expect(decideTls({ host: 'localhost', sslmode: mode }, 'The ledger', masked, true)).toEqual({ mode });
      expect(decideTls({ host: '/run/postgresql', sslmode: mode }, 'The ledger', masked, true)).toEqual({ mode });
    }
  });

  it('the verify-full form replaces any sslmode, or adds one', () => {
    expect(verifyFullForm('postgres://u:****@h/x')).toBe('postgres://u:****@h/x?sslmode=verify-full');
    expect(verifyFullForm('postgres://u:****@h/x?connect_timeout=5')).toBe('postgres://u:****@h/x?connect_timeout=5&sslmode=verify-full');
    expect(verifyFullForm('postgres://u@h/x?sslmode=prefer&password=****')).toBe('postgres://u@h/x?sslmode=verify-full&password=****');
  });
});

describe('where it is applied', () => {
  it('checkLedgerSetting (config set): the URL alone decides; the password never in the message', () => {
    expect(checkLedgerSetting(`postgres://u:${PW}@db.example.com/x`)).toBe(`postgres://u:${PW}@db.example.com/x`);
    for (const url of [
      `postgres://u:${PW}@db.example.com/x?sslmode=prefer`,
      `postgres://u@db.example.com/x?sslmode=disable&password=${PW}`,
      `postgres://u:${PW}@[2001:db8::1]/x?sslmode=allow`,
    ]) {
      const err = thrown(() => checkLedgerSetting(url));
      expect(`${err.message} ${err.hint}`).not.toContain(PW);
      expect(err.hint).toContain('sslmode=verify-full');
    }
    // A socket folder named by ?host= wins over the URL's host, as the client reads it.
    expect(checkLedgerSetting('postgres://u:pw@db.example.com/x?host=/run/postgresql&sslmode=disable')).toContain('sslmode=disable');
    expect(checkLedgerSetting(`postgres://u:${PW}@127.0.0.1:5432/x?sslmode=disable`)).toContain('127.0.0.1');
    expect(() => checkLedgerSetting('postgres://u:pw@127.0.0.1/x?host=db.example.com&sslmode=prefer')).toThrow(/without TLS/);
    expect(checkLedgerSetting(`postgres://u:${PW}@db.example.com/x`, 'The ledger', { PGSSLMODE: 'verify-ca' })).toContain('db.example.com');
  });

  it('resolveLedger (every command that uses the ledger): PGSSLMODE fills a missing sslmode, and a non-TLS one is refused', () => {
    const url = `postgres://u:${PW}@db.example.com/x`;
    expect(resolveLedger({ PAYCTL_LEDGER_URL: url }, undefined)).toMatchObject({ backend: 'postgresql', url });
    const err = thrown(() => resolveLedger({ PAYCTL_LEDGER_URL: url, PGSSLMODE: 'prefer' }, undefined));
    expect(err.message).toMatch(/^PAYCTL_LEDGER_URL "postgres:\/\/u:\*\*\*\*@db\.example\.com\/x" asks for PGSSLMODE=prefer/);
    expect(() => resolveLedger({}, { ledger: `${url}?sslmode=disable` })).toThrow(/^The profile's ledger .* asks for sslmode=disable/);
    expect(resolveLedger({ PGSSLMODE: 'disable' }, { ledger: `${url}?sslmode=verify-full` })).toMatchObject({ backend: 'postgresql' });
  });

  it('ledgerTlsWarning: for require to another machine only, the password masked', () => {
    const w = ledgerTlsWarning(`postgres://u:${PW}@db.example.com/x?sslmode=require`);
    expect(w).toContain('postgres://u:****@db.example.com/x?sslmode=verify-full (your password in place of ****)');
    expect(w).not.toContain(PW);
    expect(ledgerTlsWarning(`postgres://u:${PW}@db.example.com/x`, { PGSSLMODE: 'require' }, 'PAYCTL_LEDGER_URL')).toMatch(/^PAYCTL_LEDGER_URL .* uses sslmode=require/);
    expect(ledgerTlsWarning(`postgres://u:${PW}@db.example.com/x?sslmode=require&sslrootcert=/etc/ca.pem`)).toBeUndefined();
    expect(ledgerTlsWarning(`postgres://u:${PW}@127.0.0.1/x?sslmode=require`)).toBeUndefined();
    expect(ledgerTlsWarning('local')).toBeUndefined();
  });

  it('connectionOf (what the client is given): no TLS-less config for another machine, whatever the environment says', () => {
    expect(connectionOf(`postgres://u:${PW}@db.example.com/x`, {}).config.ssl).toEqual(expect.objectContaining({ rejectUnauthorized: true }));
    expect((connectionOf(`postgres://u:${PW}@db.example.com/x`, {}).config.ssl as { checkServerIdentity?: unknown }).checkServerIdentity).toBeUndefined();
    for (const [url, env] of [
      [`postgres://u:${PW}@db.example.com/x?sslmode=prefer`, {}],
      [`postgres://u:${PW}@db.example.com/x`, { PGSSLMODE: 'disable' }],
      ['postgres://', { PGHOST: '192.0.2.2', PGPASSWORD: PW, PGSSLMODE: 'allow' }],
    ] as const) {
      const err = thrown(() => connectionOf(url, env));
      expect(err.exitCode).toBe(2);
      expect(`${err.message} ${err.hint}`).not.toContain(PW);
    }
    expect(connectionOf('postgres://u@127.0.0.1/x', {}).config.ssl).toBe(false);
    expect(connectionOf('postgres://u@localhost/x?sslmode=disable', {}).config.ssl).toBe(false);
    expect(connectionOf('postgres://u@/x?host=/run/postgresql', {}).config.ssl).toBe(false);
  });
});
