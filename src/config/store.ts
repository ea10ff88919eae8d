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
  updateProfile(name: string, patch: Partial<Profile>): Profile;
  deleteProfile(name: string): void;
}
