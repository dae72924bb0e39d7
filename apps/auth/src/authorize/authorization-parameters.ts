import type { OAuthClient, OAuthClientsService, RawParameters } from '@svc/oauth';

/** The parameters of spec 4.3, the only ones carried through the sign-in and consent forms. */
export const AUTHORIZATION_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'state',
] as const;

/** The authorization parameters of a query or form, leaving out everything else. */
export function pickAuthorizationParameters(source: RawParameters): RawParameters {
  const picked: RawParameters = {};
  for (const name of AUTHORIZATION_PARAMETERS) {
    if (source[name] !== undefined) {
      picked[name] = source[name];
    }
  }
  return picked;
}

/** As a query string, for the sign-in form to replay (repeats kept, so they are refused again). */
export function toQueryString(parameters: RawParameters): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      query.append(name, item);
    }
  }
  return query.toString();
}

/** Single values only, for hidden fields of the consent form (the request was checked). */
export function toSingleValues(parameters: RawParameters): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(parameters).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : undefined,
    ]),
  );
}

/** The client a request names, when it is registered. */
export async function findNamedClient(
  clients: OAuthClientsService,
  parameters: RawParameters,
): Promise<OAuthClient | null> {
  const clientId = parameters.client_id;
  return typeof clientId === 'string' ? clients.find(clientId) : null;
}
