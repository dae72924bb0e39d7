import { readCallbackQuery, readPortalFragment } from './launch-address';

describe('reading a portal link fragment', () => {
  it('takes the token and leaves nothing behind', () => {
    expect(readPortalFragment('#portal=svc_pl_abc-DEF_123')).toEqual({
      token: 'svc_pl_abc-DEF_123',
      remainingHash: '',
    });
  });

  it('keeps the other parameters of the fragment', () => {
    expect(readPortalFragment('#view=x&portal=tok&y=1')).toEqual({
      token: 'tok',
      remainingHash: '#view=x&y=1',
    });
  });

  it('leaves a fragment without a portal token alone', () => {
    expect(readPortalFragment('')).toEqual({ token: null, remainingHash: '' });
    expect(readPortalFragment('#section')).toEqual({ token: null, remainingHash: '#section' });
    expect(readPortalFragment('#notportal=1')).toEqual({
      token: null,
      remainingHash: '#notportal=1',
    });
  });

  it('refuses an empty, repeated, over-long or non-printable token, but still removes it', () => {
    for (const hash of [
      '#portal=',
      '#portal=a&portal=b',
      `#portal=${'a'.repeat(513)}`,
      '#portal=a%20b',
      '#portal=%0a',
    ]) {
      expect(readPortalFragment(hash)).toEqual({ token: null, remainingHash: '' });
    }
  });

  it('decodes a percent-encoded token', () => {
    expect(readPortalFragment('#portal=a%2Bb').token).toBe('a+b');
  });
});

describe('reading an OAuth callback', () => {
  it('reads code, state and issuer', () => {
    expect(readCallbackQuery('?code=c1&state=s1&iss=https%3A%2F%2Fauth.example')).toEqual({
      code: 'c1',
      state: 's1',
      issuer: 'https://auth.example',
      error: null,
      errorDescription: null,
    });
  });

  it('reads an error', () => {
    expect(
      readCallbackQuery('?error=access_denied&error_description=the+user+denied&state=s'),
    ).toMatchObject({ code: null, error: 'access_denied', errorDescription: 'the user denied' });
  });

  it('takes no repeated parameter', () => {
    expect(readCallbackQuery('?code=a&code=b&state=s').code).toBeNull();
  });
});
