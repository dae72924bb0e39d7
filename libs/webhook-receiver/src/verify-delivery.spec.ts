import { generateKeyPairSync, KeyObject } from 'node:crypto';
import {
  ed25519SignatureEntries,
  publicJwkOf,
  signatureHeaderValue,
  standardWebhookSignature,
} from '@svc/signing';
import { JwksFetch, jwksKeySource, JWKS_MIN_REFETCH_INTERVAL_MS } from './jwks-key-source';
import { verifyDelivery } from './verify-delivery';

const SECRET = 'whsec_verify_delivery_0123456789';
const BODY = Buffer.from('{"id":"evt_1","type":"alert.created"}');
const NOW = new Date('2026-03-04T05:06:07Z');
const SENT_AT = Math.floor(NOW.getTime() / 1000);

function keyPair(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, jwk: publicJwkOf(publicKey, kid) };
}

/** The headers the engine sends for the given schemes. */
function headersFor(
  schemes: { hmac?: string; ed25519?: KeyObject[] },
  body: Buffer = BODY,
  sentAt = SENT_AT,
) {
  const entries = [
    ...(schemes.hmac ? [standardWebhookSignature([schemes.hmac], 'evt_1', sentAt, body)] : []),
    ...ed25519SignatureEntries(schemes.ed25519 ?? [], 'evt_1', sentAt, body),
  ];
  return {
    ...(schemes.hmac ? { 'x-svc-signature-256': signatureHeaderValue(body, schemes.hmac) } : {}),
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(sentAt),
    'webhook-signature': entries.join(' '),
  };
}

/** A key source over a JWKS the test changes; the clock moves with `clock.ms`. */
function source(keys: unknown[]) {
  const state = { keys, fetches: 0, down: false };
  const clock = { ms: NOW.getTime() };
  const fetch: JwksFetch = () => {
    state.fetches += 1;
    if (state.down) {
      return Promise.reject(new TypeError('fetch failed'));
    }
    return Promise.resolve({
      ok: true,
      status: 200,
      headers: { get: () => 'public, max-age=300' },
      json: () => Promise.resolve({ keys: state.keys }),
    });
  };
  return {
    state,
    clock,
    jwks: jwksKeySource('https://jwks.test/', { fetch, now: () => clock.ms }),
  };
}

describe('verifyDelivery', () => {
  const current = keyPair('whk_current');

  it('verifies an ed25519-only delivery with the JWKS alone', async () => {
    const { jwks } = source([current.jwk]);
    const result = await verifyDelivery(BODY, headersFor({ ed25519: [current.privateKey] }), {
      secrets: [],
      jwks,
      now: NOW,
    });
    expect(result).toEqual({ verified: 'ed25519', schemes: ['ed25519'] });
  });

  it('reports both schemes for a delivery signed with both', async () => {
    const { jwks } = source([current.jwk]);
    const headers = headersFor({ hmac: SECRET, ed25519: [current.privateKey] });
    const result = await verifyDelivery(BODY, headers, { secrets: [SECRET], jwks, now: NOW });
    expect(result.schemes).toEqual(['ed25519', 'hmac-sha256']);
  });

  it('verifies an HMAC-only delivery as before, with a JWKS source too', async () => {
    const { jwks, state } = source([current.jwk]);
    const result = await verifyDelivery(BODY, headersFor({ hmac: SECRET }), {
      secrets: [SECRET],
      jwks,
      now: NOW,
    });
    expect(result).toEqual({ verified: 'hmac-sha256', schemes: ['hmac-sha256'] });
    // No v1a entry, nothing to fetch keys for.
    expect(state.fetches).toBe(0);
  });

  it('refuses an ed25519 delivery to a receiver with only a secret, and a body changed by one byte', async () => {
    const headers = headersFor({ ed25519: [current.privateKey] });
    expect(await verifyDelivery(BODY, headers, { secrets: [SECRET], now: NOW })).toEqual({
      verified: false,
      schemes: [],
      failure: 'invalid signature',
    });
    const { jwks } = source([current.jwk]);
    const tampered = Buffer.from(BODY);
    tampered[5] ^= 1;
    const result = await verifyDelivery(tampered, headers, { secrets: [], jwks, now: NOW });
    expect(result.verified).toBe(false);
  });

  it('refuses a replay older than the tolerance under either scheme', async () => {
    const { jwks, state } = source([current.jwk]);
    const old = SENT_AT - 301;
    const headers = headersFor({ hmac: SECRET, ed25519: [current.privateKey] }, BODY, old);
    const result = await verifyDelivery(BODY, headers, { secrets: [SECRET], jwks, now: NOW });
    expect(result).toEqual({
      verified: false,
      schemes: [],
      failure: 'stale or unsigned delivery time',
    });
    // A stale time fails under any key: it is no reason to look for a new one.
    expect(state.fetches).toBe(1);
  });

  it('verifies a delivery signed by a key published after its cache was filled (a rotation)', async () => {
    const { jwks, state, clock } = source([current.jwk]);
    await jwks.keys();
    const next = keyPair('whk_next');
    state.keys = [next.jwk, current.jwk];
    clock.ms += JWKS_MIN_REFETCH_INTERVAL_MS;
    const headers = headersFor({ ed25519: [next.privateKey] });

    const result = await verifyDelivery(BODY, headers, { secrets: [], jwks, now: NOW });
    expect(result.verified).toBe('ed25519');
    expect(state.fetches).toBe(2);
  });

  it('fails closed while the JWKS is unreachable, and never rejects', async () => {
    const { jwks, state } = source([current.jwk]);
    state.down = true;
    const headers = headersFor({ ed25519: [current.privateKey] });
    await expect(verifyDelivery(BODY, headers, { secrets: [], jwks, now: NOW })).resolves.toEqual({
      verified: false,
      schemes: [],
      failure: 'invalid signature',
    });
  });

  it('refuses malformed headers without throwing', async () => {
    const { jwks } = source([current.jwk]);
    const malformed = {
      'webhook-id': ['a', 'b'],
      'webhook-timestamp': 'soon',
      'webhook-signature': 'v1a,!!! v1a, v1a,AAAA',
      'x-svc-signature-256': 'sha256=zz',
    };
    const result = await verifyDelivery(BODY, malformed, { secrets: [SECRET], jwks, now: NOW });
    expect(result.verified).toBe(false);
  });
});
