import { useState } from 'preact/hooks';

/**
 * A signing secret shown once (at registration or rotation): in a read-only field to select,
 * with a copy button. The clipboard may be refused (an iframe without clipboard-write), so the
 * field stays the way to copy it by hand.
 */
export function SecretReveal({ id, secret, label }: { id: string; secret: string; label: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser did not allow copying: select the secret and copy it by hand.');
    }
  };
  return (
    <div class="secret">
      <label for={id}>{label}</label>
      <div class="secret-row">
        <input
          id={id}
          type="text"
          readOnly
          value={secret}
          spellcheck={false}
          autoComplete="off"
          aria-describedby={`${id}-note`}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" class="button-secondary" onClick={() => void copy()}>
          Copy secret
        </button>
      </div>
      <p id={`${id}-note`} class="muted">
        Shown once: store it in your receiver now. The console and the API never show it again.
      </p>
      <p role="status" aria-live="polite" class="muted">
        {copied ?? ''}
      </p>
    </div>
  );
}
