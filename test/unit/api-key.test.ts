/**
 * What an API key may hold (src/config/api-key.ts) and how its tail is shown (src/config/mask.ts):
 * the key is the bearer token, so white space around it is trimmed, anything but visible ASCII
 * inside it is named (what it is, its code point, where), and a masked tail never carries a
 * control character to the terminal.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { apiKeyProblem, checkApiKey, trimKey } from '../../src/config/api-key.js';
import { maskSecret } from '../../src/config/mask.js';

describe('apiKeyProblem', () => {
  it('takes visible ASCII, the characters of every key format', () => {
    expect(apiKeyProblem('sk_live_0123456789abcdef')).toBeUndefined();
    expect(apiKeyProblem('bok.live-KEY+/=~0123')).toBeUndefined();
  });

  it.each([
    ['abc\rdef', 'a carriage return (U+000D) at character 4'],
    ['abc\ndef', 'a line break (U+000A) at character 4'],
    ['abc\tdef', 'a tab (U+0009) at character 4'],
    ['\u001b[2Jabc', 'an escape character (U+001B) at character 1'],
    ['abc\u0000', 'a NUL character (U+0000) at character 4'],
    ['ab\u0007c', 'a control character (U+0007) at character 3'],
    ['ab\u009bc', 'a control character (U+009B) at character 3'],
    ['ab cd', 'a space (U+0020) at character 3'],
    ['ab\u00a0cd', 'a no-break space (U+00A0) at character 3'],
    ['ab\u2028cd', 'a white-space character (U+2028) at character 3'],
    ['ab\u200bcd', 'an invisible formatting character (U+200B) at character 3'],
    ['ab\u202ecd', 'an invisible formatting character (U+202E) at character 3'],
    ['\u201cabcd\u201d', 'a character that is not plain ASCII (U+201C) at character 1'],
    ['ab\u{1f600}cd', 'a character that is not plain ASCII (U+1F600) at character 3'],
  ])('names the first character of %j that cannot be sent', (key, problem) => {
    expect(apiKeyProblem(key)).toBe(problem);
  });
});

describe('trimKey and checkApiKey', () => {
  it('trims white space around a key (a CRLF key file, a pasted space), as login does', () => {
    expect(trimKey(' sk_live_0123\r\n')).toBe('sk_live_0123');
    expect(trimKey('\ufeffsk_live_0123\t')).toBe('sk_live_0123');
    expect(trimKey(undefined)).toBeUndefined();
  });

  it('refuses a key that cannot be sent with a usage error (exit 2) naming where it came from', () => {
    expect(() => checkApiKey('sk_live_0123', 'PAYCTL_API_KEY', 'hint')).not.toThrow();
    let err: unknown;
    try {
      checkApiKey('sk_\u001blive', 'the API key of profile "ops"', 'Log in again.');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toBe(
      'The API key of profile "ops" contains an escape character (U+001B) at character 4: an API key is visible ASCII characters only. Nothing was sent.',
    );
    expect((err as UsageError).hint).toBe('Log in again.');
  });

  it.each([
    ['Bearer sk_live_0123', 'starts with "Bearer ", the Authorization header\'s word before the key'],
    ['bearer sk_live_0123', 'starts with "Bearer ", the Authorization header\'s word before the key'],
    ['Authorization: Bearer sk_live_0123', 'is a header line ("Authorization: ...")'],
    ['"sk_live_0123"', 'is in quotes ("...")'],
    ["'sk_live_0123'", "is in quotes ('...')"],
  ])('says what came with a key copied from a request or a file: %j', (key, said) => {
    expect(() => checkApiKey(key, 'the API key from standard input', 'hint')).toThrow(
      new UsageError(`The API key from standard input ${said}: an API key is the key alone. Nothing was sent.`, [], 'hint'),
    );
  });

  it('a key that merely holds a quote or a colon is a key', () => {
    for (const key of ['sk_live_"0123', '"sk_live_0123', 'sk:live:0123', '""']) expect(() => checkApiKey(key, 'PAYCTL_API_KEY', 'hint')).not.toThrow();
  });
});

describe('maskSecret', () => {
  it('shows the last four characters of a long secret, nothing of a short one', () => {
    expect(maskSecret('sk_live_0123456789')).toBe('****6789');
    expect(maskSecret('short')).toBe('****');
    expect(maskSecret(undefined)).toBe('');
  });

  it('shows a control character or white space in the tail as its escape, never as itself', () => {
    expect(maskSecret('sk_live_0123456789\r')).toBe('****789\\u000d');
    expect(maskSecret('sk_live_01234567\u001b89')).toBe('****7\\u001b89');
    expect(maskSecret('sk_live_0123456 \u0000')).toBe('****56\\u0020\\u0000');
    expect(maskSecret('sk_live_012345678\u{1f600}')).toBe('****78\\u{1f600}');
  });
});
