import { Command, Option } from 'commander';
import {
  DEFAULT_ENDPOINT_ORDERING,
  ENDPOINT_ORDERINGS,
  EndpointOrdering,
  EVENT_FAMILIES,
  isSignatureScheme,
  SignatureScheme,
  SIGNATURE_SCHEMES,
} from '@svc/contracts';
import {
  issueLoopbackServerCertificate,
  loadOrCreateLocalCa,
  localDataDir,
} from '@svc/local-development';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  ATTEMPT_HEADER,
  createReceiver,
  DEFAULT_GAP_WINDOW_MS,
  DELIVERY_ID_HEADER,
  DeliveryInfo,
  jwksKeySource,
  WebhookEvent,
} from '@svc/webhook-receiver';
import ms from 'ms';
import { ApiClient, apiSettingsOf, DEFAULT_API_URL, describeProblem } from '../api-client';
import { CliError, CliIo } from '../cli-context';
import { gapWindowMsOf, SequenceGapReport } from './listen-gaps';

interface ListenOptions {
  apiKey?: string;
  apiUrl?: string;
  events: string;
  port: string;
  keep?: boolean;
  signatureSchemes: string;
  /** Checked by the option's choices. */
  ordering: EndpointOrdering;
  gapWindow: string;
}

const ALL_FAMILIES = EVENT_FAMILIES.map((family) => `${family}.*`).join(',');

/** The schemes whose signatures verified, in the order the API lists schemes. */
function verifiedSchemesOf(delivery: DeliveryInfo): SignatureScheme[] {
  return SIGNATURE_SCHEMES.filter((scheme) => delivery.verification.schemes.includes(scheme));
}

/** A line per delivery, as a person reads it. */
export function describeDelivery(
  delivery: DeliveryInfo,
  event?: Pick<WebhookEvent, 'id' | 'type'>,
): string {
  const header = (name: string) => String(delivery.headers[name] ?? '?');
  const schemes = verifiedSchemesOf(delivery);
  return [
    delivery.receivedAt.toISOString().slice(11, 19),
    event?.id ?? header('x-svc-event-id'),
    event?.type ?? header('x-svc-event-type'),
    `attempt ${header(ATTEMPT_HEADER)}`,
    ...(delivery.sequence === undefined ? [] : [`seq ${delivery.sequence}`]),
    schemes.length > 0
      ? `signature ok (${schemes.join(', ')})`
      : 'signature NOT verified (answered 401)',
    header(DELIVERY_ID_HEADER),
  ].join('  ');
}

/** The --signature-schemes list, checked as the API would (a non-empty subset, no repeats). */
export function parseSignatureSchemes(list: string): SignatureScheme[] {
  const names = list.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !isSignatureScheme(name));
  if (names.length === 0 || unknown.length > 0 || new Set(names).size !== names.length) {
    throw new CliError(
      `--signature-schemes: give one or both of ${SIGNATURE_SCHEMES.join(', ')}, comma-separated` +
        (unknown.length > 0 ? ` (unknown: ${unknown.join(', ')})` : ''),
      2,
    );
  }
  return names as SignatureScheme[];
}

/** --ordering, with the API's values and default; commander refuses any other (exit 2). */
function orderingOption(): Option {
  return new Option(
    '--ordering <ordering>',
    'the order deliveries are sent in: fifo (one at a time in sequence order, the next waiting ' +
      'until the one before has succeeded or been abandoned) or unordered',
  )
    .choices(ENDPOINT_ORDERINGS)
    .default(DEFAULT_ENDPOINT_ORDERING);
}

interface Registered {
  id: string;
  url: string;
  events: string[];
}

/** The registration API, with errors a person at the terminal can act on. */
class RegistrationApi {
  constructor(private readonly api: ApiClient) {}

  async register(
    url: string,
    events: string[],
    secret: string,
    signatureSchemes: SignatureScheme[],
    ordering: EndpointOrdering,
  ): Promise<Registered> {
    return this.api.json<Registered>('POST', '/v1/webhooks', 'registering the listener', {
      url,
      events,
      secret,
      signature_schemes: signatureSchemes,
      ordering,
    });
  }

  async remove(id: string): Promise<void> {
    const response = await this.api.call('DELETE', `/v1/webhooks/${id}`);
    if (response.status !== 204 && response.status !== 404) {
      throw new CliError(
        `removing ${id} failed: ${describeProblem(response.status, await response.text())}`,
      );
    }
  }
}

/** The options checked, with the environment's and the local stack's defaults filled in. */
function listenSettingsOf(options: ListenOptions, io: CliIo) {
  const { apiKey, apiUrl } = apiSettingsOf(options, io);
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CliError('--port: must be a port number from 0 to 65535', 2);
  }
  const events = options.events.split(',').map((type) => type.trim());
  const signatureSchemes = parseSignatureSchemes(options.signatureSchemes);
  const gapWindowMs = gapWindowMsOf(options.gapWindow);
  return {
    apiKey,
    port,
    apiUrl,
    events,
    signatureSchemes,
    ordering: options.ordering,
    gapWindowMs,
  };
}

export function listenCommand(io: CliIo, json: () => boolean): Command {
  return new Command('listen')
    .description(
      'receive webhooks on this machine: serve HTTPS with a certificate of the local CA, register ' +
        'it as an endpoint, print each delivery with its signature check (local stack only)',
    )
    .option('--api-key <key>', 'an API key with webhooks:manage (default: $SVC_API_KEY)')
    .option(
      '--api-url <url>',
      `the registration API (default: the local stack's, or ${DEFAULT_API_URL})`,
    )
    .option(
      '--events <types>',
      'comma-separated event types or families to subscribe to',
      ALL_FAMILIES,
    )
    .option('--port <port>', 'the HTTPS port to listen on (0: any free port)', '0')
    .option('--keep', 'keep the endpoint registered when stopping (default: remove it)')
    .option(
      '--signature-schemes <schemes>',
      'how deliveries are signed: hmac-sha256 (the secret it makes), ed25519 (verified with the ' +
        "API's published keys), or both",
      SIGNATURE_SCHEMES.join(','),
    )
    .addOption(orderingOption())
    .option(
      '--gap-window <duration>',
      'warn when an X-SVC-Sequence number is still missing this long after a later one arrived: ' +
        "past the retry window (the spec's retries span 36 min 25 s)",
      ms(DEFAULT_GAP_WINDOW_MS),
    )
    .action(async (options: ListenOptions) => {
      const { apiKey, port, apiUrl, events, signatureSchemes, ordering, gapWindowMs } =
        listenSettingsOf(options, io);
      const print = (line: string, record: Record<string, unknown>) =>
        io.stdout(`${json() ? JSON.stringify(record) : line}\n`);

      const ca = await loadOrCreateLocalCa(localDataDir(io.env, io.cwd));
      const { certPem, keyPem } = await issueLoopbackServerCertificate(ca);
      const secret = randomBytes(32).toString('base64url');
      // Each scheme is checked only if the endpoint asks for it: an ed25519-only listener then
      // shows that the published keys alone verify its deliveries.
      const jwks = signatureSchemes.includes('ed25519')
        ? jwksKeySource(`${apiUrl}/.well-known/webhook-signing-keys.json`)
        : undefined;
      // Fetched once now, so that the first delivery is not the one to wait for the key set.
      await jwks?.keys();
      const gapReport = new SequenceGapReport(gapWindowMs, print);
      const server = createReceiver({
        ...(signatureSchemes.includes('hmac-sha256') && { secret }),
        ...(jwks && { jwks }),
        tls: { cert: certPem, key: keyPem },
        onEvent: (event, delivery) => {
          print(describeDelivery(delivery, event), deliveryRecord(delivery, event));
          gapReport.note(delivery);
        },
        onRejected: (delivery) => print(describeDelivery(delivery), deliveryRecord(delivery)),
      });
      server.listen(port, '127.0.0.1');
      await Promise.race([
        once(server, 'listening'),
        once(server, 'error').then(([error]) => {
          throw new CliError(`cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`);
        }),
      ]);
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const api = new RegistrationApi(new ApiClient(apiUrl, apiKey));
      const stopGapChecks = gapReport.checkPeriodically();
      try {
        const endpoint = await api.register(url, events, secret, signatureSchemes, ordering);
        gapReport.forEndpoint(endpoint.id);
        print(
          ...listeningBanner({
            url,
            ca: ca.certFile,
            apiUrl,
            endpoint,
            signatureSchemes,
            options,
            gapWindowMs,
          }),
        );
        await io.untilStopped();
        stopGapChecks();
        gapReport.reportAtExit();
        if (!options.keep) {
          await api.remove(endpoint.id);
          print(`removed endpoint ${endpoint.id}`, { removed: endpoint.id });
        }
      } finally {
        stopGapChecks();
        server.close();
        server.closeAllConnections();
      }
    });
}

/** What the person reads once the listener is registered, and the same as JSON. */
function listeningBanner(listener: {
  url: string;
  ca: string;
  apiUrl: string;
  endpoint: Registered;
  signatureSchemes: SignatureScheme[];
  options: Pick<ListenOptions, 'keep' | 'ordering'>;
  gapWindowMs: number;
}): [string, Record<string, unknown>] {
  const { url, endpoint, signatureSchemes, gapWindowMs } = listener;
  const { ordering } = listener.options;
  const attempts = `${listener.apiUrl}/v1/webhooks/${endpoint.id}/attempts`;
  return [
    [
      `listening on ${url} (certificate from the local CA, ${listener.ca})`,
      `registered endpoint ${endpoint.id} for ${endpoint.events.join(', ')}, signed with ${signatureSchemes.join(', ')}${ordering === 'fifo' ? ', ordering fifo' : ''}`,
      `its attempts: curl -s ${attempts} -H "Authorization: Bearer <your API key>"`,
      `a missing X-SVC-Sequence number is reported once ${ms(gapWindowMs, { long: true })} have passed (--gap-window)`,
      `waiting for deliveries; Ctrl-C stops${listener.options.keep ? '' : ' and removes the endpoint'}`,
    ].join('\n'),
    {
      listening: url,
      endpoint_id: endpoint.id,
      events: endpoint.events,
      signature_schemes: signatureSchemes,
      ordering,
      attempts_url: attempts,
      gap_window_ms: gapWindowMs,
    },
  ];
}

function deliveryRecord(delivery: DeliveryInfo, event?: WebhookEvent): Record<string, unknown> {
  const schemes = verifiedSchemesOf(delivery);
  return {
    received_at: delivery.receivedAt.toISOString(),
    event_id: event?.id ?? delivery.headers['x-svc-event-id'],
    type: event?.type ?? delivery.headers['x-svc-event-type'],
    attempt: Number(delivery.headers[ATTEMPT_HEADER]),
    sequence: delivery.sequence ?? null,
    delivery_id: delivery.headers[DELIVERY_ID_HEADER],
    signature: schemes.length > 0 ? 'verified' : 'invalid',
    signatures_verified: schemes,
  };
}
