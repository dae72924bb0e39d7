import { signatureHeaderValue, standardWebhookSignature } from '@svc/signing';
import type { DirectoryEndpoint } from '../fan-out/endpoint-directory';
import { SigningKeyObjects } from './signing-key-objects';

/** The keys are held by the endpoint object: any object stands for a loaded endpoint here. */
const directoryEndpoint = () => ({ id: 'wh_1' }) as DirectoryEndpoint;

describe('SigningKeyObjects', () => {
  const body = Buffer.from('{"id":"evt_1"}');

  it('signs exactly as the secrets themselves do, for raw and whsec_ secrets', () => {
    const keyObjects = new SigningKeyObjects();
    const endpoint = directoryEndpoint();
    for (const secret of [
      'a-raw-secret-of-16+',
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw9p0BcXQ5r0o=',
    ]) {
      const keys = keyObjects.of(endpoint, secret);
      expect(signatureHeaderValue(body, keys.signature)).toBe(signatureHeaderValue(body, secret));
      expect(standardWebhookSignature([keys.standardWebhook], 'evt_1', 1700000000, body)).toBe(
        standardWebhookSignature([secret], 'evt_1', 1700000000, body),
      );
    }
  });

  it('makes the keys once per endpoint object and secret, and again for a reloaded endpoint', () => {
    const keyObjects = new SigningKeyObjects();
    const endpoint = directoryEndpoint();
    const first = keyObjects.of(endpoint, 'a-raw-secret-of-16+');
    expect(keyObjects.of(endpoint, 'a-raw-secret-of-16+')).toBe(first);
    expect(keyObjects.of(endpoint, 'another-secret-of-16')).not.toBe(first);
    expect(keyObjects.of(directoryEndpoint(), 'a-raw-secret-of-16+')).not.toBe(first);
  });
});
