import { useState } from 'preact/hooks';
import { dataOf } from '../../../api/api-failure';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useConsole } from '../../../components/console-context';
import { FailureNotice } from '../../../components/feedback';
import { useAction } from '../../../components/use-action';
import { navigate } from '../../../router/navigation';
import { pathOf } from '../../../router/routes';
import type { EndpointActionProps } from '../endpoint-actions';

/**
 * Deletes the endpoint after a confirmation in which the user types its URL: a deletion cannot
 * be undone, and typing the URL makes sure it is the right one.
 */
export function DeleteEndpoint({ endpoint, close }: EndpointActionProps) {
  const { client } = useConsole();
  const { busy, failure, run } = useAction();
  const [typed, setTyped] = useState('');
  const remove = () =>
    run(async () => {
      await dataOf(client.DELETE('/v1/webhooks/{id}', { params: { path: { id: endpoint.id } } }));
      navigate(pathOf({ page: 'endpoints' }));
    });
  return (
    <ConfirmDialog
      title="Delete this endpoint?"
      confirmLabel={busy ? 'Deleting…' : 'Delete the endpoint'}
      confirmDisabled={busy || typed.trim() !== endpoint.url}
      focusFirstField
      onConfirm={() => void remove()}
      onCancel={close}
    >
      <p>
        No more events will be sent to <code>{endpoint.url}</code>, and its deliveries can no longer
        be replayed. This cannot be undone.
      </p>
      {failure ? <FailureNotice failure={failure} title="Not deleted." /> : null}
      <label for="delete-confirm-url">Type the endpoint's URL to confirm</label>
      <input
        id="delete-confirm-url"
        type="text"
        autoComplete="off"
        spellcheck={false}
        value={typed}
        onInput={(event) => setTyped(event.currentTarget.value)}
      />
    </ConfirmDialog>
  );
}
