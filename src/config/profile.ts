/** What a profile holds (the config file's `profiles.<name>`), apart from how the store reads and writes it. */
export type SecretsStorage = 'keyring' | 'file';

export interface Profile {
  baseUrl?: string;
  apiKey?: string;
  token?: string;
  /** ISO timestamp; absent when the service gave no expiry. */
  tokenExpiresAt?: string;
  webhookSecret?: string;
  routes?: Record<string, string>;
  /** The team's spending policy file (four eyes; plans/policy.ts): absolute path. */
  policy?: string;
  /** 'keyring': the key and token are in the OS keyring, not in the file. Absent: the file. */
  secrets?: SecretsStorage;
}
