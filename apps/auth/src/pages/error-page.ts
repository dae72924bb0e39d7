import { page, text } from './layout';

/** Shown instead of redirecting when the client or its redirect URI cannot be trusted. */
export function errorPage(title: string, description: string): string {
  return page(
    title,
    `<h1>${text(title)}</h1>
<p class="error" role="alert">${text(description)}</p>
<p>Go back to the application and try again. If this keeps happening, tell its developers.</p>`,
  );
}

/** A sign-in or consent form whose CSRF token or Origin did not check out. */
export function expiredFormPage(): string {
  return errorPage(
    'This form has expired',
    'The form was not sent from this sign-in page, or it is too old. Go back, reload the page and try again.',
  );
}
