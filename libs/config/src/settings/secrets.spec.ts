import { loadSections } from '../section';
import { secrets } from './secrets';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('secret encryption keys (ADR 0007, 0026)', () => {
  it('refuses to start in production without an encryption key, saying why', () => {
    expect(() => loadSections([secrets], { NODE_ENV: 'production' })).toThrow(
      /SECRET_ENCRYPTION_KEY: is required when NODE_ENV=production/,
    );
    expect(
      loadSections([secrets], { NODE_ENV: 'production', SECRET_ENCRYPTION_KEY: KEY }).secrets,
    ).toEqual({ encryptionKeys: [KEY], usingDevelopmentKey: false });
  });

  it('uses the public development key outside production, and says so', () => {
    const { secrets: settings } = loadSections([secrets], {});
    expect(settings.usingDevelopmentKey).toBe(true);
    expect(Buffer.from(settings.encryptionKeys[0], 'base64')).toHaveLength(32);
  });

  it('keeps previous keys after the active one, for rotation', () => {
    const previous = Buffer.alloc(32, 9).toString('base64');
    expect(
      loadSections([secrets], {
        SECRET_ENCRYPTION_KEY: KEY,
        SECRET_ENCRYPTION_PREVIOUS_KEYS: previous,
      }).secrets.encryptionKeys,
    ).toEqual([KEY, previous]);
  });

  it('refuses a key that is not 32 bytes in base64', () => {
    expect(() => loadSections([secrets], { SECRET_ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(
      /SECRET_ENCRYPTION_KEY: must be 32 bytes/,
    );
  });
});
