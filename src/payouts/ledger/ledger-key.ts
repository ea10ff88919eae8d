/**
 * The key that signs the rows this config folder writes to a team's shared ledger (issue #30:
 * every row attributable; the rows themselves: postgres/signing.ts). The person's own signing
 * key (`payctl keys create`, src/plans/keys.ts) when they made one; else this config folder's
 * ledger key, an Ed25519 key made on first use of a shared ledger in `<config>/ledger-key.json`
 * (0600, written whole and linked into place: never replaced, as the journal's MAC key is).
 * Neither ever leaves the machine: only the public key goes into rows. Like a signing key, a
 * ledger key file that others could read or change, another user's, or a symlink, is refused.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError } from '../../errors.js';
import { jsonFault } from '../../config/json-fault.js';
import { ensureConfigDir } from '../../config/paths.js';
import { fingerprintOf, loadSigningKey, publicKeyText, readPrivateKeyFile, writeNewKeyFile, type SigningKey } from '../../plans/keys.js';
import { keySigner, type RowSigner } from './postgres/signing.js';

export const LEDGER_KEY_FILE = 'ledger-key.json';

/** The key that signs this config folder's rows, and whose it is. */
export interface RowKey {
  key: SigningKey;
  /** `person`: the person's own key (its name is theirs); `ledger`: this config folder's ledger key. */
  kind: 'person' | 'ledger';
}

export function ledgerKeyFile(configDir: string): string {
  return join(configDir, LEDGER_KEY_FILE);
}

/** This config folder's ledger key; undefined when none was made here. A damaged or unsafe file is an error. */
export function loadLedgerKey(configDir: string): SigningKey | undefined {
  const file = ledgerKeyFile(configDir);
  const text = readPrivateKeyFile(file, { label: 'ledger key', misuse: 'sign shared ledger rows as this machine' });
  if (text === undefined) return undefined;
  try {
    const r = JSON.parse(text) as { created_at?: unknown; private_key?: unknown };
    if (typeof r.private_key !== 'string') throw new Error('its private key is missing');
    const privateKey = createPrivateKey({ key: Buffer.from(r.private_key, 'base64'), format: 'der', type: 'pkcs8' });
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 key');
    const publicKey = publicKeyText(createPublicKey(privateKey));
    const createdAt = typeof r.created_at === 'string' ? r.created_at : '';
    return { name: '', createdAt, publicKey, fingerprint: fingerprintOf(publicKey)!, privateKey };
  } catch (err) {
    throw new ConfigError(
      `The ledger key ${file} is damaged (${err instanceof SyntaxError ? jsonFault(err, text) : (err as Error).message}).`,
      'Move it away: payctl makes a new one on its next write to the shared ledger (rows signed with the old one still verify: each names its key).',
    );
  }
}

/** The ledger key, made (0600, exclusively: a second payctl at the same moment finds the same key) when there is none. */
export function ledgerKey(configDir: string, env: NodeJS.ProcessEnv, now: Date): SigningKey {
  const known = loadLedgerKey(configDir);
  if (known) return known;
  ensureConfigDir(configDir, env);
  writeNewKeyFile(ledgerKeyFile(configDir), { purpose: 'signs the rows this config folder writes to a shared payctl ledger' }, 'ledger key', now);
  return loadLedgerKey(configDir)!;
}

/** The key this config folder's rows are signed with: the person's when they made one, else the ledger key (made now if need be). */
export function rowKey(configDir: string, env: NodeJS.ProcessEnv, now: Date): RowKey {
  const person = loadSigningKey(configDir);
  return person ? { key: person, kind: 'person' } : { key: ledgerKey(configDir, env, now), kind: 'ledger' };
}

/** What the shared ledger's store signs with (postgres/index.ts OpenOptions.signer): asked on its first write. */
export function rowSignerOf(configDir: string, env: NodeJS.ProcessEnv, now: () => Date): () => RowSigner {
  return () => keySigner(rowKey(configDir, env, now()).key);
}
