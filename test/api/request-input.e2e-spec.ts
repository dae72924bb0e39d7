import { http, RunningApi, startApi } from '../support';

const validBody = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/svc',
  events: ['alert.created'],
  secret: 'correct-horse-battery-staple',
  ...overrides,
});

/** Issue 9 items 4 and 9, issue 17 items 1 to 3: what a request may carry, and never a 500. */
describe('request input: storable strings, dates, nulls, canonical URLs', () => {
  let api: RunningApi;
  let key: string;
  let endpointId: string;

  beforeAll(async () => {
    api = await startApi();
    ({ key } = await api.newTenantWithKey(['webhooks:manage']));
    const created = await http(api.baseUrl, 'POST', '/v1/webhooks', { key, json: validBody() });
    endpointId = created.body.id;
  });
  afterAll(() => api.close());

  const expectInvalid = (
    response: { status: number; body: { type: string; errors: unknown[] }; headers: Headers },
    field: string,
    detail: RegExp = /./,
  ) => {
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.type).toBe('urn:svc:problem:invalid-request');
    expect(response.body.errors).toEqual(
      expect.arrayContaining([{ field, detail: expect.stringMatching(detail) }]),
    );
  };

  describe('NUL and lone surrogates (issue 17 item 1)', () => {
    const bad = [
      ['NUL', '\u0000'],
      ['a lone high surrogate', '\ud800'],
      ['a lone low surrogate', '\udc00'],
    ];
    const cases: [string, string, string, (text: string) => Promise<any>][] = [];
    for (const [name, text] of bad) {
      cases.push(
        [
          name,
          text,
          'url',
          (t) =>
            http(api.baseUrl, 'POST', '/v1/webhooks', {
              key,
              json: validBody({ url: `https://hooks.example.com/a${t}b` }),
            }),
        ],
        [
          name,
          text,
          'secret',
          (t) =>
            http(api.baseUrl, 'POST', '/v1/webhooks', {
              key,
              json: validBody({ secret: `correct-horse-${t}-staple` }),
            }),
        ],
        [
          name,
          text,
          'events.1',
          (t) =>
            http(api.baseUrl, 'POST', '/v1/webhooks', {
              key,
              json: validBody({ events: ['alert.created', `alert.${t}`] }),
            }),
        ],
        [
          name,
          text,
          'url',
          (t) =>
            http(api.baseUrl, 'PATCH', `/v1/webhooks/${endpointId}`, {
              key,
              json: { url: `https://hooks.example.com/${t}` },
            }),
        ],
        [
          name,
          text,
          'redrive_abandoned_since',
          (t) =>
            http(api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/recover`, {
              key,
              json: { redrive_abandoned_since: `2026-01-01T00:00:00Z${t}` },
            }),
        ],
      );
    }
    // A URL carries UTF-8, in which a lone surrogate cannot be written: only NUL reaches a query.
    cases.push(
      [
        'NUL',
        '%00',
        'cursor',
        (t) => http(api.baseUrl, 'GET', `/v1/webhooks?cursor=${t}`, { key }),
      ],
      [
        'NUL',
        '%00',
        'outcome',
        (t) =>
          http(api.baseUrl, 'GET', `/v1/webhooks/${endpointId}/attempts?outcome=x${t}`, { key }),
      ],
    );
    it.each(cases)(
      'refuses %s in %s… field %s with a 400 naming it',
      async (_, text, field, send) => {
        expectInvalid(await send(text), field, /NUL|surrogate/);
      },
    );

    it('refuses a NUL in a path id with a 400 naming it, never a 500', async () => {
      expectInvalid(
        await http(api.baseUrl, 'GET', '/v1/events/evt_%00x/deliveries', { key }),
        'event_id',
      );
      expectInvalid(await http(api.baseUrl, 'GET', '/v1/webhooks/wh_%00x', { key }), 'id');
    });

    it('stores nothing when it refuses', async () => {
      const before = await api.dataSource.query('SELECT count(*)::int AS n FROM events');
      await http(api.baseUrl, 'POST', '/v1/webhooks', {
        key,
        json: validBody({ url: 'https://hooks.example.com/\u0000' }),
      });
      const after = await api.dataSource.query('SELECT count(*)::int AS n FROM events');
      expect(after[0].n).toBe(before[0].n);
    });
  });

  describe('dates (issue 17 item 2)', () => {
    const recover = (value: unknown) =>
      http(api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/recover`, {
        key,
        json: { redrive_abandoned_since: value },
      });

    it.each([
      '20260101T000000Z',
      '2026-01-01',
      '2026-01-01T00:00:00',
      '2026-02-30T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00+25:00',
      '+275760-09-13T00:00:00Z',
      '2026-W01-1T00:00:00Z',
      'yesterday',
      '',
      42,
    ])('refuses %j with a 400 naming the field', async (value) => {
      expectInvalid(await recover(value), 'redrive_abandoned_since');
    });

    it.each([
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00.123456Z',
      '2026-01-01t00:00:00z',
      '2026-01-01T01:00:00+01:00',
      '2026-01-01T00:00:00-00:00',
    ])('accepts %j', async (value) => {
      const response = await recover(value);
      expect(response.status).toBe(200);
      expect(response.body.redriven_deliveries).toBe(0);
    });
  });

  describe('nulls, cursors and other former 500s (issue 9 item 4)', () => {
    it.each(['url', 'events', 'secret'])(
      'refuses PATCH {"%s": null} naming the field',
      async (field) => {
        const response = await http(api.baseUrl, 'PATCH', `/v1/webhooks/${endpointId}`, {
          key,
          json: { [field]: null },
        });
        expectInvalid(response, field, /null/);
      },
    );

    it.each([
      ['above 2^63', '9223372036854775808'],
      ['the largest 19 digits', '9999999999999999999'],
    ])('refuses an attempts cursor %s', async (_, position) => {
      const cursor = Buffer.from(JSON.stringify({ after: position })).toString('base64url');
      expectInvalid(
        await http(api.baseUrl, 'GET', `/v1/webhooks/${endpointId}/attempts?cursor=${cursor}`, {
          key,
        }),
        'cursor',
      );
    });

    it('accepts the largest position as a cursor', async () => {
      const cursor = Buffer.from(JSON.stringify({ after: '9223372036854775807' })).toString(
        'base64url',
      );
      const response = await http(
        api.baseUrl,
        'GET',
        `/v1/webhooks/${endpointId}/attempts?cursor=${cursor}`,
        { key },
      );
      expect(response.status).toBe(200);
    });
  });

  describe('what is shown is where it goes (issue 9 item 9, issue 17 item 3)', () => {
    it.each([
      ' https://hooks.example.com/svc',
      'https://hooks.example.com/svc ',
      'https://hooks.ex\tample.com/',
      'https:hooks.example.com/x',
      'https://hooks.example.com\\x',
      'https://hooks.example.com./x',
      'https://hooks.example.com/a b',
      'https://hooks.example.com:0/',
      'https://LOCALHOST./',
    ])('refuses %j at registration and at update', async (url) => {
      expectInvalid(
        await http(api.baseUrl, 'POST', '/v1/webhooks', { key, json: validBody({ url }) }),
        'url',
      );
      expectInvalid(
        await http(api.baseUrl, 'PATCH', `/v1/webhooks/${endpointId}`, { key, json: { url } }),
        'url',
      );
    });

    it.each([
      ['HTTPS://hooks.example.com/svc', 'https://hooks.example.com/svc'],
      ['https://HOOKS.EXAMPLE.COM/Svc', 'https://hooks.example.com/Svc'],
      ['https://hooks.example.com', 'https://hooks.example.com/'],
    ])('stores, shows and delivers to the serialisation of %j', async (typed, canonical) => {
      const created = await http(api.baseUrl, 'POST', '/v1/webhooks', {
        key,
        json: validBody({ url: typed }),
      });
      expect(created.status).toBe(201);
      expect(created.body.url).toBe(canonical);
      const [row] = await api.dataSource.query('SELECT url FROM webhook_endpoints WHERE id = $1', [
        created.body.id,
      ]);
      expect(row.url).toBe(canonical);
      const patched = await http(api.baseUrl, 'PATCH', `/v1/webhooks/${created.body.id}`, {
        key,
        json: { url: typed.replace('svc', 'new') },
      });
      expect(patched.body.url).toBe(new URL(patched.body.url).href);
      expect(patched.body.url).toBe(canonical.replace('svc', 'new'));
    });
  });
});
