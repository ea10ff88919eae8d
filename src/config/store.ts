/**
 * The profile store (conf): one JSON file `config.json` in the config folder, mode
 * 0600 in a 0700 folder, written atomically. A damaged file is reported with its
 * path and never overwritten.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { configDir } from './paths.js';

export interface Profile {
  baseUrl?: string;
  apiKey?: string;
  token?: string;
  /** ISO timestamp; absent when the service gave no expiry. */
  tokenExpiresAt?: string;
  webhookSecret?: string;
  routes?: Record<string, string>;
}

export interface ConfigStore {
  readonly path: string;
  readonly dir: string;
  profileNames(): string[];
  getProfile(name: string): Profile | undefined;
  setProfile(name: string, profile: Profile): void;
  /** Merges `patch` into the profile (creating it); keys set to undefined are removed. */
  updateProfile(name: string, patch: Partial<Profile>): Profile;
  deleteProfile(name: string): void;
}

const profileSchema = z.object({
  baseUrl: z.string().optional(),
  apiKey: z.string().optional(),
  token: z.string().optional(),
  tokenExpiresAt: z.string().optional(),
  webhookSecret: z.string().optional(),
  routes: z.record(z.string(), z.string()).optional(),
});
const fileSchema = z.object({ profiles: z.record(z.string(), profileSchema).optional() }).loose();
type FileShape = z.infer<typeof fileSchema>;

const FILE_NAME = 'config.json';

class ConfStore implements ConfigStore {
  readonly path: string;
  readonly dir: string;
  readonly #conf: Conf<FileShape>;

  constructor(dir: string) {
    this.dir = dir;
    this.path = join(dir, FILE_NAME);
    try {
      this.#conf = new Conf<FileShape>({
        cwd: dir,
        configName: 'config',
        projectSuffix: '',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
    } catch (err) {
      throw this.#damaged(err);
    }
  }

  #damaged(err: unknown): ConfigError {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return new ConfigError(
      `The config file ${this.path} is damaged and cannot be read (${why}).`,
      `Fix it by hand, or move it away and run \`payctl login\` again. payctl does not overwrite it.`,
    );
  }

  #read(): Record<string, Profile> {
    let raw: unknown;
    try {
      raw = this.#conf.store;
    } catch (err) {
      throw this.#damaged(err);
    }
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw this.#damaged(new Error(`${issue?.path.join('.') || 'top level'}: ${issue?.message ?? 'unexpected shape'}`));
    }
    return (parsed.data.profiles ?? {}) as Record<string, Profile>;
  }

  #write(profiles: Record<string, Profile>): void {
    this.#read(); // never overwrite a damaged file
    this.#conf.set('profiles', profiles);
    chmodSync(this.path, 0o600);
  }

  profileNames(): string[] {
    return Object.keys(this.#read()).sort();
  }

  getProfile(name: string): Profile | undefined {
    const p = this.#read()[name];
    return p ? { ...p } : undefined;
  }

  setProfile(name: string, profile: Profile): void {
    const all = this.#read();
    all[name] = stripUndefined(profile);
    this.#write(all);
  }

  updateProfile(name: string, patch: Partial<Profile>): Profile {
    const all = this.#read();
    const next = stripUndefined({ ...all[name], ...patch });
    all[name] = next;
    this.#write(all);
    return { ...next };
  }

  deleteProfile(name: string): void {
    const all = this.#read();
    if (!(name in all)) return;
    delete all[name];
    this.#write(all);
  }
}

function stripUndefined(p: Profile): Profile {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Profile;
}

/** Ensures the config folder exists with mode 0700 (created that way; tightened if it is ours and looser). */
export function ensureConfigDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const st = statSync(dir);
    if ((st.mode & 0o077) !== 0 && typeof process.getuid === 'function' && st.uid === process.getuid()) {
      chmodSync(dir, 0o700);
    }
  } catch {
    // The folder is there; a failed tightening is not fatal.
  }
}

export function openConfigStore(env: NodeJS.ProcessEnv): ConfigStore {
  const dir = configDir(env);
  try {
    ensureConfigDir(dir);
  } catch (err) {
    throw new ConfigError(`Cannot create the config folder ${dir}: ${(err as Error).message}`);
  }
  return new ConfStore(dir);
}
