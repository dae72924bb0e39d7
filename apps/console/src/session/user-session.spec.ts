import type { ConsoleClientConfig } from '../auth/console-client-config';
import { UserCredential, userSessionView } from './user-session';

const config: ConsoleClientConfig = {
  issuer: 'http://auth.test',
  clientId: 'svc-console',
  redirectUri: 'http://api.test/console/callback',
  scope: 'webhooks:manage',
};

const tokens = (n: number) => ({
  accessToken: `access-${n}`,
  refreshToken: `svc_rt_${n}`,
  expiresIn: 3600,
  scopes: ['webhooks:manage'],
});

describe('a signed-in user', () => {
  const realFetch = globalThis.fetch;
  let forms: URLSearchParams[];
  let next: () => Response | Promise<Response>;

  beforeEach(() => {
    jest.useFakeTimers();
    forms = [];
    let issued = 1;
    next = () => {
      issued += 1;
      return Response.json({
        access_token: `access-${issued}`,
        refresh_token: `svc_rt_${issued}`,
        expires_in: 3600,
        token_type: 'Bearer',
        scope: 'webhooks:manage',
      });
    };
    globalThis.fetch = jest.fn(async (_url: RequestInfo | URL, init?: RequestInit) => {
      forms.push(new URLSearchParams(init?.body as URLSearchParams));
      return next();
    }) as typeof fetch;
  });

  afterEach(() => {
    jest.useRealTimers();
    globalThis.fetch = realFetch;
  });

  it('refreshes once for concurrent 401s, with the rotated refresh token next time', async () => {
    const credential = new UserCredential(config, tokens(1), jest.fn());
    const [first, second] = await Promise.all([
      credential.renewAfterRejection('access-1'),
      credential.renewAfterRejection('access-1'),
    ]);
    expect([first, second]).toEqual([true, true]);
    expect(forms.map((form) => Object.fromEntries(form))).toEqual([
      { grant_type: 'refresh_token', refresh_token: 'svc_rt_1', client_id: 'svc-console' },
    ]);
    expect(credential.token()).toBe('access-2');
    // A call that was refused with the old token just goes again with the new one.
    await expect(credential.renewAfterRejection('access-1')).resolves.toBe(true);
    await credential.renewAfterRejection('access-2');
    expect(forms[1].get('refresh_token')).toBe('svc_rt_2');
    credential.discard();
  });

  it('refreshes a minute before the access token expires', async () => {
    const credential = new UserCredential(config, tokens(1), jest.fn());
    await jest.advanceTimersByTimeAsync(3_540_000 - 1);
    expect(forms).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(forms).toHaveLength(1);
    expect(credential.token()).toBe('access-2');
    credential.discard();
  });

  it('is signed out when the grant is refused, and tries again later when offline', async () => {
    const lost = jest.fn();
    next = () => Promise.reject(new TypeError('Failed to fetch'));
    const offline = new UserCredential(config, tokens(1), lost);
    await expect(offline.renewAfterRejection('access-1')).resolves.toBe(false);
    expect(lost).not.toHaveBeenCalled();
    expect(offline.token()).toBe('access-1');
    offline.discard();

    next = () => Response.json({ error: 'invalid_grant' }, { status: 400 });
    const revoked = new UserCredential(config, tokens(1), lost);
    await expect(revoked.renewAfterRejection('access-1')).resolves.toBe(false);
    expect(lost).toHaveBeenCalledTimes(1);
    expect(revoked.token()).toBeNull();
  });

  it('revokes its grant at sign-out and forgets its tokens', async () => {
    next = () => Response.json({});
    const credential = new UserCredential(config, tokens(1), jest.fn());
    await credential.signOut();
    expect(Object.fromEntries(forms[0])).toEqual({ token: 'svc_rt_1', client_id: 'svc-console' });
    expect(credential.token()).toBeNull();
  });

  it('shows live, and actions only with webhooks:manage', () => {
    expect(userSessionView(tokens(1))).toMatchObject({
      kind: 'user',
      environment: 'live',
      canChange: true,
    });
    expect(userSessionView({ ...tokens(1), scopes: ['tenants:read'] })).toMatchObject({
      canChange: false,
      canRead: false,
    });
  });
});
