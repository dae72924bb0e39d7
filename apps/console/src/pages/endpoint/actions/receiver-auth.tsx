import { useState } from 'preact/hooks';
import { dataOf } from '../../../api/api-failure';
import type { ReceiverAuthRequest } from '../../../api/api-types';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useConsole } from '../../../components/console-context';
import { FailureNotice } from '../../../components/feedback';
import {
  ReceiverAuthForm,
  receiverAuthFormOf,
  receiverAuthFromForm,
} from '../../../components/receiver-auth-values';
import { useAction } from '../../../components/use-action';
import { formatReceiverAuthType } from '../../../format/display-format';
import type { EndpointActionProps } from '../endpoint-actions';
import {
  AuthTypeField,
  BasicFields,
  HeaderRowsField,
  MtlsFields,
  OAuthFields,
} from './receiver-auth-fields';

const FIELDS = {
  none: null,
  headers: HeaderRowsField,
  basic: BasicFields,
  oauth2_client_credentials: OAuthFields,
  mtls: MtlsFields,
} as const;

/**
 * Sets, replaces or removes how the receiver authenticates the service (ADR 0048): a PATCH with
 * the whole `auth`, secrets included, since the API never returns them; removing it (`auth:
 * null`) asks for a confirmation first.
 */
export function ReceiverAuth({ endpoint, announce, onChanged, close }: EndpointActionProps) {
  const { client } = useConsole();
  const { busy, failure, run } = useAction();
  const [form, setForm] = useState<ReceiverAuthForm>(() => receiverAuthFormOf(endpoint.auth));
  const [confirming, setConfirming] = useState(false);
  const update = (changes: Partial<ReceiverAuthForm>) =>
    setForm((current) => ({ ...current, ...changes }));
  const errors = failure?.fieldErrors ?? {};
  const patch = (auth: ReceiverAuthRequest | null) =>
    dataOf(
      client.PATCH('/v1/webhooks/{id}', {
        params: { path: { id: endpoint.id } },
        body: { auth },
      }),
    );
  const remove = () =>
    run(async () => {
      onChanged(await patch(null));
      announce('The receiver authentication was removed.');
      close();
    });
  const save = (event: Event) => {
    event.preventDefault();
    const { type } = form;
    if (type === 'none') {
      setConfirming(true);
      return;
    }
    void run(async () => {
      const updated = await patch(receiverAuthFromForm(form));
      onChanged(updated);
      announce(`The receiver authentication was saved: ${formatReceiverAuthType(type)}.`);
      close();
    });
  };
  const Fields = FIELDS[form.type];
  const nothingToRemove = form.type === 'none' && endpoint.auth === null;
  return (
    <form class="card" onSubmit={save} aria-labelledby="auth-heading" noValidate>
      <h3 id="auth-heading">Receiver authentication</h3>
      <p>
        Besides the signature, deliveries can carry credentials your receiver checks. Secrets are
        never shown again, so changing the authentication means giving them all again.
      </p>
      {failure && !confirming ? (
        <FailureNotice failure={failure} title="Not saved." takeFocus />
      ) : null}
      <AuthTypeField form={form} update={update} errors={errors} />
      {Fields ? <Fields form={form} update={update} errors={errors} /> : null}
      <div class="actions">
        <button type="submit" class="button-primary" disabled={busy || nothingToRemove}>
          {busy ? 'Saving…' : form.type === 'none' ? 'Remove the authentication' : 'Save'}
        </button>
        <button type="button" class="button-secondary" onClick={close}>
          Cancel
        </button>
      </div>
      {confirming ? (
        <ConfirmDialog
          title="Remove the receiver authentication?"
          confirmLabel={busy ? 'Removing…' : 'Remove it'}
          confirmDisabled={busy}
          onConfirm={() => void remove()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            Deliveries to <code>{endpoint.url}</code> will carry the signature only. A receiver that
            requires credentials will refuse them.
          </p>
          {failure ? <FailureNotice failure={failure} title="Not removed." /> : null}
        </ConfirmDialog>
      ) : null}
    </form>
  );
}
