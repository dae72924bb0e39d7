import type { EndpointStatus } from '../api/api-types';

const WORDS: Record<EndpointStatus, string> = {
  active: 'Active',
  degraded: 'Degraded',
  disabled: 'Disabled',
};

/** An endpoint's status as a word (never a colour alone), with its colour as a second cue. */
export function EndpointStatusBadge({ status }: { status: EndpointStatus }) {
  return <span class={`badge status-${status}`}>{WORDS[status] ?? status}</span>;
}
