import { createApiClient, CredentialSource } from './api-client';

/** A credential that renews once, from token `a` to token `b`. */
function credentials(renews: boolean) {
  let token = 'a';
  const source: CredentialSource & { rejections: number; renewals: string[] } = {
    rejections: 0,
    renewals: [],
    bearerToken: () => token,
    renewAfterRejection(rejected) {
      source.renewals.push(rejected);
      if (renews) {
        token = 'b';
      }
      return Promise.resolve(renews);
    },
    rejected() {
      source.rejections += 1;
    },
  };
  return source;
}

describe("the console's API client", () => {
  const realFetch = globalThis.fetch;
  let seen: { url: string; authorization: string | null; body: string }[];

  function answer(statuses: number[]) {
    seen = [];
    globalThis.fetch = jest.fn(async (input: RequestInfo | URL) => {
      const request = input as Request;
      seen.push({
        url: request.url,
        authorization: request.headers.get('Authorization'),
        body: await request.text(),
      });
      const status = statuses.shift() ?? 200;
      return new Response(JSON.stringify(status === 200 ? { data: [] } : { title: 'no' }), {
        status,
        headers: { 'Content-Type': 'application/json' },
      });
    }) as typeof fetch;
  }

  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it('sends the token from memory as a Bearer header', async () => {
    answer([200]);
    const client = createApiClient(credentials(true), 'http://api.test');
    const { response } = await client.GET('/v1/event-types');
    expect(response.status).toBe(200);
    expect(seen).toEqual([
      { url: 'http://api.test/v1/event-types', authorization: 'Bearer a', body: '' },
    ]);
  });

  it('renews once after a 401 and sends the same request again, body included', async () => {
    answer([401, 201]);
    const source = credentials(true);
    const client = createApiClient(source, 'http://api.test');
    const { response } = await client.POST('/v1/portal-sessions/exchange', {
      body: { token: 'svc_pl_x' },
    });
    expect(response.status).toBe(201);
    expect(source.renewals).toEqual(['a']);
    expect(seen.map((request) => request.authorization)).toEqual(['Bearer a', 'Bearer b']);
    expect(seen[1].body).toBe(JSON.stringify({ token: 'svc_pl_x' }));
    expect(source.rejections).toBe(0);
  });

  it('ends the session when it cannot renew, or when the new token is refused too', async () => {
    answer([401]);
    const portal = credentials(false);
    await createApiClient(portal, 'http://api.test').GET('/v1/event-types');
    expect(portal.rejections).toBe(1);
    expect(seen).toHaveLength(1);

    answer([401, 401]);
    const user = credentials(true);
    const { response } = await createApiClient(user, 'http://api.test').GET('/v1/event-types');
    expect(response.status).toBe(401);
    expect(user.rejections).toBe(1);
    expect(seen).toHaveLength(2);
  });
});
