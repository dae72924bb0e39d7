import { Command } from 'commander';
import { rebuildDeliveryProjections } from '@svc/deliveries';
import { rebuildEndpointProjection } from '@svc/webhook-endpoints';
import { CliIo, report, withDatabase } from '../cli-context';

export function projectionsCommand(io: CliIo, json: () => boolean): Command {
  const projections = new Command('projections').description(
    'manage the read models derived from the event log',
  );
  projections
    .command('rebuild')
    .description(
      'drop the projections and replay the whole event log into them, in one transaction',
    )
    .action(async () => {
      const rebuilt = await withDatabase(io, (db) =>
        db.transaction(async (manager) => {
          // Serialises with the engines' and the API's writers for the few seconds this takes.
          await manager.query(
            'LOCK TABLE webhook_endpoints, deliveries, delivery_attempts, delivery_schedule IN EXCLUSIVE MODE',
          );
          const endpoints = await rebuildEndpointProjection(manager);
          const deliveries = await rebuildDeliveryProjections(manager);
          return { webhook_endpoints: endpoints, ...deliveries };
        }),
      );
      report(io, json(), rebuilt, [
        `rebuilt webhook_endpoints: ${rebuilt.webhook_endpoints} rows`,
        `rebuilt deliveries: ${rebuilt.deliveries} rows, delivery_attempts: ${rebuilt.attempts} rows, scheduled: ${rebuilt.scheduled}`,
      ]);
    });
  return projections;
}
