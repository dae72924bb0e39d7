import { Scope } from '@svc/contracts';
import type { ApiKeyEnvironment } from '@svc/identity';
import { UsersService } from '@svc/oauth';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { RunningApp, startAuth } from './app-harness';
import { ensureConsoleBuilt } from './console-build';
import { DeliveryStack, startDeliveryStack } from './delivery-harness';
import { freePort } from './free-port';
import { launchChromium } from './headless-chromium';
import { http } from './http-client';
import { TestUser } from './oauth-harness';

/**
 * Everything the console stands on, real: the API serving it at /console/, the auth app it signs
 * in with, the delivery engine, JetStream and PostgreSQL, and Debian's Chromium. Both ports are
 * chosen first, so that the console's address and the issuer are known to both apps.
 */
export interface ConsoleTestBed {
  stack: DeliveryStack;
  auth: RunningApp;
  browser: Browser;
  /** `http://127.0.0.1:<api port>/console/` */
  consoleUrl: string;
  issuer: string;
  /** A tenant with a webhooks:manage key, and a user of that tenant with the same scope. */
  newTenant(environment?: ApiKeyEnvironment): Promise<ConsoleTenant>;
  /** A one-time portal link minted with the key, as a platform's backend would. */
  portalLink(key: string, body?: { read_only?: boolean; return_url?: string }): Promise<string>;
  close(): Promise<void>;
}

export interface ConsoleTenant {
  tenantId: string;
  key: string;
  user: TestUser;
}

export async function startConsoleTestBed(
  overrides: NodeJS.ProcessEnv = {},
): Promise<ConsoleTestBed> {
  ensureConsoleBuilt();
  const [apiPort, authPort] = [await freePort(), await freePort()];
  const issuer = `http://127.0.0.1:${authPort}`;
  const consoleUrl = `http://127.0.0.1:${apiPort}/console/`;
  const shared = { AUTH_ISSUER: issuer, CONSOLE_URL: consoleUrl };
  const stack = await startDeliveryStack(
    {
      ...shared,
      AUTH_JWKS_URL: `${issuer}/.well-known/jwks.json`,
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8',
      ...overrides,
    },
    { apiPort },
  );
  let auth: RunningApp | undefined;
  let browser: Browser | undefined;
  try {
    auth = await startAuth(
      { ...shared, ...overrides },
      { databaseUrl: stack.databaseUrl, port: authPort },
    );
    browser = await launchChromium();
  } catch (error) {
    await auth?.close();
    await stack.close();
    throw error;
  }
  const users = new UsersService(stack.api.dataSource);
  const runningAuth = auth;
  const runningBrowser = browser;
  return {
    stack,
    auth: runningAuth,
    browser: runningBrowser,
    consoleUrl,
    issuer,
    async newTenant(environment: ApiKeyEnvironment = 'live') {
      const scopes: Scope[] = ['webhooks:manage'];
      const { tenantId, key } = await stack.api.newTenantWithKey(scopes, environment);
      const email = `user-${randomBytes(4).toString('hex')}@example.com`;
      const password = `pw-${randomBytes(12).toString('base64url')}`;
      const created = await users.create({ tenantId, email, password, scopes });
      return { tenantId, key, user: { id: created.id, email, password } };
    },
    async portalLink(key, body = {}) {
      const response = await http(stack.api.baseUrl, 'POST', '/v1/portal-sessions', {
        key,
        json: body,
      });
      if (response.status !== 201) {
        throw new Error(`portal session refused: ${response.status} ${response.text}`);
      }
      return response.body.url as string;
    },
    async close() {
      await runningBrowser.close().catch(() => undefined);
      await runningAuth.close();
      await stack.close();
    },
  };
}

/** Signs in on the auth server's page the console sent the browser to, then waits to be back. */
export async function signInThroughConsole(
  page: Page,
  bed: ConsoleTestBed,
  user: TestUser,
  onSignInPage: (page: Page) => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  await page.goto(bed.consoleUrl);
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL((url) => url.toString().startsWith(bed.issuer));
  await page.getByLabel('Email').waitFor();
  await onSignInPage(page);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const allow = page.getByRole('button', { name: 'Allow' });
  await Promise.race([
    allow.click().catch(() => undefined),
    page.waitForURL((url) => url.toString().startsWith(bed.consoleUrl)),
  ]);
  await page.waitForURL((url) => url.toString().startsWith(bed.consoleUrl));
}
