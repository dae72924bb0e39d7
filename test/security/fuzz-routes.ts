import { EVENT_SUBSCRIPTIONS } from '@svc/contracts';
import fc from 'fast-check';
import { bodyText, FuzzRequest, Target } from './fuzz-http';
import {
  anyJsonText,
  cursorValue,
  deepText,
  hugeNumberText,
  instantString,
  jsonString,
  nastyString,
  NUL,
  numberQueryValue,
  percentEncode,
  queryString,
  rawUrlPart,
  shapeText,
  urlPart,
} from './fuzz-values';

/** What the generators aim at: real credentials, ids, cookies and form tokens of the test bed. */
export interface FuzzContext {
  keys: {
    /** Every scope, live: the one most requests carry, so validation is reached. */
    all: string;
    sandbox: string;
    otherTenant: string;
    tenantsOnly: string;
    accessToken: string;
  };
  /** Endpoints of the key's tenant that requests read, change and recover (never deleted). */
  endpointIds: string[];
  /** Endpoints of the key's tenant that DELETE may remove. */
  deletableIds: string[];
  otherTenantEndpointId: string;
  client: { id: string; redirectUri: string };
  userEmail: string;
  refreshToken: string;
  /** A browser that has the sign-in form: CSRF cookie, token and authorization request. */
  signIn: { cookie: string; csrfToken: string; authorizationRequest: string };
  /** A signed-in browser on the consent page: its cookies and the form's hidden fields. */
  consent: { cookie: string; fields: Record<string, string> };
}

type Headers = Record<string, string | string[]>;
interface Part {
  label: string;
  headers: Headers;
  body?: string | Uint8Array;
}

/** Gives generated requests a short printed form, so fast-check's counterexample stays readable. */
function request(fields: Omit<FuzzRequest, 'target'> & { target: Target }): FuzzRequest {
  const shown = `${fields.method} ${fields.path.slice(0, 120)} [${fields.label}] body ${JSON.stringify(bodyText(fields.body).slice(0, 120))}`;
  return Object.assign(fields, { [fc.toStringMethod]: () => shown });
}

/** The input class of a text, for grouping failures; the most remarkable trait wins. */
export function inputClass(text: string): string {
  if (/(\[|\{"a":|\[\{"a":|\{"url":){100}/.test(text)) return 'deep nesting';
  if (text.length > 2000) return 'very long';
  if (text.includes(NUL) || /\\u0000|%00/i.test(text)) return 'NUL';
  if (
    /\\ud[89a-f][0-9a-f]{2}|%ED%[AB][0-9A-F]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/i.test(
      text,
    )
  )
    return 'lone surrogate';
  if (/1e400|e30[89]|92233720368547758|18446744073709551617|(^|[^\w.])-0(\.0)?\b|0{100}/.test(text))
    return 'huge number';
  if (/:null\b/.test(text)) return 'null field';
  if (/%(?![0-9A-F]{2})|%C0|%FF/i.test(text)) return 'malformed encoding';
  return 'other';
}

// ---- credentials -------------------------------------------------------------------------

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const apiCredentials = (context: FuzzContext): fc.Arbitrary<Part> =>
  fc.oneof(
    {
      arbitrary: fc.constant<Part>({ label: 'key', headers: bearer(context.keys.all) }),
      weight: 24,
    },
    { arbitrary: fc.constant<Part>({ label: 'no credential', headers: {} }), weight: 1 },
    {
      arbitrary: fc.constant<Part>({ label: 'sandbox key', headers: bearer(context.keys.sandbox) }),
      weight: 1,
    },
    {
      arbitrary: fc.constant<Part>({
        label: 'other tenant',
        headers: bearer(context.keys.otherTenant),
      }),
      weight: 1,
    },
    {
      arbitrary: fc.constant<Part>({
        label: 'scope missing',
        headers: bearer(context.keys.tenantsOnly),
      }),
      weight: 1,
    },
    {
      arbitrary: fc.constant<Part>({
        label: 'access token',
        headers: bearer(context.keys.accessToken),
      }),
      weight: 1,
    },
    {
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            'Bearer',
            'Bearer ',
            'Basic Zm9vOmJhcg==',
            'bearer svc_live_x',
            `Bearer ${context.keys.all}x`,
            `Bearer ${context.keys.all.slice(0, -1)}`,
            `Bearer ${'a'.repeat(8000)}`,
            'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
            `Bearer ${context.keys.accessToken.slice(0, -4)}AAAA`,
          ),
          fc.string({ unit: 'binary-ascii', maxLength: 60 }).map(
            (text) =>
              // header values cannot hold controls; everything else goes
              `Bearer ${[...text].filter((char) => char >= ' ' && char !== '\u007f').join('')}`,
          ),
        )
        .map((value): Part => ({ label: 'bad credential', headers: { authorization: value } })),
      weight: 2,
    },
    {
      arbitrary: fc
        .constantFrom(
          [`Bearer ${context.keys.all}`, `Bearer ${context.keys.all}`],
          [`Bearer ${context.keys.all}`, 'Bearer nope'],
          ['Bearer nope', `Bearer ${context.keys.all}`],
        )
        .map((values): Part => ({
          label: 'two Authorization headers',
          headers: { authorization: [...values] },
        })),
      weight: 1,
    },
  );

// ---- bodies for the JSON endpoints --------------------------------------------------------

const WRONG_JSON_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/merge-patch+json',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/',
  '*/*',
  'json',
];

const MALFORMED_JSON: (string | Uint8Array)[] = [
  '',
  '{',
  '{"url":',
  '{"url":"https://hooks.example.com/"}garbage',
  '\ufeff{}',
  "{'url':'x'}",
  '{"url":"\\ud800"}',
  '{"url":"\\u0000"}',
  '{"url":"\u0000"}',
  '{"__proto__":{"url":"x"}}',
  '{"constructor":{"prototype":{"url":"x"}}}',
  '{"url":"a","url":"b"}',
  '{"events":["alert.created"],"events":null}',
  '[]',
  '"string"',
  'null',
  '1e400',
  'NaN',
  Buffer.concat([
    Buffer.from('{"url":"https://hooks.example.com/'),
    Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]),
    Buffer.from('","events":["alert.created"],"secret":"0123456789abcdefghij"}'),
  ]),
  Buffer.from([0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d]),
];

const jsonBody = (shape: fc.Arbitrary<string>): fc.Arbitrary<Part> =>
  fc.oneof(
    {
      arbitrary: shape.map((body) => ({
        label: `shape/${inputClass(body)}`,
        headers: { 'content-type': 'application/json' },
        body,
      })),
      weight: 14,
    },
    {
      arbitrary: anyJsonText.map((body) => ({
        label: `any JSON/${inputClass(body)}`,
        headers: { 'content-type': 'application/json' },
        body,
      })),
      weight: 3,
    },
    {
      arbitrary: deepText.map((body) => ({
        label: 'deep nesting',
        headers: { 'content-type': 'application/json' },
        body,
      })),
      weight: 2,
    },
    {
      arbitrary: fc.tuple(fc.constantFrom(...WRONG_JSON_TYPES), shape).map(([type, body]) => ({
        label: `wrong content type ${type}`,
        headers: { 'content-type': type },
        body,
      })),
      weight: 2,
    },
    {
      arbitrary: fc.constantFrom(...MALFORMED_JSON).map((body) => ({
        label: `malformed JSON/${inputClass(bodyText(body))}`,
        headers: { 'content-type': 'application/json' },
        body,
      })),
      weight: 1,
    },
    {
      arbitrary: fc.constantFrom<Part>(
        { label: 'no body', headers: {} },
        { label: 'no body, JSON type', headers: { 'content-type': 'application/json' } },
      ),
      weight: 1,
    },
  );

// ---- the real request shapes --------------------------------------------------------------

const VALID_URL = 'https://hooks.example.com/svc';
const validUrl = fc.constantFrom(
  VALID_URL,
  'https://8.8.8.8/hook',
  'https://hooks.example.com:8443/a?b=c',
);
const validEvents = fc
  .subarray([...EVENT_SUBSCRIPTIONS], { minLength: 1, maxLength: 3 })
  .map((events) => JSON.stringify(events));
const validSecret = fc.constantFrom(
  'correct-horse-battery-staple',
  'x'.repeat(16),
  '~'.repeat(256),
);

const endpointUrl: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      VALID_URL,
      'https://8.8.8.8/hook',
      'https://hooks.example.com:8443/a?b=c',
      'https://[2001:4860:4860::8888]/x',
    ),
    weight: 3,
  },
  {
    arbitrary: fc.constantFrom(
      'https://hooks.example.com/a\u0000b',
      'https://hooks.example.com/a\ud800b',
      'https://hooks.example.com/\udfff',
      'https://hooks.ex\u0000ample.com/',
      'https://hooks.ex\ud800ample.com/',
      'https://hooks.ex\tample.com/',
      'https:hooks.example.com/x',
      'https://hooks.example.com\\x',
      'https://hooks.example.com./',
      'https://HOOKS.EXAMPLE.COM/',
      'https://hooks.example.com/a b',
      ' https://hooks.example.com/ ',
      'HTTPS://hooks.example.com/',
      'https://LOCALHOST./',
      'https://hooks.example.com:0/',
      'https://hooks.example.com:99999/',
      'https://[::1]/',
      'https://127.0.0.1/',
      'https://0/',
      'https://0x7f000001/',
      'https://[fe80::1%25eth0]/',
      'https://xn--/',
      'https://a..b/',
      `https://${'a'.repeat(300)}.com/`,
      `https://hooks.example.com/${'a'.repeat(2030)}`,
      `https://hooks.example.com/${'é'.repeat(1500)}`,
      'https://u:p@hooks.example.com/',
      'https://hooks.example.com/#f',
      'http://hooks.example.com/',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'https://',
      'https://%00/',
      'https://hooks.example.com/%',
      'https://hooks.example.com/\u202e',
      'https://ß.example/',
      'https://例え.テスト/',
    ),
    weight: 4,
  },
  {
    arbitrary: fc
      .tuple(
        fc.constantFrom('https://hooks.example.com/', 'https://', 'https://h.example/?q='),
        nastyString,
      )
      .map(([prefix, rest]) => prefix + rest),
    weight: 3,
  },
  { arbitrary: fc.webUrl({ validSchemes: ['https'] }), weight: 1 },
);

const eventsText: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc
      .subarray([...EVENT_SUBSCRIPTIONS], { minLength: 1, maxLength: 4 })
      .map((events) => JSON.stringify(events)),
    weight: 4,
  },
  {
    arbitrary: fc
      .array(
        fc.oneof(
          fc.constantFrom(...EVENT_SUBSCRIPTIONS, 'alert.', '*', 'alert.**', ''),
          nastyString,
        ),
        {
          maxLength: 5,
        },
      )
      .map((events) => JSON.stringify(events)),
    weight: 3,
  },
  {
    arbitrary: fc
      .array(fc.oneof(anyJsonText, fc.constant('null'), hugeNumberText), {
        minLength: 1,
        maxLength: 3,
      })
      .map((items) => `[${items.join(',')}]`),
    weight: 2,
  },
  {
    arbitrary: fc.constantFrom(
      '["alert.created","alert.created"]',
      `[${'"alert.created",'.repeat(100)}"alert.closed"]`,
      '[]',
      '"alert.created"',
      '{"0":"alert.created","length":1}',
    ),
    weight: 1,
  },
);

const secretText = jsonString(
  fc.oneof(
    fc.constantFrom(
      'correct-horse-battery-staple',
      'x'.repeat(15),
      'x'.repeat(16),
      'x'.repeat(256),
      'x'.repeat(257),
      `${'a'.repeat(15)}${NUL}`,
      `${'a'.repeat(20)}\ud800`,
      `${'a'.repeat(20)}é`,
    ),
    fc.string({ unit: 'binary-ascii', minLength: 14, maxLength: 40 }),
  ),
);

const webhookShape = (required: boolean) =>
  shapeText(
    {
      url: { valid: jsonString(validUrl), odd: jsonString(endpointUrl) },
      events: { valid: validEvents, odd: eventsText },
      secret: { valid: jsonString(validSecret), odd: secretText },
    },
    { required },
  );

const recoverShape = shapeText({
  redrive_abandoned_since: {
    valid: jsonString(fc.constantFrom('2026-01-01T00:00:00Z', '2020-01-01T00:00:00.000+02:00')),
    odd: jsonString(instantString),
  },
});

// ---- path ids and query strings -----------------------------------------------------------

const endpointId = (
  ids: string[],
  context: FuzzContext,
): fc.Arbitrary<{ id: string; label: string }> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...ids).map((id) => ({ id, label: 'id' })), weight: 8 },
    {
      arbitrary: fc.constant({ id: context.otherTenantEndpointId, label: "other tenant's id" }),
      weight: 1,
    },
    {
      arbitrary: urlPart(
        fc.constantFrom(
          ids[0],
          'wh_01jd8x3q9v7k2m4n6p8r0s2t4w',
          'wh_',
          'WH_01JD8X3Q9V7K2M4N6P8R0S2T4W',
          `${ids[0]}${NUL}`,
        ),
      ).map((id) => ({ id, label: `path id/${inputClass(decodeSafely(id))}` })),
      weight: 4,
    },
    {
      arbitrary: fc.constantFrom(...ids).map((id) => ({ id: `${id}%00`, label: 'path id/NUL' })),
      weight: 1,
    },
  );

const eventId = urlPart(
  fc.constantFrom(
    'evt_01jd8x3q9v7k2m4n6p8r0s2t4w',
    'evt_',
    `evt_${'0'.repeat(26)}`,
    `evt_x${NUL}`,
    'evt_\ud800',
  ),
).map((id) => ({ id, label: `path id/${inputClass(decodeSafely(id))}` }));

function decodeSafely(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

const pageQueryValue = fc.oneof(
  { arbitrary: numberQueryValue, weight: 2 },
  { arbitrary: cursorValue, weight: 3 },
  { arbitrary: urlPart(fc.constantFrom('succeeded', 'failed', 'SUCCEEDED', 'pending')), weight: 1 },
);

const queryFor = (names: string[]) =>
  fc
    .oneof(
      { arbitrary: queryString(names, pageQueryValue), weight: 3 },
      // A lone cursor, often, so that positions past 2^63 reach the query.
      {
        arbitrary: names.includes('cursor')
          ? cursorValue.map((cursor) => `?cursor=${cursor}`)
          : queryString(names, pageQueryValue),
        weight: 1,
      },
    )
    .map((query) => ({
      query,
      label: query ? `query/${inputClass(decodeSafely(query))}` : 'no query',
    }));

// ---- API routes ---------------------------------------------------------------------------

const api = (fields: Omit<FuzzRequest, 'target'>) => request({ target: 'api', ...fields });

export const registerWebhook = (context: FuzzContext) =>
  fc.tuple(apiCredentials(context), jsonBody(webhookShape(true))).map(([credential, body]) =>
    api({
      route: 'POST /v1/webhooks',
      label: `${credential.label}; ${body.label}`,
      method: 'POST',
      path: '/v1/webhooks',
      headers: { ...credential.headers, ...body.headers },
      body: body.body,
    }),
  );

export const updateWebhook = (context: FuzzContext) =>
  fc
    .tuple(
      apiCredentials(context),
      endpointId(context.endpointIds, context),
      jsonBody(webhookShape(false)),
    )
    .map(([credential, { id, label }, body]) =>
      api({
        route: 'PATCH /v1/webhooks/:id',
        label: `${credential.label}; ${label}; ${body.label}`,
        method: 'PATCH',
        path: `/v1/webhooks/${id}`,
        headers: { ...credential.headers, ...body.headers },
        body: body.body,
      }),
    );

export const recoverWebhook = (context: FuzzContext) =>
  fc
    .tuple(
      apiCredentials(context),
      endpointId(context.endpointIds, context),
      jsonBody(recoverShape),
    )
    .map(([credential, { id, label }, body]) =>
      api({
        route: 'POST /v1/webhooks/:id/recover',
        label: `${credential.label}; ${label}; ${body.label}`,
        method: 'POST',
        path: `/v1/webhooks/${id}/recover`,
        headers: { ...credential.headers, ...body.headers },
        body: body.body,
      }),
    );

export const apiReads = (context: FuzzContext) => {
  const read = (
    route: string,
    path: (id: string) => string,
    ids: fc.Arbitrary<{ id: string; label: string }>,
    queryNames: string[],
    method = 'GET',
  ) =>
    fc.tuple(apiCredentials(context), ids, queryFor(queryNames)).map(([credential, id, query]) =>
      api({
        route,
        label: `${credential.label}; ${id.label}; ${query.label}`,
        method,
        path: path(id.id) + query.query,
        headers: credential.headers,
      }),
    );
  const none = fc.constant({ id: '', label: 'no id' });
  return fc.oneof(
    read('GET /v1/webhooks', () => '/v1/webhooks', none, ['limit', 'cursor']),
    read(
      'GET /v1/webhooks/:id',
      (id) => `/v1/webhooks/${id}`,
      endpointId(context.endpointIds, context),
      ['limit'],
    ),
    read(
      'GET /v1/webhooks/:id/attempts',
      (id) => `/v1/webhooks/${id}/attempts`,
      endpointId(context.endpointIds, context),
      ['limit', 'cursor', 'outcome'],
    ),
    read('GET /v1/events/:event_id/deliveries', (id) => `/v1/events/${id}/deliveries`, eventId, [
      'cursor',
    ]),
    read('GET /v1/tenants', () => '/v1/tenants', none, ['limit', 'cursor']),
    read('GET /v1/openapi.json', () => '/v1/openapi.json', none, ['format']),
    read(
      'DELETE /v1/webhooks/:id',
      (id) => `/v1/webhooks/${id}`,
      endpointId(context.deletableIds, context),
      ['force'],
      'DELETE',
    ),
  );
};

const ODD_PATHS = [
  '/',
  '/v1',
  '/v1/',
  '/v1/webhooks',
  '/v1/webhooks/',
  '/v1/webhooks/x/recover',
  '/v1/webhooks/x/attempts',
  '/v1/webhooks/x/attempts/y',
  '/v1/webhooks/a/b/c/d',
  '/v1/tenants',
  '/v1/tenants/x',
  '/v1/openapi.json',
  '/v1/events',
  '/v1/events/x',
  '/v1/nothing',
  '//v1//webhooks',
  '/V1/WEBHOOKS',
  '/v1/webhooks;x',
  '/v1/webhooks/%',
  '/v1/webhooks?%zz',
  '/v1/webhooks?limit=%',
  '/v1/%00',
  '/v1/webhooks/%ED%A0%80',
  '/%2e%2e/v1/webhooks',
  '/v1/webhooks/..%2f..%2fv1%2ftenants',
  '/healthz',
  '/readyz',
  '/metrics',
  `/v1/webhooks/${'a'.repeat(20_000)}`,
  `/v1/webhooks?cursor=${'a'.repeat(20_000)}`,
  '/oauth/token',
  '/.well-known/jwks.json',
];

const ODD_METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'PROPFIND',
  'SEARCH',
];

const oddHeaders: fc.Arbitrary<Part> = fc.oneof(
  { arbitrary: fc.constant<Part>({ label: 'plain', headers: {} }), weight: 6 },
  {
    arbitrary: fc.constant<Part>({ label: 'big header', headers: { 'x-big': 'a'.repeat(20_000) } }),
    weight: 1,
  },
  {
    arbitrary: fc.constant<Part>({
      label: 'many headers',
      headers: Object.fromEntries(Array.from({ length: 150 }, (_, index) => [`x-h${index}`, 'v'])),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.constant<Part>({
      label: 'odd accept',
      headers: { accept: 'application/xml', 'accept-encoding': 'br;q=2, *;q=-1' },
    }),
    weight: 1,
  },
);

const oddRoutes = (target: Target, credentials: fc.Arbitrary<Part>, paths: string[]) =>
  fc
    .tuple(
      fc.constantFrom(...ODD_METHODS),
      fc.oneof(
        { arbitrary: fc.constantFrom(...paths), weight: 4 },
        {
          arbitrary: fc
            .tuple(fc.constantFrom(...paths), rawUrlPart)
            .map(([path, raw]) => `${path.split('?')[0]}/${raw}`),
          weight: 1,
        },
      ),
      credentials,
      oddHeaders,
      fc.option(anyJsonText, { freq: 2 }),
    )
    .map(([method, path, credential, extra, body]) => {
      const withBody = body !== null && method !== 'GET' && method !== 'HEAD';
      return request({
        target,
        route: `${method} (any path)`,
        label: `${credential.label}; ${extra.label}; path ${inputClass(path)}${withBody ? '; JSON body' : ''}`,
        method,
        path,
        headers: {
          ...credential.headers,
          ...extra.headers,
          ...(withBody ? { 'content-type': 'application/json' } : {}),
        },
        ...(withBody ? { body } : {}),
      });
    });

export const apiOddRoutes = (context: FuzzContext) =>
  oddRoutes('api', apiCredentials(context), ODD_PATHS);

// ---- the auth app -------------------------------------------------------------------------

/** A plausible value, a hostile string, empty or "null". */
const formValue = (plausible: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: plausible, weight: 5 },
    { arbitrary: nastyString, weight: 3 },
    { arbitrary: fc.constantFrom('', 'null', 'undefined', '[object Object]'), weight: 1 },
  );

const FORM_TYPES = [
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded; charset=utf-16',
  'APPLICATION/X-WWW-FORM-URLENCODED',
  'application/x-www-form-urlencoded;',
  'application/xml',
];

/**
 * A form post with the fields of a real shape: url-encoded (raw malformed escapes, repeated
 * fields, fields without `=`), or the same fields as JSON with nulls, or the wrong type.
 */
const formBody = (fields: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<Part> => {
  const names = Object.keys(fields);
  const plausible = fc.tuple(
    ...names.map((name) => fields[name].map((value) => `${name}=${percentEncode(value)}`)),
  );
  const hostile = fc.oneof(
    formValue(fc.constant('')).map(percentEncode),
    fc.tuple(nastyString, rawUrlPart).map(([value, raw]) => percentEncode(value) + raw),
  );
  const oneReplaced = fc
    .tuple(plausible, fc.nat(names.length - 1), hostile, fc.boolean())
    .map(([pairs, index, value, dropped]) =>
      dropped && index % 2 === 0
        ? pairs.filter((_, at) => at !== index)
        : pairs.map((pair, at) => (at === index ? `${names[index]}=${value}` : pair)),
    );
  const random = fc
    .tuple(
      ...names.map((name) =>
        // The CSRF token stays valid here (oneReplaced still breaks it), so most posts get past it.
        fc.option(
          (name === 'csrf_token' ? fields[name] : formValue(fields[name])).map(
            (value) => `${name}=${percentEncode(value)}`,
          ),
          { freq: name === 'csrf_token' ? 20 : 8 },
        ),
      ),
    )
    .map((pairs) => pairs.filter((pair): pair is string => pair !== null));
  const extra = fc.array(
    fc.oneof(
      fc.constantFrom(...names).map((name) => `${name}=x`),
      fc.constantFrom(...names),
      fc.tuple(fc.constantFrom(...names), rawUrlPart).map(([name, raw]) => `${name}=a${raw}`),
      fc.constantFrom(
        '=',
        '&&',
        '__proto__=x',
        'constructor[prototype]=x',
        '%=%',
        `${'a'.repeat(5000)}=1`,
      ),
    ),
    { minLength: 1, maxLength: 2 },
  );
  const encoded = fc
    .tuple(
      fc.oneof(
        { arbitrary: oneReplaced, weight: 6 },
        { arbitrary: random, weight: 3 },
        { arbitrary: plausible, weight: 1 },
      ),
      fc.option(extra, { freq: 5 }),
    )
    .map(([pairs, more]) => [...pairs, ...(more ?? [])].join('&'));
  const asJson = shapeText(
    Object.fromEntries(
      names.map((name) => [
        name,
        { valid: jsonString(fields[name]), odd: jsonString(nastyString) },
      ]),
    ),
    { required: true },
  );
  return fc.oneof(
    {
      arbitrary: encoded.map((body) => ({
        label: `form/${inputClass(body)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })),
      weight: 12,
    },
    {
      arbitrary: asJson.map((body) => ({
        label: `JSON instead of a form/${inputClass(body)}`,
        headers: { 'content-type': 'application/json' },
        body,
      })),
      weight: 2,
    },
    {
      arbitrary: fc.tuple(fc.constantFrom(...FORM_TYPES), encoded).map(([type, body]) => ({
        label: `wrong content type ${type}`,
        headers: { 'content-type': type },
        body,
      })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom<string | Uint8Array>(
          '',
          '%',
          '&',
          'a'.repeat(70_000),
          Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x3d, 0xff, 0xfe, 0xed, 0xa0, 0x80]),
        )
        .map((body) => ({
          label: `raw form/${inputClass(bodyText(body))}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        })),
      weight: 1,
    },
    { arbitrary: fc.constant<Part>({ label: 'no body', headers: {} }), weight: 1 },
  );
};

const auth = (fields: Omit<FuzzRequest, 'target'>) => request({ target: 'auth', ...fields });

const clientId = (context: FuzzContext) =>
  fc.constantFrom(
    context.client.id,
    'cli_01jd8x3q9v7k2m4n6p8r0s2t4w',
    `${context.client.id}${NUL}`,
  );
const redirectUri = (context: FuzzContext) =>
  fc.constantFrom(
    context.client.redirectUri,
    `${context.client.redirectUri}/x`,
    'https://evil.example/',
  );
const pkceVerifier = fc.constantFrom(
  'a'.repeat(43),
  'A-._~'.repeat(20),
  'a'.repeat(129),
  'a'.repeat(42),
);

export const tokenAndRevoke = (context: FuzzContext) => {
  const token = formBody({
    grant_type: fc.constantFrom(
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'password',
    ),
    code: fc.constantFrom('svc_ac_x', 'x'.repeat(43), 'svc_ac_' + 'a'.repeat(43)),
    redirect_uri: redirectUri(context),
    client_id: clientId(context),
    code_verifier: pkceVerifier,
    refresh_token: fc.constantFrom(context.refreshToken, 'svc_rt_x', `svc_rt_${'a'.repeat(43)}`),
    scope: fc.constantFrom('tenants:read', 'tenants:read alerts:read', 'webhooks:manage'),
  }).map((body) => ({ body, route: 'POST /oauth/token', path: '/oauth/token' }));
  const revoke = formBody({
    token: fc.constantFrom(
      context.refreshToken,
      context.keys.accessToken,
      'svc_rt_x',
      'a.b.c',
      'eyJ.eyJ.x',
    ),
    token_type_hint: fc.constantFrom('refresh_token', 'access_token', 'other'),
    client_id: clientId(context),
  }).map((body) => ({ body, route: 'POST /oauth/revoke', path: '/oauth/revoke' }));
  return fc.oneof(token, revoke).map(({ body, route, path }) =>
    auth({
      route,
      label: body.label,
      method: 'POST',
      path,
      headers: body.headers,
      body: body.body,
    }),
  );
};

const browserHeaders = (cookie: string): fc.Arbitrary<Part> =>
  fc.oneof(
    { arbitrary: fc.constant<Part>({ label: 'browser', headers: { cookie } }), weight: 12 },
    { arbitrary: fc.constant<Part>({ label: 'no cookie', headers: {} }), weight: 1 },
    {
      arbitrary: fc.constant<Part>({
        label: 'foreign origin',
        headers: { cookie, origin: 'https://evil.example' },
      }),
      weight: 1,
    },
    {
      arbitrary: fc
        .oneof(
          nastyString.filter((text) => text.length < 3000),
          fc.constantFrom('a'.repeat(9000)),
        )
        .map((garbage) => ({
          label: 'garbage cookies',
          headers: {
            cookie: `__Host-svc_csrf=${percentEncode(garbage)}; __Host-svc_session=${percentEncode(garbage)}; ${cookie}`,
          },
        })),
      weight: 1,
    },
  );

export const signInAndConsentForms = (context: FuzzContext) => {
  const email = fc.oneof(
    fc.constantFrom(
      context.userEmail,
      ` ${context.userEmail.toUpperCase()} `,
      'nobody@example.com',
      'a@b',
    ),
    fc.emailAddress(),
  );
  const signIn = fc
    .tuple(
      browserHeaders(context.signIn.cookie),
      formBody({
        csrf_token: fc.constant(context.signIn.csrfToken),
        authorization_request: fc.constantFrom(
          context.signIn.authorizationRequest,
          'client_id=x',
          '%%%',
        ),
        email,
        password: fc.constantFrom('wrong password', 'x'.repeat(1024), 'x'.repeat(20_000)),
      }),
    )
    .map(([browser, body]) => ({
      browser,
      body,
      route: 'POST /oauth/login',
      path: '/oauth/login',
    }));
  const consentFields: Record<string, fc.Arbitrary<string>> = {
    ...Object.fromEntries(
      Object.entries(context.consent.fields).map(([name, value]) => [name, fc.constant(value)]),
    ),
    decision: fc.constantFrom('allow', 'deny', 'ALLOW', ''),
    client_id: clientId(context),
    redirect_uri: redirectUri(context),
    scope: fc.constantFrom('tenants:read', 'alerts:read tenants:read', 'webhooks:manage', 'openid'),
    code_challenge_method: fc.constantFrom('S256', 'plain', 's256'),
  };
  const consent = fc
    .tuple(browserHeaders(context.consent.cookie), formBody(consentFields))
    .map(([browser, body]) => ({
      browser,
      body,
      route: 'POST /oauth/authorize',
      path: '/oauth/authorize',
    }));
  return fc
    .oneof({ arbitrary: signIn, weight: 2 }, { arbitrary: consent, weight: 3 })
    .map(({ browser, body, route, path }) =>
      auth({
        route,
        label: `${browser.label}; ${body.label}`,
        method: 'POST',
        path,
        headers: { ...browser.headers, ...body.headers },
        body: body.body,
      }),
    );
};

const AUTH_ODD_PATHS = [
  '/oauth/authorize',
  '/oauth/login',
  '/oauth/token',
  '/oauth/revoke',
  '/oauth/',
  '/oauth/authorize/%00',
  '/.well-known/oauth-authorization-server',
  '/.well-known/jwks.json',
  '/.well-known/openid-configuration',
  '/.well-known/%ED%A0%80',
  '/v1/webhooks',
  '/healthz',
  '/readyz',
  '/metrics',
  `/oauth/authorize?state=${'a'.repeat(20_000)}`,
];

export const authPages = (context: FuzzContext) => {
  const authorizeQuery = queryString(
    [
      'response_type',
      'client_id',
      'redirect_uri',
      'scope',
      'state',
      'code_challenge',
      'code_challenge_method',
      'nonce',
      'prompt',
    ],
    urlPart(
      fc.constantFrom(
        'code',
        'token',
        context.client.id,
        context.client.redirectUri,
        'tenants:read',
        'S256',
        'plain',
        'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGGSstw-cM',
      ),
    ),
  );
  /** A valid request with one parameter replaced, so the checks past the first are reached. */
  const validBase: Record<string, string> = {
    response_type: 'code',
    client_id: context.client.id,
    redirect_uri: context.client.redirectUri,
    scope: 'tenants:read',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGGSstw-cM',
    code_challenge_method: 'S256',
    state: 'xyz',
  };
  const mutated = fc
    .tuple(
      fc.constantFrom(...Object.keys(validBase)),
      urlPart(fc.constantFrom('code', 'tenants:read webhooks:manage', 'S256', '')),
      fc.boolean(),
    )
    .map(([name, value, twice]) => {
      const pairs = Object.entries(validBase).map(([key, original]) =>
        key === name && !twice ? `${key}=${value}` : `${key}=${percentEncode(original)}`,
      );
      if (twice) pairs.push(`${name}=${value}`);
      return `?${pairs.join('&')}`;
    });
  const authorize = fc
    .tuple(
      fc.oneof(authorizeQuery, mutated),
      fc.constantFrom<Part>(
        { label: 'signed in', headers: { cookie: context.consent.cookie } },
        { label: 'signed out', headers: {} },
      ),
    )
    .map(([query, browser]) =>
      auth({
        route: 'GET /oauth/authorize',
        label: `${browser.label}; query/${inputClass(decodeSafely(query))}`,
        method: 'GET',
        path: `/oauth/authorize${query}`,
        headers: browser.headers,
      }),
    );
  const wellKnown = fc
    .tuple(
      fc.constantFrom('/.well-known/oauth-authorization-server', '/.well-known/jwks.json'),
      queryString(['kid', 'format', 'x'], urlPart(fc.constantFrom('1', 'json'))),
    )
    .map(([path, query]) =>
      auth({
        route: `GET ${path}`,
        label: `query/${inputClass(decodeSafely(query))}`,
        method: 'GET',
        path: path + query,
        headers: {},
      }),
    );
  return fc.oneof(
    { arbitrary: authorize, weight: 5 },
    { arbitrary: wellKnown, weight: 2 },
    {
      arbitrary: oddRoutes(
        'auth',
        fc.constant<Part>({ label: 'browser', headers: { cookie: context.consent.cookie } }),
        AUTH_ODD_PATHS,
      ),
      weight: 2,
    },
  );
};
