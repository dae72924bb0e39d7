import { CONSOLE_CLIENT, isId, newId, Scope } from '@svc/contracts';
import { DataSource } from 'typeorm';
import { checkRedirectUri } from '../rules/redirect-uri';
import { OAuthClient } from './oauth-client.entity';

export class InvalidClientError extends Error {}

/**
 * Clients the deployment defines rather than an operator registers (ADR 0042: the console):
 * their ids are fixed, the auth app keeps their rows up to date at start, and each may ask for
 * its own scopes only.
 */
const FIRST_PARTY_CLIENT_SCOPES: ReadonlyMap<string, readonly Scope[]> = new Map([
  [CONSOLE_CLIENT.id, CONSOLE_CLIENT.scopes],
]);

/** The scopes a client may request at most; undefined when it may request any. */
export function scopesAllowedToClient(clientId: string): readonly Scope[] | undefined {
  return FIRST_PARTY_CLIENT_SCOPES.get(clientId);
}

/** What `upsertFirstParty` did: the row was new, changed, or already as configured. */
export type FirstPartyClientChange = 'created' | 'updated' | 'unchanged';

interface ClientInput {
  name: string;
  redirectUris: string[];
}

/** The name trimmed and the URIs without repeats, or an InvalidClientError saying what is wrong. */
function validClient(
  input: ClientInput,
  options: { localhostAllowed?: boolean } = {},
): ClientInput {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200) {
    throw new InvalidClientError('a client name is 1 to 200 characters');
  }
  if (input.redirectUris.length === 0) {
    throw new InvalidClientError('register at least one redirect URI');
  }
  for (const uri of input.redirectUris) {
    const problem = checkRedirectUri(uri, options);
    if (problem) {
      throw new InvalidClientError(`redirect URI ${uri} ${problem}`);
    }
  }
  return { name, redirectUris: [...new Set(input.redirectUris)] };
}

export class OAuthClientsService {
  constructor(private readonly dataSource: DataSource) {}

  async create(input: ClientInput): Promise<OAuthClient> {
    const { name, redirectUris } = validClient(input);
    const repository = this.dataSource.getRepository(OAuthClient);
    return repository.save(repository.create({ id: newId('cli'), name, redirectUris }));
  }

  /**
   * Creates a first-party client with its fixed id, or brings its name and redirect URIs to what
   * the configuration says now. One statement, so that replicas starting at once agree; a row
   * already as configured is not written. The redirect URIs are the operator's own addresses,
   * so `localhost` is allowed (checkRedirectUri).
   */
  async upsertFirstParty(input: ClientInput & { id: string }): Promise<FirstPartyClientChange> {
    if (!FIRST_PARTY_CLIENT_SCOPES.has(input.id)) {
      throw new InvalidClientError(`${input.id} is not a first-party client`);
    }
    const { name, redirectUris } = validClient(input, { localhostAllowed: true });
    const rows = await this.dataSource.query<Array<{ inserted: boolean }>>(
      `INSERT INTO oauth_clients (id, name, redirect_uris) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, redirect_uris = EXCLUDED.redirect_uris
         WHERE (oauth_clients.name, oauth_clients.redirect_uris)
           IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.redirect_uris)
       RETURNING (xmax = 0) AS inserted`,
      [input.id, name, redirectUris],
    );
    if (rows.length === 0) {
      return 'unchanged';
    }
    return rows[0].inserted ? 'created' : 'updated';
  }

  /** The registered client, or null; a malformed id is not looked up. */
  async find(clientId: string): Promise<OAuthClient | null> {
    if (!isId('cli', clientId) && !FIRST_PARTY_CLIENT_SCOPES.has(clientId)) {
      return null;
    }
    return this.dataSource.getRepository(OAuthClient).findOneBy({ id: clientId });
  }
}
