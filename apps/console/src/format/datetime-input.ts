/**
 * `<input type="datetime-local">` speaks the browser's local time without a zone
 * (`2026-03-01T12:30`); the API speaks RFC 3339 with one. These convert between the two.
 */

/** The RFC 3339 instant (UTC) of a datetime-local value, or null when it is empty or invalid. */
export function isoFromLocalInput(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) {
    return null;
  }
  const date = new Date(value); // a date-time without a zone is local time (ECMA-262)
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The datetime-local value (to the minute, local time) of an instant. */
export function localInputFromDate(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}
