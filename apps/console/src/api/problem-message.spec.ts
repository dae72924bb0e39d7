import { failureFromNetwork, failureFromResponse, returnUrlOfProblem } from './problem-message';

describe('failure messages', () => {
  it('lists every invalid field of a 400 once, keyed for the form', () => {
    const message = failureFromResponse(400, {
      type: 'urn:svc:problem:invalid-request',
      title: 'The request is not valid',
      status: 400,
      detail: 'url: must use the https scheme',
      errors: [
        { field: 'url', detail: 'must use the https scheme' },
        { field: 'events', detail: 'must not be empty' },
        { field: 'events', detail: 'unknown type' },
      ],
    });
    expect(message).toEqual({
      summary: 'Some of what was sent is not accepted.',
      detail: 'url: must use the https scheme. events: must not be empty; unknown type',
      fieldErrors: {
        url: ['must use the https scheme'],
        events: ['must not be empty', 'unknown type'],
      },
    });
  });

  it('keeps the detail of other problems', () => {
    expect(
      failureFromResponse(409, {
        title: 'Conflict',
        status: 409,
        detail: 'the endpoint is active',
      }),
    ).toEqual({
      summary: 'That cannot be done in the current state.',
      detail: 'the endpoint is active',
      fieldErrors: {},
    });
  });

  it('reads an OAuth error answer', () => {
    expect(
      failureFromResponse(400, { error: 'invalid_grant', error_description: 'the code was used' })
        .detail,
    ).toBe('the code was used');
  });

  it('says something for bodies that are not problems', () => {
    expect(failureFromResponse(503, 'Service Unavailable')).toEqual({
      summary: 'The service could not answer just now. Try again in a moment.',
      detail: null,
      fieldErrors: {},
    });
    expect(failureFromResponse(418, null).summary).toBe('The request was refused (HTTP 418).');
    expect(failureFromResponse(400, { errors: [null, 3, { field: 7 }] }).fieldErrors).toEqual({});
  });

  it('words a network failure and a timeout', () => {
    expect(failureFromNetwork(new TypeError('Failed to fetch')).summary).toMatch(
      /could not be reached/,
    );
    expect(failureFromNetwork(new DOMException('x', 'AbortError')).summary).toMatch(/too long/);
  });

  it("reads a refused link's return_url, and nothing else that is not a string", () => {
    expect(returnUrlOfProblem({ status: 401, return_url: 'https://app.example.com/back' })).toBe(
      'https://app.example.com/back',
    );
    for (const problem of [null, 'text', { status: 401 }, { return_url: 42 }]) {
      expect(returnUrlOfProblem(problem)).toBeNull();
    }
  });
});
