import fc from 'fast-check';

/**
 * Hostile values, as JSON text or as encoded URL parts. JSON is built as text so that bodies can
 * hold what JSON.stringify never writes: duplicate keys, 1e400, -0, 2^63+1 as digits, nesting
 * thousands deep. JSON.stringify escapes NUL and lone surrogates (\u0000, \ud800), so they reach
 * the server's parser intact.
 */

export const NUL = '\u0000';
export const LONE_SURROGATES = ['\ud800', '\udfff', '\udbff', '\udc00'];

/** Strings that break things: NUL, lone surrogates, controls, bidi, huge, empty, blank. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    NUL,
    `a${NUL}b`,
    `${NUL}${NUL}${NUL}`,
    ...LONE_SURROGATES,
    `x\ud800y`,
    `\udfff\ud800`,
    '\ud83d\ude00',
    '\u202e\u2066',
    '\ufeff',
    '\uffff\ufffe',
    '\r\n\t\v\f\b',
    '\u0085\u2028\u2029',
    '%00',
    '%',
    '%zz',
    '\\',
    '"',
    "'; DROP TABLE webhook_endpoints; --",
    '$where',
    '{"$gt":""}',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    'null',
    'undefined',
    'NaN',
    '__proto__',
    'constructor',
    'é𝄞中文',
    'İı',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc
    .tuple(fc.string({ maxLength: 8 }), fc.constantFrom(NUL, ...LONE_SURROGATES), fc.string())
    .map(([a, b, c]) => a + b + c),
  fc
    .tuple(
      fc.constantFrom('a', 'é', NUL, '\ud800', '𝄞', 'https://hooks.example.com/'),
      fc.constantFrom(255, 256, 257, 2048, 2049, 10_000, 70_000),
    )
    .map(([unit, n]) => unit.repeat(n)),
);

/** Numbers as raw JSON text, including ones JavaScript cannot hold. */
export const hugeNumberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '1e308',
    '-1e308',
    '1e400',
    '-1e400',
    '1e-400',
    '-0',
    '-0.0',
    '0e0',
    '9223372036854775807',
    '9223372036854775808',
    '9223372036854775809',
    '-9223372036854775809',
    '18446744073709551617',
    '1' + '0'.repeat(400),
    '0.' + '0'.repeat(400) + '1',
    '123456789012345678901234567890.5',
    '2.2250738585072011e-308',
    '4.9e-324',
    '1.7976931348623157e309',
  ),
  fc.double().filter(Number.isFinite).map(String),
  fc.bigInt().map(String),
);

/** Nesting built as text, hundreds to 3,000 levels, balanced or not. */
export const deepText: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 100, max: 3000 }),
    fc.constantFrom('array', 'object', 'mixed', 'unclosed', 'string-inside'),
  )
  .map(([depth, shape]) => {
    switch (shape) {
      case 'array':
        return '['.repeat(depth) + ']'.repeat(depth);
      case 'object':
        return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      case 'mixed':
        return '[{"a":'.repeat(depth) + 'null' + '}]'.repeat(depth);
      case 'unclosed':
        return '['.repeat(depth);
      default:
        return '{"url":'.repeat(depth) + '"\\u0000"' + '}'.repeat(depth);
    }
  });

export const jsonString = (arbitrary: fc.Arbitrary<string>) =>
  arbitrary.map((value) => JSON.stringify(value));

/** Any JSON text: generated values, hostile strings, huge numbers, nesting. */
export const anyJsonText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)), weight: 4 },
  { arbitrary: jsonString(nastyString), weight: 3 },
  { arbitrary: hugeNumberText, weight: 2 },
  { arbitrary: fc.constantFrom('null', 'true', 'false', '{}', '[]', '[null]', '""'), weight: 2 },
  { arbitrary: deepText.filter((text) => !text.endsWith('[')), weight: 1 },
);

/** A JSON object as text from entries; the same key may appear twice. */
export const objectText = (entries: [string, string][]): string =>
  `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;

/**
 * A value for one field of a real request shape: a plausible value, a hostile string, null, or
 * anything at all.
 */
export const fieldValue = (plausible: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: plausible, weight: 5 },
    { arbitrary: jsonString(nastyString), weight: 3 },
    { arbitrary: fc.constant('null'), weight: 2 },
    { arbitrary: anyJsonText, weight: 2 },
  );

/** One field of a request shape: values that pass, and values that are odd for this field. */
export interface FieldValues {
  valid: fc.Arbitrary<string>;
  odd: fc.Arbitrary<string>;
}

/** Any value at all for a field: odd for it, hostile, null, or any JSON. */
const anyFieldValue = (field: FieldValues) =>
  fc.oneof(
    { arbitrary: field.odd, weight: 4 },
    { arbitrary: fieldValue(field.valid), weight: 4 },
    { arbitrary: deepText.filter((text) => !text.endsWith('[')), weight: 1 },
  );

/**
 * A JSON object (as text) with the fields of a real request shape. Mostly a valid request with
 * one field replaced by something odd, hostile or null (so the code past validation is
 * reached); sometimes every field random, each present or not; sometimes a field twice or extra
 * fields. Values are JSON texts.
 */
export const shapeText = (
  fields: Record<string, FieldValues>,
  options: { required?: boolean } = {},
): fc.Arbitrary<string> => {
  const names = Object.keys(fields);
  const validEntries = fc.tuple(
    ...names.map((name) => fields[name].valid.map((text): [string, string] => [name, text])),
  );
  const oneReplaced = fc
    .tuple(validEntries, fc.nat(names.length - 1), fc.constant(null))
    .chain(([entries, index]) =>
      anyFieldValue(fields[names[index]]).map((text) =>
        entries.map((entry, at): [string, string] => (at === index ? [entry[0], text] : entry)),
      ),
    );
  const random = fc
    .tuple(
      ...names.map((name) =>
        fc.option(
          anyFieldValue(fields[name]).map((text): [string, string] => [name, text]),
          { freq: options.required ? 8 : 3 },
        ),
      ),
    )
    .map((entries) => entries.filter((entry): entry is [string, string] => entry !== null));
  const extra = fc.array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(...names),
        fc.constantFrom('__proto__', 'constructor', 'api_key', 'id', 'status', ''),
        fc.string({ unit: 'binary', maxLength: 10 }),
      ),
      anyJsonText,
    ),
    { maxLength: 2 },
  );
  const duplicated = fc
    .tuple(validEntries, fc.nat(names.length - 1))
    .chain(([entries, index]) =>
      anyFieldValue(fields[names[index]]).map((text): [string, string][] => [
        ...entries,
        [names[index], text],
      ]),
    );
  return fc
    .tuple(
      fc.oneof(
        { arbitrary: oneReplaced, weight: 6 },
        { arbitrary: random, weight: 3 },
        { arbitrary: validEntries, weight: 1 },
        { arbitrary: duplicated, weight: 1 },
      ),
      fc.option(extra, { freq: 5 }),
    )
    .map(([entries, more]) => objectText([...entries, ...(more ?? [])]));
};

/** Percent-encodes every code unit, lone surrogates as their WTF-8 bytes (%ED%A0%80). */
export function percentEncode(value: string): string {
  let out = '';
  for (let index = 0; index < value.length; index += 1) {
    const unit = value.charCodeAt(index);
    const next = value.charCodeAt(index + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(value.slice(index, index + 2));
      index += 1;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
        .join('');
    } else {
      out += encodeURIComponent(value[index]);
    }
  }
  return out;
}

/** Encoded URL parts that are malformed or odd as they stand. */
export const rawUrlPart: fc.Arbitrary<string> = fc.constantFrom(
  '%00',
  '%',
  '%zz',
  '%C0%80',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%FF%FE',
  '%E2%82%AC',
  '%F0%9D%84%9E',
  '%2F',
  '%2e%2e',
  '..',
  '%20',
  '+',
  '%0D%0A',
  '%252F',
  '%u0000',
);

/** A URL part (path segment or query value), encoded, from hostile or plausible text. */
export const urlPart = (plausible: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: plausible.map(percentEncode), weight: 4 },
    { arbitrary: nastyString.filter((text) => text.length < 3000).map(percentEncode), weight: 3 },
    { arbitrary: rawUrlPart, weight: 2 },
    {
      arbitrary: fc
        .tuple(plausible.map(percentEncode), rawUrlPart)
        .map(([value, raw]) => value + raw),
      weight: 2,
    },
    {
      arbitrary: fc.constantFrom(100, 101, 1000, 9000, 20_000).map((n) => 'a'.repeat(n)),
      weight: 1,
    },
  );

/** A query string from (name, encoded value) pairs; names may repeat, `=` may be missing. */
export const queryString = (names: string[], value: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc
    .array(
      fc.tuple(
        fc.oneof(
          { arbitrary: fc.constantFrom(...names), weight: 6 },
          {
            arbitrary: fc.constantFrom('api_key', 'access_token', 'key', '__proto__', 'a[b]', ''),
            weight: 1,
          },
        ),
        fc.oneof({ arbitrary: value, weight: 8 }, { arbitrary: fc.constant(null), weight: 1 }),
      ),
      { maxLength: 4 },
    )
    .map((pairs) =>
      pairs.length === 0
        ? ''
        : `?${pairs.map(([name, encoded]) => (encoded === null ? name : `${name}=${encoded}`)).join('&')}`,
    );

/** Numbers as query text. */
export const numberQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '1',
    '100',
    '101',
    '0',
    '-1',
    '-0',
    '1.5',
    '1e400',
    '1e308',
    '9223372036854775809',
    '18446744073709551617',
    'NaN',
    'Infinity',
    '0x10',
    '%201',
    '1%00',
    '%D9%A3',
    '1_0',
    '',
  ),
  fc.integer().map(String),
);

/** Cursors: base64url of {after: …} with positions past 2^63, and garbage. */
export const cursorValue: fc.Arbitrary<string> = fc.oneof(
  fc
    .oneof(
      hugeNumberText,
      jsonString(nastyString),
      fc.constantFrom('"9223372036854775809"', '"-1"', '"1e400"', 'null', '{}', '[]', '"wh_"'),
      fc.bigInt({ min: 0n, max: 2n ** 70n }).map((n) => JSON.stringify(String(n))),
      // just past PostgreSQL's bigint, still 19 digits
      fc
        .bigInt({ min: 2n ** 63n - 2n, max: 10n ** 19n - 1n })
        .map((n) => JSON.stringify(String(n))),
      fc.constantFrom('"9223372036854775808"', '"9999999999999999999"', '"0"', '"-0"', '"01"'),
    )
    .map((after) => Buffer.from(`{"after":${after}}`).toString('base64url')),
  jsonString(nastyString).map((text) => Buffer.from(text).toString('base64url')),
  urlPart(fc.constantFrom('abc', 'eyJhZnRlciI6IjEifQ', '====', '-_-_')),
);

/** Instants for redrive_abandoned_since: basic format, out of range, offsets, garbage. */
export const instantString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '2026-01-01T00:00:00Z',
    '2020-01-01T00:00:00.000+00:00',
    '20260101T000000Z',
    '2026-01-01',
    '2026-13-45T99:99:99Z',
    '2026-02-30T00:00:00Z',
    '2026-01-01T00:00:00',
    '2026-01-01T00:00:00+99:99',
    '2026-01-01T24:00:00Z',
    '+275760-09-13T00:00:00.001Z',
    '-271821-04-20T00:00:00Z',
    '+999999-01-01T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '1969-12-31T23:59:59.999999999Z',
    '9999-12-31T23:59:60Z',
    '1e400',
    'Infinity',
    'now',
    `2026-01-01T00:00:00Z${NUL}`,
    '2026-01-01T00:00:00\ud800Z',
  ),
  fc
    .tuple(
      fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }),
      fc.constantFrom('iso', 'basic', 'basic-no-zone', 'space', 'lower', 'no-zone', 'offset'),
    )
    .map(([date, form]) => {
      const iso = date.toISOString();
      switch (form) {
        case 'basic':
          return iso.replace(/[-:]/g, '').replace(/\.\d+/, '');
        case 'basic-no-zone':
          return iso.replace(/[-:]/g, '').replace(/\.\d+Z$/, '');
        case 'space':
          return iso.replace('T', ' ');
        case 'lower':
          return iso.toLowerCase();
        case 'no-zone':
          return iso.slice(0, -1);
        case 'offset':
          return iso.replace('Z', '+14:00');
        default:
          return iso;
      }
    }),
);
