import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir } from '../../src/config/paths.js';

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

  it('falls back to the OS home folder without HOME', () => {
    expect(configDir({})).toBe(join(homedir(), '.config', 'payctl'));
  });
});
