import type { EventType } from '../../api/api-types';
import { isoFromLocalInput } from '../../format/datetime-input';

export type OutcomeFilter = 'all' | 'succeeded' | 'failed';

/** The attempt filters as typed: times are datetime-local values, empty strings mean "any". */
export interface AttemptFilterValues {
  outcome: OutcomeFilter;
  eventType: string;
  from: string;
  to: string;
}

export const NO_ATTEMPT_FILTER: AttemptFilterValues = {
  outcome: 'all',
  eventType: '',
  from: '',
  to: '',
};

/** The query parameters of the filters; an empty or unfinished time is left out. */
export function attemptFilterQuery(filters: AttemptFilterValues): {
  outcome?: 'succeeded' | 'failed';
  event_type?: EventType['type'];
  from?: string;
  to?: string;
} {
  const from = isoFromLocalInput(filters.from);
  const to = isoFromLocalInput(filters.to);
  return {
    ...(filters.outcome !== 'all' ? { outcome: filters.outcome } : {}),
    ...(filters.eventType ? { event_type: filters.eventType as EventType['type'] } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
}

export function isFiltered(filters: AttemptFilterValues): boolean {
  return Object.keys(attemptFilterQuery(filters)).length > 0;
}
