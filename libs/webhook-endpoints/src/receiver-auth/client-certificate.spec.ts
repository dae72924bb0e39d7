import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkClientCertificate, clientCertificateFacts } from './client-certificate';

const tls = (name: string): string =>
  readFileSync(resolve(__dirname, '../../../../test/fixtures/tls', name), 'utf8');

const clientPem = tls('client.pem');
const clientKey = tls('client-key.pem');
const expiredPem = tls('client-expired.pem');
const expiredKey = tls('client-expired-key.pem');
const otherKey = tls('other-key.pem');
const clientCaPem = tls('client-ca.pem');

const now = new Date('2026-11-27T12:00:00Z');

/** The base64 lines of a PEM: what a detail must never repeat. */
function bodyLines(pem: string): string[] {
  return pem.split('\n').filter((line) => line.length > 20 && !line.startsWith('-----'));
}

describe('clientCertificateFacts', () => {
  it('reads subject and issuer on one line, the expiry in ISO 8601 and the SHA-256 fingerprint', () => {
    expect(clientCertificateFacts(clientPem)).toEqual({
      subject: 'O=svc webhooks tests, CN=svc-webhooks-delivery',
      // A comma within a value is escaped, so the one line still reads as its attributes.
      issuer: 'O=svc webhooks tests, CN=svc webhooks test client CA (test only\\, do not trust)',
      not_after: '2126-01-01T00:00:00.000Z',
      fingerprint_sha256:
        '01:31:43:C1:DD:56:FD:58:AC:DF:96:CE:9B:37:C8:A5:D3:4D:47:4D:0F:8A:7F:E8:97:B5:E3:7F:8A:54:A0:E0',
    });
  });

  it('describes the first certificate of a chain', () => {
    const facts = clientCertificateFacts(`${clientPem}${clientCaPem}`);
    expect(facts.subject).toBe('O=svc webhooks tests, CN=svc-webhooks-delivery');
    expect(clientCertificateFacts(`${clientCaPem}${clientPem}`).subject).toMatch(/client CA/);
  });

  it('throws on a PEM without a readable certificate', () => {
    expect(() => clientCertificateFacts('garbage')).toThrow(/no readable certificate/);
    expect(() => clientCertificateFacts(clientKey)).toThrow(/no readable certificate/);
  });
});

describe('checkClientCertificate', () => {
  it('accepts a valid certificate with its key, alone or followed by its issuer', () => {
    expect(checkClientCertificate(clientPem, clientKey, now)).toEqual([]);
    expect(checkClientCertificate(`${clientPem}\n${clientCaPem}`, clientKey, now)).toEqual([]);
  });

  it("accepts the key in the key type's own form (SEC1), after an EC PARAMETERS block", () => {
    const sec1 = createPrivateKey(clientKey).export({ format: 'pem', type: 'sec1' }).toString();
    expect(sec1).toMatch(/BEGIN EC PRIVATE KEY/);
    const params = '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n';
    expect(checkClientCertificate(clientPem, sec1, now)).toEqual([]);
    expect(checkClientCertificate(clientPem, `${params}${sec1}`, now)).toEqual([]);
  });

  it('refuses an expired certificate, saying when it expired', () => {
    expect(checkClientCertificate(expiredPem, expiredKey, now)).toEqual([
      { field: 'auth.certificate', detail: 'expired on 2021-01-01T00:00:00.000Z' },
    ]);
  });

  it('judges validity at the given time, bounds included', () => {
    expect(
      checkClientCertificate(expiredPem, expiredKey, new Date('2020-06-01T00:00:00Z')),
    ).toEqual([]);
    expect(
      checkClientCertificate(expiredPem, expiredKey, new Date('2021-01-01T00:00:00.000Z')),
    ).toEqual([]);
    expect(
      checkClientCertificate(expiredPem, expiredKey, new Date('2021-01-01T00:00:00.001Z')),
    ).toHaveLength(1);
  });

  it('refuses a certificate that is not valid yet', () => {
    expect(checkClientCertificate(clientPem, clientKey, new Date('2025-12-31T23:59:59Z'))).toEqual([
      {
        field: 'auth.certificate',
        detail: 'is not valid yet: valid from 2026-01-01T00:00:00.000Z',
      },
    ]);
  });

  it("refuses a key that is not the certificate's", () => {
    expect(checkClientCertificate(clientPem, otherKey, now)).toEqual([
      {
        field: 'auth.private_key',
        detail: 'does not match auth.certificate (the key of its first certificate)',
      },
    ]);
    // The key of the second certificate of the chain does not count.
    expect(checkClientCertificate(`${clientPem}${expiredPem}`, expiredKey, now)).toEqual([
      expect.objectContaining({ field: 'auth.private_key' }),
    ]);
  });

  it.each([
    ['garbage', 'not a certificate at all'],
    ['an empty certificate block', '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n'],
    [
      'a block with corrupted content',
      clientPem.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!!!!!!!!!!!!!!!!!'),
    ],
    ['a BEGIN line without its END line', clientPem.replace('-----END CERTIFICATE-----', '')],
  ])('refuses %s as the certificate', (_, certificate) => {
    expect(checkClientCertificate(certificate, clientKey, now)).toEqual([
      { field: 'auth.certificate', detail: expect.stringMatching(/^is not a PEM certificate/) },
    ]);
  });

  it('refuses a chain whose second certificate cannot be read', () => {
    const broken = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    expect(checkClientCertificate(`${clientPem}${broken}`, clientKey, now)).toEqual([
      {
        field: 'auth.certificate',
        detail: 'is not a PEM certificate (certificate 2 cannot be read)',
      },
    ]);
  });

  it('refuses a private key in the certificate field, without repeating it', () => {
    for (const certificate of [clientKey, `${clientPem}${clientKey}`]) {
      const violations = checkClientCertificate(certificate, clientKey, now);
      expect(violations).toContainEqual({
        field: 'auth.certificate',
        detail: expect.stringMatching(/must not contain a private key/),
      });
      const details = violations.map((violation) => violation.detail).join('\n');
      for (const line of bodyLines(clientKey)) {
        expect(details).not.toContain(line);
      }
    }
  });

  it('refuses other PEM blocks in the certificate field', () => {
    const publicKey = createPrivateKey(clientKey)
      .export({ format: 'pem', type: 'pkcs8' })
      .toString()
      .replace(/PRIVATE KEY/g, 'PUBLIC KEY');
    expect(checkClientCertificate(`${clientPem}${publicKey}`, clientKey, now)).toEqual([
      {
        field: 'auth.certificate',
        detail: expect.stringMatching(/must contain only CERTIFICATE blocks.*found PUBLIC KEY/),
      },
    ]);
  });

  it.each([
    ['garbage', 'not a key'],
    ['a certificate', clientPem],
    ['a key without its PEM lines', bodyLines(clientKey).join('\n')],
  ])('refuses %s as the private key', (_, privateKey) => {
    expect(checkClientCertificate(clientPem, privateKey, now)).toEqual([
      { field: 'auth.private_key', detail: 'is not a PEM private key' },
    ]);
  });

  it('refuses an encrypted key, in PKCS#8 or in the traditional form', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    for (const type of ['pkcs8', 'sec1'] as const) {
      const encrypted = privateKey
        .export({ format: 'pem', type, cipher: 'aes-256-cbc', passphrase: 'secret' })
        .toString();
      expect(checkClientCertificate(clientPem, encrypted, now)).toEqual([
        { field: 'auth.private_key', detail: expect.stringMatching(/^must not be encrypted/) },
      ]);
    }
  });

  it('reports the certificate and the key together when both are wrong', () => {
    expect(checkClientCertificate('garbage', 'garbage', now).map((v) => v.field)).toEqual([
      'auth.certificate',
      'auth.private_key',
    ]);
  });
});
