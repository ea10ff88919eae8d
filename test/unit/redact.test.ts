import { describe, expect, it } from 'vitest';
import { MASK, redactBody, redactHeader } from '../../src/api/redact.js';
import { SecretMask } from '../../src/output/secrets.js';
import { cpuMs } from '../helpers/cpu.js';

/** A mask of these secrets, as the API client makes one of its key (secrets of 4 characters and more). */
function masker(secrets: Array<string | undefined>): SecretMask {
  const m = new SecretMask(4);
  m.add(...secrets);
  return m;
}

const maskSecrets = (text: string, secrets: Array<string | undefined>) => masker(secrets).apply(text);

describe('redactHeader', () => {
  it.each([
    ['Authorization', 'Bearer eyJhbGciOi.secret.sig', 'Bearer ***'],
    ['authorization', 'Bearer abc', 'Bearer ***'],
    ['AUTHORIZATION', 'Basic dXNlcjpwYXNz', 'Basic ***'],
    ['Authorization', 'justatoken', '***'],
    ['Api-Key', 'sk_live_123456', '***'],
    ['api-key', 'sk_live_123456', '***'],
    ['X-Api-Key', 'sk_live_123456', '***'],
    ['Proxy-Authorization', 'Basic abc', '***'],
    ['Cookie', 'session=abc', '***'],
    ['Set-Cookie', 'session=abc; HttpOnly', '***'],
    ['Content-Type', 'application/json', 'application/json'],
    ['Idempotency-Key', '0b5c9d1e-aaaa', '0b5c9d1e-aaaa'],
    ['X-Request-Id', 'req-1', 'req-1'],
    ['Accept', 'application/json', 'application/json'],
  ])('%s: %s -> %s', (name, value, out) => {
    expect(redactHeader(name, value)).toBe(out);
  });

  it('never keeps any part of the credential', () => {
    expect(redactHeader('Authorization', 'Bearer secret-token-value')).not.toContain('secret');
  });
});

describe('maskSecrets', () => {
  it('masks every occurrence of each known secret', () => {
    expect(maskSecrets('key=sk_live_1234 again sk_live_1234', ['sk_live_1234'])).toBe('key=*** again ***');
    expect(maskSecrets('a tok-abcdef b key-9876', ['tok-abcdef', undefined, 'key-9876'])).toBe('a *** b ***');
  });

  it('ignores undefined, empty and very short secrets', () => {
    expect(maskSecrets('abc the abc', ['abc', '', undefined])).toBe('abc the abc');
  });

  // Regression (src/api/redact.ts, fixed): secrets are replaced in the order given, so when a shorter
  // secret is part of a longer one, the longer one is cut first and its rest stays visible.
  it('masks a secret whole even when another secret is part of it', () => {
    expect(maskSecrets('token=abcd1234efgh5678', ['abcd1234', 'abcd1234efgh5678'])).toBe('token=***');
  });

  it('leaves text without secrets alone', () => {
    expect(maskSecrets('nothing here', ['sk_live_1234'])).toBe('nothing here');
  });

  describe('a key echoed back encoded, or with invisible characters inside', () => {
    const KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    const b = Buffer.from(KEY);
    it.each([
      ['base64', b.toString('base64')],
      ['base64 without its padding', b.toString('base64').replace(/=+$/, '')],
      ['base64url', b.toString('base64url')],
      ['base64 of "user:key" (Basic auth)', Buffer.from(`user:${KEY}`).toString('base64')],
      ['base64url after two bytes of something else', Buffer.from(`ab${KEY}`).toString('base64url')],
      ['hex', b.toString('hex')],
      ['HEX', b.toString('hex').toUpperCase()],
      ['percent-encoded, every byte', b.toString('hex').replace(/../g, '%$&')],
      ['percent-encoded, every byte in capitals', b.toString('hex').toUpperCase().replace(/../g, '%$&')],
      ['with U+200B inside', `${KEY.slice(0, 8)}\u200b${KEY.slice(8)}`],
      ['with a zero width no-break space, a soft hyphen and a tag character inside', `sk\ufeff_live_4eC\u00ad39HqLyjWD\u{e0041}arjtT1zdp7dc`],
      ['with an escape sequence inside', `${KEY.slice(0, 5)}\u001b[0m${KEY.slice(5)}`],
      ['with a variation selector after every character', [...KEY].join('\ufe0f')],
      ['with a combining grapheme joiner and a Hangul filler inside', `${KEY.slice(0, 6)}\u034f${KEY.slice(6, 12)}\u3164${KEY.slice(12)}`],
      ['in capitals', KEY.toUpperCase()],
      ['in raw JSON, one letter as a \\u escape', `\\u0073${KEY.slice(1)}`],
      // As a proxy's HTML page, a wrapped line or a spaced-out copy shows it (before: printed whole).
      ['every s an HTML decimal reference', KEY.replaceAll('s', '&#115;')],
      ['each _ an HTML hex reference, in either case', `sk&#x5f;live&#X5F;${KEY.slice(8)}`],
      ['each _ a named reference', `sk&lowbar;live&UnderBar;${KEY.slice(8)}`],
      ['a numeric reference without its ;', `sk&#95live_${KEY.slice(8)}`],
      ['every character separated by a space', [...KEY].join(' ')],
      ['with a line feed inside', `${KEY.slice(0, 13)}\n${KEY.slice(13)}`],
      ['with CR LF inside', `${KEY.slice(0, 13)}\r\n${KEY.slice(13)}`],
      ['with a no-break space inside', `${KEY.slice(0, 13)}\u00a0${KEY.slice(13)}`],
      ['with a narrow no-break space and a figure space inside', `${KEY.slice(0, 9)}\u202f${KEY.slice(9, 20)}\u2007${KEY.slice(20)}`],
      ['with &nbsp; inside', `${KEY.slice(0, 13)}&nbsp;${KEY.slice(13)}`],
      ['each _ fullwidth', KEY.replaceAll('_', '\uff3f')],
      ['its first letters fullwidth', `\uff53\uff4b${KEY.slice(2)}`],
      ['in raw JSON, a line feed inside written \\n', `${KEY.slice(0, 13)}\\n${KEY.slice(13)}`],
      ['in raw JSON, a no-break space inside written \\u00a0, and CR LF as \\r\\n', `${KEY.slice(0, 9)}\\u00a0${KEY.slice(9, 20)}\\r\\n${KEY.slice(20)}`],
    ])('%s', (_name, echoed) => {
      const out = maskSecrets(`{"message":"bad key ${echoed}, try again"}`, [KEY]);
      expect(out).toMatch(/^\{"message":"bad key \S*\*\*\*\S*, try again"\}$/);
      for (const part of [KEY.slice(8, 20), b.toString('hex').slice(10, 30), b.toString('base64').slice(8, 24)]) expect(out).not.toContain(part);
    });

    it('a key with a plain-text form of its own (percent-encoded, JSON-escaped)', () => {
      const odd = 'sk_live/ab+cd"ef\\gh';
      expect(maskSecrets(`x ${encodeURIComponent(odd)} y`, [odd])).toBe('x *** y');
      expect(maskSecrets(`x ${JSON.stringify(odd)} y`, [odd])).toBe('x "***" y');
    });

    it('in raw JSON with every slash escaped (as PHP writes it), masked whole: the answer stays JSON', () => {
      const slashed = 'bk_live_Ab/Cd+Ef0123456789xyzQ';
      const raw = `{"message":"Balances for ${slashed.replace('/', '\\/')}","data":[]}`;
      const out = maskSecrets(raw, [slashed]);
      expect(out).toBe('{"message":"Balances for ***","data":[]}');
      expect(JSON.parse(out)).toEqual({ message: 'Balances for ***', data: [] });
      // An escaped slash alone, with no key in it, is left as it came.
      expect(maskSecrets('{"next":"https:\\/\\/api.example.com\\/v2"}', [slashed])).toBe('{"next":"https:\\/\\/api.example.com\\/v2"}');
    });

    it('in raw JSON with an invisible character past U+FFFF written as its two surrogate escapes: masked', () => {
      const raw = `{"wallet_name":"${KEY.slice(0, 12)}\\udb40\\udc41${KEY.slice(12)}"}`;
      const out = maskSecrets(raw, [KEY]);
      expect(out).toBe('{"wallet_name":"***"}');
    });

    it('an escaped backslash before "u" is a backslash, not an escape: text that only looks like the key is left, still JSON', () => {
      const raw = `{"wallet_name":"C:\\\\u0073${KEY.slice(1)}"}`;
      expect(JSON.parse(raw)).toEqual({ wallet_name: `C:\\u0073${KEY.slice(1)}` });
      expect(maskSecrets(raw, [KEY])).toBe(raw);
    });

    it('percent-encoded in small letters, in a mix of cases, or only in part: masked whole', () => {
      // Before: only `%2B%2F%3D` (capitals) and every byte encoded were masked; the rest was printed in clear.
      const odd = 'sk_live_ab+cd/ef=gh12345XYZ';
      for (const echoed of ['sk_live_ab%2bcd%2fef%3dgh12345XYZ', 'sk_live_ab%2Bcd%2fef%3Dgh12345XYZ', 'sk_live_ab+cd%2Fef=gh12345XYZ']) {
        expect(maskSecrets(`{"message":"rejected ${echoed}"}`, [odd]), echoed).toBe('{"message":"rejected ***"}');
      }
      const plain = 'sk_live_ZZZZyyyyXXXXwwww9999';
      for (const echoed of ['sk_live_ZZZZyyyy%58XXXwwww9999', 'sk_live_ZZZZyyyy%58%58%58%58wwww%39999', '%73k_live_ZZZZyyyyXXXXwwww999%39']) {
        expect(maskSecrets(`rejected ${echoed}.`, [plain]), echoed).toBe('rejected ***.');
      }
      // A character of more than one byte, its escapes in small letters; with U+200B inside too.
      expect(maskSecrets('x p%c3%a9ss-w%C3%B6rd-0042 y', ['péss-wörd-0042'])).toBe('x *** y');
      expect(maskSecrets('x p%c3%a9ss-\u200bw%C3%B6rd-0042 y', ['péss-wörd-0042'])).toBe('x *** y');
    });

    it('percent-escapes that spell no key are left as written', () => {
      const text = 'a 100%25 sure %2b%2F%zz %C3 %e2%82 near sk_live_ZZZZyyyy%58XXXwwww999';
      expect(maskSecrets(text, ['sk_live_ZZZZyyyyXXXXwwww9999'])).toBe(text);
    });

    it('in raw JSON with an escape sequence inside written \\u001b (as --verbose shows the body): masked, still JSON', () => {
      // Before: `\u001b` read as ESC was left out, and the `[0m` after it kept the key from matching.
      const plain = 'sk_live_ZZZZyyyyXXXXwwww9999';
      for (const seq of ['\\u001b[0m', '\\u001b[1m', '\\u001b[38;5;1m', '\\u001b]0;t\\u0007', '\\u009b2J', '%1b[0m']) {
        const raw = `{"message":"rejected sk_live_ZZZZ${seq}yyyyXXXXwwww9999"}`;
        const out = maskSecrets(raw, [plain]);
        expect(out, seq).toBe('{"message":"rejected ***"}');
      }
      // Percent-encoded too, with the sequence inside.
      expect(maskSecrets('{"m":"sk_live_ab%2bcd\\u001b[0m%2fef%3dgh12345XYZ"}', ['sk_live_ab+cd/ef=gh12345XYZ'])).toBe('{"m":"***"}');
      // A character after an ESC that belongs to the key (no sequence) is still found as written.
      expect(maskSecrets('sk_live_\u001bZZZZyyyyXXXXwwww9999', [plain])).toBe('***');
    });

    // A quarter of a megabyte each: a reading that went back over the text (quadratic) would take
    // minutes on it, a linear one takes tens of milliseconds. Bounded in CPU time (load does not
    // inflate it); the test's own time limit is for a machine busy with other runs.
    it('a quarter megabyte of percent-escapes and escape sequences is masked in linear time', { timeout: 120_000 }, () => {
      const KEY2 = 'sk_live_ab+cd/ef=gh12345XYZ';
      const m = masker([KEY2, KEY]);
      for (const filler of ['%2b', '%c3%a9', '%e2%82', '\\u001b[', '\\u001b]', '%1b[', '%']) {
        const text = filler.repeat(250_000 / filler.length) + ' sk_live_ab%2bcd%2fef%3dgh12345XYZ';
        const t0 = cpuMs();
        const out = m.apply(text);
        const ms = cpuMs() - t0;
        expect(ms, `${filler}: ${ms.toFixed(0)} ms`).toBeLessThan(1000);
        expect(out.endsWith(' ***') || !out.includes('gh12345XYZ'), filler).toBe(true);
      }
    });

    it('white space, references and fullwidth forms are read only to find a key: the text around it, and text without it, left as written', () => {
      // Only what spells the key is masked, from its first character to its last: the line breaks around it are kept.
      expect(maskSecrets(`key:\n${KEY.slice(0, 13)}\n${KEY.slice(13)}\nnext`, [KEY])).toBe('key:\n***\nnext');
      expect(maskSecrets(`{"m":"key:\\n${KEY.slice(0, 13)}\\n${KEY.slice(13)}\\n"}`, [KEY])).toBe('{"m":"key:\\n***\\n"}');
      // A part of the key, or its parts with other words between, spell no key.
      for (const text of [
        `the key ${KEY.slice(0, 13)} is wrong`,
        `${KEY.slice(0, 13)} and ${KEY.slice(13)}`,
        `${KEY.slice(0, 13)}\n${KEY.slice(13, -1)}`,
        `A &amp; B &#60; C &unknown; &#99999999999999; &#0; &#xD800; ｗｉｄｅ \u3000 text`,
        `sk&lowbar;live&lowbar; other`,
      ]) {
        expect(maskSecrets(text, [KEY]), text).toBe(text);
      }
      // A numeric key is not read out of a number written with spaces or &nbsp; between its digits.
      const amounts = 'Balance 405 745 SLE, 405&nbsp;745 SLE, 405\u202f745,52 SLE';
      expect(maskSecrets(amounts, ['405745'])).toBe(amounts);
      expect(maskSecrets('key &#52;05745 or ４０５７４５.', ['405745'])).toBe('key *** or ***.');
      // A key with white space of its own (a ledger password) is found with other white space inside.
      expect(maskSecrets('pw: correct horse\nbattery!', ['correct horse battery!'])).toBe('pw: ***');
    });

    it('a quarter megabyte of white space, references and fullwidth forms is masked in linear time', { timeout: 120_000 }, () => {
      const m = masker([KEY, '405745']);
      for (const filler of [' ', '\n', '\u00a0', ' a', '\\n', '&', '&#', '&#x', '&a', '&amp;', '&#95;', '&#0', '\uff3f', '4 ']) {
        const text = filler.repeat(250_000 / filler.length) + '&#95' + '0'.repeat(25_000) + ' ' + [...KEY].join(' ');
        const t0 = cpuMs();
        const out = m.apply(text);
        const ms = cpuMs() - t0;
        expect(ms, `${JSON.stringify(filler)}: ${ms.toFixed(0)} ms`).toBeLessThan(1000);
        expect(out.endsWith(' ***'), filler).toBe(true);
      }
      const a = 'a'.repeat(250_000);
      const t0 = cpuMs();
      expect(m.apply(`&${a} ${KEY.slice(0, 13)}&#10;${KEY.slice(13)}`)).toBe(`&${a} ***`);
      expect(cpuMs() - t0).toBeLessThan(1000);
    });

    it('invisible characters elsewhere are kept, and text without the key is left alone', () => {
      expect(maskSecrets(`a\u200bb ${KEY.slice(0, 4)}\u200b${KEY.slice(4)} c\u200bd`, [KEY])).toBe('a\u200bb *** c\u200bd');
      expect(maskSecrets('a\u200bb sk_live_other', [KEY])).toBe('a\u200bb sk_live_other');
    });
  });
});

describe('redactBody', () => {
  it('masks secret JSON fields', () => {
    const body = JSON.stringify({
      status: 'Successful',
      data: { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 },
    });
    expect(JSON.parse(redactBody(body, masker([])))).toEqual({
      status: 'Successful',
      data: { access_token: MASK, token_type: MASK, expires_in: 3600 },
    });
  });

  it.each(['access_token', 'accessToken', 'token', 'apiKey', 'api_key', 'api-key', 'secret', 'webhookSecret', 'password', 'Authorization'])(
    'masks the field %s',
    (field) => {
      const out = redactBody(JSON.stringify({ [field]: 'S3cr3tValue', other: 'visible' }), masker([]));
      expect(JSON.parse(out)).toEqual({ [field]: MASK, other: 'visible' });
      expect(out).not.toContain('S3cr3tValue');
    },
  );

  it('masks nested fields and fields inside arrays', () => {
    const body = JSON.stringify({
      data: [
        { id: 1, credentials: { apiKey: 'k-1', secret: 's-1' } },
        { id: 2, items: [{ token: 't-2' }, { name: 'ok' }] },
      ],
    });
    expect(JSON.parse(redactBody(body, masker([])))).toEqual({
      data: [
        { id: 1, credentials: { apiKey: MASK, secret: MASK } },
        { id: 2, items: [{ token: MASK }, { name: 'ok' }] },
      ],
    });
  });

  it('masks numeric secrets', () => {
    expect(JSON.parse(redactBody('{"api_key": 123456789}', masker([])))).toEqual({ api_key: MASK });
  });

  it('keeps the bytes of a JSON body when nothing is masked', () => {
    const body = '{ "amount": 1500.50,  "currency": "SLE" }';
    expect(redactBody(body, masker([]))).toBe(body);
  });

  it('masks known secret values anywhere in a JSON body', () => {
    const body = '{"message": "key sk_live_abcdef is not valid"}';
    expect(redactBody(body, masker(['sk_live_abcdef']))).toBe('{"message": "key *** is not valid"}');
  });

  it('masks known secret values in text that is not JSON', () => {
    const body = '<html>token=tok-secret-1 and key=sk_live_abcdef</html>';
    const out = redactBody(body, masker(['tok-secret-1', 'sk_live_abcdef']));
    expect(out).toBe('<html>token=*** and key=***</html>');
  });

  it('cuts long bodies, saying how much was left out', () => {
    const body = 'x'.repeat(100);
    expect(redactBody(body, masker([]), 10)).toBe('xxxxxxxxxx… (90 more characters)');
    expect(redactBody(body, masker([]), 100)).toBe(body);
  });

  it('masks before cutting, so a cut never leaves a partial secret', () => {
    const secret = 'sk_live_abcdefgh';
    const body = 'a'.repeat(8) + secret;
    const out = redactBody(body, masker([secret]), 12);
    expect(out).toBe('aaaaaaaa***');
    expect(out).not.toContain('sk_live');
  });

  it('cuts at 64 KiB by default', () => {
    const body = 'y'.repeat(64 * 1024 + 5);
    expect(redactBody(body, masker([]))).toBe('y'.repeat(64 * 1024) + '… (5 more characters)');
  });
});
