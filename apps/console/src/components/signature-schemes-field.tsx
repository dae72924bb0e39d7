import type { SignatureScheme } from '../api/api-types';
import { FieldErrors } from './feedback';

/** Each scheme's label says what the receiver verifies it with (ADR 0044). */
const SCHEME_CHOICES: readonly { scheme: SignatureScheme; label: string }[] = [
  { scheme: 'hmac-sha256', label: 'HMAC-SHA256, verified with the signing secret' },
  { scheme: 'ed25519', label: 'Ed25519, verified with the published public keys' },
];

/**
 * How deliveries are signed: one checkbox per scheme in a fieldset whose legend names the choice;
 * at least one must stay chosen (signatureSchemesFromField refuses none, as the API would).
 */
export function SignatureSchemesField({
  idPrefix,
  selected,
  onChange,
  errors,
}: {
  idPrefix: string;
  selected: readonly SignatureScheme[];
  onChange: (selected: SignatureScheme[]) => void;
  errors: string[] | undefined;
}) {
  const hintId = `${idPrefix}-schemes-hint`;
  const errorId = `${idPrefix}-schemes-error`;
  const toggle = (scheme: SignatureScheme, chosen: boolean) =>
    onChange(
      // Kept in the order of the choices, so the request does not depend on the clicking order.
      SCHEME_CHOICES.map((choice) => choice.scheme).filter((each) =>
        each === scheme ? chosen : selected.includes(each),
      ),
    );
  return (
    <fieldset
      class="choices"
      aria-describedby={`${hintId}${errors ? ` ${errorId}` : ''}`}
      aria-invalid={errors ? true : undefined}
    >
      <legend>Signature schemes</legend>
      <p id={hintId} class="hint">
        At least one. Choose both while your receiver moves from one to the other.
      </p>
      <FieldErrors id={errorId} messages={errors} />
      {SCHEME_CHOICES.map(({ scheme, label }) => (
        <label key={scheme} class="checkbox">
          <input
            type="checkbox"
            name={`${idPrefix}-signature-schemes`}
            value={scheme}
            checked={selected.includes(scheme)}
            onChange={(event) => toggle(scheme, event.currentTarget.checked)}
          />
          {label}
        </label>
      ))}
    </fieldset>
  );
}
