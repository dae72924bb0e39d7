import { useEventCatalogue } from '../../components/use-event-catalogue';
import type { AttemptFilterValues, OutcomeFilter } from './attempt-filter-query';

/**
 * Outcome, event type (from the catalogue) and a time range in the user's local time; the API
 * checks them, and a range it refuses is shown as it words it.
 */
export function AttemptFilters({
  value,
  onChange,
}: {
  value: AttemptFilterValues;
  onChange: (value: AttemptFilterValues) => void;
}) {
  const catalogue = useEventCatalogue();
  const set = (change: Partial<AttemptFilterValues>) => onChange({ ...value, ...change });
  return (
    <div>
      <label for="attempt-outcome">Outcome</label>
      <select
        id="attempt-outcome"
        class="inline-control"
        value={value.outcome}
        onChange={(event) => set({ outcome: event.currentTarget.value as OutcomeFilter })}
      >
        <option value="all">All attempts</option>
        <option value="succeeded">Succeeded</option>
        <option value="failed">Failed</option>
      </select>
      <label for="attempt-event-type">Event type</label>
      <select
        id="attempt-event-type"
        class="inline-control"
        value={value.eventType}
        onChange={(event) => set({ eventType: event.currentTarget.value })}
      >
        <option value="">All event types</option>
        {catalogue.state === 'ready'
          ? catalogue.value.map((eventType) => (
              <option key={eventType.type} value={eventType.type}>
                {eventType.type}
              </option>
            ))
          : null}
      </select>
      <label for="attempt-from">From (your local time)</label>
      <input
        id="attempt-from"
        class="inline-control"
        type="datetime-local"
        value={value.from}
        onInput={(event) => set({ from: event.currentTarget.value })}
      />
      <label for="attempt-to">To, excluded (your local time)</label>
      <input
        id="attempt-to"
        class="inline-control"
        type="datetime-local"
        value={value.to}
        onInput={(event) => set({ to: event.currentTarget.value })}
      />
    </div>
  );
}
