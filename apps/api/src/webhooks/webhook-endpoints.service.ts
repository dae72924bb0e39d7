import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@svc/config';
import { EventSubscription, isId, newId } from '@svc/contracts';
import { appendToStream, NewEvent, StreamVersionConflictError } from '@svc/event-store';
import { decodeCursor, Page, problems, toPage } from '@svc/http';
import type { Principal } from '@svc/identity';
import { EndpointChangeNotifier } from '@svc/messaging';
import { SecretCipher } from '@svc/secrets';
import {
  canonicalEndpointUrl,
  checkEndpointFields,
  ENDPOINT_EVENT_TYPES,
  EndpointEnvironment,
  EndpointFields,
  EndpointRegistered,
  EndpointState,
  EndpointUpdated,
  PrivateNetworkAllowList,
  projectEndpointEvents,
  WebhookEndpointRecord,
} from '@svc/webhook-endpoints';
import { DataSource, EntityManager, MoreThan } from 'typeorm';

/**
 * The environment a credential acts in (ADR 0018): `svc_test_` keys in `test`, live keys and
 * OAuth access tokens in `live`. A caller sees and changes only its environment's endpoints.
 */
export function environmentOf(principal: Principal): EndpointEnvironment {
  return principal.sandbox ? 'test' : 'live';
}

/** The endpoints a caller may see: its tenant's, in its environment. */
export function visibleTo(principal: Principal): {
  tenantId: string;
  environment: EndpointEnvironment;
} {
  return { tenantId: principal.tenantId, environment: environmentOf(principal) };
}

/** Who asked, for the metadata of the events a request appends. */
export interface CommandContext {
  principal: Principal;
  requestId: string;
}

export interface RegisterCommand {
  url: string;
  events: EventSubscription[];
  secret: string;
}

/**
 * Registration, update and deletion of webhook endpoints. Each command appends to the endpoint's
 * stream and updates the projection in one transaction; queries read the projection, always
 * within the caller's tenant.
 */
@Injectable()
export class WebhookEndpointsService {
  private readonly allowList: PrivateNetworkAllowList;

  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: SecretCipher,
    private readonly notifier: EndpointChangeNotifier,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.allowList = new PrivateNetworkAllowList(config.webhooks.allowedPrivateCidrs);
  }

  async register(context: CommandContext, command: RegisterCommand): Promise<EndpointState> {
    this.enforceRules(command);
    const id = newId('wh');
    const registered: EndpointRegistered = {
      endpoint_id: id,
      tenant_id: context.principal.tenantId,
      url: canonicalEndpointUrl(command.url),
      events: command.events,
      secret_ciphertext: this.cipher.encrypt(command.secret, id),
      status: 'active',
      environment: environmentOf(context.principal),
      created_at: new Date().toISOString(),
    };
    const endpoint = await this.dataSource.transaction(async (manager) => {
      const appended = await appendToStream(manager, id, 0, [
        this.event(context, ENDPOINT_EVENT_TYPES.registered, registered),
      ]);
      return (await projectEndpointEvents(manager, id, null, appended)) as EndpointState;
    });
    await this.notifier.announce(endpoint.tenantId, endpoint.id);
    return endpoint;
  }

  async update(
    context: CommandContext,
    id: string,
    changes: EndpointFields,
  ): Promise<EndpointState> {
    if (changes.url === undefined && changes.events === undefined && changes.secret === undefined) {
      throw problems.invalidRequest([
        { field: '(body)', detail: 'name at least one of url, events, secret' },
      ]);
    }
    this.enforceRules(changes);
    return this.changeEndpoint(context, id, (current) => {
      const updated: EndpointUpdated = {
        endpoint_id: current.id,
        changes: {
          ...(changes.url !== undefined && { url: canonicalEndpointUrl(changes.url) }),
          ...(changes.events !== undefined && {
            events: [...changes.events] as EventSubscription[],
          }),
          ...(changes.secret !== undefined && {
            secret_ciphertext: this.cipher.encrypt(changes.secret, current.id),
          }),
        },
        updated_at: new Date().toISOString(),
      };
      return this.event(context, ENDPOINT_EVENT_TYPES.updated, updated);
    }) as Promise<EndpointState>;
  }

  async delete(context: CommandContext, id: string): Promise<void> {
    await this.changeEndpoint(context, id, (current) =>
      this.event(context, ENDPOINT_EVENT_TYPES.deleted, {
        endpoint_id: current.id,
        deleted_at: new Date().toISOString(),
      }),
    );
  }

  async get(principal: Principal, id: string): Promise<EndpointState> {
    const endpoint = isId('wh', id)
      ? await this.dataSource
          .getRepository(WebhookEndpointRecord)
          .findOneBy({ id, ...visibleTo(principal) })
      : null;
    if (!endpoint) {
      throw notFound(id);
    }
    return endpoint;
  }

  async list<T>(
    principal: Principal,
    page: { limit: number; cursor?: string },
    view: (endpoint: EndpointState) => T,
  ): Promise<Page<T>> {
    const after = decodeCursor(page.cursor, (id) => isId('wh', id));
    const rows = await this.dataSource.getRepository(WebhookEndpointRecord).find({
      where: { ...visibleTo(principal), ...(after && { id: MoreThan(after) }) },
      order: { id: 'ASC' },
      take: page.limit + 1,
    });
    return toPage(rows, page.limit, view);
  }

  /** Locks the tenant's endpoint row, appends the event `decide` returns, and projects it. */
  private async changeEndpoint(
    context: CommandContext,
    id: string,
    decide: (current: EndpointState) => NewEvent,
  ): Promise<EndpointState | null> {
    if (!isId('wh', id)) {
      throw notFound(id);
    }
    try {
      const after = await this.dataSource.transaction(async (manager: EntityManager) => {
        const current = await manager.findOne(WebhookEndpointRecord, {
          where: { id, ...visibleTo(context.principal) },
          lock: { mode: 'pessimistic_write' },
        });
        if (!current) {
          throw notFound(id);
        }
        const appended = await appendToStream(manager, id, current.version, [decide(current)]);
        return projectEndpointEvents(manager, id, current, appended);
      });
      await this.notifier.announce(context.principal.tenantId, id);
      return after;
    } catch (error) {
      if (error instanceof StreamVersionConflictError) {
        throw problems.conflict(
          'The endpoint was changed by another request at the same time; retry.',
        );
      }
      throw error;
    }
  }

  private enforceRules(fields: EndpointFields): void {
    const violations = checkEndpointFields(fields, this.allowList);
    if (violations.length > 0) {
      throw problems.invalidRequest(violations);
    }
  }

  private event<T extends object>(context: CommandContext, type: string, data: T): NewEvent {
    return {
      type,
      data: data as unknown as Record<string, unknown>,
      metadata: {
        tenant_id: context.principal.tenantId,
        actor: { kind: context.principal.kind, id: context.principal.credentialId },
        request_id: context.requestId,
      },
    };
  }
}

function notFound(id: string) {
  return problems.notFound(`No webhook endpoint ${id} exists for this tenant.`);
}
