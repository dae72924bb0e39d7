/**
 * The example receiver as a process: `node dist/apps/receiver-example/src/main.js` after
 * `npm run build`. Configuration: RECEIVER_SECRET and/or RECEIVER_JWKS_URL (one is required),
 * RECEIVER_PREVIOUS_SECRET, RECEIVER_PORT (default 9000),
 * RECEIVER_TLS_CERT and RECEIVER_TLS_KEY (PEM file paths; HTTPS when both are set),
 * RECEIVER_GAP_WINDOW (default 45m: when a missing X-SVC-Sequence number is logged).
 */
import { readFileSync } from 'node:fs';
import { readReceiverConfig, ReceiverConfig, ReceiverConfigError } from './config';
import { SequenceGapAlerts } from './sequence-gap-alerts';
import {
  ATTEMPT_HEADER,
  createReceiver,
  DELIVERY_ID_HEADER,
  jwksKeySource,
} from '@svc/webhook-receiver';

/** The same exit code as the service's apps use for bad configuration (EX_CONFIG). */
const EXIT_CONFIG = 78;

function log(level: 'info' | 'warn' | 'error', msg: string, fields: object = {}): void {
  const stream = level === 'info' ? process.stdout : process.stderr;
  stream.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
}

function fail(message: string): never {
  log('error', message);
  process.exit(EXIT_CONFIG);
}

function loadConfig(): ReceiverConfig {
  try {
    return readReceiverConfig(process.env);
  } catch (error) {
    if (error instanceof ReceiverConfigError) {
      fail(error.message);
    }
    throw error;
  }
}

function readPem(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    fail(`${variable}: cannot read ${path}: ${(error as Error).message}`);
  }
}

function main(): void {
  const config = loadConfig();
  const tls = config.tls && {
    cert: readPem('RECEIVER_TLS_CERT', config.tls.certFile),
    key: readPem('RECEIVER_TLS_KEY', config.tls.keyFile),
  };
  if (!tls) {
    log(
      'warn',
      'RECEIVER_TLS_CERT and RECEIVER_TLS_KEY are unset, so this serves plain HTTP: fine for ' +
        'local development only. Production receivers must be HTTPS; the service delivers only ' +
        'to https:// URLs.',
    );
  }

  const gapAlerts = new SequenceGapAlerts(config.gapWindowMs, log);
  const server = createReceiver({
    ...(config.secret !== undefined && {
      secret: config.previousSecret ? [config.secret, config.previousSecret] : config.secret,
    }),
    ...(config.jwksUrl !== undefined && { jwks: jwksKeySource(config.jwksUrl) }),
    tls,
    onEvent: (event, delivery) => {
      // Before the work, which may throw: the delivery arrived either way.
      gapAlerts.note(delivery);
      // Replace with the real work; it runs after the 200 has been sent.
      log('info', 'event processed', {
        event_id: event.id,
        event_type: event.type,
        tenant_id: event.tenant_id,
        delivery_id: delivery.headers[DELIVERY_ID_HEADER],
        attempt: delivery.headers[ATTEMPT_HEADER],
        sequence: delivery.sequence,
        verified_by: delivery.verification.verified,
      });
    },
    onError: (error, event) => {
      log('error', 'processing an event failed', {
        event_id: event.id,
        error: error instanceof Error ? error.message : String(error),
      });
    },
  });

  server.on('error', (error) => {
    log('error', `the server failed: ${error.message}`);
    process.exit(1);
  });
  const stopGapChecks = gapAlerts.checkPeriodically();
  server.listen(config.port, () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    log('info', `receiving webhooks on ${tls ? 'https' : 'http'}://localhost:${port}/`);
  });

  const stop = (signal: NodeJS.Signals): void => {
    log('info', `${signal}: finishing the events already accepted, then stopping`);
    // Requests still being read may yet accept events, so drain only once every connection ended.
    stopGapChecks();
    server.close(
      () =>
        void server.drain().then(() => {
          gapAlerts.check();
          process.exit(0);
        }),
    );
    setTimeout(() => server.closeAllConnections(), 10_000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main();
