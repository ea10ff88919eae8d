/**
 * stderr under --json, read as a script reads it (src/output/log.ts): one JSON document a line,
 * `{"warning":…}`, `{"notice":…}`, `{"verbose":…}`, and the error `{"error":…}`, the last line.
 * Each helper fails the test when a line is not JSON.
 */
import { expect } from 'vitest';

/** Every line of stderr, parsed; fails the test on a line that is not one JSON document. */
export function stderrDocs(stderr: string): Array<Record<string, any>> {
  if (stderr === '') return [];
  expect(stderr.endsWith('\n'), `stderr ends its last line: ${stderr}`).toBe(true);
  return stderr
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      let doc: unknown;
      expect(() => (doc = JSON.parse(line)), `a stderr line that is no JSON: ${line}`).not.toThrow();
      expect(typeof doc === 'object' && doc !== null && !Array.isArray(doc), `a stderr line that is no object: ${line}`).toBe(true);
      return doc as Record<string, any>;
    });
}

/** The texts of stderr's `{"warning":…}` lines. */
export function warningsOf(stderr: string): string[] {
  return stderrDocs(stderr).flatMap((d) => (typeof d.warning === 'string' ? [d.warning] : []));
}

/** The texts of stderr's `{"notice":…}` lines. */
export function noticesOf(stderr: string): string[] {
  return stderrDocs(stderr).flatMap((d) => (typeof d.notice === 'string' ? [d.notice] : []));
}

/** The error document's fields: the last line of stderr, the only one with "error". */
export function errorOf(stderr: string): Record<string, any> {
  const docs = stderrDocs(stderr);
  expect(
    docs.filter((d) => 'error' in d),
    `one error document on stderr: ${stderr}`,
  ).toHaveLength(1);
  expect(docs.at(-1)?.error, `the error is the last line of stderr: ${stderr}`).toBeDefined();
  return docs.at(-1)!.error;
}

/**
 * stderr under --json written back as the lines a person reads without --json: a warning as
 * "Warning: …", a notice as it is (a success without its ✓); fails on a line that is not JSON.
 */
export function asText(stderr: string): string {
  return stderrDocs(stderr)
    .map((d) => (typeof d.warning === 'string' ? `Warning: ${d.warning}\n` : typeof d.notice === 'string' ? `${d.notice}\n` : `${JSON.stringify(d)}\n`))
    .join('');
}
