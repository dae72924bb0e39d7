import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONFIGURATION_REFERENCE,
  configurationReference,
  REGENERATE,
  repositoryRoot,
} from './configuration-reference';

describe(CONFIGURATION_REFERENCE, () => {
  it('is what the schemas of libs/config say', () => {
    const file = join(repositoryRoot(), CONFIGURATION_REFERENCE);
    const written = readFileSync(file, 'utf8');
    if (written !== configurationReference()) {
      throw new Error(
        `${CONFIGURATION_REFERENCE} is out of date with libs/config/src/settings: run \`${REGENERATE}\` and commit the result`,
      );
    }
  });

  it('lists every variable once, with the apps that read it', () => {
    const reference = configurationReference();
    for (const name of ['DATABASE_URL', 'DELIVERY_MAX_CONCURRENCY', 'AUTH_SIGNING_KEYS']) {
      expect(reference.match(new RegExp(`^\\| \`${name}\` `, 'gm'))).toHaveLength(1);
    }
    expect(reference).toMatch(
      /^\| `INTAKE_LANES_MAX` +\| `16` +\| integer, 0 to 256 +\| delivery +\|/m,
    );
    expect(reference).toMatch(/^\| `DATABASE_URL` .*\| api, auth, delivery, cli +\|/m);
    expect(reference).toMatch(/^\| `LOCAL_POSTGRES_PORT` .*\| npm start +\|/m);
  });
});
