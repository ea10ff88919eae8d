/**
 * The identifier of an API key, journaled with every payout it sent (JournalEntry.keyId), so that
 * a later run can tell whether its own key sent a payout (payouts/sender-profile.ts): the first 16
 * hex characters of SHA-256 over a domain-separated text and the key as sent. Not the key, nor any
 * part of it: keys are long random strings, so it cannot be turned back into one. Not printed.
 */
import { createRequire } from 'node:module';

/** What is hashed before the key: an id of this kind is never the hash of anything else payctl keeps. */
const DOMAIN = 'payctl key id v1\n';

/**
 * node:crypto's hash, loaded when a key id is first made: the API client imports this module, and
 * a read that journals nothing (`balances --json`) would otherwise load node:crypto at its start
 * (2-4 ms: config/lock-files.ts, api/client.ts).
 */
let sha256: ((data: string) => string) | undefined;

/** The key id of `apiKey`, exactly as it is sent (trimmed: config/api-key.ts trimKey). */
export function keyIdOf(apiKey: string): string {
  if (sha256 === undefined) {
    const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
    sha256 = (data) => createHash('sha256').update(data).digest('hex');
  }
  return sha256(DOMAIN + apiKey).slice(0, 16);
}

/** Whether `v` is a key id as keyIdOf makes them: a journaled one that is not is damage. */
export function isKeyId(v: unknown): v is string {
  return typeof v === 'string' && /^[0-9a-f]{16}$/.test(v);
}
