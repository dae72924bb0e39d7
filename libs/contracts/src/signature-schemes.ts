/**
 * How a delivery to an endpoint is signed (ADR 0044): `hmac-sha256` with the endpoint's secret
 * (X-SVC-Signature-256 and the `v1,` entries of webhook-signature), `ed25519` with the
 * deployment's published keys (the `v1a,` entries). An endpoint chooses a non-empty subset.
 */
export const SIGNATURE_SCHEMES = ['hmac-sha256', 'ed25519'] as const;

export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

/** What an endpoint registered without a choice, or before the choice existed, signs with. */
export const DEFAULT_SIGNATURE_SCHEMES: readonly SignatureScheme[] = ['hmac-sha256'];

export function isSignatureScheme(name: unknown): name is SignatureScheme {
  return (SIGNATURE_SCHEMES as readonly unknown[]).includes(name);
}
