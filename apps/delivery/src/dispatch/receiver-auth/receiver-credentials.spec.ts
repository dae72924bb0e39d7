import {
  isEngineHeader,
  poolKeyOf,
  ReceiverCredentials,
  staticHeadersOf,
  withExtraHeaders,
} from './receiver-credentials';

describe('receiver credentials (ADR 0048)', () => {
  it('keys what is kept per endpoint by id and version', () => {
    expect(poolKeyOf({ id: 'ep_1', version: 4 })).toBe('ep_1@4');
  });

  it('makes the headers of headers and basic auth', () => {
    expect(staticHeadersOf({ type: 'headers', headers: { Authorization: 'Splunk t' } })).toEqual({
      Authorization: 'Splunk t',
    });
    expect(staticHeadersOf({ type: 'basic', username: 'ü', password: 'a:b' })).toEqual({
      authorization: `Basic ${Buffer.from('ü:a:b', 'utf8').toString('base64')}`,
    });
  });

  it("never lets an extra header replace the engine's own, whatever the case", () => {
    const own = { 'content-type': 'application/json', 'X-SVC-Event-Id': 'evt_1' };
    const merged = withExtraHeaders(own, {
      'Content-Type': 'text/plain',
      'x-svc-event-id': 'forged',
      'X-SVC-Anything': 'forged',
      'webhook-id': 'forged',
      Host: 'elsewhere',
      'Transfer-Encoding': 'chunked',
      Authorization: 'Splunk t',
      authorization: 'twice',
      'X-Custom': 'ok',
    });
    expect(merged).toEqual({ ...own, Authorization: 'Splunk t', 'X-Custom': 'ok' });
    expect(own).toEqual({ 'content-type': 'application/json', 'X-SVC-Event-Id': 'evt_1' });
    expect(withExtraHeaders(own, null)).toBe(own);
    expect(isEngineHeader('User-Agent')).toBe(true);
    expect(isEngineHeader('X-Api-Key')).toBe(false);
  });

  it('gives mtls a client certificate of the endpoint version, oauth a bearer token', async () => {
    const asked: string[] = [];
    const dropped: string[] = [];
    const credentials = new ReceiverCredentials({
      token: (poolKey) => {
        asked.push(poolKey);
        return Promise.resolve(`tok${asked.length}`);
      },
      drop: (_poolKey, token) => void dropped.push(token),
    });
    const endpoint = { id: 'ep_9', version: 2 };
    expect(
      credentials.forAttempt(endpoint, { type: 'mtls', certificate: 'C', private_key: 'K' }),
    ).toEqual({
      headers: null,
      clientCertificate: { poolKey: 'ep_9@2', certificate: 'C', privateKey: 'K' },
      bearer: null,
    });
    const oauth = {
      type: 'oauth2_client_credentials',
      token_url: 'https://idp.example/token',
      client_id: 'c',
      client_secret: 's',
    } as const;
    const first = await credentials.forAttempt(endpoint, oauth);
    expect(first).toEqual({
      headers: { authorization: 'Bearer tok1' },
      clientCertificate: undefined,
      bearer: 'tok1',
    });
    expect(await credentials.afterRefusal(endpoint, oauth, first)).toMatchObject({
      bearer: 'tok2',
    });
    expect(dropped).toEqual(['tok1']);
    expect(asked).toEqual(['ep_9@2', 'ep_9@2']);
    const basic = { type: 'basic', username: 'u', password: 'p' } as const;
    expect(
      credentials.afterRefusal(endpoint, basic, credentials.forAttempt(endpoint, basic) as never),
    ).toBeNull();
  });
});
