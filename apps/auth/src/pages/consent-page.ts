import { Scope, SCOPE_DESCRIPTIONS } from '@svc/contracts';
import { hiddenFields, page, text } from './layout';

export interface ConsentPageModel {
  clientName: string;
  userEmail: string;
  /** The scopes the grant will carry: requested and allowed to the user. */
  granted: Scope[];
  /** Requested scopes the user is not allowed, shown so nothing is hidden. */
  withheld: Scope[];
  /** The authorization request's parameters, posted back with the decision. */
  request: Record<string, string | undefined>;
  csrfToken: string;
}

const scopeItem = (scope: Scope) =>
  `<li><strong>${text(SCOPE_DESCRIPTIONS[scope])}</strong> <span class="muted">(${text(scope)})</span></li>`;

/** The consent page: the requested scopes in words, and the buttons Allow and Deny. */
export function consentPage(model: ConsentPageModel): string {
  const withheld =
    model.withheld.length === 0
      ? ''
      : `<p>It also asked for these, which your account cannot grant:</p>
<ul class="scopes muted">${model.withheld.map(scopeItem).join('\n')}</ul>`;
  return page(
    'Allow access?',
    `<h1>Allow ${text(model.clientName)} to act for you?</h1>
<p>Signed in as <strong>${text(model.userEmail)}</strong>.</p>
<p><strong>${text(model.clientName)}</strong> will be able to:</p>
<ul class="scopes">${model.granted.map(scopeItem).join('\n')}</ul>
${withheld}
<form method="post" action="authorize">
${hiddenFields({ ...model.request, csrf_token: model.csrfToken })}
<button class="button-primary" type="submit" name="decision" value="allow">Allow</button>
<button class="button-secondary" type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}
