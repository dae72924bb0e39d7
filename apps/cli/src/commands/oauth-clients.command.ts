import { Command } from 'commander';
import { InvalidClientError, OAuthClientsService } from '@svc/oauth';
import { asUsageError, CliIo, report, withDatabase } from '../cli-context';

const collect = (value: string, previous: string[]) => [...previous, value];

export function oauthClientsCommand(io: CliIo, json: () => boolean): Command {
  const clients = new Command('oauth-clients').description(
    'manage OAuth clients (public clients with PKCE)',
  );
  clients
    .command('create')
    .description(
      'register a public client; redirect URIs are matched exactly, except the port of a loopback one',
    )
    .requiredOption('--name <name>', 'shown to people on the consent page')
    .requiredOption(
      '--redirect-uri <uri>',
      'a redirect URI (repeat for several): https, or http://127.0.0.1 or http://[::1] for native apps (any port matches; localhost is refused)',
      collect,
      [],
    )
    .action(async (options: { name: string; redirectUri: string[] }) => {
      const client = await withDatabase(io, (db) =>
        new OAuthClientsService(db)
          .create({ name: options.name, redirectUris: options.redirectUri })
          .catch(asUsageError(InvalidClientError)),
      );
      const view = {
        client_id: client.id,
        name: client.name,
        redirect_uris: client.redirectUris,
        created_at: client.createdAt.toISOString(),
      };
      report(io, json(), view, [
        `registered client ${client.id} (${client.name})`,
        ...client.redirectUris.map((uri) => `  redirect: ${uri}`),
      ]);
    });
  return clients;
}
