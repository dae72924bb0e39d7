import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, ApiConfig } from '@svc/config';
import { EndpointOrdering, EventSubscription, isId, newId, SignatureScheme } from '@svc/contracts';
import { StreamVersionConflictError } from '@svc/event-store';
import { decodeCursor, Page, problems, toPage } from '@svc/http';
import type { Principal } from '@svc/identity';
import { EndpointChangeNotifier } from '@svc/messaging';
import { SecretCipher } from '@svc/secrets';
import {
  changeEndpoint,
  checkEndpointFields,
  checkReceiverAuth,
  decideRegister,
  decideRemove,
  decideUpdate,
  EndpointEnvironment,
  EndpointEvent,
  EndpointFields,
  EndpointState,
  PayloadFilter,
  PrivateNetworkAllowList,
  receiverAuthCipherContext,
  SealedReceiverAuth,
  sealReceiverAuth,
  WebhookEndpointRecord,
} from '@svc/webhook-endpoints';
import { DataSource, EntityManager, MoreThan } from 'typeorm';
import { CommandContext, commandMetadata } from '../audit/command-context';

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

/** Refuses with a 404 problem unless the endpoint is one the caller may see (`visibleTo`). */
export async function requireVisibleEndpoint(
  dataSource: DataSource,
  principal: Principal,
  endpointId: string,
): Promise<void> {
  const exists =
    isId('wh', endpointId) &&
    (await dataSource
      .getRepository(WebhookEndpointRecord)
      .existsBy({ id: endpointId, ...visibleTo(principal) }));
  if (!exists) {
    throw problems.notFound(`No webhook endpoint ${endpointId} exists for this tenant.`);
  }
}

export interface RegisterCommand {
  url: string;
  events: EventSubscription[];
  secret: string;
  /** Absent or null: no limit. */
  rate_limit_per_second?: number | null;
  /** Absent: HMAC only. */
  signature_schemes?: SignatureScheme[];
  /** Absent: unordered. */
  ordering?: EndpointOrdering;
  /** Absent or null: none. */
  filter?: PayloadFilter | null;
  /** Absent or null: none. Checked by the rules: only then is it sealed. */
  auth?: unknown;
  /** Absent or null: the deployment's. */
  retry_schedule?: unknown;
  timeout_seconds?: unknown;
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
    @Inject(APP_CONFIG) config: ApiConfig,
  ) {
    this.allowList = new PrivateNetworkAllowList(config.webhooks.allowedPrivateCidrs);
  }

  async register(context: CommandContext, command: RegisterCommand): Promise<EndpointState> {
    this.enforceRules(command);
    const id = newId('wh');
    const registration = {
      endpointId: id,
      tenantId: context.principal.tenantId,
      url: command.url,
      events: command.events,
      secretCiphertext: this.cipher.encrypt(command.secret, id),
      environment: environmentOf(context.principal),
      rateLimitPerSecond: command.rate_limit_per_second ?? null,
      signatureSchemes: command.signature_schemes,
      ordering: command.ordering,
      filter: command.filter,
      auth: this.sealedAuth(command.auth, id),
      retrySchedule: command.retry_schedule as string[] | null | undefined,
      timeoutSeconds: command.timeout_seconds as number | null | undefined,
    };
    const endpoint = await this.dataSource.transaction(async (manager) => {
      const change = await changeEndpoint(
        manager,
        { id },
        (state) => decideRegister(registration, state, new Date()),
        commandMetadata(context),
      );
      return change!.after!;
    });
    await this.notifier.announce(endpoint.tenantId, endpoint.id);
    return endpoint;
  }

  async update(
    context: CommandContext,
    id: string,
    changes: EndpointFields,
  ): Promise<EndpointState> {
    if (
      changes.url === undefined &&
      changes.events === undefined &&
      changes.secret === undefined &&
      changes.rate_limit_per_second === undefined &&
      changes.signature_schemes === undefined &&
      changes.ordering === undefined &&
      changes.filter === undefined &&
      changes.auth === undefined &&
      changes.retry_schedule === undefined &&
      changes.timeout_seconds === undefined
    ) {
      throw problems.invalidRequest([
        {
          field: '(body)',
          detail:
            'name at least one of url, events, secret, rate_limit_per_second, signature_schemes, ordering, filter, auth, retry_schedule, timeout_seconds',
        },
      ]);
    }
    this.enforceRules(changes);
    return this.changeEndpoint(context, id, (current) =>
      decideUpdate(
        {
          url: changes.url,
          events: changes.events as readonly EventSubscription[] | undefined,
          secretCiphertext:
            changes.secret === undefined
              ? undefined
              : this.cipher.encrypt(changes.secret, current.id),
          rateLimitPerSecond: changes.rate_limit_per_second,
          // Checked by enforceRules above: only known schemes get this far.
          signatureSchemes: changes.signature_schemes as readonly SignatureScheme[] | undefined,
          ordering: changes.ordering as EndpointOrdering | undefined,
          // Checked by enforceRules above: a filter that compiles, or null.
          filter: changes.filter as PayloadFilter | null | undefined,
          auth: changes.auth === undefined ? undefined : this.sealedAuth(changes.auth, current.id),
          // Checked by enforceRules above: a schedule and a timeout within bounds, or null.
          retrySchedule: changes.retry_schedule as string[] | null | undefined,
          timeoutSeconds: changes.timeout_seconds as number | null | undefined,
        },
        current,
        new Date(),
      ),
    ) as Promise<EndpointState>;
  }

  async delete(context: CommandContext, id: string): Promise<void> {
    await this.changeEndpoint(context, id, (current) => decideRemove({}, current, new Date()));
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

  /** Locks the tenant's endpoint row, appends the events `decide` returns, and projects them. */
  private async changeEndpoint(
    context: CommandContext,
    id: string,
    decide: (current: EndpointState) => EndpointEvent[],
  ): Promise<EndpointState | null> {
    if (!isId('wh', id)) {
      throw notFound(id);
    }
    try {
      const after = await this.dataSource.transaction(async (manager: EntityManager) => {
        const change = await changeEndpoint(
          manager,
          { id, ...visibleTo(context.principal) },
          (current) => (current ? decide(current) : []),
          commandMetadata(context),
        );
        if (!change) {
          throw notFound(id);
        }
        return change.after;
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

  /**
   * The rules passed (enforceRules): the auth the client gave, its secrets sealed for this
   * endpoint alone (a ciphertext copied to another endpoint's record does not open).
   */
  private sealedAuth(raw: unknown, endpointId: string): SealedReceiverAuth | null | undefined {
    if (raw == null) {
      return raw;
    }
    const { auth } = checkReceiverAuth(raw, new Date(), this.allowList);
    const context = receiverAuthCipherContext(endpointId);
    return auth && sealReceiverAuth(auth, (plaintext) => this.cipher.encrypt(plaintext, context));
  }

  private enforceRules(fields: EndpointFields): void {
    const violations = checkEndpointFields(fields, this.allowList);
    if (violations.length > 0) {
      throw problems.invalidRequest(violations);
    }
  }
}

function notFound(id: string) {
  return problems.notFound(`No webhook endpoint ${id} exists for this tenant.`);
}
