import { Command } from 'commander';
import { migrateDatabase } from '@svc/database';
import { cliConfig, CliIo, report } from '../cli-context';

export function migrateCommand(io: CliIo, json: () => boolean): Command {
  return new Command('migrate')
    .description('apply pending database migrations and make the partitions of delivery data ahead')
    .action(async () => {
      const config = cliConfig(io);
      // The partitions of delivery data the apps will write into, made before they start.
      const applied = await migrateDatabase(config.database.url, config.retention);
      report(
        io,
        json(),
        { applied },
        applied.length > 0 ? applied.map((name) => `applied ${name}`) : ['schema is up to date'],
      );
    });
}
