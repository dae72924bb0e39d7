import {
  ENDPOINT_ORDERINGS,
  EVENT_SUBSCRIPTIONS,
  isEndpointOrdering,
  isEventSubscription,
  isSignatureScheme,
  SIGNATURE_SCHEMES,
} from '@svc/contracts';
import { compileFilter } from '../filters';
import { checkReceiverAuth } from '../receiver-auth/check-receiver-auth';
import { checkRetrySchedule, checkTimeoutSeconds } from './delivery-policy';
import { checkEndpointUrl, PrivateNetworkAllowList } from './endpoint-url';
import { RuleViolation } from './rule-violation';

export const SECRET_MIN_LENGTH = 16;
export const SECRET_MAX_LENGTH = 256;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Subscriptions: non-empty, no repeats, each a known type or a family wildcard such as alert.*. */
export function checkSubscriptions(events: readonly string[]): RuleViolation[] {
  if (events.length === 0) {
    return [{ field: 'events', detail: 'must name at least one event type' }];
  }
  const violations: RuleViolation[] = [];
  const unknown = events.filter((name) => !isEventSubscription(name));
  if (unknown.length > 0) {
    violations.push({
      field: 'events',
      detail: `unknown event types: ${unknown.join(', ')}; known: ${EVENT_SUBSCRIPTIONS.join(', ')}`,
    });
  }
  const repeated = events.filter((name, index) => events.indexOf(name) !== index);
  if (repeated.length > 0) {
    violations.push({
      field: 'events',
      detail: `repeated event types: ${[...new Set(repeated)].join(', ')}`,
    });
  }
  return violations;
}

/** The HMAC key for deliveries: 16 to 256 printable ASCII characters. */
export function checkSecret(secret: string): RuleViolation[] {
  if (secret.length < SECRET_MIN_LENGTH || secret.length > SECRET_MAX_LENGTH) {
    return [
      {
        field: 'secret',
        detail: `must be ${SECRET_MIN_LENGTH} to ${SECRET_MAX_LENGTH} characters long`,
      },
    ];
  }
  if (!PRINTABLE_ASCII.test(secret)) {
    return [{ field: 'secret', detail: 'must contain only printable ASCII characters' }];
  }
  return [];
}

/** Bounds of an endpoint's rate limit, in deliveries per second across all engines (ADR 0028). */
export const RATE_LIMIT_MIN_PER_SECOND = 1;
export const RATE_LIMIT_MAX_PER_SECOND = 10_000;

/** A whole number of deliveries per second within the bounds. */
export function checkRateLimit(perSecond: number): RuleViolation[] {
  if (!Number.isInteger(perSecond)) {
    return [
      { field: 'rate_limit_per_second', detail: 'must be a whole number of deliveries per second' },
    ];
  }
  if (perSecond < RATE_LIMIT_MIN_PER_SECOND || perSecond > RATE_LIMIT_MAX_PER_SECOND) {
    return [
      {
        field: 'rate_limit_per_second',
        detail: `must be ${RATE_LIMIT_MIN_PER_SECOND} to ${RATE_LIMIT_MAX_PER_SECOND} deliveries per second, or null for no limit`,
      },
    ];
  }
  return [];
}

/** Signature schemes (ADR 0044): non-empty, no repeats, each a known scheme. */
export function checkSignatureSchemes(schemes: readonly unknown[]): RuleViolation[] {
  if (schemes.length === 0) {
    return [{ field: 'signature_schemes', detail: 'must name at least one signature scheme' }];
  }
  const violations: RuleViolation[] = [];
  const unknown = schemes.filter((name) => !isSignatureScheme(name));
  if (unknown.length > 0) {
    violations.push({
      field: 'signature_schemes',
      detail: `unknown signature schemes: ${unknown.map(String).join(', ')}; known: ${SIGNATURE_SCHEMES.join(', ')}`,
    });
  }
  const repeated = schemes.filter((name, index) => schemes.indexOf(name) !== index);
  if (repeated.length > 0) {
    violations.push({
      field: 'signature_schemes',
      detail: `repeated signature schemes: ${[...new Set(repeated.map(String))].join(', ')}`,
    });
  }
  return violations;
}

/** Delivery order (ADR 0045): one of ENDPOINT_ORDERINGS, spelled exactly. */
export function checkOrdering(ordering: unknown): RuleViolation[] {
  if (isEndpointOrdering(ordering)) {
    return [];
  }
  return [
    {
      field: 'ordering',
      detail: `unknown ordering: ${String(ordering)}; known: ${ENDPOINT_ORDERINGS.join(', ')}`,
    },
  ];
}

/**
 * A payload filter (ADR 0046): whatever compileFilter refuses, each problem naming its path in the
 * filter (`filter.data.severity.$in[3]`). The compiled filter is not kept: each engine compiles the
 * recorded JSON again when it loads the endpoint.
 */
export function checkFilter(filter: unknown): RuleViolation[] {
  const compiled = compileFilter(filter);
  return compiled.ok ? [] : compiled.problems;
}

export interface EndpointFields {
  url?: string;
  events?: readonly string[];
  secret?: string;
  /** null: no limit. */
  rate_limit_per_second?: number | null;
  signature_schemes?: readonly string[];
  ordering?: string;
  /** Any JSON, checked by checkFilter; null: no filter. */
  filter?: unknown;
  /** Any JSON, checked by checkReceiverAuth (ADR 0048); null: none. */
  auth?: unknown;
  /** Any JSON, checked by checkRetrySchedule; null: the deployment's. */
  retry_schedule?: unknown;
  /** Any JSON, checked by checkTimeoutSeconds; null: the deployment's. */
  timeout_seconds?: unknown;
}

/** Every rule on the fields present; the caller decides which fields are required. */
export function checkEndpointFields(
  fields: EndpointFields,
  allowList: PrivateNetworkAllowList,
  now: Date = new Date(),
): RuleViolation[] {
  const violations: RuleViolation[] = [];
  if (fields.url !== undefined) {
    const problem = checkEndpointUrl(fields.url, allowList);
    if (problem) {
      violations.push({ field: 'url', detail: problem });
    }
  }
  if (fields.events !== undefined) {
    violations.push(...checkSubscriptions(fields.events));
  }
  if (fields.secret !== undefined) {
    violations.push(...checkSecret(fields.secret));
  }
  if (fields.rate_limit_per_second != null) {
    violations.push(...checkRateLimit(fields.rate_limit_per_second));
  }
  if (fields.signature_schemes !== undefined) {
    violations.push(...checkSignatureSchemes(fields.signature_schemes));
  }
  if (fields.ordering !== undefined) {
    violations.push(...checkOrdering(fields.ordering));
  }
  if (fields.filter != null) {
    violations.push(...checkFilter(fields.filter));
  }
  if (fields.auth != null) {
    violations.push(...checkReceiverAuth(fields.auth, now, allowList).violations);
  }
  if (fields.retry_schedule != null) {
    violations.push(...checkRetrySchedule(fields.retry_schedule));
  }
  if (fields.timeout_seconds != null) {
    violations.push(...checkTimeoutSeconds(fields.timeout_seconds));
  }
  return violations;
}
