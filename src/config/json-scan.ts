/**
 * What the text of a JSON document says that JSON.parse does not keep, found in one linear pass:
 * a key one object gives twice (JSON.parse keeps the last, silently, while a person reading the
 * file sees the first), and the top-level numbers written with an exponent. The one copy, for
 * every JSON file payctl reads: a batch file's lines (payouts/batch-jsonl.ts), a policy file
 * (plans/policy-file.ts) and the config file (config-file.ts).
 */

/** What a JSON line's text says that JSON.parse does not keep. */
export interface JsonLineScan {
  /** The first key that one object holds twice (JSON.parse keeps the last, silently). */
  twice?: string;
  /** Top-level keys whose value is a number written with an exponent (1e3, 1E-2). */
  exponents?: string[];
}

/** One linear pass over a JSON text (parsed already: it is valid JSON). */
export function scanJsonLine(json: string): JsonLineScan {
  const stack: Array<Set<string> | null> = [];
  let exponents: string[] | undefined;
  let i = 0;
  while (i < json.length) {
    const c = json[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      // A string is a key when it is followed by a colon inside an object.
      let k = j + 1;
      while (k < json.length && (json[k] === ' ' || json[k] === '\t' || json[k] === '\r' || json[k] === '\n')) k++;
      if (top && json[k] === ':') {
        let key: string;
        try {
          key = JSON.parse(json.slice(i, j + 1)) as string;
        } catch {
          key = json.slice(i + 1, j);
        }
        if (top.has(key)) return { twice: key, exponents };
        top.add(key);
        if (stack.length === 1) {
          // The literal of a top-level number, which JSON.parse turns into a float and forgets.
          let v = k + 1;
          while (v < json.length && (json[v] === ' ' || json[v] === '\t' || json[v] === '\r' || json[v] === '\n')) v++;
          let end = v;
          while (end < json.length && '-+.0123456789eE'.includes(json[end]!)) end++;
          if (end > v && /[eE]/.test(json.slice(v, end))) (exponents ??= []).push(key);
          i = end > v ? end : j + 1;
          continue;
        }
      }
      i = j + 1;
      continue;
    }
    if (c === '{') stack.push(new Set());
    else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
    i++;
  }
  return { exponents };
}

/** The first key that an object of this JSON text holds twice, or undefined (scanJsonLine). */
export function duplicateJsonKey(json: string): string | undefined {
  return scanJsonLine(json).twice;
}

/**
 * A key an object of a JSON file gives twice, said as a problem: JSON keeps the last, so a person
 * reading the file sees a value (the first) that is not the one used.
 */
export function keyTwice(text: string): string | undefined {
  const twice = duplicateJsonKey(text);
  return twice === undefined ? undefined : `the key "${twice}" is given twice in one object: a reader sees the first value, and JSON keeps the last; give it once`;
}
