import { Section } from '../section';
import { authorizationServer, tokenKeys, tokens } from './auth';
import { consoleSettings } from './console';
import { database } from './database';
import { delivery, deliveryTimeout, fairness } from './delivery';
import { apiClients, apiPorts, authPorts, deliveryPort, httpLimits, listen } from './http';
import { localStack } from './local-stack';
import { jetstream, nats, subjects } from './messaging';
import { tracing } from './observability';
import { retention } from './retention';
import { logging, runtime } from './runtime';
import { secrets } from './secrets';
import { webhookAddresses, webhookBatches } from './webhooks';

export * from './auth';
export * from './console';
export * from './database';
export * from './delivery';
export * from './http';
export * from './local-stack';
export * from './messaging';
export * from './observability';
export * from './retention';
export * from './runtime';
export * from './secrets';
export * from './webhooks';

/** A concern of the configuration, one file under settings/: a part of docs/configuration.md. */
export interface Concern {
  title: string;
  /** Its file under libs/config/src/settings. */
  file: string;
  sections: readonly Section<unknown>[];
}

/** In the order docs/configuration.md lists them; a variable is listed where it first appears. */
export const CONCERNS: readonly Concern[] = [
  { title: 'Runtime and logging', file: 'runtime.ts', sections: [runtime, logging] },
  {
    title: 'HTTP servers',
    file: 'http.ts',
    sections: [listen, apiPorts, apiClients, authPorts, deliveryPort, httpLimits],
  },
  { title: 'Database', file: 'database.ts', sections: [database] },
  {
    title: 'Messaging: NATS and JetStream',
    file: 'messaging.ts',
    sections: [nats, subjects, jetstream],
  },
  { title: 'Secrets', file: 'secrets.ts', sections: [secrets] },
  { title: 'Webhooks', file: 'webhooks.ts', sections: [webhookAddresses, webhookBatches] },
  {
    title: 'Delivery and intake lanes',
    file: 'delivery.ts',
    sections: [deliveryTimeout, delivery, fairness],
  },
  { title: 'Retention', file: 'retention.ts', sections: [retention] },
  { title: 'Authentication', file: 'auth.ts', sections: [tokens, tokenKeys, authorizationServer] },
  { title: 'Tenant console', file: 'console.ts', sections: [consoleSettings] },
  { title: 'Observability', file: 'observability.ts', sections: [tracing] },
];

/** Only for `npm start` (tools/local-stack). */
export const LOCAL_STACK_CONCERN: Concern = {
  title: 'Only for `npm start`',
  file: 'local-stack.ts',
  sections: [localStack],
};
