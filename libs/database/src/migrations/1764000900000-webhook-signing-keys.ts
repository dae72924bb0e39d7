import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deployment's Ed25519 signing keys (issue 32, ADR 0044). The public key is the raw 32 bytes
 * (what a JWK's `x` carries); the private key is sealed by SecretCipher with the kid as context,
 * so a ciphertext copied onto another row does not decrypt. `signs_until` is null while the key
 * is current; a rotation sets it, and `published_until`, on the key it replaces.
 *
 * At most one current key: the partial unique index refuses a second even if the advisory lock
 * that serialises key making were ever bypassed.
 */
export class WebhookSigningKeys1764000900000 implements MigrationInterface {
  name = 'WebhookSigningKeys1764000900000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE webhook_signing_keys (
        kid text PRIMARY KEY,
        public_key bytea NOT NULL CHECK (octet_length(public_key) = 32),
        private_key_encrypted text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        signs_until timestamptz,
        published_until timestamptz
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX webhook_signing_keys_one_current
         ON webhook_signing_keys ((true)) WHERE signs_until IS NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE webhook_signing_keys');
  }
}
