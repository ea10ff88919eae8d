/**
 * Credentials: the API key is the bearer token (docs/service.md "Every request"); there is
 * no token exchange and nothing expires. Revoking the key replaces it: the old one stops
 * working at once. Keys are compared in constant time.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export function newApiKey(): string {
  return 'sk_sandbox_' + randomBytes(12).toString('hex');
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export type KeyCheck = 'ok' | 'missing' | 'malformed' | 'unknown';

export class Auth {
  onChange: () => void = () => {};

  constructor(public apiKey: string) {}

  /** Checks an `Authorization` header value: `Bearer <API key>`. */
  check(header: string | undefined): KeyCheck {
    if (header === undefined || header === '') return 'missing';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return 'malformed';
    return sameSecret(m[1]!, this.apiKey) ? 'ok' : 'unknown';
  }

  revoke(newKey: string = newApiKey()): string {
    this.apiKey = newKey;
    this.onChange();
    return newKey;
  }
}
