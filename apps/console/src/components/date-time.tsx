import { formatDateTime } from '../format/display-format';

/** A moment as text (UTC) in a <time> element that carries the machine-readable value. */
export function DateTime({ iso }: { iso: string | null | undefined }) {
  return iso ? <time dateTime={iso}>{formatDateTime(iso)}</time> : <>—</>;
}
