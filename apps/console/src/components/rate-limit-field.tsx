import { FieldErrors } from './feedback';

/** Deliveries per second at most, 1 to 10,000; empty for no limit. */
export function RateLimitField({
  id,
  value,
  onInput,
  errors,
}: {
  id: string;
  value: string;
  onInput: (value: string) => void;
  errors: string[] | undefined;
}) {
  return (
    <>
      <label for={id}>Rate limit (deliveries per second, optional)</label>
      <input
        id={id}
        // Text, not number: a number input gives '' for what it cannot read, which would remove the limit.
        type="text"
        inputMode="numeric"
        autoComplete="off"
        value={value}
        aria-describedby={`${id}-hint${errors ? ` ${id}-error` : ''}`}
        aria-invalid={errors ? true : undefined}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      <p id={`${id}-hint`} class="hint">
        A whole number from 1 to 10,000. Leave empty for no limit.
      </p>
      <FieldErrors id={`${id}-error`} messages={errors} />
    </>
  );
}
