import { ApiFailure } from '../api/api-failure';
import type { EndpointOrdering, SignatureScheme } from '../api/api-types';

/**
 * Form values the console checks itself before sending, because the browser's inputs cannot say
 * what the API would need to refuse them; the failure reads like the API's own.
 */
function refuse(field: string, detail: string): never {
  throw new ApiFailure(
    {
      summary: 'Some of what was entered is not accepted.',
      detail: `${field}: ${detail}`,
      fieldErrors: { [field]: [detail] },
    },
    null,
  );
}

/** The rate limit field: null when empty (no limit), else a whole number (the API checks 1 to 10,000). */
export function rateLimitFromField(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') {
    return null;
  }
  if (!/^\d{1,9}$/.test(trimmed)) {
    refuse(
      'rate_limit_per_second',
      'must be a whole number from 1 to 10,000, or empty for no limit',
    );
  }
  return Number(trimmed);
}

/** The signature scheme boxes: at least one must be ticked (the API refuses an empty list). */
export function signatureSchemesFromField(selected: readonly SignatureScheme[]): SignatureScheme[] {
  if (selected.length === 0) {
    refuse('signature_schemes', 'choose at least one signature scheme');
  }
  return [...selected];
}

/** Typed by the API's orderings, so that a new one is accepted here as soon as it is there. */
const ORDERINGS: Record<EndpointOrdering, true> = { unordered: true, fifo: true };

/** The delivery order radio buttons' value, which the DOM gives as a string. */
export function orderingFromField(value: string): EndpointOrdering {
  if (!Object.hasOwn(ORDERINGS, value)) {
    refuse('ordering', 'choose a delivery order');
  }
  return value as EndpointOrdering;
}

/** A datetime field's RFC 3339 value, or a failure naming the field when it is empty or invalid. */
export function requiredInstant(field: string, iso: string | null): string {
  return iso ?? refuse(field, 'must be a date and time');
}
