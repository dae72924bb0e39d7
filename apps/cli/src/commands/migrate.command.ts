import { Command } from 'commander';
import { migrateDatabase } from '@svc/database';
import { cliConfig, CliIo, report } from '../cli-context';

export function migrateCommand(io: CliIo, json: () => boolean): Command {
  return new Command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const applied = await migrateDatabase(cliConfig(io).database.url);
      report(
        io,
        json(),
        { applied },
        applied.length > 0 ? applied.map((name) => `applied ${name}`) : ['schema is up to date'],
      );
    });
}
