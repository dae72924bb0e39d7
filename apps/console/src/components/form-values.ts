import { ApiFailure } from '../api/api-failure';
import type { EndpointOrdering, SignatureScheme } from '../api/api-types';

/**
 * Form values the console checks itself before sending, because the browser's inputs cannot say
 * what the API would need to refuse them; the failure reads like the API's own.
 */
export function refuse(field: string, detail: string): never {
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

/**
 * The retry schedule field, such as `10s, 1m, 1h`: the API's list (each entry without spaces,
 * lower case), or null when empty (the deployment's schedule). The API checks each entry.
 */
export function retryScheduleFromField(text: string): string[] | null {
  const entries = text
    .split(',')
    .map((entry) => entry.replace(/\s+/g, '').toLowerCase())
    .filter((entry) => entry !== '');
  return entries.length === 0 ? null : entries;
}

/** The timeout field: null when empty (the deployment's), else a whole number of seconds, 1 to 10. */
export function timeoutFromField(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') {
    return null;
  }
  if (!/^\d{1,2}$/.test(trimmed) || Number(trimmed) < 1 || Number(trimmed) > 10) {
    refuse(
      'timeout_seconds',
      'must be a whole number of seconds from 1 to 10, or empty for the default',
    );
  }
  return Number(trimmed);
}

/**
 * The API's problems with a list field and its entries (`retry_schedule`, `retry_schedule[1]`),
 * each entry's said with its place in the list (`entry 2: …`).
 */
export function listFieldErrors(
  fieldErrors: Record<string, string[]>,
  field: string,
): string[] | undefined {
  const found: string[] = [...(fieldErrors[field] ?? [])];
  for (const [name, messages] of Object.entries(fieldErrors)) {
    const entry = name.startsWith(`${field}[`)
      ? /^\[(\d+)\]$/.exec(name.slice(field.length))
      : null;
    if (entry) {
      found.push(...messages.map((message) => `entry ${Number(entry[1]) + 1}: ${message}`));
    }
  }
  return found.length > 0 ? found : undefined;
}
