/**
 * Secrets masked in everything payctl prints. A service that echoes the API key in an
 * error message, or a proxy page that repeats the Authorization header, must not put a
 * credential on a terminal, in a log or in a script's captured output. Every secret payctl
 * knows in a run (the key and token in use, new tokens, the webhook secret) is registered
 * here, and stdout and stderr are written through `maskedStream`, in every mode.
 */

/** Shorter values are not masked: they would blank out ordinary words. */
const MIN_SECRET_LENGTH = 6;

export class SecretMask {
  #secrets: string[] = [];

  add(...values: Array<string | undefined>): void {
    for (const v of values) {
      if (!v || v.length < MIN_SECRET_LENGTH || this.#secrets.includes(v)) continue;
      this.#secrets.push(v);
      // Longest first, so a secret that contains another is masked whole.
      this.#secrets.sort((a, b) => b.length - a.length);
    }
  }

  get size(): number {
    return this.#secrets.length;
  }

  apply(text: string): string {
    let out = text;
    for (const s of this.#secrets) if (out.includes(s)) out = out.split(s).join('***');
    return out;
  }
}

/** The stream, with every string or buffer written to it masked first. */
export function maskedStream<T extends NodeJS.WritableStream>(stream: T, mask: SecretMask): T {
  return rewrittenStream(stream, (c) => {
    if (!mask.size) return c;
    if (typeof c === 'string') return mask.apply(c);
    if (c instanceof Uint8Array) return Buffer.from(mask.apply(Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8')), 'utf8');
    return c;
  });
}

/**
 * The stream with every chunk written to it passed through `rewrite` first (masking secrets,
 * escaping JSON): one Proxy, so everything else about the stream stays its own.
 */
export function rewrittenStream<T extends NodeJS.WritableStream>(stream: T, rewrite: (chunk: unknown) => unknown): T {
  const write = (chunk: unknown, ...rest: unknown[]): boolean => (stream.write as (...a: unknown[]) => boolean)(rewrite(chunk), ...rest);
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return write;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
