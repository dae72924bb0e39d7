import crypto from 'node:crypto';
import { signatureHeaderValue, verifySignature } from './signature';

const SECRET = 'whsec_test_0123456789abcdef';

/**
 * Known vectors, computed outside Node so that the tests do not check the code against itself.
 * Each comment is the exact shell command (OpenSSL 3.0) that produced the hex digest.
 */

// printf '%s' 'what do ya want for nothing?' | openssl dgst -sha256 -hmac 'Jefe'
// (also RFC 4231, test case 2)
const RFC4231_CASE_2 = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';

// printf '%s' '{"id":"evt_01J9ZX","type":"alert.created","tenant_id":"ten_acme","data":{"title":"Überwachung ✓ 東京 🔒"}}' \
//   | openssl dgst -sha256 -hmac 'whsec_test_0123456789abcdef'
const UNICODE_BODY =
  '{"id":"evt_01J9ZX","type":"alert.created","tenant_id":"ten_acme","data":{"title":"Überwachung ✓ 東京 🔒"}}';
const UNICODE_DIGEST = 'cb15b421169c2127241f72fd38f52b29473bdc6970d61ecc312201843fff8775';

// printf '%s' '{ "type": "alert.created",  "id": "evt_01J9ZX", "data": { "score": 1.0, "name": "caf\u00e9" } }' \
//   | openssl dgst -sha256 -hmac 'whsec_test_0123456789abcdef'
// (printf '%s' keeps the backslash: the JSON escape \u00e9 is six bytes of the body)
const LOOSE_BODY =
  '{ "type": "alert.created",  "id": "evt_01J9ZX", "data": { "score": 1.0, "name": "caf\\u00e9" } }';
const LOOSE_DIGEST = '0875ddc6a7877f1c118dbfbe07976987d21651e4ed9648d3253edac4c809bce8';

// printf '%s' '{"type":"alert.created","id":"evt_01J9ZX","data":{"score":1,"name":"café"}}' \
//   | openssl dgst -sha256 -hmac 'whsec_test_0123456789abcdef'
const RESERIALISED_DIGEST = 'a5852aae4629072e420b36a4d4d60d57a71ceb091893125a664f756c021a58b2';

// printf '%s' '' | openssl dgst -sha256 -hmac 'whsec_test_0123456789abcdef'
const EMPTY_BODY_DIGEST = 'c75e30d092a12b00c5ed1f2f9705da88827c7abc179c8a52a87527b7c70ce49d';

// printf '%s' '{"id":"evt_01J9ZX","type":"alert.created"}' | openssl dgst -sha256 -hmac 'clé secrète ✓'
const UNICODE_SECRET = 'clé secrète ✓';
const UNICODE_SECRET_DIGEST = '763c822eb070f007932fcb89ccc89a1db9b986108c56c2a878bd08f9d804b3b4';

describe('signatureHeaderValue', () => {
  it('matches the RFC 4231 vector', () => {
    expect(signatureHeaderValue('what do ya want for nothing?', 'Jefe')).toBe(
      `sha256=${RFC4231_CASE_2}`,
    );
  });

  it('signs the UTF-8 bytes of a body with non-ASCII characters', () => {
    expect(signatureHeaderValue(UNICODE_BODY, SECRET)).toBe(`sha256=${UNICODE_DIGEST}`);
    expect(signatureHeaderValue(Buffer.from(UNICODE_BODY, 'utf8'), SECRET)).toBe(
      `sha256=${UNICODE_DIGEST}`,
    );
  });

  it('encodes the secret as UTF-8', () => {
    expect(signatureHeaderValue('{"id":"evt_01J9ZX","type":"alert.created"}', UNICODE_SECRET)).toBe(
      `sha256=${UNICODE_SECRET_DIGEST}`,
    );
  });

  it('signs an empty body', () => {
    expect(signatureHeaderValue('', SECRET)).toBe(`sha256=${EMPTY_BODY_DIGEST}`);
    expect(signatureHeaderValue(Buffer.alloc(0), SECRET)).toBe(`sha256=${EMPTY_BODY_DIGEST}`);
  });

  it('covers the raw bytes, not the JSON they parse to', () => {
    const reserialised = JSON.stringify(JSON.parse(LOOSE_BODY));
    expect(reserialised).toBe(
      '{"type":"alert.created","id":"evt_01J9ZX","data":{"score":1,"name":"café"}}',
    );
    expect(signatureHeaderValue(LOOSE_BODY, SECRET)).toBe(`sha256=${LOOSE_DIGEST}`);
    expect(signatureHeaderValue(reserialised, SECRET)).toBe(`sha256=${RESERIALISED_DIGEST}`);
  });

  it('signs bytes that are not UTF-8 as they are', () => {
    const latin1 = Buffer.from('café', 'latin1');
    expect(signatureHeaderValue(latin1, SECRET)).not.toBe(signatureHeaderValue('café', SECRET));
    expect(verifySignature(latin1, signatureHeaderValue(latin1, SECRET), SECRET)).toBe(true);
  });

  it('is lowercase hex behind the sha256= prefix', () => {
    expect(signatureHeaderValue('{}', SECRET)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('refuses an empty secret', () => {
    expect(() => signatureHeaderValue('{}', '')).toThrow(RangeError);
  });
});

describe('verifySignature', () => {
  const header = `sha256=${UNICODE_DIGEST}`;

  it('accepts the known signature, for a string or a Buffer body', () => {
    expect(verifySignature(UNICODE_BODY, header, SECRET)).toBe(true);
    expect(verifySignature(Buffer.from(UNICODE_BODY, 'utf8'), header, SECRET)).toBe(true);
  });

  it('accepts only the raw bytes that were signed, not a re-serialisation of them', () => {
    const looseHeader = `sha256=${LOOSE_DIGEST}`;
    expect(verifySignature(LOOSE_BODY, looseHeader, SECRET)).toBe(true);
    expect(verifySignature(JSON.stringify(JSON.parse(LOOSE_BODY)), looseHeader, SECRET)).toBe(
      false,
    );
  });

  it('rejects a tampered body', () => {
    const tampered = Buffer.from(UNICODE_BODY, 'utf8');
    tampered[tampered.length - 3] ^= 0x01;
    expect(verifySignature(tampered, header, SECRET)).toBe(false);
    expect(verifySignature(`${UNICODE_BODY} `, header, SECRET)).toBe(false);
  });

  it('rejects the right body under another secret', () => {
    expect(verifySignature(UNICODE_BODY, header, `${SECRET}x`)).toBe(false);
  });

  it('rejects a digest that differs in its last character only', () => {
    const last = header.endsWith('5') ? '6' : '5';
    expect(verifySignature(UNICODE_BODY, header.slice(0, -1) + last, SECRET)).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['only the prefix', 'sha256='],
    ['without prefix', UNICODE_DIGEST],
    ['with another algorithm', `sha1=${UNICODE_DIGEST}`],
    ['with an uppercase prefix', `SHA256=${UNICODE_DIGEST}`],
    ['in uppercase hex', `sha256=${UNICODE_DIGEST.toUpperCase()}`],
    ['one hex digit short', header.slice(0, -1)],
    ['one hex digit long', `${header}0`],
    ['truncated to half', header.slice(0, 7 + 32)],
    ['doubled', `${header}${UNICODE_DIGEST}`],
    ['with non-hex characters', `sha256=${'z'.repeat(64)}`],
    ['with surrounding whitespace', ` ${header} `],
    ['repeated, as Node joins repeated headers', `${header}, ${header}`],
    ['in base64', `sha256=${Buffer.from(UNICODE_DIGEST, 'hex').toString('base64')}`],
  ])('returns false without throwing for a header %s', (_case, value) => {
    expect(() => verifySignature(UNICODE_BODY, value, SECRET)).not.toThrow();
    expect(verifySignature(UNICODE_BODY, value, SECRET)).toBe(false);
  });

  it('returns false for a header of the wrong type from untyped callers', () => {
    const repeated = [header, header] as unknown as string;
    expect(verifySignature(UNICODE_BODY, repeated, SECRET)).toBe(false);
    expect(verifySignature(UNICODE_BODY, null as unknown as string, SECRET)).toBe(false);
  });

  it('compares the digests with timingSafeEqual, not with string equality', () => {
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      expect(verifySignature(UNICODE_BODY, header, SECRET)).toBe(true);
      expect(spy).toHaveBeenCalledTimes(1);
      const [received, expected] = spy.mock.calls[0] as [Buffer, Buffer];
      expect(received.toString('hex')).toBe(UNICODE_DIGEST);
      expect(expected.toString('hex')).toBe(UNICODE_DIGEST);
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses an empty secret instead of verifying against it', () => {
    expect(() => verifySignature('{}', signatureHeaderValue('{}', 'x'), '')).toThrow(RangeError);
  });
});
