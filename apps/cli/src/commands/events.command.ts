import { Command } from 'commander';
import { connect } from '@nats-io/transport-node';
import { EVENT_TYPES, type EventEnvelope, type EventType, SubjectScheme } from '@svc/contracts';
import { EventPublisher, InvalidEnvelopeError, newEventEnvelope } from '@svc/event-publisher';
import { natsConnectOptions } from '@svc/messaging';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CliError, CliIo, cliNatsConfig, report } from '../cli-context';

interface PublishOptions {
  tenant: string;
  type: string;
  data?: string;
  dataFile?: string;
  id?: string;
  createdAt?: string;
}

/** How long to wait for NATS before telling the person it is not there. */
const CONNECT_TIMEOUT_MS = 5000;

/** The envelope the options describe; every problem is a usage error naming the option. */
export async function envelopeFromOptions(
  options: PublishOptions,
  cwd: string,
): Promise<EventEnvelope> {
  if (!(EVENT_TYPES as readonly string[]).includes(options.type)) {
    throw new CliError(
      `--type: unknown event type ${options.type}; known types: ${EVENT_TYPES.join(', ')}`,
      2,
    );
  }
  if ((options.data === undefined) === (options.dataFile === undefined)) {
    throw new CliError('give the event data with either --data or --data-file (not both)', 2);
  }
  const [source, text] =
    options.data !== undefined
      ? ['--data', options.data]
      : [
          '--data-file',
          await readFile(resolve(cwd, options.dataFile as string), 'utf8').catch((error: Error) => {
            throw new CliError(`--data-file: cannot read ${options.dataFile}: ${error.message}`, 2);
          }),
        ];
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${source}: not JSON (${(error as Error).message})`, 2);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new CliError(`${source}: must be a JSON object (the full resource of the event)`, 2);
  }
  const envelope = newEventEnvelope(
    options.tenant,
    options.type as EventType,
    data as Record<string, unknown>,
  );
  return {
    ...envelope,
    ...(options.id !== undefined ? { id: options.id } : {}),
    ...(options.createdAt !== undefined ? { created_at: options.createdAt } : {}),
  };
}

export function eventsCommand(io: CliIo, json: () => boolean): Command {
  const events = new Command('events').description('publish security events');
  events
    .command('publish')
    .description(
      'publish one event to NATS JetStream, as a producing service does (validated, Nats-Msg-Id = event id)',
    )
    .requiredOption('--tenant <tenant_id>', 'the tenant the event belongs to (ten_...)')
    .requiredOption('--type <type>', `the event type: ${EVENT_TYPES.join(', ')}`)
    .option('--data <json>', 'the event data: a JSON object (the full resource)')
    .option('--data-file <file>', 'read the event data from this JSON file instead')
    .option('--id <event_id>', 'the event id (default: a new evt_ id); reuse it to retry safely')
    .option('--created-at <time>', 'ISO 8601 UTC time of the event (default: now)')
    .action(async (options: PublishOptions) => {
      const envelope = await envelopeFromOptions(options, io.cwd);
      const { nats, subjectRoot } = cliNatsConfig(io);
      const subjects = new SubjectScheme(subjectRoot);
      const connection = await connect(
        natsConnectOptions(nats, 'svc-cli', {
          timeout: CONNECT_TIMEOUT_MS,
          maxReconnectAttempts: 0,
        }),
      ).catch((error: Error) => {
        throw new CliError(
          `cannot reach NATS at ${nats.servers.join(', ')} (${error.message}); is the stack running? NATS_URL chooses the server`,
        );
      });
      try {
        const published = await new EventPublisher(connection, subjects)
          .publish(envelope)
          .catch((error: unknown) => {
            throw error instanceof InvalidEnvelopeError
              ? new CliError(`the event is not valid: ${error.problems.join('; ')}`, 2)
              : new CliError(`publishing failed: ${(error as Error).message}`);
          });
        const subject = subjects.event(envelope.tenant_id, envelope.type);
        report(io, json(), { subject, ...published, event: envelope }, [
          `${published.duplicate ? 'already stored (duplicate id)' : 'published'} ${envelope.id} (${envelope.type}) for ${envelope.tenant_id}`,
          `subject ${subject}, stream ${published.stream}, sequence ${published.seq}`,
        ]);
      } finally {
        await connection.drain().catch(() => connection.close());
      }
    });
  return events;
}
