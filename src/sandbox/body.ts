/**
 * A request body as the sandbox reads it, before anything else looks at it. JSON nested
 * deeper than the client's own limit (MAX_JSON_DEPTH, 64 levels) is not parsed at all: a
 * 50,000-deep `metadata` was once accepted, then overflowed the stack wherever the body was
 * written or compared again (the state file, a replay, the recorded requests). Numbers are
 * read from their text (src/service/exact-json.ts, docs/service.md "Amounts"): one that a
 * binary double would change comes back as an ExactNumber holding its literal, never as
 * another number, and never as a string either (a text field still refuses it).
 */
import { MAX_JSON_DEPTH } from '../service/error-body.js';
import { parseServiceJson } from '../service/exact-json.js';
import { ExactNumber } from './json.js';

export type BodyRead =
  | { kind: 'json'; value: unknown }
  | { kind: 'not-json' }
  /** Nested too deep; `member` is the top-level member it happens in ('' when it is in none). */
  | { kind: 'too-deep'; member: string };

/** Reads a request body: its JSON with exact numbers, or why it has none. */
export function readBody(text: string): BodyRead {
  const member = tooDeepMember(text, MAX_JSON_DEPTH);
  if (member !== undefined) return { kind: 'too-deep', member };
  let exact: unknown;
  let plain: unknown;
  try {
    exact = parseServiceJson(text);
    plain = JSON.parse(text) as unknown;
  } catch {
    return { kind: 'not-json' };
  }
  return { kind: 'json', value: markInexact(plain, exact) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `exact` (parseServiceJson's reading) with each number it had to keep as text, where the
 * plain reading has a number, made an ExactNumber: so a JSON string stays a string. The depth
 * is bounded by readBody's check before it.
 */
function markInexact(plain: unknown, exact: unknown): unknown {
  if (typeof plain === 'number' && typeof exact === 'string') return new ExactNumber(exact);
  if (Array.isArray(plain) && Array.isArray(exact)) {
    for (let i = 0; i < exact.length; i++) exact[i] = markInexact(plain[i], exact[i]);
  } else if (isObject(plain) && isObject(exact)) {
    for (const k of Object.keys(exact)) {
      const v = markInexact(plain[k], exact[k]);
      // defineProperty: a member named __proto__ stays a member.
      if (v !== exact[k]) Object.defineProperty(exact, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
  }
  return exact;
}

/**
 * Where arrays and objects in this JSON text nest deeper than `limit`: the name of the
 * top-level member that does ('' when the text is not an object), or undefined when nothing
 * does. One linear pass without recursion; strings are skipped whole.
 */
export function tooDeepMember(text: string, limit: number): string | undefined {
  let depth = 0;
  let inObject = false;
  let expectKey = false;
  let member = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      if (depth === 1 && expectKey) {
        member = stringToken(text.slice(start, i + 1));
        expectKey = false;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return member;
      if (depth === 1) inObject = expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth === 1) expectKey = inObject;
  }
  return undefined;
}

/** A JSON string token's text; the token itself when it is not one. */
function stringToken(token: string): string {
  try {
    const s = JSON.parse(token) as unknown;
    return typeof s === 'string' ? s : token;
  } catch {
    return token;
  }
}
