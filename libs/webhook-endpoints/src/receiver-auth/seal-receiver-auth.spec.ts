import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ReceiverAuth, SealedReceiverAuth } from './receiver-auth';
import { openReceiverAuth, receiverAuthView, sealReceiverAuth } from './seal-receiver-auth';

const tls = (name: string): string =>
  readFileSync(resolve(__dirname, '../../../../test/fixtures/tls', name), 'utf8');

/** A stand-in for SecretCipher: reversible, and hides the plaintext from a substring search. */
const seal = (plaintext: string): string =>
  `sealed:${Buffer.from(plaintext, 'utf8').toString('base64')}`;
const open = (ciphertext: string): string => {
  if (!ciphertext.startsWith('sealed:')) throw new Error('not sealed here');
  return Buffer.from(ciphertext.slice('sealed:'.length), 'base64').toString('utf8');
};

const SECRET = 'sk_live_4f9a8b7c6d5e';
const clientPem = tls('client.pem');
const clientKey = tls('client-key.pem');

const headers: ReceiverAuth = {
  type: 'headers',
  headers: { 'X-Splunk-Request-Channel': 'abc', Authorization: `Splunk ${SECRET}` },
};
const basic: ReceiverAuth = { type: 'basic', username: 'hec-user', password: SECRET };
const oauth: ReceiverAuth = {
  type: 'oauth2_client_credentials',
  token_url: 'https://login.example.com/oauth2/token',
  client_id: 'svc-webhooks',
  client_secret: SECRET,
};
const oauthFull: ReceiverAuth = {
  ...oauth,
  scope: 'events.write',
  audience: 'https://api.example.com',
};
const mtls: ReceiverAuth = { type: 'mtls', certificate: clientPem, private_key: clientKey };

const facts = {
  subject: 'O=svc webhooks tests, CN=svc-webhooks-delivery',
  issuer: 'O=svc webhooks tests, CN=svc webhooks test client CA (test only\\, do not trust)',
  not_after: '2126-01-01T00:00:00.000Z',
  fingerprint_sha256:
    '01:31:43:C1:DD:56:FD:58:AC:DF:96:CE:9B:37:C8:A5:D3:4D:47:4D:0F:8A:7F:E8:97:B5:E3:7F:8A:54:A0:E0',
};

describe('sealReceiverAuth', () => {
  it('seals all header values together, keeping the names in the given order', () => {
    const sealed = sealReceiverAuth(headers, seal);
    expect(sealed).toEqual({
      type: 'headers',
      header_names: ['X-Splunk-Request-Channel', 'Authorization'],
      secret_ciphertext: seal(
        JSON.stringify({ headers: headers.type === 'headers' && headers.headers }),
      ),
    });
  });

  it('seals the password, keeping the username', () => {
    expect(sealReceiverAuth(basic, seal)).toEqual({
      type: 'basic',
      username: 'hec-user',
      secret_ciphertext: seal(JSON.stringify({ password: SECRET })),
    });
  });

  it('seals the client secret, with a null scope and audience when absent', () => {
    expect(sealReceiverAuth(oauth, seal)).toEqual({
      type: 'oauth2_client_credentials',
      token_url: 'https://login.example.com/oauth2/token',
      client_id: 'svc-webhooks',
      scope: null,
      audience: null,
      secret_ciphertext: seal(JSON.stringify({ client_secret: SECRET })),
    });
    expect(sealReceiverAuth(oauthFull, seal)).toMatchObject({
      scope: 'events.write',
      audience: 'https://api.example.com',
    });
  });

  it("seals the private key, keeping the certificate as given and its first certificate's facts", () => {
    expect(sealReceiverAuth(mtls, seal)).toEqual({
      type: 'mtls',
      ...facts,
      certificate: clientPem,
      secret_ciphertext: seal(JSON.stringify({ private_key: clientKey })),
    });
    const chain = `${clientPem}${tls('client-ca.pem')}`;
    const sealed = sealReceiverAuth({ ...mtls, certificate: chain }, seal);
    expect(sealed).toMatchObject({ subject: facts.subject, certificate: chain });
  });

  it.each([headers, basic, oauth, oauthFull, mtls])(
    'leaves no secret of $type outside the ciphertext, and passes seal exactly one document',
    (auth) => {
      const plaintexts: string[] = [];
      const sealed = sealReceiverAuth(auth, (plaintext) => {
        plaintexts.push(plaintext);
        return 'CIPHERTEXT';
      });
      expect(plaintexts).toHaveLength(1);
      expect(sealed.secret_ciphertext).toBe('CIPHERTEXT');
      const clear = JSON.stringify(sealed);
      expect(clear).not.toContain(SECRET);
      expect(clear).not.toContain('PRIVATE KEY');
    },
  );
});

describe('openReceiverAuth', () => {
  it.each([headers, basic, oauth, oauthFull, mtls])('opens what was sealed: $type', (auth) => {
    const opened = openReceiverAuth(sealReceiverAuth(auth, seal), open);
    expect(opened).toEqual(auth);
    if (auth === oauth) {
      expect(opened).not.toHaveProperty('scope');
      expect(opened).not.toHaveProperty('audience');
    }
  });

  it('keeps the order and spelling of header names, and a header named __proto__', () => {
    const raw: ReceiverAuth = {
      type: 'headers',
      headers: JSON.parse('{"b-Second":"2","__proto__":"x","A-First":"1"}') as Record<
        string,
        string
      >,
    };
    const opened = openReceiverAuth(sealReceiverAuth(raw, seal), open);
    expect(opened.type === 'headers' && Object.entries(opened.headers)).toEqual([
      ['b-Second', '2'],
      ['__proto__', 'x'],
      ['A-First', '1'],
    ]);
  });

  it('opens through the given function, and fails with it', () => {
    const sealed = sealReceiverAuth(basic, seal);
    expect(() => openReceiverAuth({ ...sealed, secret_ciphertext: 'elsewhere' }, open)).toThrow(
      'not sealed here',
    );
  });

  it('refuses secrets that are not those of the sealed type, without naming their content', () => {
    const sealedBasic = sealReceiverAuth(basic, seal);
    const wrong: SealedReceiverAuth = {
      ...sealedBasic,
      secret_ciphertext: seal(JSON.stringify({ client_secret: SECRET })),
    };
    expect(() => openReceiverAuth(wrong, open)).toThrow(/basic auth's sealed password is missing/);
    expect(() => openReceiverAuth(wrong, open)).not.toThrow(SECRET);
    const notObject = { ...sealedBasic, secret_ciphertext: seal('"just a string"') };
    expect(() => openReceiverAuth(notObject, open)).toThrow(/not an object/);
    const sealedHeaders = sealReceiverAuth(headers, seal);
    const badValue = { ...sealedHeaders, secret_ciphertext: seal('{"headers":{"A":1}}') };
    expect(() => openReceiverAuth(badValue, open)).toThrow(/not strings/);
  });

  it('refuses an mtls auth without its certificate', () => {
    const withoutCertificate = sealReceiverAuth(mtls, seal);
    delete withoutCertificate.certificate;
    expect(() => openReceiverAuth(withoutCertificate, open)).toThrow(/certificate is missing/);
  });
});

describe('receiverAuthView', () => {
  it('shows each type and what is not secret, nothing else', () => {
    expect(receiverAuthView(sealReceiverAuth(headers, seal))).toStrictEqual({
      type: 'headers',
      header_names: ['X-Splunk-Request-Channel', 'Authorization'],
    });
    expect(receiverAuthView(sealReceiverAuth(basic, seal))).toStrictEqual({
      type: 'basic',
      username: 'hec-user',
    });
    expect(receiverAuthView(sealReceiverAuth(oauth, seal))).toStrictEqual({
      type: 'oauth2_client_credentials',
      token_url: 'https://login.example.com/oauth2/token',
      client_id: 'svc-webhooks',
      scope: null,
      audience: null,
    });
    expect(receiverAuthView(sealReceiverAuth(mtls, seal))).toStrictEqual({
      type: 'mtls',
      ...facts,
    });
  });

  it('drops whatever else the sealed form carries', () => {
    const sealed = sealReceiverAuth(mtls, seal);
    Object.assign(sealed, { extra: 'x' });
    expect(sealed).toHaveProperty('extra', 'x');
    const view = receiverAuthView(sealed);
    expect(Object.keys(view).sort()).toEqual(
      ['type', 'subject', 'issuer', 'not_after', 'fingerprint_sha256'].sort(),
    );
  });

  it('returns a fresh object that shares nothing with the sealed form', () => {
    const sealed = sealReceiverAuth(headers, seal);
    const view = receiverAuthView(sealed);
    expect(view).not.toBe(sealed);
    if (view.type === 'headers' && sealed.type === 'headers') {
      view.header_names.push('X-Added');
      expect(sealed.header_names).toEqual(['X-Splunk-Request-Channel', 'Authorization']);
    }
  });
});
