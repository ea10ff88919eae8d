/**
 * Secrets masked in everything payctl prints. A service that echoes the API key in an
 * error message, or a proxy page that repeats the Authorization header, must not put a
 * credential on a terminal, in a log or in a script's captured output. Every secret payctl
 * knows in a run (the key in use, the webhook secret, those other profiles keep in the config
 * file) is registered here, and stdout and stderr are written through `maskedStream`, in every
 * mode. A secret is masked in the forms a service could echo it in (encoded: secretForms; or
 * percent-encoded, JSON-escaped, as HTML character references or fullwidth forms, with white
 * space, invisible characters or escape sequences slipped inside: the text as it reads,
 * output/secret-reading.ts), not wherever a part of it appears. With many secrets (every
 * profile's), a text is first looked at once for the start of any form.
 */
import { sanitizeInline } from './sanitize.js';
import { quickReadings, readsAsWritten, readView, seenText, type Reading } from './secret-reading.js';

/** Shorter values are not masked: they would blank out ordinary words. */
const MIN_SECRET_LENGTH = 6;

/**
 * The forms a secret is masked in, computed once when it is added: as it is, as sanitized for a
 * line (a secret holding a control character), escaped inside a JSON string, base64 and base64url
 * (with and without padding, and the part every alignment in a longer base64 text leaves whole, as
 * in `Basic base64(user:key)`), and hex in either case. Percent-encoded forms need none of their
 * own: percent-escapes are read as their characters (output/secret-reading.ts).
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const hex = bytes.toString('hex');
  const forms = [secret, secret.toUpperCase(), secret.toLowerCase(), sanitizeInline(secret), JSON.stringify(secret).slice(1, -1), hex, hex.toUpperCase()];
  for (const encoding of ['base64', 'base64url'] as const) {
    forms.push(bytes.toString(encoding), bytes.toString(encoding).replace(/=+$/, ''));
    // After k bytes of something else, the characters that hold the secret's bits alone.
    for (let k = 0; k < 3; k++) {
      const shifted = Buffer.concat([Buffer.alloc(k), bytes]).toString(encoding);
      forms.push(shifted.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6)));
    }
  }
  return [...new Set(forms)].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

export class SecretMask {
  #secrets: string[] = [];
  #forms: string[] = [];
  /** The forms as the `seen` reading looks for them (seenText: their white space left out), longest first. */
  #seenForms: string[] = [];
  readonly #known = new Set<string>();
  readonly #seenKnown = new Set<string>();
  /** The first MIN_SECRET_LENGTH characters of every form: a text holding none holds no secret. */
  readonly #starts = new Set<string>();
  /** Forms added since the last sort. */
  #unsorted = false;
  readonly #min: number;

  /** `min`: the shortest secret masked (default 6). */
  constructor(min = MIN_SECRET_LENGTH) {
    this.#min = min;
  }

  add(...values: Array<string | undefined>): void {
    for (const v of values) {
      if (!v || v.length < this.#min || this.#secrets.includes(v)) continue;
      this.#secrets.push(v);
      for (const f of [v, ...secretForms(v)]) {
        if (this.#known.has(f)) continue;
        this.#known.add(f);
        this.#starts.add(f.slice(0, MIN_SECRET_LENGTH));
        this.#forms.push(f);
        this.#unsorted = true;
        const seen = seenText(f);
        if (seen.length < this.#min || this.#seenKnown.has(seen)) continue;
        this.#seenKnown.add(seen);
        this.#starts.add(seen.slice(0, MIN_SECRET_LENGTH));
        this.#seenForms.push(seen);
      }
    }
  }

  /** Every form, longest first, so a secret that contains another is masked whole. */
  #sorted(): string[] {
    if (this.#unsorted) {
      this.#forms.sort((a, b) => b.length - a.length);
      this.#seenForms.sort((a, b) => b.length - a.length);
    }
    this.#unsorted = false;
    return this.#forms;
  }

  /** The forms looked for in a reading: `seen` looks for them with their white space left out. */
  #formsFor(reading: Reading): string[] {
    const forms = this.#sorted();
    return reading === 'seen' ? this.#seenForms : forms;
  }

  get size(): number {
    return this.#secrets.length;
  }

  /**
   * Whether the text may hold a form: with many forms (every profile's secrets), one look-up per
   * character costs less than looking for each form in turn.
   */
  #mayHold(text: string): boolean {
    if (this.#forms.length < 64 || this.#min < MIN_SECRET_LENGTH) return true;
    for (let i = 0; i + MIN_SECRET_LENGTH <= text.length; i++) if (this.#starts.has(text.slice(i, i + MIN_SECRET_LENGTH))) return true;
    return false;
  }

  apply(text: string): string {
    let out = text;
    if (this.#mayHold(out)) for (const s of this.#sorted()) if (out.includes(s)) out = maskForm(out, s);
    if (!this.#secrets.length || readsAsWritten(out)) return out;
    return this.#applyVisible(out);
  }

  /**
   * `apply` for a service's answer: where masking would make a JSON answer unreadable (a short
   * or numeric key that is also an amount, `"250000.00"` or `250000`, read as `***.00`), the
   * secrets are masked inside its strings only, where an echoed key would be; its numbers are
   * the service's data, kept as sent.
   */
  applyToAnswer(text: string): string {
    const masked = this.apply(text);
    if (masked === text || !isJson(text) || isJson(masked)) return masked;
    return text.replace(JSON_STRING, (token) => this.apply(token));
  }

  /**
   * Masks the secrets found in the text as it reads (output/secret-reading.ts): JSON escapes,
   * percent-escapes and HTML character references read as the characters they stand for,
   * escape sequences, invisible characters and white space left out; what spelled a secret is
   * masked whole in the text as written (from its first character to its last).
   */
  #applyVisible(text: string): string {
    // Most texts hold no secret even then (an answer with `\/` in every URL): read natively first,
    // and where each character read comes from only when a secret is there.
    const readings = quickReadings(text)
      .filter(([r, q]) => this.#mayHold(q) && this.#formsFor(r).some((f) => q.includes(f)))
      .map(([r]) => r);
    if (!readings.length) return text;
    const cuts: Array<[number, number]> = [];
    for (const reading of readings) {
      const { read, from, to } = readView(text, reading);
      for (const f of this.#formsFor(reading)) {
        const digits = DIGITS.test(f);
        for (let i = read.indexOf(f); i >= 0; i = read.indexOf(f, i + f.length)) {
          // Digits with anything left out between them (`405 745`, white space read away) are a number, not a secret.
          if (digits && (inNumber(read, i, f.length) || (reading === 'seen' && !contiguous(from, to, i, f.length)))) continue;
          cuts.push([from[i]!, to[i + f.length - 1]!]);
        }
      }
    }
    if (!cuts.length) return text;
    cuts.sort((a, b) => a[0] - b[0]);
    let out = '';
    let end = 0;
    for (const [start, stop] of cuts) {
      if (start < end) {
        // Overlaps the cut before: masked by it, to its end.
        end = Math.max(end, stop);
        continue;
      }
      out += `${text.slice(end, start)}***`;
      end = stop;
    }
    return out + text.slice(end);
  }
}

/** A secret's form of digits only (a numeric key or password, and its hex form): masked only where it is not part of a longer number. */
const DIGITS = /^\d+$/;

/**
 * Whether the `length` characters at `i` are part of a longer number: a digit, or a point or
 * comma after a digit, just before them; a digit, or a point or comma before a digit, just after.
 * `405745.52` and `1405745` hold the number 405745 as part of an amount or an account, never as
 * the key 405745: masked, they were printed `***.52` and `1***`.
 */
function inNumber(text: string, i: number, length: number): boolean {
  const digit = (k: number) => k >= 0 && k < text.length && text.charCodeAt(k) >= 48 && text.charCodeAt(k) <= 57;
  const mark = (k: number) => text[k] === '.' || text[k] === ',';
  const j = i + length;
  return digit(i - 1) || (mark(i - 1) && digit(i - 2)) || digit(j) || (mark(j) && digit(j + 1));
}

/** Whether the `length` characters read at `i` stand next to each other in the text as written (nothing left out between them). */
function contiguous(from: number[], to: number[], i: number, length: number): boolean {
  for (let k = i; k + 1 < i + length; k++) if (to[k] !== from[k + 1]) return false;
  return true;
}

/** The text with every occurrence of the form masked (one of digits only where it stands alone: inNumber). */
function maskForm(text: string, form: string): string {
  if (!DIGITS.test(form)) return text.split(form).join('***');
  let out = '';
  let end = 0;
  for (let i = text.indexOf(form); i >= 0; i = text.indexOf(form, i + form.length)) {
    if (inNumber(text, i, form.length)) continue;
    out += `${text.slice(end, i)}***`;
    end = i + form.length;
  }
  return end === 0 ? text : out + text.slice(end);
}

/** A JSON string token, quotes included. */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The stream, with every string or buffer written to it masked first. */
export function maskedStream<T extends NodeJS.WritableStream>(stream: T, mask: SecretMask): T {
  return rewrittenStream(stream, (c) => {
    if (!mask.size) return c;
    // A JSON document written whole (--json) keeps its numbers: see applyToAnswer.
    if (typeof c === 'string') return mask.applyToAnswer(c);
    if (c instanceof Uint8Array) return Buffer.from(mask.applyToAnswer(Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8')), 'utf8');
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

/**
 * commander's message with the option it quotes as typed (`unknown option '--api-key=sk_live_…'`,
 * `'-ksk_live_…'`, short flags run together) written without what may be its value
 * (`'--api-key=…'`, `'-k…'`): a key typed into a misspelt option is never printed. The token is
 * all up to the line's last quote (a value may hold a quote itself).
 */
export function withoutOptionValues(message: string): string {
  return message.replace(/(unknown option ')(.*)'/g, (_whole, lead: string, token: string) => {
    const eq = token.indexOf('=');
    const shown = token.startsWith('--') ? (eq >= 0 ? `${token.slice(0, eq)}=…` : token) : token.length > 2 ? `${token.slice(0, 2)}…` : token;
    return `${lead}${shown}'`;
  });
}
