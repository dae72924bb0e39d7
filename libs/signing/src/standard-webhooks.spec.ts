import { Webhook } from 'standardwebhooks';
import { standardWebhookSignature, verifyStandardWebhook } from './standard-webhooks';

const body = '{"id":"evt_1","type":"alert.created"}';
const id = 'evt_01m891c2r546xgmszrny7tmz8e';
// The library checks the time against the real clock (5 min tolerance): sign at the real time.
const timestamp = Math.floor(Date.now() / 1000);
const now = new Date(timestamp * 1000);
const headersOf = (signature: string, at = timestamp) => ({
  'webhook-id': id,
  'webhook-timestamp': String(at),
  'webhook-signature': signature,
});

describe('the Standard Webhooks signature', () => {
  it('verifies with the standardwebhooks library, a plain secret in its raw format', () => {
    const secret = 'a-plain-secret-of-tenant-1';
    const signature = standardWebhookSignature([secret], id, timestamp, body);
    const verifier = new Webhook(secret, { format: 'raw' });
    expect(verifier.verify(body, headersOf(signature))).toEqual(JSON.parse(body));
  });

  it('verifies with the library in its default format when the secret is whsec_<base64>', () => {
    const secret = `whsec_${Buffer.from('thirty-two bytes of key material!').toString('base64')}`;
    const signature = standardWebhookSignature([secret], id, timestamp, body);
    expect(new Webhook(secret).verify(body, headersOf(signature))).toEqual(JSON.parse(body));
  });

  it('carries one signature per secret, any of which verifies (rotation overlap)', () => {
    const signature = standardWebhookSignature(
      ['new-secret-0001', 'old-secret-0001'],
      id,
      timestamp,
      body,
    );
    expect(signature.split(' ')).toHaveLength(2);
    for (const secret of ['new-secret-0001', 'old-secret-0001']) {
      expect(
        new Webhook(secret, { format: 'raw' }).verify(body, headersOf(signature)),
      ).toBeTruthy();
      expect(
        verifyStandardWebhook(body, { id, timestamp: String(timestamp), signature }, secret, {
          now,
        }),
      ).toBe(true);
    }
  });

  it('is refused by the library and by our check when anything signed was changed', () => {
    const secret = 'a-plain-secret-of-tenant-1';
    const signature = standardWebhookSignature([secret], id, timestamp, body);
    const verifier = new Webhook(secret, { format: 'raw' });
    expect(() => verifier.verify(`${body} `, headersOf(signature))).toThrow();
    expect(() =>
      verifier.verify(body, { ...headersOf(signature), 'webhook-id': 'evt_other' }),
    ).toThrow();
    expect(
      verifyStandardWebhook(`${body} `, { id, timestamp: String(timestamp), signature }, secret, {
        now,
      }),
    ).toBe(false);
    expect(
      verifyStandardWebhook(
        body,
        { id: 'evt_other', timestamp: String(timestamp), signature },
        secret,
        { now },
      ),
    ).toBe(false);
    expect(
      verifyStandardWebhook(
        body,
        { id, timestamp: String(timestamp), signature },
        'another-secret-0',
        { now },
      ),
    ).toBe(false);
  });

  it('refuses a delivery replayed outside the tolerance, even with its original signature', () => {
    const secret = 'a-plain-secret-of-tenant-1';
    const signature = standardWebhookSignature([secret], id, timestamp, body);
    const later = new Date(now.getTime() + 301_000);
    const check = { id, timestamp: String(timestamp), signature };
    expect(verifyStandardWebhook(body, check, secret, { now: later })).toBe(false);
    expect(verifyStandardWebhook(body, check, secret, { now: later, toleranceSeconds: 600 })).toBe(
      true,
    );
    // A forged timestamp does not help: it is signed.
    expect(
      verifyStandardWebhook(body, { ...check, timestamp: String(timestamp + 301) }, secret, {
        now: later,
      }),
    ).toBe(false);
  });

  it('refuses malformed headers without throwing', () => {
    for (const check of [
      { id, timestamp: 'soon', signature: 'v1,abc=' },
      { id, timestamp: String(timestamp), signature: 'v2,abc=' },
      { id, timestamp: String(timestamp), signature: 'v1,@@@' },
      { id: undefined, timestamp: String(timestamp), signature: 'v1,abc=' },
    ]) {
      expect(verifyStandardWebhook(body, check, 'a-plain-secret-of-tenant-1', { now })).toBe(false);
    }
  });
});
