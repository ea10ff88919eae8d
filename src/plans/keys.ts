/**
 * A person's Ed25519 signing key (node:crypto), for making and approving plans. It lives in
 * the config folder as `signing-key.json` (mode 0600, written exclusively: never replaced)
 * and never leaves the machine: only its public key and fingerprint are printed or put in
 * plans and policies.
 *
 * A public key is written `ed25519:<base64 of its 32 bytes>`; its fingerprint, as ssh
 * writes one, `SHA256:<unpadded base64 of the SHA-256 of those bytes>`.
 *
 * Like ssh with a private key, payctl refuses a key file that others could read or change
 * (any group or other permission bit), that another user owns, or that is a symlink: whoever
 * can read it can sign plans and approvals as its owner.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { linkSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ConfigError, UsageError } from '../errors.js';
import { jsonFault } from '../config/json-fault.js';
import { folderFault, isFsError } from '../config/folder-fault.js';
import { ensureConfigDir, ownerId } from '../config/paths.js';
import { shellQuote } from '../config/shell.js';
import { readRegular, RefusedFile } from '../config/regular-file.js';

export const KEY_FILE = 'signing-key.json';
/** Key files are a few hundred bytes: a larger one is not one payctl wrote, and is not read (a 3 GiB journal.key took 4 GB). */
const MAX_KEY_BYTES = 64 * 1024;
const PUBLIC_KEY = /^ed25519:([A-Za-z0-9+/]{43}=)$/;

export interface SigningKey {
  name: string;
  createdAt: string;
  publicKey: string;
  fingerprint: string;
  privateKey: KeyObject;
}

export function keyFile(configDir: string): string {
  return join(configDir, KEY_FILE);
}

function rawPublic(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new ConfigError('The signing key is not an Ed25519 key.');
  return Buffer.from(jwk.x, 'base64url');
}

/** `ed25519:<base64>` of a public key. */
export function publicKeyText(key: KeyObject): string {
  return `ed25519:${rawPublic(key).toString('base64')}`;
}

/** The 32 bytes of a public key written `ed25519:<base64>`, or undefined when it is not one. */
export function publicKeyBytes(text: string): Buffer | undefined {
  const m = PUBLIC_KEY.exec(text.trim());
  if (!m) return undefined;
  const bytes = Buffer.from(m[1]!, 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

/** `SHA256:<base64>` of a public key written `ed25519:<base64>` (undefined when it is not one). */
export function fingerprintOf(publicKey: string): string | undefined {
  const bytes = publicKeyBytes(publicKey);
  return bytes && `SHA256:${createHash('sha256').update(bytes).digest('base64').replace(/=+$/, '')}`;
}

/** Makes this person's key: refused when one exists (it is never replaced). */
export function createSigningKey(configDir: string, name: string, env: NodeJS.ProcessEnv, now: Date): SigningKey {
  const who = name.trim();
  if (!who || /[\p{Cc}]/u.test(who) || who.length > 100) throw new UsageError('--name must be 1 to 100 characters without control characters.');
  ensureConfigDir(configDir, env);
  const file = keyFile(configDir);
  if (writeNewKeyFile(file, { name: who }, 'signing key', now) === 'exists') {
    throw new UsageError(`A signing key already exists in ${file}; payctl never replaces one.`, [], 'See it with: payctl keys show');
  }
  return loadSigningKey(configDir)!;
}

/**
 * A new Ed25519 key written to `file` (0600): `{version: 1, ...fields, created_at, public_key,
 * private_key}`, written whole to a temp file, then linked into place, so an existing key is
 * never replaced and a second payctl at the same moment finds either no key or a complete one.
 * 'exists' when `file` was there already (nothing written).
 */
export function writeNewKeyFile(file: string, fields: Record<string, string>, label: string, now: Date): 'written' | 'exists' {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const record = {
    version: 1,
    ...fields,
    created_at: now.toISOString(),
    public_key: publicKeyText(publicKey),
    private_key: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
  };
  const tmp = `${file}.${randomUUID()}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(record, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    linkSync(tmp, file);
    return 'written';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    if (isFsError(err)) throw folderFault(dirname(file), err, `write the ${label} ${file}`); // its folder named, never the temp file
    throw err;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // not written
    }
  }
}

/** How a private key file is named in messages, and what whoever reads it could do. */
export interface PrivateKeyFile {
  /** "signing key", "ledger key". */
  label: string;
  /** "sign plans and approvals as you". */
  misuse: string;
  /** Said after the chmod command when the file could be read by others. */
  ifCopied?: string;
}

/**
 * A private key file's text; undefined when there is none. Refused (ConfigError, exit 2) when it
 * is a symlink, not a regular file, another user's, or readable or writable by others (Windows has
 * no mode bits or user ids to check: its permissions are ACLs). One check for every key payctl keeps.
 */
export function readPrivateKeyFile(file: string, what: PrivateKeyFile): string | undefined {
  try {
    return readRegular(file, MAX_KEY_BYTES, { what: what.label, check: (st) => checkPrivate(file, st, what) })?.toString('utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if (err instanceof RefusedFile) {
      throw new ConfigError(
        `Refusing to use the ${what.label} ${file}: it ${err.kind === 'symlink' ? 'is a symlink' : err.why}.`,
        err.kind === 'symlink'
          ? 'Put the key file itself in the config folder.'
          : 'It is not a key file payctl wrote: move it away, and put back the key file from a backup of this config folder.',
      );
    }
    throw new ConfigError(`Cannot read the ${what.label} ${file}: ${(err as Error).message}`);
  }
}

/** Refuses a key file another user owns, or one others could read or change (not on Windows: its permissions are ACLs). */
function checkPrivate(file: string, st: Stats, what: PrivateKeyFile): void {
  if (sep !== '/') return;
  const uid = ownerId();
  if (uid !== undefined && st.uid !== uid) throw new ConfigError(`Refusing to use the ${what.label} ${file}: it belongs to another user (uid ${st.uid}).`);
  if ((st.mode & 0o077) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
    throw new ConfigError(
      `Refusing to use the ${what.label} ${file}: its permissions ${mode} let others read or change it, and whoever reads it can ${what.misuse}.`,
      `Make it yours alone with: chmod 600 ${shellQuote(file)}${what.ifCopied ? `\n${what.ifCopied}` : ''}`,
    );
  }
}

/** This person's key, or undefined when none was made here. A damaged file is an error. */
export function loadSigningKey(configDir: string): SigningKey | undefined {
  const file = keyFile(configDir);
  const text = readPrivateKeyFile(file, {
    label: 'signing key',
    misuse: 'sign plans and approvals as you',
    ifCopied: 'If others may have copied it, make a new key elsewhere (payctl keys create) and have the policy list that key instead.',
  });
  if (text === undefined) return undefined;
  try {
    const r = JSON.parse(text) as { name?: unknown; created_at?: unknown; private_key?: unknown };
    if (typeof r.name !== 'string' || typeof r.private_key !== 'string') throw new Error('fields missing');
    const privateKey = createPrivateKey({ key: Buffer.from(r.private_key, 'base64'), format: 'der', type: 'pkcs8' });
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 key');
    const publicKey = publicKeyText(createPublicKey(privateKey));
    return { name: r.name, createdAt: typeof r.created_at === 'string' ? r.created_at : '', publicKey, fingerprint: fingerprintOf(publicKey)!, privateKey };
  } catch (err) {
    throw new ConfigError(
      `The signing key ${file} is damaged (${err instanceof SyntaxError ? jsonFault(err, text) : (err as Error).message}).`,
      'Move it away and run `payctl keys create` to make a new one (and give your team its public key).',
    );
  }
}

/** The key, or a usage error saying how to make one. */
export function requireSigningKey(configDir: string): SigningKey {
  const key = loadSigningKey(configDir);
  if (!key) throw new UsageError('No signing key on this machine. Nothing was changed.', [], 'Make one with: payctl keys create --name "Your Name"');
  return key;
}

/** An Ed25519 signature (base64) of `message`. */
export function signText(key: SigningKey, message: string): string {
  return sign(null, Buffer.from(message, 'utf8'), key.privateKey).toString('base64');
}

/** Whether `signature` (base64) is the signature of `message` by the key written `ed25519:<base64>`. */
export function verifyText(publicKey: string, message: string, signature: string): boolean {
  const bytes = publicKeyBytes(publicKey);
  if (!bytes || !/^[A-Za-z0-9+/]{86}==$/.test(signature)) return false;
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: bytes.toString('base64url') }, format: 'jwk' });
    return verify(null, Buffer.from(message, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
