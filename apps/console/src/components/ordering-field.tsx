import type { EndpointOrdering } from '../api/api-types';
import { FieldErrors } from './feedback';

/** Typed by the API's orderings, so that a new one cannot be left without a label. */
const ORDERING_LABELS: Record<EndpointOrdering, string> = {
  unordered: 'Any order (faster)',
  fifo: 'One at a time, in order (FIFO)',
};

/**
 * In what order the endpoint gets its deliveries (ADR 0045): one radio button per ordering in a
 * fieldset whose legend names the choice. `state` is the form's useState pair for the value,
 * which the form reads back with orderingFromField.
 */
export function OrderingField({
  idPrefix,
  state: [chosen, choose],
  errors,
}: {
  idPrefix: string;
  state: [string, (ordering: string) => void];
  errors: string[] | undefined;
}) {
  const hintId = `${idPrefix}-ordering-hint`;
  const errorId = `${idPrefix}-ordering-error`;
  return (
    <fieldset
      class="choices"
      aria-describedby={`${hintId}${errors ? ` ${errorId}` : ''}`}
      aria-invalid={errors ? true : undefined}
    >
      <legend>Delivery order</legend>
      <p id={hintId} class="hint">
        In order, each delivery waits until the one before has succeeded or been abandoned, so a
        failing receiver holds up the ones after it.
      </p>
      <FieldErrors id={errorId} messages={errors} />
      {Object.entries(ORDERING_LABELS).map(([ordering, label]) => (
        <label key={ordering} class="checkbox">
          <input
            type="radio"
            name={`${idPrefix}-ordering`}
            value={ordering}
            checked={chosen === ordering}
            onChange={(event) => choose(event.currentTarget.value)}
          />
          {label}
        </label>
      ))}
    </fieldset>
  );
}
