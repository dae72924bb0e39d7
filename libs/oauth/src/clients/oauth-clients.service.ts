import { isId, newId } from '@svc/contracts';
import { DataSource } from 'typeorm';
import { checkRedirectUri } from '../rules/redirect-uri';
import { OAuthClient } from './oauth-client.entity';

export class InvalidClientError extends Error {}

export class OAuthClientsService {
  constructor(private readonly dataSource: DataSource) {}

  async create(input: { name: string; redirectUris: string[] }): Promise<OAuthClient> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 200) {
      throw new InvalidClientError('a client name is 1 to 200 characters');
    }
    if (input.redirectUris.length === 0) {
      throw new InvalidClientError('register at least one redirect URI');
    }
    for (const uri of input.redirectUris) {
      const problem = checkRedirectUri(uri);
      if (problem) {
        throw new InvalidClientError(`redirect URI ${uri} ${problem}`);
      }
    }
    const repository = this.dataSource.getRepository(OAuthClient);
    return repository.save(
      repository.create({ id: newId('cli'), name, redirectUris: [...new Set(input.redirectUris)] }),
    );
  }

  /** The registered client, or null; a malformed id is not looked up. */
  async find(clientId: string): Promise<OAuthClient | null> {
    if (!isId('cli', clientId)) {
      return null;
    }
    return this.dataSource.getRepository(OAuthClient).findOneBy({ id: clientId });
  }
}
