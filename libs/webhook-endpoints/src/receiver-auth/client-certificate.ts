import { createPrivateKey, KeyObject, X509Certificate } from 'node:crypto';
import { RuleViolation } from '../rules/rule-violation';
import { ClientCertificateFacts } from './receiver-auth';

/** Every `-----BEGIN <label>-----` … `-----END <label>-----` block of a PEM text, in order. */
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
/** Every BEGIN line, matched or not: a block without its END line still says what it is. */
const PEM_BEGIN = /-----BEGIN ([A-Z0-9 ]+)-----/g;

/** The CERTIFICATE blocks of a PEM text, each one whole (BEGIN to END line), in order. */
export function pemCertificateBlocks(pem: string): string[] {
  return [...pem.matchAll(PEM_BLOCK)]
    .filter((match) => match[1] === 'CERTIFICATE')
    .map((match) => match[0]);
}

/** The first certificate of a PEM text, or null when there is none or it cannot be read. */
function firstCertificate(pem: string): X509Certificate | null {
  const [first] = pemCertificateBlocks(pem);
  if (first === undefined) {
    return null;
  }
  try {
    return new X509Certificate(first);
  } catch {
    return null;
  }
}

/**
 * What the first certificate of a checked PEM says (ADR 0048): subject and issuer on one line
 * (`O=svc webhooks tests, CN=svc-webhooks-delivery`), its expiry, its SHA-256 fingerprint.
 * Throws when the PEM holds no readable certificate: `checkClientCertificate` passed it first.
 */
export function clientCertificateFacts(certificatePem: string): ClientCertificateFacts {
  const certificate = firstCertificate(certificatePem);
  if (certificate === null) {
    throw new Error('clientCertificateFacts: the PEM holds no readable certificate');
  }
  return {
    subject: oneLine(certificate.subject),
    issuer: oneLine(certificate.issuer),
    not_after: new Date(certificate.validTo).toISOString(),
    fingerprint_sha256: certificate.fingerprint256,
  };
}

/** X509Certificate puts one attribute per line; answers show them on one. */
function oneLine(distinguishedName: string): string {
  return distinguishedName.split('\n').join(', ');
}

/**
 * `auth.certificate`: one or more CERTIFICATE blocks (the client certificate, then its
 * intermediates), each readable, and nothing else: a private key in this field would be stored
 * and shown in the clear. The first certificate must be valid at `now`.
 */
function checkCertificatePem(pem: string, now: Date): RuleViolation[] {
  const field = 'auth.certificate';
  const labels = [...pem.matchAll(PEM_BEGIN)].map((match) => match[1]);
  if (labels.some((label) => label.includes('PRIVATE KEY'))) {
    return [
      {
        field,
        detail:
          'must not contain a private key: the certificate is stored and shown in the clear; put the key in auth.private_key',
      },
    ];
  }
  const others = labels.filter((label) => label !== 'CERTIFICATE');
  if (others.length > 0) {
    return [
      {
        field,
        detail: `must contain only CERTIFICATE blocks (the client certificate, then its intermediates); found ${[...new Set(others)].join(', ')}`,
      },
    ];
  }
  const blocks = pemCertificateBlocks(pem);
  if (blocks.length === 0 || blocks.length !== labels.length) {
    return [
      {
        field,
        detail:
          'is not a PEM certificate (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)',
      },
    ];
  }
  const certificates: X509Certificate[] = [];
  for (const [index, block] of blocks.entries()) {
    try {
      certificates.push(new X509Certificate(block));
    } catch {
      const which = index === 0 ? '' : ` (certificate ${index + 1} cannot be read)`;
      return [{ field, detail: `is not a PEM certificate${which}` }];
    }
  }
  return checkValidity(certificates[0], now);
}

function checkValidity(certificate: X509Certificate, now: Date): RuleViolation[] {
  const validFrom = new Date(certificate.validFrom);
  const validTo = new Date(certificate.validTo);
  if (now.getTime() > validTo.getTime()) {
    return [{ field: 'auth.certificate', detail: `expired on ${validTo.toISOString()}` }];
  }
  if (now.getTime() < validFrom.getTime()) {
    return [
      {
        field: 'auth.certificate',
        detail: `is not valid yet: valid from ${validFrom.toISOString()}`,
      },
    ];
  }
  return [];
}

/** PKCS#8's encrypted form, or the traditional forms' `Proc-Type: 4,ENCRYPTED` header. */
const ENCRYPTED_KEY = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type:\s*4,\s*ENCRYPTED/;

/** `auth.private_key`: an unencrypted PEM private key (PKCS#8 or the key type's own form). */
function readPrivateKey(pem: string): { key: KeyObject } | { violation: RuleViolation } {
  const field = 'auth.private_key';
  // Checked before reading: an encrypted key is refused, never asked a passphrase for.
  if (ENCRYPTED_KEY.test(pem)) {
    return {
      violation: {
        field,
        detail: 'must not be encrypted: give the key without a passphrase (it is sealed at rest)',
      },
    };
  }
  try {
    return { key: createPrivateKey(pem) };
  } catch {
    return { violation: { field, detail: 'is not a PEM private key' } };
  }
}

/**
 * The mtls pair (ADR 0048): `certificate` (see `checkCertificatePem`), `private_key` an
 * unencrypted PEM private key, and the key the one of the first certificate. The key's bytes are
 * never part of a detail.
 */
export function checkClientCertificate(
  certificatePem: string,
  privateKeyPem: string,
  now: Date,
): RuleViolation[] {
  const violations = checkCertificatePem(certificatePem, now);
  const read = readPrivateKey(privateKeyPem);
  if ('violation' in read) {
    return [...violations, read.violation];
  }
  const certificate = firstCertificate(certificatePem);
  if (certificate !== null && !matches(certificate, read.key)) {
    violations.push({
      field: 'auth.private_key',
      detail: 'does not match auth.certificate (the key of its first certificate)',
    });
  }
  return violations;
}

function matches(certificate: X509Certificate, key: KeyObject): boolean {
  try {
    return certificate.checkPrivateKey(key);
  } catch {
    return false;
  }
}
