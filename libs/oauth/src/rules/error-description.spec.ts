import {
  ERROR_DESCRIPTION_PATTERN,
  errorDescription,
  OAUTH_PARAMETER_NAMES,
  repeatedParametersDescription,
  unknownScopesDescription,
} from './error-description';

/** Every code point a description may hold, and none other (RFC 6749 4.1.2.1, 5.2). */
const allowed = (codePoint: number) =>
  (codePoint >= 0x20 && codePoint <= 0x21) ||
  (codePoint >= 0x23 && codePoint <= 0x5b) ||
  (codePoint >= 0x5d && codePoint <= 0x7e);

describe('error_description (RFC 6749 4.1.2.1 and 5.2, ADR 0040)', () => {
  it('keeps a description within the character set as it is', () => {
    const text = 'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9 and - . _ ~ [!]';
    expect(errorDescription(text)).toBe(text);
    expect(errorDescription('')).toBe('');
  });

  it('lets no character outside the set leave, each one becoming ?', () => {
    expect(errorDescription('unknown scopes: a"b, c\\d, été…')).toBe(
      'unknown scopes: a?b, c?d, ?t??',
    );
    expect(errorDescription('tab\tnew\nline\r\u0000\u007f')).toBe('tab?new?line???');
  });

  it('treats a code point as one character, and a lone surrogate as one too', () => {
    expect(errorDescription('a😀b')).toBe('a?b');
    expect(errorDescription('a\ud800b\udfffc')).toBe('a?b?c');
  });

  it('answers within the set for every code point of the BMP and a sample beyond', () => {
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint += codePoint < 0x10000 ? 1 : 0x101) {
      const character = String.fromCodePoint(codePoint);
      const out = errorDescription(`x${character}y`);
      expect(ERROR_DESCRIPTION_PATTERN.test(out)).toBe(true);
      if (allowed(codePoint) !== (out === `x${character}y`)) {
        throw new Error(`U+${codePoint.toString(16)} handled wrongly: ${JSON.stringify(out)}`);
      }
    }
  });

  it('has a pattern that refuses " and \\ and accepts the rest of printable ASCII', () => {
    expect(ERROR_DESCRIPTION_PATTERN.test('"')).toBe(false);
    expect(ERROR_DESCRIPTION_PATTERN.test('\\')).toBe(false);
    expect(ERROR_DESCRIPTION_PATTERN.test(' !#$%&()*+,-./:;<=>?@[]^_`{|}~')).toBe(true);
  });
});

describe('repeated parameters description (RFC 6749 3.1)', () => {
  it('names repeated protocol parameters', () => {
    expect(repeatedParametersDescription(['grant_type'])).toBe(
      'parameters must not be repeated: grant_type',
    );
    expect(repeatedParametersDescription(['code', 'redirect_uri'])).toBe(
      'parameters must not be repeated: code, redirect_uri',
    );
  });

  it('counts, never names, parameters the protocol does not have', () => {
    expect(repeatedParametersDescription(['x"\\é'])).toBe(
      'a parameter is repeated; each parameter must be sent once',
    );
    expect(repeatedParametersDescription(['a', 'b'])).toBe(
      '2 parameters are repeated; each parameter must be sent once',
    );
    expect(repeatedParametersDescription(['scope', 'evil', 'x"'])).toBe(
      'parameters must not be repeated: scope and 2 others',
    );
    expect(repeatedParametersDescription(['token', '__proto__'])).toBe(
      'parameters must not be repeated: token and 1 other',
    );
  });

  it('knows the names of RFC 6749, RFC 7636 and RFC 7009, all within the character set', () => {
    for (const name of ['client_id', 'code_verifier', 'code_challenge_method', 'token_type_hint']) {
      expect(OAUTH_PARAMETER_NAMES.has(name)).toBe(true);
    }
    for (const name of OAUTH_PARAMETER_NAMES) {
      expect(name).toMatch(/^[a-z_]+$/);
    }
  });
});

describe('unknown scopes description', () => {
  it('says how many, not which, and where the known ones are listed', () => {
    expect(unknownScopesDescription(1, 1)).toBe(
      'the requested scope is unknown; scopes_supported in /.well-known/oauth-authorization-server lists the known ones',
    );
    expect(unknownScopesDescription(1, 3)).toMatch(/^1 of the 3 requested scopes is unknown; /);
    expect(unknownScopesDescription(4, 5)).toMatch(/^4 of the 5 requested scopes are unknown; /);
    expect(unknownScopesDescription(4, 5)).toMatch(ERROR_DESCRIPTION_PATTERN);
  });
});
