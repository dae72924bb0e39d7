import { Scope } from '@svc/contracts';
import { OAuthClientsService, s256Challenge, UsersService } from '@svc/oauth';
import { randomBytes } from 'node:crypto';
import { RunningApi, startApi } from './api-harness';
import { RunningApp, startAuth } from './app-harness';
import { freePort } from './free-port';

export interface TestUser {
  id: string;
  email: string;
  password: string;
}

/**
 * The real authorization server and registration API over one database, with a tenant, a user
 * and a public client. The issuer is the auth app's real loopback URL, so discovery works.
 */
export interface OAuthTestBed {
  auth: RunningApp;
  api: RunningApi;
  issuer: string;
  tenantId: string;
  user: TestUser;
  client: { id: string; redirectUri: string };
  newUser(scopes: Scope[]): Promise<TestUser>;
  newClient(redirectUri: string): Promise<string>;
  close(): Promise<void>;
}

export async function startOAuthTestBed(
  options: { redirectUri?: string; userScopes?: Scope[]; authEnv?: NodeJS.ProcessEnv } = {},
): Promise<OAuthTestBed> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const api = await startApi({
    AUTH_ISSUER: issuer,
    AUTH_JWKS_URL: `${issuer}/.well-known/jwks.json`,
  });
  let auth: RunningApp;
  try {
    auth = await startAuth(
      { ...options.authEnv, AUTH_ISSUER: issuer },
      { databaseUrl: api.config.database.url, port },
    );
  } catch (error) {
    await api.close();
    throw error;
  }
  const users = new UsersService(api.dataSource);
  const clients = new OAuthClientsService(api.dataSource);
  const { tenantId } = await api.newTenantWithKey(['tenants:read']);
  const newUser = async (scopes: Scope[]): Promise<TestUser> => {
    const email = `user-${randomBytes(4).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(12).toString('base64url')}`;
    const user = await users.create({ tenantId, email, password, scopes });
    return { id: user.id, email, password };
  };
  const newClient = async (redirectUri: string) =>
    (await clients.create({ name: 'Test App', redirectUris: [redirectUri] })).id;
  const redirectUri = options.redirectUri ?? 'https://app.example/callback';
  return {
    auth,
    api,
    issuer,
    tenantId,
    user: await newUser(options.userScopes ?? ['tenants:read', 'alerts:read']),
    client: { id: await newClient(redirectUri), redirectUri },
    newUser,
    newClient,
    async close() {
      await auth.close();
      await api.close();
    },
  };
}

export function newPkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256Challenge(verifier) };
}

/** The values of a page's hidden inputs, as a browser would submit them. */
export function hiddenInputs(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[decodeEntities(match[1])] = decodeEntities(match[2]);
  }
  return fields;
}

const decodeEntities = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * A browser without a browser, for the direct tests: real HTTP, cookies kept per name, no
 * redirect followed, forms posted as application/x-www-form-urlencoded.
 */
export class FormBrowser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  async get(path: string, headers: Record<string, string> = {}) {
    return this.send(path, { method: 'GET', headers });
  }

  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return this.send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  private async send(path: string, init: RequestInit) {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(path, `${this.baseUrl}/oauth/`), {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair.indexOf('=');
      this.cookies.set(pair.slice(0, index), pair.slice(index + 1));
    }
    const text = await response.text();
    return { status: response.status, headers: response.headers, text };
  }
}

export function authorizePath(parameters: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) query.append(name, value);
  }
  return `/oauth/authorize?${query.toString()}`;
}

/** A complete request for the bed's client, with a fresh PKCE pair; override any part. */
export function authorizationParameters(
  bed: OAuthTestBed,
  pkce = newPkce(),
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: bed.client.id,
    redirect_uri: bed.client.redirectUri,
    scope: 'tenants:read',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    ...overrides,
  };
}

/**
 * Signs in and answers the consent page; returns where the server sent the browser back to
 * (the client's redirect URI with code or error, state and iss).
 */
export async function signInAndConsent(
  bed: OAuthTestBed,
  parameters: Record<string, string | undefined>,
  options: { user?: TestUser; decision?: 'allow' | 'deny'; browser?: FormBrowser } = {},
): Promise<URL> {
  const browser = options.browser ?? new FormBrowser(bed.auth.baseUrl);
  const user = options.user ?? bed.user;
  let page = await browser.get(authorizePath(parameters));
  if (page.text.includes('autocomplete="current-password"')) {
    const signIn = await browser.post('login', {
      ...hiddenInputs(page.text),
      email: user.email,
      password: user.password,
    });
    if (signIn.status !== 303) {
      throw new Error(`sign-in answered ${signIn.status}`);
    }
    page = await browser.get(signIn.headers.get('location')!);
  }
  if (page.status !== 200) {
    if (page.status === 302) {
      return new URL(page.headers.get('location')!);
    }
    throw new Error(`consent page answered ${page.status}: ${page.text}`);
  }
  const decision = await browser.post('authorize', {
    ...hiddenInputs(page.text),
    decision: options.decision ?? 'allow',
  });
  if (decision.status !== 303) {
    throw new Error(`consent answered ${decision.status}: ${decision.text}`);
  }
  return new URL(decision.headers.get('location')!);
}

/** POST /oauth/token with form fields; the JSON answer. */
export async function tokenRequest(bed: OAuthTestBed, fields: Record<string, string>) {
  const response = await fetch(`${bed.auth.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(text) as Record<string, unknown>,
  };
}

/** Signs in, consents and exchanges the code: the token response's fields. */
export async function obtainTokens(
  bed: OAuthTestBed,
  overrides: Record<string, string | undefined> = {},
): Promise<Record<string, string>> {
  const pkce = newPkce();
  const back = await signInAndConsent(bed, authorizationParameters(bed, pkce, overrides));
  const response = await tokenRequest(bed, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: bed.client.redirectUri,
    client_id: bed.client.id,
    code_verifier: pkce.verifier,
  });
  if (response.status !== 200) {
    throw new Error(`token endpoint answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body as Record<string, string>;
}

/** The grant an access token was issued from, read from its payload (tests only: unverified). */
export function grantIdOf(accessToken: string): string {
  const payload = JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()) as {
    grant_id: string;
  };
  return payload.grant_id;
}
