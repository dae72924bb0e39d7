import { randomBytes } from 'node:crypto';
import { LoginThrottle, PasswordSignIn, UsersService } from '@svc/oauth';
import { AuthMetrics } from '../../apps/auth/src/auth-metrics';
import {
  authorizationParameters,
  authorizePath,
  FormBrowser,
  hiddenInputs,
  OAuthTestBed,
  startOAuthTestBed,
} from '../support';

/** Issue 9 items 2 and 4: the sign-in throttle under bursts, per address, and odd input. */
describe('sign-in throttle', () => {
  let bed: OAuthTestBed;

  beforeAll(async () => {
    // The test client connects from 127.0.0.1, trusted here as a proxy: each test picks its
    // client addresses with X-Forwarded-For.
    bed = await startOAuthTestBed({ authEnv: { AUTH_TRUSTED_PROXIES: '127.0.0.1/32' } });
  });
  afterAll(async () => {
    await bed.close();
  });

  let nextAddress = 1;
  const newAddress = () => `198.51.100.${nextAddress++}`;

  const signInForm = async () => {
    const b = new FormBrowser(bed.auth.baseUrl);
    const page = await b.get(authorizePath(authorizationParameters(bed)));
    expect(page.status).toBe(200);
    return { b, fields: hiddenInputs(page.text) };
  };

  const signIns = async () => {
    const metrics = bed.auth.app.get(AuthMetrics);
    const { values } = await metrics.signIns.get();
    const count = (outcome: string) =>
      values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
    return {
      failed: count('failed'),
      throttled: count('throttled'),
      succeeded: count('succeeded'),
    };
  };

  it('checks at most five passwords in a burst of 50 for one account, then refuses the right one', async () => {
    const user = await bed.newUser(['tenants:read']);
    const { b, fields } = await signInForm();
    const before = await signIns();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        b.post(
          'login',
          { ...fields, email: user.email, password: `wrong-password-${i}` },
          { 'x-forwarded-for': newAddress() },
        ),
      ),
    );
    const after = await signIns();
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(45);
    expect(after.failed - before.failed).toBe(5);
    expect(after.throttled - before.throttled).toBe(45);

    const right = await b.post(
      'login',
      { ...fields, email: user.email, password: user.password },
      { 'x-forwarded-for': newAddress() },
    );
    expect(right.status).toBe(429);
    expect(b.cookies.has('__Host-svc_session')).toBe(false);
  });

  it('counts before checking when called directly: 50 parallel tries, at most 5 checks', async () => {
    const user = await bed.newUser(['tenants:read']);
    let checks = 0;
    const slowVerifier = async (hash: string, password: string) => {
      checks += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return password === user.password && hash.startsWith('$argon2');
    };
    const signIn = new PasswordSignIn(
      new UsersService(bed.api.dataSource),
      new LoginThrottle(bed.api.dataSource),
      slowVerifier,
    );
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        signIn.attempt({ email: user.email, password: `wrong-${i}`, address: newAddress() }),
      ),
    );
    expect(checks).toBeLessThanOrEqual(5);
    expect(results.filter((result) => result.outcome === 'failed')).toHaveLength(checks);
    const right = await signIn.attempt({
      email: user.email,
      password: user.password,
      address: newAddress(),
    });
    expect(right).toMatchObject({ outcome: 'throttled', limit: 'account' });
  });

  it('never answers 5xx when successful sign-ins race failed ones', async () => {
    for (let round = 0; round < 3; round += 1) {
      const user = await bed.newUser(['tenants:read']);
      const { b, fields } = await signInForm();
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          b.post(
            'login',
            { ...fields, email: user.email, password: i % 4 === 0 ? user.password : `no-${i}` },
            { 'x-forwarded-for': newAddress() },
          ),
        ),
      );
      for (const answer of answers) {
        expect([303, 401, 429]).toContain(answer.status);
      }
    }
  });

  it.each([
    ['a NUL byte', 'nul\u0000byte@example.com'],
    ['a lone surrogate', 'lone\ud800surrogate@example.com'],
    ['an overlong email', `${randomBytes(6000).toString('base64url')}@example.com`],
  ])('answers an email with %s as a failed sign-in, and counts it', async (_name, email) => {
    const { b, fields } = await signInForm();
    const address = newAddress();
    // JSON keeps a lone surrogate as it is; a form body would turn it into U+FFFD.
    const post = () =>
      fetch(`${bed.auth.baseUrl}/oauth/login`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': address,
          cookie: [...b.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        },
        body: JSON.stringify({ ...fields, email, password: 'not the password at all' }),
      });
    for (let i = 0; i < 5; i += 1) {
      const answer = await post();
      expect(answer.status).toBe(401);
      expect(await answer.text()).toContain('The email or password is incorrect.');
    }
    expect((await post()).status).toBe(429);
  });

  describe('per client address', () => {
    it('refuses an address after 20 failures across accounts, without locking any account', async () => {
      const attacker = newAddress();
      const user = await bed.newUser(['tenants:read']);
      const { b, fields } = await signInForm();
      for (let i = 0; i < 20; i += 1) {
        const failed = await b.post(
          'login',
          { ...fields, email: i < 4 ? user.email : `guess-${i}@example.com`, password: `no-${i}` },
          { 'x-forwarded-for': attacker },
        );
        expect(failed.status).toBe(401);
      }
      const refused = await b.post(
        'login',
        { ...fields, email: user.email, password: user.password },
        { 'x-forwarded-for': attacker },
      );
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800);
      expect(refused.text).toContain('Too many failed sign-ins from your network');

      // The account had four failures; refused tries from the attacker added none, so its owner,
      // from another address, still gets in.
      const owner = await b.post(
        'login',
        { ...fields, email: user.email, password: user.password },
        { 'x-forwarded-for': newAddress() },
      );
      expect(owner.status).toBe(303);
    });

    it('honours only the address a trusted proxy saw: spoofed entries to its left change nothing', async () => {
      const attacker = newAddress();
      const { b, fields } = await signInForm();
      for (let i = 0; i < 20; i += 1) {
        await b.post(
          'login',
          { ...fields, email: `nobody-${i}@example.com`, password: 'x' },
          { 'x-forwarded-for': `203.0.113.${i}, ${attacker}` },
        );
      }
      const refused = await b.post(
        'login',
        { ...fields, email: bed.user.email, password: bed.user.password },
        { 'x-forwarded-for': `192.0.2.99, ${attacker}` },
      );
      expect(refused.status).toBe(429);
    });
  });
});

describe('sign-in throttle behind no trusted proxy', () => {
  let bed: OAuthTestBed;

  beforeAll(async () => {
    bed = await startOAuthTestBed({ authEnv: { AUTH_SIGN_IN_MAX_FAILURES_PER_ADDRESS: '3' } });
  });
  afterAll(async () => {
    await bed.close();
  });

  it('ignores X-Forwarded-For from an untrusted peer', async () => {
    const b = new FormBrowser(bed.auth.baseUrl);
    const fields = hiddenInputs((await b.get(authorizePath(authorizationParameters(bed)))).text);
    for (let i = 0; i < 3; i += 1) {
      const failed = await b.post(
        'login',
        { ...fields, email: `nobody-${i}@example.com`, password: 'x' },
        { 'x-forwarded-for': `203.0.113.${i}` },
      );
      expect(failed.status).toBe(401);
    }
    const refused = await b.post(
      'login',
      { ...fields, email: bed.user.email, password: bed.user.password },
      { 'x-forwarded-for': '203.0.113.200' },
    );
    expect(refused.status).toBe(429);
  });
});
