import { FieldErrors } from './feedback';

interface FieldProps {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  /** What the API found wrong with the field. */
  errors: string[] | undefined;
  hint?: string;
}

/** The ids a field points to with aria-describedby (its hint and errors), or none. */
function describedBy(id: string, hint: string | undefined, errors: string[] | undefined) {
  const ids = [hint ? `${id}-hint` : null, errors ? `${id}-error` : null].filter(Boolean);
  return ids.length > 0 ? ids.join(' ') : undefined;
}

/**
 * A labelled one-line input with its hint and errors. A `password` one is for a secret: never
 * filled in by the browser (autocomplete off), never sent to a spell checker.
 */
export function TextField({
  id,
  label,
  value,
  onInput,
  errors,
  hint,
  type = 'text',
  inputMode,
}: FieldProps & { type?: 'text' | 'password'; inputMode?: 'url' }) {
  const common = {
    id,
    autoComplete: 'off',
    spellcheck: false,
    value,
    'aria-describedby': describedBy(id, hint, errors),
    'aria-invalid': errors ? true : undefined,
    onInput: (event: { currentTarget: HTMLInputElement }) => onInput(event.currentTarget.value),
  };
  return (
    <>
      <label for={id}>{label}</label>
      {type === 'password' ? (
        // Preact's types tie input types to roles, so a password input is written apart.
        <input type="password" {...common} />
      ) : (
        <input type="text" inputMode={inputMode} {...common} />
      )}
      {hint ? (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      ) : null}
      <FieldErrors id={`${id}-error`} messages={errors} />
    </>
  );
}

/**
 * A PEM pasted in a textarea, or read from a file chosen on this computer (FileReader: the file
 * never leaves the browser until the form is saved).
 */
export function PemField({
  id,
  label,
  fileLabel,
  value,
  onInput,
  errors,
  hint,
}: FieldProps & { fileLabel: string }) {
  const readFile = (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) {
      return;
    }
    const reader = new FileReader();
    reader.onload = () => onInput(typeof reader.result === 'string' ? reader.result : '');
    reader.readAsText(file);
  };
  return (
    <>
      <label for={id}>{label}</label>
      <textarea
        id={id}
        class="pem"
        rows={6}
        autoComplete="off"
        spellcheck={false}
        value={value}
        aria-describedby={describedBy(id, hint, errors)}
        aria-invalid={errors ? true : undefined}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      {hint ? (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      ) : null}
      <FieldErrors id={`${id}-error`} messages={errors} />
      <label for={`${id}-file`}>{fileLabel}</label>
      <input
        id={`${id}-file`}
        type="file"
        accept=".pem,.crt,.cer,.key,text/plain"
        onChange={(event) => readFile(event.currentTarget)}
      />
    </>
  );
}
