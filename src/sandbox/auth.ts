/**
 * Credentials: one API key exchanged at GET /v2/auth/token for bearer tokens that
 * expire after `tokenTtlSeconds`. Revoking the key ends the key and every token;
 * `expireAll` makes every issued token expired at once (for tests of the 401 path).
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

export type TokenCheck = 'ok' | 'missing' | 'malformed' | 'unknown' | 'expired';

export class Auth {
  private readonly tokens = new Map<string, number>();
  onChange: () => void = () => {};

  constructor(
    public apiKey: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  keyMatches(given: string | undefined): boolean {
    return given !== undefined && given !== '' && sameSecret(given, this.apiKey);
  }

  issue(): { token: string; expiresIn: number } {
    const token = 'tok_' + randomBytes(24).toString('hex');
    this.tokens.set(token, this.now() + this.ttlSeconds * 1000);
    if (this.tokens.size % 500 === 0) this.prune();
    this.onChange();
    return { token, expiresIn: this.ttlSeconds };
  }

  /** Checks an `Authorization` header value. */
  check(header: string | undefined): TokenCheck {
    if (header === undefined || header === '') return 'missing';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return 'malformed';
    const expires = this.tokens.get(m[1]!);
    if (expires === undefined) return 'unknown';
    if (expires <= this.now()) return 'expired';
    return 'ok';
  }

  revoke(newKey: string = newApiKey()): string {
    this.apiKey = newKey;
    this.tokens.clear();
    this.onChange();
    return newKey;
  }

  expireAll(): void {
    const past = this.now() - 1;
    for (const t of this.tokens.keys()) this.tokens.set(t, past);
    this.onChange();
  }

  /** Live tokens, for the state file. */
  live(): Array<{ token: string; expiresMs: number }> {
    const now = this.now();
    return [...this.tokens].filter(([, e]) => e > now).map(([token, expiresMs]) => ({ token, expiresMs }));
  }

  load(tokens: Array<{ token: string; expiresMs: number }>): void {
    for (const t of tokens) this.tokens.set(t.token, t.expiresMs);
  }

  private prune(): void {
    const now = this.now();
    for (const [t, e] of this.tokens) if (e <= now) this.tokens.delete(t);
  }
}
