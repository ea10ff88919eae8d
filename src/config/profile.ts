/** What a profile holds (the config file's `profiles.<name>`), apart from how the store reads and writes it. */
export type SecretsStorage = 'keyring' | 'file';

export interface Profile {
  baseUrl?: string;
  apiKey?: string;
  webhookSecret?: string;
  /** The header that carries a webhook's signature (default `Signature`). */
  webhookSignatureHeader?: string;
  routes?: Record<string, string>;
  /** The team's spending policy file (four eyes; plans/policy.ts): absolute path. */
  policy?: string;
  /**
   * Where the payout journal is kept (config/ledger-setting.ts): `local` or a PostgreSQL URL,
   * password included when one was given (the file is 0600); absent: local.
   */
  ledger?: string;
  /** 'keyring': the API key is in the OS keyring, not in the file. Absent: the file. */
  secrets?: SecretsStorage;
}
