import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AuthAppConfig } from '@svc/config';
import { CONSOLE_CLIENT, consoleRedirectUri } from '@svc/contracts';
import { InvalidClientError, OAuthClientsService } from '@svc/oauth';

/**
 * At start, makes sure the console (ADR 0042) is a client of this server: public (PKCE, no
 * secret, as every client here), limited to webhooks:manage, its one redirect URI
 * `<CONSOLE_URL>callback`. Every replica does it: the upsert is one statement, and a row already
 * as configured is left alone. A CONSOLE_URL that cannot be a redirect URI (plain http on a
 * host other than localhost or a loopback address) stops the start: the console could not sign
 * anyone in, and codes would travel in the clear.
 */
@Injectable()
export class ConsoleClientRegistration implements OnApplicationBootstrap {
  private readonly logger = new Logger(ConsoleClientRegistration.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AuthAppConfig,
    private readonly clients: OAuthClientsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const redirectUri = consoleRedirectUri(this.config.console.url);
    let change: string;
    try {
      change = await this.clients.upsertFirstParty({
        id: CONSOLE_CLIENT.id,
        name: CONSOLE_CLIENT.name,
        redirectUris: [redirectUri],
      });
    } catch (error) {
      if (error instanceof InvalidClientError) {
        throw new Error(
          `CONSOLE_URL cannot be the console's sign-in address: ${error.message} (https, or http on localhost or a loopback address)`,
          { cause: error },
        );
      }
      throw error;
    }
    if (change !== 'unchanged') {
      this.logger.log(`console client ${CONSOLE_CLIENT.id} ${change}: redirect URI ${redirectUri}`);
    }
  }
}
