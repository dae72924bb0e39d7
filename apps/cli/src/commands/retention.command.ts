import { Command } from 'commander';
import { maintainPartitions } from '@svc/database';
import { cliConfig, CliIo, report, withDatabase } from '../cli-context';

/**
 * `svc retention run`: what the delivery engine does every few minutes (ADR 0023), once, now:
 * for a CronJob where engines do not run it, or for an operator checking the partitions.
 */
export function retentionCommand(io: CliIo, json: () => boolean): Command {
  const retention = new Command('retention').description(
    'keep delivery data bounded: time partitions made ahead, expired ones dropped',
  );
  retention
    .command('run')
    .description(
      'make the partitions ahead and drop those past DELIVERY_DATA_RETENTION (skipped while another process does it)',
    )
    .action(async () => {
      const settings = cliConfig(io).retention;
      const result = await withDatabase(io, (db) => maintainPartitions(db, settings));
      report(
        io,
        json(),
        result,
        result.ran
          ? [
              `created ${result.created.length} partitions${result.created.length ? `: ${result.created.join(', ')}` : ''}`,
              `dropped ${result.dropped.length} partitions${result.dropped.length ? `: ${result.dropped.join(', ')}` : ''}`,
              `oldest delivery data kept from ${result.oldestRetained?.toISOString() ?? '(none)'}`,
            ]
          : ['skipped: another process holds the maintenance lock and does the work'],
      );
    });
  return retention;
}
