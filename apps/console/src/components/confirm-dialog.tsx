import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal confirmation on the native <dialog>: the browser traps the focus inside, Escape
 * cancels, and the focus returns to the button that opened it when it closes. The focus starts
 * on Cancel, the harmless choice, unless the dialog asks for input first (`focusFirstField`).
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  confirmDisabled = false,
  focusFirstField = false,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  confirmDisabled?: boolean;
  focusFirstField?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    const opener = document.activeElement as HTMLElement | null;
    element?.showModal();
    return () => {
      element?.close();
      opener?.focus();
    };
  }, []);
  const titleId = `dialog-title-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <dialog
      ref={dialog}
      class="card dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
      <div class="actions">
        <button type="button" class="button-danger" disabled={confirmDisabled} onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button
          type="button"
          class="button-secondary"
          autoFocus={!focusFirstField}
          onClick={onCancel}
        >
          Cancel
        </button>
      </div>
    </dialog>
  );
}
