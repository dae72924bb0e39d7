import { useState } from 'preact/hooks';
import type { Endpoint } from '../../api/api-types';
import { DeleteEndpoint } from './actions/delete-endpoint';
import { EditEndpoint } from './actions/edit-endpoint';
import { ReceiverAuth } from './actions/receiver-auth';
import { RecoverEndpoint } from './actions/recover-endpoint';
import { ReplayRange } from './actions/replay-range';
import { RetriesAndTimeout } from './actions/retries-and-timeout';
import { RotateSecret } from './actions/rotate-secret';
import { SendTestEvent } from './actions/send-test-event';

export interface EndpointActionProps {
  endpoint: Endpoint;
  /** Says what happened, in the page's live region. */
  announce: (message: string) => void;
  /** The endpoint as the API now returns it, after a change. */
  onChanged: (endpoint: Endpoint) => void;
  /** Closes the action's panel. */
  close: () => void;
}

const ACTIONS = {
  test: { label: 'Send a test event', Panel: SendTestEvent },
  edit: { label: 'Edit events, rate limit, signatures and order', Panel: EditEndpoint },
  auth: { label: 'Receiver authentication', Panel: ReceiverAuth },
  policy: { label: 'Retries and timeout', Panel: RetriesAndTimeout },
  rotate: { label: 'Rotate the secret', Panel: RotateSecret },
  replay: { label: 'Replay a time range', Panel: ReplayRange },
  recover: { label: 'Recover', Panel: RecoverEndpoint },
  delete: { label: 'Delete', Panel: DeleteEndpoint },
} as const;

type ActionName = keyof typeof ACTIONS;

/**
 * The endpoint's actions (only for a session that may change things): a row of buttons, each
 * opening its form below (a disclosure: aria-expanded, aria-controls), one at a time.
 */
export function EndpointActions(props: Omit<EndpointActionProps, 'close'>) {
  const [open, setOpen] = useState<ActionName | null>(null);
  const names = Object.keys(ACTIONS) as ActionName[];
  const Panel = open ? ACTIONS[open].Panel : null;
  return (
    <section aria-labelledby="actions-heading" class="actions-section">
      <h2 id="actions-heading">Actions</h2>
      <div class="actions">
        {names.map((name) => (
          <button
            key={name}
            type="button"
            class={name === 'delete' ? 'button-danger-outline' : 'button-secondary'}
            aria-expanded={open === name}
            aria-controls="action-panel"
            onClick={() => setOpen(open === name ? null : name)}
          >
            {ACTIONS[name].label}
          </button>
        ))}
      </div>
      <div id="action-panel">
        {Panel ? <Panel key={open} {...props} close={() => setOpen(null)} /> : null}
      </div>
    </section>
  );
}
