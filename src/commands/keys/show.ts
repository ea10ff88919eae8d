/**
 * `payctl keys show`: this person's public key and fingerprint, as a policy file lists them
 * (its "members", with their roles: src/plans/policy.ts, README "Four eyes").
 */
import { write, type Deps } from '../../deps.js';
import { configDir } from '../../config/paths.js';
import { requireSigningKey, type SigningKey } from '../../plans/keys.js';
import { text } from '../../output/text.js';

export interface KeysShowOptions {
  /** none */
  _?: never;
}

/** The public half of a key: a card for people, or one JSON document. */
export function keyCard(key: SigningKey, json: boolean): string {
  if (json) return JSON.stringify({ name: key.name, public_key: key.publicKey, fingerprint: key.fingerprint, created_at: key.createdAt }) + '\n';
  return (
    `Name         ${text(key.name)}\n` +
    `Public key   ${key.publicKey}\n` +
    `Fingerprint  ${key.fingerprint}\n` +
    `\nFor the policy file's members (roles "maker", "approver" or both; one person may list several keys):\n  ${JSON.stringify({ [key.name]: { keys: [key.publicKey], roles: ['approver'] } })}\n`
  );
}

export async function run(_opts: KeysShowOptions, deps: Deps): Promise<number> {
  await write(deps.io.stdout, keyCard(requireSigningKey(configDir(deps.env)), deps.globals.json));
  return 0;
}
