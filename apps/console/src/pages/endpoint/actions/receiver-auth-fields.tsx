import { useEffect, useRef } from 'preact/hooks';
import { FieldErrors } from '../../../components/feedback';
import {
  HeaderRow,
  headerRowErrors,
  headersErrors,
  MAX_AUTH_HEADERS,
  ReceiverAuthChoice,
  ReceiverAuthForm,
} from '../../../components/receiver-auth-values';
import { PemField, TextField } from '../../../components/text-field';

/** Each choice's label; typed by the form's choices, so that a new type cannot go unlabelled. */
const CHOICE_LABELS: Record<ReceiverAuthChoice, string> = {
  none: 'None: the signature only',
  headers: 'Extra headers (such as an API token)',
  basic: 'HTTP Basic (user name and password)',
  oauth2_client_credentials: 'OAuth 2.0 client credentials',
  mtls: 'Mutual TLS (client certificate)',
};

export interface AuthFieldsProps {
  form: ReceiverAuthForm;
  update: (changes: Partial<ReceiverAuthForm>) => void;
  /** The API's problems, by field (`auth.username`, `auth.headers.Host`, …). */
  errors: Record<string, string[]>;
}

/** The type of authentication: radio buttons in a fieldset whose legend names the choice. */
export function AuthTypeField({ form, update, errors }: AuthFieldsProps) {
  const typeErrors = [...(errors.auth ?? []), ...(errors['auth.type'] ?? [])];
  const shown = typeErrors.length > 0 ? typeErrors : undefined;
  return (
    <fieldset
      class="choices"
      aria-describedby={shown ? 'auth-type-error' : undefined}
      aria-invalid={shown ? true : undefined}
    >
      <legend>How the receiver authenticates the service</legend>
      <FieldErrors id="auth-type-error" messages={shown} />
      {Object.entries(CHOICE_LABELS).map(([choice, label]) => (
        <label key={choice} class="checkbox">
          <input
            type="radio"
            name="auth-type"
            value={choice}
            checked={form.type === choice}
            onChange={(event) => update({ type: event.currentTarget.value as ReceiverAuthChoice })}
          />
          {label}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * The extra headers as name/value rows, up to 10: adding a row moves the focus to its name,
 * removing one moves it to the add button (so the keyboard never loses its place).
 */
export function HeaderRowsField({ form, update, errors }: AuthFieldsProps) {
  const rows = form.headers;
  const addButton = useRef<HTMLButtonElement>(null);
  const focusNext = useRef<'last-row' | 'add' | null>(null);
  useEffect(() => {
    if (focusNext.current === 'last-row') {
      document.getElementById(`auth-header-name-${rows[rows.length - 1]?.key}`)?.focus();
    } else if (focusNext.current === 'add') {
      addButton.current?.focus();
    }
    focusNext.current = null;
  }, [rows]);
  const change = (key: number, changes: Partial<HeaderRow>) =>
    update({ headers: rows.map((row) => (row.key === key ? { ...row, ...changes } : row)) });
  const remove = (key: number) => {
    focusNext.current = 'add';
    update({ headers: rows.filter((row) => row.key !== key) });
  };
  const add = () => {
    focusNext.current = 'last-row';
    const key = Math.max(-1, ...rows.map((row) => row.key)) + 1;
    update({ headers: [...rows, { key, name: '', value: '' }] });
  };
  const fieldsetErrors = headersErrors(errors, rows);
  return (
    <fieldset
      class="choices"
      aria-describedby={`auth-headers-hint${fieldsetErrors ? ' auth-headers-error' : ''}`}
      aria-invalid={fieldsetErrors ? true : undefined}
    >
      <legend>Extra headers</legend>
      <p id="auth-headers-hint" class="hint">
        Sent with every delivery, up to {MAX_AUTH_HEADERS}. Authorization is allowed; Host,
        User-Agent, Expect, Content-*, X-SVC-*, webhook-* and hop-by-hop headers are not. The values
        are secrets, never shown again: give them all each time you save.
      </p>
      <FieldErrors id="auth-headers-error" messages={fieldsetErrors} />
      {rows.map((row, index) => {
        const rowErrors = row.name.trim() ? headerRowErrors(errors, row.name) : undefined;
        return (
          <div key={row.key} class="header-row">
            <TextField
              id={`auth-header-name-${row.key}`}
              label={`Header ${index + 1} name`}
              value={row.name}
              onInput={(name) => change(row.key, { name })}
              errors={rowErrors}
            />
            <TextField
              id={`auth-header-value-${row.key}`}
              label={`Header ${index + 1} value`}
              type="password"
              value={row.value}
              onInput={(value) => change(row.key, { value })}
              errors={undefined}
            />
            <button
              type="button"
              class="button-secondary button-small"
              onClick={() => remove(row.key)}
            >
              Remove header {index + 1}
            </button>
          </div>
        );
      })}
      <button
        ref={addButton}
        type="button"
        class="button-secondary"
        disabled={rows.length >= MAX_AUTH_HEADERS}
        onClick={add}
      >
        Add a header
      </button>
    </fieldset>
  );
}

export function BasicFields({ form, update, errors }: AuthFieldsProps) {
  return (
    <>
      <TextField
        id="auth-username"
        label="User name"
        hint="Without a colon."
        value={form.username}
        onInput={(username) => update({ username })}
        errors={errors['auth.username']}
      />
      <TextField
        id="auth-password"
        label="Password"
        type="password"
        hint="Never shown again: give it each time you save."
        value={form.password}
        onInput={(password) => update({ password })}
        errors={errors['auth.password']}
      />
    </>
  );
}

export function OAuthFields({ form, update, errors }: AuthFieldsProps) {
  return (
    <>
      <TextField
        id="auth-token-url"
        inputMode="url"
        label="Token URL"
        hint="The https address of the token endpoint."
        value={form.tokenUrl}
        onInput={(tokenUrl) => update({ tokenUrl })}
        errors={errors['auth.token_url']}
      />
      <TextField
        id="auth-client-id"
        label="Client id"
        value={form.clientId}
        onInput={(clientId) => update({ clientId })}
        errors={errors['auth.client_id']}
      />
      <TextField
        id="auth-client-secret"
        label="Client secret"
        type="password"
        hint="Never shown again: give it each time you save."
        value={form.clientSecret}
        onInput={(clientSecret) => update({ clientSecret })}
        errors={errors['auth.client_secret']}
      />
      <TextField
        id="auth-scope"
        label="Scope (optional)"
        value={form.scope}
        onInput={(scope) => update({ scope })}
        errors={errors['auth.scope']}
      />
      <TextField
        id="auth-audience"
        label="Audience (optional)"
        value={form.audience}
        onInput={(audience) => update({ audience })}
        errors={errors['auth.audience']}
      />
    </>
  );
}

export function MtlsFields({ form, update, errors }: AuthFieldsProps) {
  return (
    <>
      <PemField
        id="auth-certificate"
        label="Client certificate (PEM)"
        fileLabel="Or read the certificate from a file"
        hint="The client certificate, then any intermediates."
        value={form.certificate}
        onInput={(certificate) => update({ certificate })}
        errors={errors['auth.certificate']}
      />
      <PemField
        id="auth-private-key"
        label="Private key (PEM, unencrypted)"
        fileLabel="Or read the private key from a file"
        hint="The key of the certificate. Never shown again: give it each time you save."
        value={form.privateKey}
        onInput={(privateKey) => update({ privateKey })}
        errors={errors['auth.private_key']}
      />
    </>
  );
}
