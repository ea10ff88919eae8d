/**
 * The one "did you mean" rule (src/words.ts), shared by mistyped commands, profiles,
 * providers and batch-file columns: edit distance with swaps, cut short at a limit, and
 * commander's threshold of a slip.
 */
import { describe, expect, it } from 'vitest';
import { closestWords, editDistance } from '../../src/words.js';

describe('editDistance', () => {
  it('counts an insertion, a deletion, a change and a swap of neighbours as one edit each', () => {
    expect(editDistance('sandbox', 'sandbox')).toBe(0);
    expect(editDistance('sandbx', 'sandbox')).toBe(1);
    expect(editDistance('sandboxx', 'sandbox')).toBe(1);
    expect(editDistance('sandbex', 'sandbox')).toBe(1);
    expect(editDistance('sadnbox', 'sandbox')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('answers limit + 1 as soon as the distance is certain to be more than the limit', () => {
    expect(editDistance('a', 'abcdefgh', 2)).toBe(3);
    expect(editDistance('abcdefgh', 'hgfedcba', 2)).toBe(3);
    expect(editDistance('amout', 'amount', 2)).toBe(1);
    // Linear in a long input: a 100,000-character word against a short one stops at once.
    expect(editDistance('x'.repeat(100_000), 'amount', 2)).toBe(3);
  });
});

describe('closestWords', () => {
  it("keeps the closest candidates within three edits that keep more than 40% of the word (commander's rule)", () => {
    const words = ['default', 'sandbox', 'staging'];
    expect(closestWords('sandbx', words, (w) => w)).toEqual(['sandbox']);
    expect(closestWords('prod', words, (w) => w)).toEqual([]);
    expect(closestWords('ops', ['ops1', 'ops2'], (w) => w)).toEqual(['ops1', 'ops2']);
    expect(
      closestWords(
        'lst',
        [
          ['payouts', 'list'],
          ['payouts', 'last'],
        ],
        (p) => p[1]!,
      ),
    ).toEqual([
      ['payouts', 'list'],
      ['payouts', 'last'],
    ]);
  });
});
