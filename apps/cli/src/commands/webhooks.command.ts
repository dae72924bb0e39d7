import { Command, Option } from 'commander';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ApiClient, ApiOptions, DEFAULT_API_URL } from '../api-client';
import { CliError, CliIo, report } from '../cli-context';
import {
  AUTH_TYPE_CHOICES,
  AuthInputs,
  AuthOptions,
  authFromOptions,
  checkAuthOptions,
  PolicyOptions,
  policyFromOptions,
  readsStandardInput,
} from './webhook-auth-options';
import {
  describeAuth,
  describeEndpoint,
  describeRetrySchedule,
  describeTimeout,
  EndpointAnswer,
} from './webhook-view';

/** --api-key and --api-url, as `svc listen` takes them. */
function withApiOptions(command: Command): Command {
  return command
    .option('--api-key <key>', 'an API key with webhooks:manage (default: $SVC_API_KEY)')
    .option(
      '--api-url <url>',
      `the registration API (default: $SVC_API_URL, the local stack's, or ${DEFAULT_API_URL})`,
    );
}

const endpointPath = (id: string) => `/v1/webhooks/${encodeURIComponent(id)}`;

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A file an option names, relative to the working directory; unreadable is a usage error. */
async function readOptionFile(io: CliIo, flag: string, file: string): Promise<string> {
  return readFile(resolve(io.cwd, file), 'utf8').catch((error: Error) => {
    throw new CliError(`${flag}: cannot read ${file}: ${error.message}`, 2);
  });
}

/** What the auth options point to: standard input (read once, if any reads it) and files. */
async function authInputsOf(io: CliIo, options: AuthOptions): Promise<AuthInputs> {
  const stdin = readsStandardInput(options) ? await io.stdin() : undefined;
  return {
    stdin,
    ...(options.certificateFile !== undefined && {
      certificate: await readOptionFile(io, '--certificate-file', options.certificateFile),
    }),
    ...(options.privateKeyFile !== undefined && {
      privateKey: await readOptionFile(io, '--private-key-file', options.privateKeyFile),
    }),
    ...(options.fromFile !== undefined && {
      fromFile:
        options.fromFile === '-'
          ? stdin
          : await readOptionFile(io, '--from-file', options.fromFile),
    }),
  };
}

export function webhooksCommand(io: CliIo, json: () => boolean): Command {
  const webhooks = new Command('webhooks').description(
    "show and change a webhook endpoint through the registration API, as listen talks to it: the receiver's authentication and the retry policy (ADR 0048)",
  );

  withApiOptions(
    webhooks
      .command('show')
      .description(
        "print an endpoint: URL, events, status, ordering, its auth (never a secret), retry schedule and timeout; --json prints the API's answer",
      )
      .argument('<id>', 'the endpoint (wh_…)'),
  ).action(async (id: string, options: ApiOptions) => {
    const api = ApiClient.from(options, io);
    const endpoint = await api.json<EndpointAnswer>('GET', endpointPath(id), `reading ${id}`);
    report(io, json(), endpoint, describeEndpoint(endpoint));
  });

  withApiOptions(
    webhooks
      .command('auth')
      .description(
        "set how the receiver is authenticated besides the signature, replacing what it had: --type with that type's options, or --from-file with the API's auth object; secrets are read from standard input, never taken as arguments (other users see arguments in ps, and shells keep them in history)",
      )
      .argument('<id>', 'the endpoint (wh_…)')
      .addOption(
        new Option(
          '--type <type>',
          'headers, basic, oauth2_client_credentials, mtls, or none (removes auth)',
        ).choices(AUTH_TYPE_CHOICES),
      )
      .option(
        '--header <header>',
        "headers: a header sent with every delivery, 'Name: value' (repeatable); the value is visible to other users of this machine while the command runs and stays in the shell's history: prefer --header-stdin for a token",
        collect,
      )
      .option('--header-stdin', "headers: read 'Name: value' lines from standard input")
      .option('--username <name>', 'basic: the user name')
      .option('--password-stdin', 'basic: read the password from standard input')
      .option('--token-url <url>', 'oauth2_client_credentials: the token endpoint (https)')
      .option('--client-id <id>', 'oauth2_client_credentials: the client id')
      .option(
        '--client-secret-stdin',
        'oauth2_client_credentials: read the client secret from standard input',
      )
      .option('--scope <scope>', 'oauth2_client_credentials: the scope to ask for (optional)')
      .option('--audience <audience>', 'oauth2_client_credentials: the audience (optional)')
      .option('--certificate-file <file>', 'mtls: the client certificate (PEM), then its chain')
      .option('--private-key-file <file>', 'mtls: its private key (PEM, unencrypted)')
      .option(
        '--from-file <file>',
        'the auth object as the API takes it, in JSON (- reads standard input); null removes auth',
      ),
  ).action(async (id: string, options: AuthOptions & ApiOptions) => {
    checkAuthOptions(options);
    const api = ApiClient.from(options, io);
    const auth = authFromOptions(options, await authInputsOf(io, options));
    const endpoint = await api.json<EndpointAnswer>(
      'PATCH',
      endpointPath(id),
      `changing the auth of ${id}`,
      { auth },
    );
    report(io, json(), endpoint, [`auth of ${endpoint.id}: ${describeAuth(endpoint.auth)}`]);
  });

  withApiOptions(
    webhooks
      .command('policy')
      .description(
        "set the endpoint's own retry schedule and attempt timeout, or give either back to the deployment's default",
      )
      .argument('<id>', 'the endpoint (wh_…)')
      .option(
        '--retry-schedule <delays>',
        'the waits before attempts 2, 3, …: 1 to 8 comma-separated durations of 1s to 24h, such as 10s,1m,1h',
      )
      .option('--default-retry-schedule', "use the deployment's retry schedule")
      .option('--timeout <seconds>', 'the attempt timeout, 1 to 10 seconds')
      .option('--default-timeout', "use the deployment's attempt timeout"),
  ).action(async (id: string, options: PolicyOptions & ApiOptions) => {
    const change = policyFromOptions(options);
    const api = ApiClient.from(options, io);
    const endpoint = await api.json<EndpointAnswer>(
      'PATCH',
      endpointPath(id),
      `changing the retry policy of ${id}`,
      change,
    );
    report(io, json(), endpoint, [
      `retry schedule of ${endpoint.id}: ${describeRetrySchedule(endpoint.retry_schedule)}`,
      `timeout of ${endpoint.id}: ${describeTimeout(endpoint.timeout_seconds)}`,
    ]);
  });

  return webhooks;
}
