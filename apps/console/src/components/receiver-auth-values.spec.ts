import type { ApiFailure } from '../api/api-failure';
import {
  headerRowErrors,
  headersErrors,
  ReceiverAuthForm,
  receiverAuthFormOf,
  receiverAuthFromForm,
} from './receiver-auth-values';

const form = (changes: Partial<ReceiverAuthForm>): ReceiverAuthForm => ({
  ...receiverAuthFormOf(null),
  ...changes,
});

const fieldErrorsOf = (action: () => unknown): Record<string, string[]> => {
  try {
    action();
  } catch (error) {
    return (error as ApiFailure).failure.fieldErrors;
  }
  throw new Error('not refused');
};

describe('the receiver authentication form and the auth it sends', () => {
  it('starts from the current authentication, with the secrets empty', () => {
    expect(receiverAuthFormOf(null)).toMatchObject({ type: 'none', password: '' });
    expect(
      receiverAuthFormOf({ type: 'headers', header_names: ['Authorization', 'X-Channel'] }).headers,
    ).toEqual([
      { key: 0, name: 'Authorization', value: '' },
      { key: 1, name: 'X-Channel', value: '' },
    ]);
    expect(receiverAuthFormOf({ type: 'basic', username: 'svc' })).toMatchObject({
      type: 'basic',
      username: 'svc',
      password: '',
    });
    expect(
      receiverAuthFormOf({
        type: 'oauth2_client_credentials',
        token_url: 'https://login.example.com/token',
        client_id: 'svc',
        scope: null,
        audience: 'api',
      }),
    ).toMatchObject({
      tokenUrl: 'https://login.example.com/token',
      clientId: 'svc',
      scope: '',
      audience: 'api',
      clientSecret: '',
    });
    expect(
      receiverAuthFormOf({
        type: 'mtls',
        subject: 'CN=x',
        issuer: 'CN=ca',
        not_after: '2126-01-01T00:00:00.000Z',
        fingerprint_sha256: 'AA',
      }),
    ).toMatchObject({ type: 'mtls', certificate: '', privateKey: '' });
  });

  it('sends none as null, and each type with its fields, secrets as typed', () => {
    expect(receiverAuthFromForm(form({ type: 'none', username: 'left over' }))).toBeNull();
    expect(
      receiverAuthFromForm(form({ type: 'basic', username: 'svc', password: ' p w ' })),
    ).toEqual({ type: 'basic', username: 'svc', password: ' p w ' });
    expect(
      receiverAuthFromForm(
        form({
          type: 'oauth2_client_credentials',
          tokenUrl: ' https://login.example.com/token ',
          clientId: 'svc ',
          clientSecret: 's3cret ',
          scope: '  ',
          audience: 'api',
        }),
      ),
    ).toEqual({
      type: 'oauth2_client_credentials',
      token_url: 'https://login.example.com/token',
      client_id: 'svc',
      client_secret: 's3cret ',
      audience: 'api',
    });
    expect(receiverAuthFromForm(form({ type: 'mtls', certificate: 'C', privateKey: 'K' }))).toEqual(
      {
        type: 'mtls',
        certificate: 'C',
        private_key: 'K',
      },
    );
  });

  it('sends the header rows as an object, skipping empty rows', () => {
    expect(
      receiverAuthFromForm(
        form({
          type: 'headers',
          headers: [
            { key: 0, name: ' Authorization ', value: 'Splunk t' },
            { key: 1, name: '', value: '' },
            { key: 2, name: 'Host', value: 'x' },
          ],
        }),
      ),
    ).toEqual({ type: 'headers', headers: { Authorization: 'Splunk t', Host: 'x' } });
  });

  it('refuses a header without a name, a name twice, and no header, naming auth.headers', () => {
    const headers = (rows: [string, string][]) =>
      form({
        type: 'headers',
        headers: rows.map(([name, value], key) => ({ key, name, value })),
      });
    expect(fieldErrorsOf(() => receiverAuthFromForm(headers([['', 'v']])))).toEqual({
      'auth.headers': ['every header needs a name'],
    });
    expect(
      fieldErrorsOf(() =>
        receiverAuthFromForm(
          headers([
            ['X-A', '1'],
            ['x-a', '2'],
          ]),
        ),
      ),
    ).toEqual({ 'auth.headers': ['x-a is given twice'] });
    expect(fieldErrorsOf(() => receiverAuthFromForm(headers([['', '']])))).toEqual({
      'auth.headers': ['add at least one header, or choose no authentication'],
    });
  });

  it("puts the API's problems with a header next to its row, the others on the fieldset", () => {
    const errors = {
      'auth.headers.Host': ['is not allowed'],
      'auth.headers.X-Gone': ['is not allowed either'],
      'auth.headers': ['at most 10'],
      'auth.username': ['no colon'],
    };
    expect(headerRowErrors(errors, ' host ')).toEqual(['is not allowed']);
    expect(headerRowErrors(errors, 'Authorization')).toBeUndefined();
    expect(headersErrors(errors, [{ key: 0, name: 'Host', value: '' }])).toEqual([
      'X-Gone: is not allowed either',
      'at most 10',
    ]);
    expect(headersErrors({}, [])).toBeUndefined();
  });
});
