import { signatureKeyOf, standardWebhookKeyObject } from '@svc/signing';
import type { KeyObject } from 'node:crypto';
import type { DirectoryEndpoint } from '../fan-out/endpoint-directory';

/** One secret's HMAC keys: for X-SVC-Signature-256, and for the Standard Webhooks `v1,` entry. */
export interface SecretKeys {
  signature: KeyObject;
  standardWebhook: KeyObject;
}

/**
 * The key objects of each endpoint's secrets, made once per loaded version of the endpoint and
 * reused for every delivery to it (issue 35): keyed by the directory's endpoint object, so that a
 * reload, a rotation or a deletion lets them go with it.
 */
export class SigningKeyObjects {
  private readonly byEndpoint = new WeakMap<DirectoryEndpoint, Map<string, SecretKeys>>();

  of(endpoint: DirectoryEndpoint, secret: string): SecretKeys {
    let keys = this.byEndpoint.get(endpoint);
    if (!keys) {
      keys = new Map();
      this.byEndpoint.set(endpoint, keys);
    }
    let made = keys.get(secret);
    if (!made) {
      made = {
        signature: signatureKeyOf(secret),
        standardWebhook: standardWebhookKeyObject(secret),
      };
      keys.set(secret, made);
    }
    return made;
  }
}
