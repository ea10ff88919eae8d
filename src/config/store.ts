/**
 * The profile store: one JSON file `config.json` in the config folder, mode 0600 in a
 * 0700 folder. Writes go through conf (atomic, with the file mode); reads parse the file
 * directly, so the commands that only read never load conf and its JSON-schema validator
 * (a third of start-up; see `npm run bench`). A damaged file is reported with its path
 * and never overwritten.
 */
import { chmodSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Conf from 'conf';
import * as z from 'zod/mini';
import '../zod.js';
import { ConfigError } from '../errors.js';
import { configDir, ensureConfigDir } from './paths.js';

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
  setProfile(name: string, profile: Profile): Promise<void>;
  /** Merges `patch` into the profile (creating it); keys set to undefined are removed. */
  updateProfile(name: string, patch: Partial<Profile>): Promise<Profile>;
  deleteProfile(name: string): Promise<void>;
}

const profileSchema = z.object({
  baseUrl: z.optional(z.string()),
  apiKey: z.optional(z.string()),
  token: z.optional(z.string()),
  tokenExpiresAt: z.optional(z.string()),
  webhookSecret: z.optional(z.string()),
  routes: z.optional(z.record(z.string(), z.string())),
});
const fileSchema = z.looseObject({ profiles: z.optional(z.record(z.string(), profileSchema)) });
type FileShape = z.infer<typeof fileSchema>;

const FILE_NAME = 'config.json';

class ConfStore implements ConfigStore {
  readonly path: string;
  readonly dir: string;
  #conf: Conf<FileShape> | undefined;

  constructor(dir: string) {
    this.dir = dir;
    this.path = join(dir, FILE_NAME);
    this.#read(); // a damaged file is reported at once, before anything is sent
  }

  #damaged(err: unknown): ConfigError {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return new ConfigError(
      `The config file ${this.path} is damaged and cannot be read (${why}).`,
      `Fix it by hand, or move it away and run \`payctl login\` again. payctl does not overwrite it.`,
    );
  }

  #read(): Record<string, Profile> {
    let text: string;
    try {
      // Only a regular file: a FIFO would block every command, a symlink would have its
      // target rewritten and chmodded.
      const st = lstatSync(this.path);
      if (!st.isFile()) {
        throw new ConfigError(
          `The config file ${this.path} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; payctl reads and writes only a regular file there.`,
          'Move it away and run `payctl login` again, or point PAYCTL_CONFIG_DIR at another folder.',
        );
      }
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw this.#damaged(err);
    }
    let raw: unknown;
    try {
      raw = text.trim() === '' ? {} : JSON.parse(text);
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

  async #write(profiles: Record<string, Profile>): Promise<void> {
    if (!this.#conf) {
      // An empty file holds no profiles (#read agrees); conf would take it for invalid JSON.
      try {
        if (readFileSync(this.path, 'utf8').trim() === '') writeFileSync(this.path, '{}\n', { mode: 0o600 });
      } catch {
        // No file yet: conf creates it.
      }
      const { default: ConfClass } = await import('conf');
      this.#conf = new ConfClass<FileShape>({
        cwd: this.dir,
        configName: 'config',
        projectSuffix: '',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
    }
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

  async setProfile(name: string, profile: Profile): Promise<void> {
    const all = this.#read();
    all[name] = stripUndefined(profile);
    await this.#write(all);
  }

  async updateProfile(name: string, patch: Partial<Profile>): Promise<Profile> {
    const all = this.#read();
    const next = stripUndefined({ ...all[name], ...patch });
    all[name] = next;
    await this.#write(all);
    return { ...next };
  }

  async deleteProfile(name: string): Promise<void> {
    const all = this.#read();
    if (!(name in all)) return;
    delete all[name];
    await this.#write(all);
  }
}

function stripUndefined(p: Profile): Profile {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Profile;
}

export function openConfigStore(env: NodeJS.ProcessEnv): ConfigStore {
  const dir = configDir(env);
  try {
    ensureConfigDir(dir, env);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`Cannot create the config folder ${dir}: ${(err as Error).message}`);
  }
  return new ConfStore(dir);
}
