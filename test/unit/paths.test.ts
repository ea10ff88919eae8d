import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, freePath } from '../../src/config/paths.js';
import { folderFault } from '../../src/config/folder-fault.js';

describe('configDir', () => {
  it('uses PAYCTL_CONFIG_DIR first', () => {
    expect(configDir({ PAYCTL_CONFIG_DIR: '/tmp/pc', XDG_CONFIG_HOME: '/tmp/xdg', HOME: '/home/u' })).toBe('/tmp/pc');
  });

  it('then $XDG_CONFIG_HOME/payctl', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/tmp/xdg', HOME: '/home/u' })).toBe('/tmp/xdg/payctl');
  });

  it('then $HOME/.config/payctl', () => {
    expect(configDir({ HOME: '/home/u' })).toBe('/home/u/.config/payctl');
  });

  it('ignores empty values', () => {
    expect(configDir({ PAYCTL_CONFIG_DIR: '', XDG_CONFIG_HOME: '', HOME: '/home/u' })).toBe('/home/u/.config/payctl');
  });

  it('reads a leading ~ as the home folder (a value set where no shell expands it: a crontab, a unit file, an .env file)', () => {
    expect(configDir({ PAYCTL_CONFIG_DIR: '~/payctl-prod', HOME: '/home/u' })).toBe('/home/u/payctl-prod');
    expect(configDir({ PAYCTL_CONFIG_DIR: '~', HOME: '/home/u' })).toBe('/home/u');
    expect(configDir({ XDG_CONFIG_HOME: '~/.cfg', HOME: '/home/u' })).toBe('/home/u/.cfg/payctl');
    expect(configDir({ PAYCTL_CONFIG_DIR: '~/x' })).toBe(join(userInfo().homedir, 'x'));
    // Only a leading ~ alone or before a slash: "~ops" and "a/~" are folder names.
    expect(configDir({ PAYCTL_CONFIG_DIR: '/srv/~ops/a~', HOME: '/home/u' })).toBe('/srv/~ops/a~');
    expect(configDir({ PAYCTL_CONFIG_DIR: '~ops', HOME: '/home/u' })).toBe(join(process.cwd(), '~ops'));
  });

  it('falls back to the home folder of the password database without HOME', () => {
    expect(configDir({})).toBe(join(userInfo().homedir, '.config', 'payctl'));
  });

  it('reads an empty or relative HOME as no HOME: never a folder under the working folder', () => {
    const passwd = join(userInfo().homedir, '.config', 'payctl');
    expect(configDir({ HOME: '' })).toBe(passwd);
    expect(configDir({ HOME: 'rel' })).toBe(passwd);
    expect(configDir({ HOME: '', PAYCTL_CONFIG_DIR: '~/x' })).toBe(join(userInfo().homedir, 'x'));
  });

  it('ignores a relative XDG_CONFIG_HOME, as the XDG Base Directory spec says', () => {
    expect(configDir({ XDG_CONFIG_HOME: '.cfgrel', HOME: '/home/u' })).toBe('/home/u/.config/payctl');
    expect(configDir({ XDG_CONFIG_HOME: '~cfg', HOME: '/home/u' })).toBe('/home/u/.config/payctl');
  });
});

describe('folderFault: never chmod the root folder (probe B53, 6)', () => {
  it('permission denied on / offers PAYCTL_CONFIG_DIR alone; on another folder, its chmod', () => {
    const denied = Object.assign(new Error('denied'), { code: 'EACCES' });
    expect(folderFault('/', denied, 'make the config folder /x').hint).toBe('Choose another config folder with PAYCTL_CONFIG_DIR.');
    expect(folderFault('/srv/cfg', denied, 'make the config folder /srv/cfg/x').hint).toContain('chmod u+w /srv/cfg');
  });
});

describe('freePath: the first name nothing is at, for a file or folder payctl prints for a person to make', () => {
  it('takes base+ext, then base-2+ext, ...; a dangling symbolic link counts as something there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-free-'));
    try {
      const base = join(dir, 'pay.failed');
      expect(freePath(base, '.csv')).toBe(`${base}.csv`);
      writeFileSync(`${base}.csv`, '');
      expect(freePath(base, '.csv')).toBe(`${base}-2.csv`);
      // A link to nothing: --failed-out and mv -n refuse such a name, so it is not offered.
      symlinkSync(join(dir, 'nowhere'), `${base}-2.csv`);
      expect(freePath(base, '.csv')).toBe(`${base}-3.csv`);
      expect(freePath(join(dir, 'cfg.moved'))).toBe(join(dir, 'cfg.moved'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
