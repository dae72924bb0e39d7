import type { EventType } from '../api/api-types';
import { FieldErrors } from './feedback';
import {
  familyWildcard,
  groupByFamily,
  isCovered,
  selectFamily,
  toggleSubscription,
} from './subscriptions';

/**
 * The events to subscribe to, as checkboxes from the catalogue, one fieldset per family with
 * "every event of the family" (the wildcard) first. Every box has its label; the family's name is
 * the fieldset's legend.
 */
export function EventPicker({
  idPrefix,
  catalogue,
  selected,
  onChange,
  errors,
}: {
  idPrefix: string;
  catalogue: readonly EventType[];
  selected: string[];
  onChange: (selected: string[]) => void;
  errors: string[] | undefined;
}) {
  const errorId = `${idPrefix}-events-error`;
  return (
    <div
      class="event-picker"
      role="group"
      aria-labelledby={`${idPrefix}-events-label`}
      {...(errors ? { 'aria-describedby': errorId } : {})}
    >
      <p id={`${idPrefix}-events-label`} class="label">
        Events
      </p>
      <FieldErrors id={errorId} messages={errors} />
      {groupByFamily(catalogue).map(([family, types]) => {
        const wildcard = familyWildcard(family);
        const wholeFamily = selected.includes(wildcard);
        return (
          <fieldset key={family} class="family">
            <legend>{family}</legend>
            <label class="checkbox">
              <input
                type="checkbox"
                checked={wholeFamily}
                onChange={(event) =>
                  onChange(selectFamily(selected, family, event.currentTarget.checked))
                }
              />
              Every {family} event (<code>{wildcard}</code>), including future ones
            </label>
            {types.map((eventType) => (
              <label key={eventType.type} class="checkbox">
                <input
                  type="checkbox"
                  checked={isCovered(selected, eventType.type)}
                  disabled={wholeFamily}
                  onChange={(event) =>
                    onChange(
                      toggleSubscription(selected, eventType.type, event.currentTarget.checked),
                    )
                  }
                />
                <code>{eventType.type}</code> <span class="muted">{eventType.description}</span>
              </label>
            ))}
          </fieldset>
        );
      })}
    </div>
  );
}
