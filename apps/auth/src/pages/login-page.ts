import { hiddenFields, page, text } from './layout';

export interface LoginPageModel {
  clientName: string;
  /** The authorization request's query string, replayed after a successful sign-in. */
  authorizationRequest: string;
  csrfToken: string;
  email?: string;
  error?: string;
}

/** The sign-in form (DESIGN: labelled inputs with autocomplete username / current-password). */
export function loginPage(model: LoginPageModel): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p>Sign in to continue to <strong>${text(model.clientName)}</strong>.</p>
${model.error ? `<p class="error" role="alert">${text(model.error)}</p>` : ''}
<form method="post" action="login">
${hiddenFields({ authorization_request: model.authorizationRequest, csrf_token: model.csrfToken })}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${text(model.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="button-primary" type="submit">Sign in</button>
</form>`,
  );
}
