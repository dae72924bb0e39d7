import { Injectable } from '@nestjs/common';
import { isId } from '@svc/contracts';
import { StreamVersionConflictError } from '@svc/event-store';
import { problems } from '@svc/http';
import { EndpointChangeNotifier } from '@svc/messaging';
import { SecretCipher } from '@svc/secrets';
import {
  changeEndpoint,
  checkSecret,
  decideRotateSecret,
  EndpointState,
} from '@svc/webhook-endpoints';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { visibleTo } from './webhook-endpoints.service';
import { CommandContext, commandMetadata } from '../audit/command-context';

/**
 * A secret the service makes: the Standard Webhooks form, `whsec_` + base64 of 32 random bytes
 * (the HMAC-SHA256 block's worth of entropy), so that every Standard Webhooks library verifies
 * webhook-signature with it as it is (ADR 0024), and it passes the registration rules (50
 * printable ASCII characters).
 */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface RotateSecretCommand {
  /** The new secret; absent: one is generated. */
  secret?: string;
  overlapSeconds: number;
}

export interface SecretRotation {
  endpoint: EndpointState;
  /** The secret the service generated, to show once; undefined when the caller gave one. */
  generatedSecret?: string;
}

/**
 * `POST /v1/webhooks/{id}/secret/rotate` (ADR 0026): a new signing secret, the current one
 * signing beside it until the overlap ends. One transaction (lock, decide, append, project), then
 * the engines are told to drop their cached copy of the tenant's endpoints.
 */
@Injectable()
export class WebhookSecretService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: SecretCipher,
    private readonly notifier: EndpointChangeNotifier,
  ) {}

  async rotate(
    context: CommandContext,
    id: string,
    command: RotateSecretCommand,
  ): Promise<SecretRotation> {
    if (command.secret !== undefined) {
      const violations = checkSecret(command.secret);
      if (violations.length > 0) {
        throw problems.invalidRequest(violations);
      }
    }
    if (!isId('wh', id)) {
      throw notFound(id);
    }
    const generatedSecret = command.secret === undefined ? generateSigningSecret() : undefined;
    const secret = command.secret ?? generatedSecret!;
    let endpoint: EndpointState | null;
    try {
      endpoint = await this.dataSource.transaction(async (manager) => {
        const change = await changeEndpoint(
          manager,
          { id, ...visibleTo(context.principal) },
          (current) =>
            current
              ? decideRotateSecret(
                  {
                    secretCiphertext: this.cipher.encrypt(secret, current.id),
                    overlapMs: command.overlapSeconds * 1000,
                  },
                  current,
                  new Date(),
                )
              : [],
          commandMetadata(context),
        );
        return change?.after ?? null;
      });
    } catch (error) {
      if (error instanceof StreamVersionConflictError) {
        throw problems.conflict(
          'The endpoint was changed by another request at the same time; retry.',
        );
      }
      throw error;
    }
    if (!endpoint) {
      throw notFound(id);
    }
    await this.notifier.announce(context.principal.tenantId, id);
    return { endpoint, generatedSecret };
  }
}

function notFound(id: string) {
  return problems.notFound(`No webhook endpoint ${id} exists for this tenant.`);
}
