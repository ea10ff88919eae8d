/**
 * `payctl keys show` (and `keys create`'s card): this person's public key and fingerprint, and
 * the member a policy file lists them as, one snippet for a maker and one for an approver
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
    `\nFor the policy file's "members", inside its braces, as a maker (makes plans):\n  ${member(key, 'maker')}\n` +
    `or as an approver (approves other people's plans):\n  ${member(key, 'approver')}\n` +
    `(a comma after each person but the last; both roles: "roles":["maker","approver"]; one person may list several keys)\n`
  );
}

/**
 * This key as one member of a policy, in `role`: an entry of "members" (`"Name": {…}`), pasted
 * into its braces as it is. One snippet for each role, each said whose it is: a single one with
 * "approver" was pasted by makers too, and plan create then refused them as not a maker. A whole
 * object (`{"Name":{…}}`) was printed before: two of them pasted side by side were not JSON.
 */
function member(key: SigningKey, role: 'maker' | 'approver'): string {
  return `${JSON.stringify(key.name)}: ${JSON.stringify({ keys: [key.publicKey], roles: [role] })}`;
}

export async function run(_opts: KeysShowOptions, deps: Deps): Promise<number> {
  await write(deps.io.stdout, keyCard(requireSigningKey(configDir(deps.env)), deps.globals.json));
  return 0;
}
