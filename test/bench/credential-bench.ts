import { openDataSource } from '@svc/database';
import {
  AccessTokenIssuer,
  GrantsService,
  loadSigningKeys,
  OAuthClientsService,
  s256Challenge,
  UsersService,
} from '@svc/oauth';
import { exportJWK, generateKeyPair } from 'jose';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { createDatabase, createTenantWithKey, dropDatabase, newNamespace } from './bench-stack';
import { loadBenchSettings } from './bench-settings';
import { Cleanup, runBench } from './cleanup';
import { appEnvironment } from './engine-process';
import { freePort, startBuiltApp } from './service-process';

/**
 * What an OAuth access token costs the registration API per request against an API key: JWT
 * verification with the cached JWKS plus the grant-revocation lookup (ADR 0014), against the key
 * hash lookup. Both kinds of request are sent to the same built API process in alternating rounds,
 * so the ratio is measured side by side. `npm run bench:credentials`.
 */
const SECONDS = Number(process.env.BENCH_CREDENTIAL_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CREDENTIAL_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

async function main(cleanup: Cleanup): Promise<void> {
  const settings = loadBenchSettings();
  const ns = newNamespace();
  cleanup.add('database', () => dropDatabase(settings.postgresUrl, ns.database));
  const databaseUrl = await createDatabase(settings.postgresUrl, ns);
  const { tenantId, key } = await createTenantWithKey(databaseUrl);

  const authPort = await freePort();
  const issuer = `http://127.0.0.1:${authPort}`;
  const jwk = {
    ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)),
    kid: 'bench',
  };
  const accessToken = await issueAccessToken(databaseUrl, tenantId, issuer, jwk);

  const env = {
    ...appEnvironment(settings, ns, databaseUrl, randomBytes(32).toString('base64')),
    AUTH_ISSUER: issuer,
    AUTH_JWKS_URL: `${issuer}/.well-known/jwks.json`,
    AUTH_SIGNING_KEYS: JSON.stringify([jwk]),
  };
  await startBuiltApp('auth', authPort, env, settings.repoRoot, cleanup);
  const apiPort = await freePort();
  await startBuiltApp('api', apiPort, env, settings.repoRoot, cleanup);
  const apiUrl = `http://127.0.0.1:${apiPort}`;

  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  cleanup.add('HTTP agent', () => agent.close());
  const credentials = { 'API key': key, 'access token': accessToken };
  await measure(agent, apiUrl, key, 1);
  await measure(agent, apiUrl, accessToken, 1);
  const results: Record<string, number[]> = { 'API key': [], 'access token': [] };
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const [name, credential] of Object.entries(credentials)) {
      cleanup.check();
      const perSecond = await measure(agent, apiUrl, credential, SECONDS);
      results[name].push(perSecond);
      log(`round ${round}: ${name} ${perSecond.toFixed(0)} requests/s`);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const ratios = results['access token'].map((value, i) => value / results['API key'][i]);
  process.stdout.write(
    [
      `GET /v1/webhooks?limit=1, ${CONCURRENCY} concurrent, ${SECONDS} s x ${ROUNDS} rounds each, alternating`,
      `API key:      median ${median(results['API key']).toFixed(0)} requests/s (${results['API key'].map((v) => v.toFixed(0)).join(', ')})`,
      `access token: median ${median(results['access token']).toFixed(0)} requests/s (${results['access token'].map((v) => v.toFixed(0)).join(', ')})`,
      `access token / API key: median ratio ${median(ratios).toFixed(2)} (per round ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
      '',
    ].join('\n'),
  );
}

/** A real grant, made by the product's own services, and the access token issued from it. */
async function issueAccessToken(
  databaseUrl: string,
  tenantId: string,
  issuer: string,
  jwk: Record<string, unknown>,
): Promise<string> {
  const dataSource = await openDataSource({ url: databaseUrl, poolSize: 1 });
  try {
    const user = await new UsersService(dataSource).create({
      tenantId,
      email: 'bench@example.com',
      password: randomBytes(16).toString('base64url'),
      scopes: ['webhooks:manage'],
    });
    const redirectUri = 'https://bench.example/callback';
    const client = await new OAuthClientsService(dataSource).create({
      name: 'bench',
      redirectUris: [redirectUri],
    });
    const grants = new GrantsService(
      dataSource,
      new AccessTokenIssuer(await loadSigningKeys([jwk], false), issuer, 'svc-api'),
    );
    const codeVerifier = randomBytes(32).toString('base64url');
    const { code } = await grants.authorize({
      tenantId,
      userId: user.id,
      clientId: client.id,
      scopes: ['webhooks:manage'],
      redirectUri,
      codeChallenge: s256Challenge(codeVerifier),
    });
    const tokens = await grants.exchangeCode({
      code,
      clientId: client.id,
      redirectUri,
      codeVerifier,
    });
    return tokens.accessToken;
  } finally {
    await dataSource.destroy();
  }
}

/** Requests per second answered 200 by `concurrency` request loops over `seconds`. */
async function measure(
  agent: Agent,
  apiUrl: string,
  credential: string,
  seconds: number,
): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let answered = 0;
  const loop = async () => {
    while (Date.now() < until) {
      const response = await request(`${apiUrl}/v1/webhooks?limit=1`, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${credential}` },
      });
      await response.body.dump();
      if (response.statusCode !== 200) {
        throw new Error(`the API answered ${response.statusCode}`);
      }
      answered += 1;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return answered / ((Date.now() - started) / 1000);
}

runBench(log, main);
