import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 'v1';
const IV_BYTES = 12;

interface Key {
  id: string;
  material: Buffer;
}

export class SecretDecryptionError extends Error {
  constructor(reason: string) {
    super(`cannot decrypt secret: ${reason}`);
    this.name = 'SecretDecryptionError';
  }
}

/**
 * AES-256-GCM encryption of secrets at rest. The text form is
 * `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts), so that rotated keys keep old
 * ciphertexts readable. The context (for example the endpoint id) is bound as associated data:
 * a ciphertext copied onto another record does not decrypt.
 */
export class SecretCipher {
  private readonly keys: Key[];

  /** @param base64Keys the first key encrypts; every key decrypts. */
  constructor(base64Keys: readonly string[]) {
    if (base64Keys.length === 0) {
      throw new Error('SecretCipher needs at least one key');
    }
    this.keys = base64Keys.map((encoded) => {
      const material = Buffer.from(encoded, 'base64');
      if (material.length !== 32) {
        throw new Error('an encryption key must be 32 bytes');
      }
      return { id: keyId(material), material };
    });
  }

  encrypt(plaintext: string, context: string): string {
    const key = this.keys[0];
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.material, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT_VERSION, key.id, iv, ciphertext, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  decrypt(sealed: string, context: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== FORMAT_VERSION) {
      throw new SecretDecryptionError('unknown format');
    }
    const [, id, iv, ciphertext, tag] = parts;
    const key = this.keys.find((candidate) => candidate.id === id);
    if (!key) {
      throw new SecretDecryptionError(`no configured key has id ${id}`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.material, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretDecryptionError('authentication failed');
    }
  }
}

function keyId(material: Buffer): string {
  return createHash('sha256').update(material).digest('hex').slice(0, 8);
}
