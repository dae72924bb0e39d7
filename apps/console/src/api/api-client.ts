import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** The console's typed client of the public /v1 API (ADR 0042: nothing else). */
export type ApiClient = Client<paths>;

/**
 * Where the client gets its Bearer token, and what it does when the API answers 401: the user
 * sign-in refreshes its access token once; a portal session cannot, and the session is over.
 */
export interface CredentialSource {
  /** The token to send now, or null when there is none (signed out, expired). */
  bearerToken(): string | null;
  /** After a 401: true when a new token was obtained and the request may be sent again. */
  renewAfterRejection(rejectedToken: string): Promise<boolean>;
  /** The API refused the token for good: end the session and say so. */
  rejected(): void;
}

/**
 * Adds `Authorization: Bearer` from memory to every request; on a 401, renews once and sends the
 * request again (a copy taken before it was sent, since the body is read on the way out).
 */
function bearerMiddleware(credentials: CredentialSource): Middleware {
  const copies = new Map<string, { copy: Request; token: string }>();
  return {
    onRequest({ request, id }) {
      const token = credentials.bearerToken();
      if (token) {
        request.headers.set('Authorization', `Bearer ${token}`);
        copies.set(id, { copy: request.clone(), token });
      }
      return request;
    },
    async onResponse({ response, id }) {
      const sent = copies.get(id);
      copies.delete(id);
      if (response.status !== 401 || !sent) {
        return response;
      }
      if (!(await credentials.renewAfterRejection(sent.token))) {
        credentials.rejected();
        return response;
      }
      const retry = new Request(sent.copy);
      retry.headers.set('Authorization', `Bearer ${credentials.bearerToken() ?? ''}`);
      const second = await fetch(retry);
      if (second.status === 401) {
        credentials.rejected();
      }
      return second;
    },
    onError({ id }) {
      copies.delete(id);
    },
  };
}

/** The API's origin is the console's (served at /console/ by the API: no CORS, no cookie). */
export function createApiClient(
  credentials: CredentialSource,
  baseUrl = location.origin,
): ApiClient {
  const client = createClient<paths>({ baseUrl });
  client.use(bearerMiddleware(credentials));
  return client;
}
