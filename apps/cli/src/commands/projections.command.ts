import { Command } from 'commander';
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
      const endpoints = await withDatabase(io, (db) =>
        db.transaction((manager) => rebuildEndpointProjection(manager)),
      );
      report(io, json(), { webhook_endpoints: endpoints }, [
        `rebuilt webhook_endpoints: ${endpoints} rows`,
      ]);
    });
  return projections;
}
