import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { FailureMessage } from '../api/problem-message';
import { takeHeadingFocus } from '../router/navigation';

/** A page's one h1; it takes the focus after a navigation, so screen readers start there. */
export function PageHeading({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (takeHeadingFocus()) {
      heading.current?.focus();
    }
  }, []);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children}
    </h1>
  );
}

/**
 * A failure in plain words, announced as it appears (role="alert"). With `takeFocus`, it also
 * takes the focus when it appears (an error summary at the top of a long form, so that the
 * keyboard starts from what to fix).
 */
export function FailureNotice({
  failure,
  title,
  takeFocus = false,
}: {
  failure: FailureMessage;
  title?: string;
  takeFocus?: boolean;
}) {
  const notice = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (takeFocus) {
      notice.current?.focus();
    }
  }, [takeFocus, failure]);
  return (
    <div class="error" role="alert" ref={notice} tabIndex={takeFocus ? -1 : undefined}>
      <p>
        {title ? <strong>{title} </strong> : null}
        {failure.summary}
      </p>
      {failure.detail ? <p>{failure.detail}</p> : null}
    </div>
  );
}

/** Where a page says what just happened (polite live region, always present so it is heard). */
export function StatusMessage({ message }: { message: string | null }) {
  return (
    <div role="status" aria-live="polite" class={message ? 'notice' : 'visually-hidden'}>
      {message ?? ''}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" class="muted">
      Loading {what}…
    </p>
  );
}

/** The words under a form field saying what the API found wrong with it. */
export function FieldErrors({ id, messages }: { id: string; messages: string[] | undefined }) {
  if (!messages || messages.length === 0) {
    return null;
  }
  return (
    <p id={id} class="field-error">
      {messages.join('; ')}
    </p>
  );
}
