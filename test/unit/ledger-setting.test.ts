/** The ledger setting (src/config/ledger-setting.ts): what is accepted, how it is masked, which one a run uses. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { checkLedgerSetting, hasPassword, ledgerSecrets, maskLedgerUrl, resolveLedger } from '../../src/config/ledger-setting.js';

function refusal(value: string, from?: string): UsageError {
  try {
    checkLedgerSetting(value, from);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error(`${value} was accepted`);
}

describe('the ledger setting', () => {
  it('accepts local and PostgreSQL URLs of either scheme, trimmed', () => {
    expect(checkLedgerSetting('local')).toBe('local');
    expect(checkLedgerSetting(' postgres://payctl@db.example.com:5432/payctl \n')).toBe('postgres://payctl@db.example.com:5432/payctl');
    expect(checkLedgerSetting('postgresql://u:pw@[::1]:5432/db?sslmode=verify-full')).toBe('postgresql://u:pw@[::1]:5432/db?sslmode=verify-full');
    expect(checkLedgerSetting('postgres:///payctl?host=/var/run/postgresql')).toBe('postgres:///payctl?host=/var/run/postgresql');
  });

  it('refuses another scheme, no host, a bad port, a bad sslmode: exit 2, the password never in the message', () => {
    for (const [value, says] of [
      ['mysql://u:hunter2hunter2@h/db', 'must be local or a postgres:// or postgresql:// URL'],
      ['db.example.com', 'must be local or a postgres://'],
      ['', 'cannot be empty'],
      ['postgres:///db', 'names no host'],
      ['postgres://u:hunter2hunter2@h:99999/db', 'has the port 99999: a port is a whole number from 1 to 65535'],
      ['postgres://u:hunter2hunter2@h/db?sslmode=always', 'unknown sslmode "always"'],
      ['postgres:u:hunter2hunter2@h/db', 'must start with postgres://'],
    ] as const) {
      const err = refusal(value);
      expect(err.exitCode).toBe(2);
      expect(err.message).toContain(says);
      expect(`${err.message} ${err.hint}`).not.toContain('hunter2');
    }
    expect(refusal('nope', 'PAYCTL_LEDGER_URL').message).toMatch(/^PAYCTL_LEDGER_URL must be local/);
  });

  it('a port past 65535 is said as the port, not as a password to escape; a password with a raw / still is', () => {
    // Before: "is not a valid URL", with a hint about escaping @ : / ? # % in the password.
    for (const [value, port] of [
      ['postgres://127.0.0.1:99999/x', '99999'],
      ['postgres://u:hunter2hunter2@db.example.com:123456/db?sslmode=verify-full', '123456'],
      ['postgresql://u@[::1]:70000/db', '70000'],
    ] as const) {
      const err = refusal(value, 'PAYCTL_LEDGER_URL');
      expect(err.exitCode).toBe(2);
      expect(err.message).toBe(`PAYCTL_LEDGER_URL "${value.replace('hunter2hunter2', '****')}" has the port ${port}: a port is a whole number from 1 to 65535.`);
      expect(err.hint).not.toContain('%40');
    }
    const slash = refusal('postgres://u:pa/ss@db.example.com:5432/db');
    expect(slash.message).not.toContain('port');
    expect(slash.hint).toContain('%2F');
  });

  it('masks the password, in the user part or as a parameter, even in a URL that does not parse', () => {
    expect(maskLedgerUrl('postgres://user:s3cret@host:5432/db')).toBe('postgres://user:****@host:5432/db');
    expect(maskLedgerUrl('postgres://user:p%40ss@host/db?sslmode=require')).toBe('postgres://user:****@host/db?sslmode=require');
    expect(maskLedgerUrl('postgres://user@host/db?password=zz&sslpassword=yy&x=1')).toBe('postgres://user@host/db?password=****&sslpassword=****&x=1');
    expect(maskLedgerUrl('postgres://u:p/w@ss@h/db')).toBe('postgres://u:****@h/db');
    expect(maskLedgerUrl('postgres://host/db')).toBe('postgres://host/db');
    expect(maskLedgerUrl('local')).toBe('local');
    expect(maskLedgerUrl('postgres:u:pw@h/db')).toBe('postgres:u:****@h/db');
    expect(maskLedgerUrl('u:pw@h/db')).toBe('u:****@h/db');
  });

  it.each([
    ['postgres://payctl:5432?x@db.example.com/payctl', '5432?x'],
    ['postgres://payctl:abc#def@127.0.0.1:5432/payctl', 'abc#def'],
    ['postgres://payctl:ab?cd@db.example.com/payctl', 'ab?cd'],
    ['postgres://payctl:p@ss:w/rd%41#?x@127.0.0.1:5432/payctl', 'ss:w/rd%41#?x'],
  ])('a password with a raw ? # or / (%s) is masked whole, and the URL refused naming how to write it', (raw, secret) => {
    expect(maskLedgerUrl(raw)).not.toContain(secret);
    let err: UsageError | undefined;
    try {
      checkLedgerSetting(raw);
    } catch (e) {
      err = e as UsageError;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect(`${err!.message} ${err!.hint}`).not.toContain(secret);
    expect(err!.hint).toContain('%3F %23 %25');
  });

  it('a % that starts no escape in the password is refused (pg would fail every connection), %25 is read', () => {
    expect(() => checkLedgerSetting('postgres://payctl:s3cr3t%@127.0.0.1:5432/payctl')).toThrow(/has a % in its user name or password that is not an escape/);
    expect(checkLedgerSetting('postgres://payctl:s3cr3t%25@127.0.0.1:5432/payctl')).toBe('postgres://payctl:s3cr3t%25@127.0.0.1:5432/payctl');
    expect(checkLedgerSetting('postgres://payctl:PW@/payctl?host=/run/postgresql')).toBe('postgres://payctl:PW@/payctl?host=/run/postgresql');
  });

  it('a password parameter with a raw # is masked whole, in the refusal of its fragment and as a secret (probe 49-F: "****#Hunter2Secret")', () => {
    const raw = 'postgres://payctl@db.example.com:5432/payctl?password=Xk3#Hunter2Secret';
    expect(maskLedgerUrl(raw)).toBe('postgres://payctl@db.example.com:5432/payctl?password=****');
    let message = '';
    try {
      checkLedgerSetting(raw);
    } catch (err) {
      message = (err as UsageError).message + String((err as UsageError).hint);
    }
    expect(message).toContain('must not have a #fragment');
    expect(message).not.toContain('Hunter2');
    expect(ledgerSecrets(raw)).toContain('Xk3#Hunter2Secret');
    // With an & after the # too (probe 51-H: "password=****&TWO").
    const amp = 'postgres://payctl@db.example.com:5432/payctl?password=Xk3#HUNTER&TWO';
    expect(maskLedgerUrl(amp)).toBe('postgres://payctl@db.example.com:5432/payctl?password=****');
    expect(ledgerSecrets(amp)).toContain('Xk3#HUNTER&TWO');
  });

  it('knows the passwords to mask, as written and decoded', () => {
    expect(ledgerSecrets('postgres://u:p%40ssword@h/db')).toEqual(['p%40ssword', 'p@ssword']);
    expect(ledgerSecrets('postgres://u@h/db?password=abcdef')).toEqual(['abcdef']);
    expect(hasPassword('postgres://u@h/db')).toBe(false);
    expect(hasPassword('postgres://u:x@h/db')).toBe(true);
    expect(ledgerSecrets('local')).toEqual([]);
  });

  it("knows the password of a socket folder's URL (no host before the path, as pg reads it)", () => {
    // Before: no URL to WHATWG, so no password: not masked when echoed, and a readable config file keeping it was used.
    const socket = 'postgres://payctl:pw_secret9@/payctl?host=/run/postgresql';
    expect(checkLedgerSetting(socket)).toBe(socket);
    expect(ledgerSecrets(socket)).toEqual(['pw_secret9', 'pw_secret9']);
    expect(hasPassword(socket)).toBe(true);
    expect(hasPassword('postgres://payctl@/payctl?host=/run/postgresql')).toBe(false);
  });

  it('PAYCTL_LEDGER_URL wins over the profile (local too), the profile over the default', () => {
    const profile = { ledger: 'postgres://team:pw@db/payctl' };
    expect(resolveLedger({}, undefined)).toEqual({ backend: 'local', source: 'default' });
    expect(resolveLedger({}, profile)).toEqual({ backend: 'postgresql', url: profile.ledger, masked: 'postgres://team:****@db/payctl', source: 'profile' });
    expect(resolveLedger({ PAYCTL_LEDGER_URL: 'local' }, profile)).toEqual({ backend: 'local', source: 'env' });
    expect(resolveLedger({ PAYCTL_LEDGER_URL: 'postgres://other/x' }, profile)).toMatchObject({ url: 'postgres://other/x', source: 'env' });
    expect(resolveLedger({ PAYCTL_LEDGER_URL: '' }, profile)).toMatchObject({ source: 'profile' });
    expect(() => resolveLedger({ PAYCTL_LEDGER_URL: 'sqlite:x' }, profile)).toThrow(/PAYCTL_LEDGER_URL must be local/);
  });
});

describe("libpq's keyword/value form: refused as a ledger, its password never shown", () => {
  it.each([
    ['host=127.0.0.1 user=payctl password=KvStdinPassw0rd dbname=payctl', 'KvStdinPassw0rd'],
    ["host=db password='s3 cr\\'et' dbname=x", 's3'],
    ['host=db PASSWORD = EnvKvPw456', 'EnvKvPw456'],
    ['sslpassword=KeyPass1 host=db', 'KeyPass1'],
  ])('%s', (value, secret) => {
    expect(maskLedgerUrl(value)).not.toContain(secret);
    expect(maskLedgerUrl(value)).toContain('host=');
    let message = '';
    try {
      checkLedgerSetting(value);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('must be local or a postgres:// or postgresql:// URL');
    expect(message).not.toContain(secret);
  });
});
