import { Command } from 'commander';
import { refoldDeliveryProjections } from '@svc/deliveries';
import { rebuildEndpointProjection } from '@svc/webhook-endpoints';
import { CliIo, report, withDatabase } from '../cli-context';

export function projectionsCommand(io: CliIo, json: () => boolean): Command {
  const projections = new Command('projections').description(
    'manage the read models derived from the event log',
  );
  projections
    .command('rebuild')
    .description(
      'fold the projections again from the retained event log: endpoints in one transaction, deliveries in pages, while the engines run',
    )
    .option('--batch-size <events>', 'events read and written per transaction', '5000')
    .action(async (options: { batchSize: string }) => {
      const batchSize = Number(options.batchSize);
      const rebuilt = await withDatabase(io, async (db) => {
        // Endpoints are few: dropped and replayed at once, serialised with the API's writers.
        const endpoints = await db.transaction(async (manager) => {
          await manager.query('LOCK TABLE webhook_endpoints IN EXCLUSIVE MODE');
          return rebuildEndpointProjection(manager);
        });
        const deliveries = await refoldDeliveryProjections(db, {
          batchSize: Number.isInteger(batchSize) && batchSize > 0 ? batchSize : 5000,
          onProgress: ({ deliveries: done, events, elapsedMs }) =>
            io.stderr(
              `deliveries: ${done} folded from ${events} events in ${(elapsedMs / 1000).toFixed(1)} s\n`,
            ),
        });
        return {
          webhook_endpoints: endpoints,
          deliveries: deliveries.deliveries,
          attempts: deliveries.attempts,
          scheduled: deliveries.scheduled,
          orphans_removed: deliveries.orphansRemoved,
        };
      });
      report(io, json(), rebuilt, [
        `rebuilt webhook_endpoints: ${rebuilt.webhook_endpoints} rows`,
        `rebuilt deliveries: ${rebuilt.deliveries} rows, delivery_attempts: ${rebuilt.attempts} rows, scheduled: ${rebuilt.scheduled}, orphans removed: ${rebuilt.orphans_removed}`,
      ]);
    });
  return projections;
}
