import { SCOPES } from '@svc/contracts';
import { ApiKeysService } from '@svc/identity';
import fc from 'fast-check';
import {
  authorizationParameters,
  authorizePath,
  FormBrowser,
  hiddenInputs,
  http,
  obtainTokens,
  OAuthTestBed,
  startOAuthTestBed,
} from '../support';
import { describeFailure, Failure, FailureLog, FuzzClient, FuzzRequest, judge } from './fuzz-http';
import {
  apiOddRoutes,
  apiReads,
  authPages,
  FuzzContext,
  recoverWebhook,
  registerWebhook,
  signInAndConsentForms,
  tokenAndRevoke,
  updateWebhook,
} from './fuzz-routes';

/**
 * Property-based fuzzing of every route of the API and the auth app (issues 9 and 17): thousands
 * of generated requests over real HTTP to the real apps over real PostgreSQL. Whatever comes in,
 * no answer is a 5xx (or missing), every 4xx of the API is an RFC 9457 problem document, and both
 * apps still answer a known-good request after each property.
 *
 * Knobs (environment):
 *   FUZZ_SEED         replay a run (the seed is printed at the start and in every failure)
 *   FUZZ_RUNS         generated requests in total, spread over the properties (default 8000)
 *   FUZZ_CONCURRENCY  requests in flight at once, one batch per property run (default 8)
 *   FUZZ_COLLECT=1    do not stop a property at its first failure: run it all and report every
 *                     distinct failure (route, input class, answer) at the end
 *   FUZZ_SHRINK=1     let fast-check shrink a failing batch to a smaller counterexample
 *   FUZZ_TIMEOUT_MS   how long one request may wait for its answer (default 15000)
 *   FUZZ_TRACE=text   print how often each (status, input class) came back on routes containing
 *                     text, to see which code the inputs reach
 */

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const TOTAL = Number(process.env.FUZZ_RUNS ?? 8000);
const BATCH = Math.max(1, Number(process.env.FUZZ_CONCURRENCY ?? 8));
const COLLECT = process.env.FUZZ_COLLECT === '1';
const SHRINK = process.env.FUZZ_SHRINK === '1';

/** Each property's share of the requests. */
const PROPERTIES: [string, number, (context: FuzzContext) => fc.Arbitrary<FuzzRequest>][] = [
  ['POST /v1/webhooks', 0.2, registerWebhook],
  ['PATCH /v1/webhooks/:id', 0.14, updateWebhook],
  ['POST /v1/webhooks/:id/recover', 0.1, recoverWebhook],
  ['GET and DELETE routes of the API', 0.18, apiReads],
  ['unknown routes, methods and malformed URLs of the API', 0.06, apiOddRoutes],
  ['POST /oauth/token and /oauth/revoke', 0.14, tokenAndRevoke],
  ['sign-in and consent form posts', 0.1, signInAndConsentForms],
  ['GET /oauth/authorize, /.well-known/* and odd routes of the auth app', 0.08, authPages],
];

jest.setTimeout(600_000);

describe('fuzzing every route of the API and the auth app (fast-check)', () => {
  let bed: OAuthTestBed;
  let client: FuzzClient;
  let context: FuzzContext;
  let sacredEndpointId: string;
  let generated = 0;
  const failures = new FailureLog();
  const traced: string[] = [];
  const started = Date.now();

  beforeAll(async () => {
    console.log(
      `fuzz: seed ${SEED} (FUZZ_SEED=${SEED} replays it), ${TOTAL} requests, ${BATCH} at once`,
    );
    bed = await startOAuthTestBed({ userScopes: ['tenants:read', 'alerts:read'] });
    const { api } = bed;
    const main = await api.newTenantWithKey([...SCOPES]);
    const sandboxKey = await new ApiKeysService(api.dataSource).create({
      tenantId: main.tenantId,
      scopes: [...SCOPES],
      environment: 'test',
    });
    const other = await api.newTenantWithKey([...SCOPES]);
    const tenantsOnly = await api.newTenantWithKey(['tenants:read']);

    const register = async (key: string) => {
      const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
        key,
        json: {
          url: 'https://hooks.example.com/svc',
          events: ['alert.created', 'incident.*'],
          secret: 'correct-horse-battery-staple',
        },
      });
      if (response.status !== 201) {
        throw new Error(`setup: registration answered ${response.status}: ${response.text}`);
      }
      return response.body.id as string;
    };
    sacredEndpointId = await register(main.key);
    const endpointIds = [await register(main.key), await register(main.key)];
    const deletableIds = [];
    for (let index = 0; index < 4; index += 1) deletableIds.push(await register(main.key));
    const otherTenantEndpointId = await register(other.key);

    const tokens = await obtainTokens(bed);

    // The sign-in form, as a browser without a session has it.
    const signInBrowser = new FormBrowser(bed.auth.baseUrl);
    const signInPage = await signInBrowser.get(authorizePath(authorizationParameters(bed)));
    const signInFields = hiddenInputs(signInPage.text);
    // A signed-in browser on the consent page.
    const consentBrowser = new FormBrowser(bed.auth.baseUrl);
    const firstPage = await consentBrowser.get(authorizePath(authorizationParameters(bed)));
    const signedIn = await consentBrowser.post('login', {
      ...hiddenInputs(firstPage.text),
      email: bed.user.email,
      password: bed.user.password,
    });
    if (signedIn.status !== 303) throw new Error(`setup: sign-in answered ${signedIn.status}`);
    const consentPage = await consentBrowser.get(signedIn.headers.get('location')!);
    const consentFields = hiddenInputs(consentPage.text);
    if (!consentFields.csrf_token || !signInFields.csrf_token) {
      throw new Error('setup: no CSRF token in the sign-in or consent form');
    }
    const cookieOf = (browser: FormBrowser) =>
      [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');

    context = {
      keys: {
        all: main.key,
        sandbox: sandboxKey.key,
        otherTenant: other.key,
        tenantsOnly: tenantsOnly.key,
        accessToken: tokens.access_token,
      },
      endpointIds: [sacredEndpointId, ...endpointIds],
      deletableIds,
      otherTenantEndpointId,
      client: bed.client,
      userEmail: bed.user.email,
      refreshToken: tokens.refresh_token,
      signIn: {
        cookie: cookieOf(signInBrowser),
        csrfToken: signInFields.csrf_token,
        authorizationRequest: signInFields.authorization_request ?? '',
      },
      consent: { cookie: cookieOf(consentBrowser), fields: consentFields },
    };
    client = new FuzzClient({ api: api.baseUrl, auth: bed.auth.baseUrl }, BATCH);
  }, 120_000);

  afterAll(async () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `fuzz: ${generated} generated requests; sent ${client?.sent.api ?? 0} to the API and ` +
        `${client?.sent.auth ?? 0} to the auth app (with liveness checks and shrinking) in ` +
        `${seconds} s; seed ${SEED}\nanswers by route and status:\n${client?.statusTable() ?? ''}` +
        (failures.size > 0
          ? `\n${failures.size} distinct failures:\n\n${failures.summary()}`
          : '; no failures'),
    );
    if (traced.length > 0) {
      const counts = new Map<string, number>();
      traced.forEach((line) => counts.set(line, (counts.get(line) ?? 0) + 1));
      console.log(
        [...counts]
          .sort()
          .map(([line, n]) => `${n}× ${line}`)
          .join('\n'),
      );
    }
    await client?.close();
    await bed?.close();
  });

  /** Known-good requests to both apps; throws unless each succeeds. */
  async function expectBothAppsAnswer(after: string): Promise<void> {
    const key = { authorization: `Bearer ${context.keys.all}` };
    const checks: [FuzzRequest, number][] = [
      [
        {
          target: 'api',
          route: 'liveness',
          label: 'known good',
          method: 'GET',
          path: '/v1/tenants',
          headers: key,
        },
        200,
      ],
      [
        {
          target: 'api',
          route: 'liveness',
          label: 'known good',
          method: 'GET',
          path: `/v1/webhooks/${sacredEndpointId}`,
          headers: key,
        },
        200,
      ],
      [
        {
          target: 'auth',
          route: 'liveness',
          label: 'known good',
          method: 'GET',
          path: '/.well-known/oauth-authorization-server',
          headers: {},
        },
        200,
      ],
    ];
    for (const [request, status] of checks) {
      const answer = await client.send(request);
      if (answer.status !== status) {
        throw new Error(
          `after ${after}, a known-good request failed (the app stopped answering properly):\n` +
            describeFailure({ request, answer, problem: `expected ${status}` }),
        );
      }
    }
  }

  it.each(PROPERTIES.map(([name, share, arbitrary]) => [name, share, arbitrary] as const))(
    '%s: no 5xx, API 4xx are problem documents, the apps keep answering',
    async (name, share, arbitrary) => {
      const numRuns = Math.max(1, Math.ceil((TOTAL * share) / BATCH));
      let shrinking = false;
      const seenHere: Failure[] = [];
      let failure: Error | undefined;
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(arbitrary(context), { minLength: BATCH, maxLength: BATCH }),
            async (requests) => {
              if (!shrinking) generated += requests.length;
              const answers = await Promise.all(requests.map((request) => client.send(request)));
              const found: Failure[] = [];
              requests.forEach((request, index) => {
                if (process.env.FUZZ_TRACE && request.route.includes(process.env.FUZZ_TRACE)) {
                  traced.push(`${answers[index].status} ${request.label}`);
                }
                const problem = judge(request, answers[index]);
                if (problem) found.push({ request, answer: answers[index], problem });
              });
              if (found.length === 0) return;
              if (!shrinking) {
                found.forEach((one) => failures.record(one));
                seenHere.push(...found);
              }
              if (COLLECT) return;
              shrinking = true;
              throw new Error(
                `${found.length} of ${requests.length} requests failed:\n` +
                  found.map(describeFailure).join('\n'),
              );
            },
          ),
          { numRuns, seed: SEED, endOnFailure: !SHRINK },
        );
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
      }
      await expectBothAppsAnswer(name);
      if (failure) throw failure;
      if (seenHere.length > 0) {
        const distinct = new FailureLog();
        seenHere.forEach((one) => distinct.record(one));
        throw new Error(
          `${seenHere.length} failing requests (seed ${SEED}), ${distinct.size} distinct:\n\n${distinct.summary()}`,
        );
      }
    },
  );

  it('sent the requests it promised and both apps still answer at the end', async () => {
    await expectBothAppsAnswer('the whole run');
    if (failures.size === 0) {
      expect(generated).toBeGreaterThanOrEqual(Math.min(TOTAL, 5000));
    }
  });
});
