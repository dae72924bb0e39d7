import { Command, CommanderError } from 'commander';
import { ConfigError } from '@svc/config';
import { CliError, CliIo } from './cli-context';
import { apiKeysCommand } from './commands/api-keys.command';
import { eventsCommand } from './commands/events.command';
import { listenCommand } from './commands/listen.command';
import { migrateCommand } from './commands/migrate.command';
import { oauthClientsCommand } from './commands/oauth-clients.command';
import { projectionsCommand } from './commands/projections.command';
import { retentionCommand } from './commands/retention.command';
import { signingKeysCommand } from './commands/signing-keys.command';
import { tenantsCommand } from './commands/tenants.command';
import { usersCommand } from './commands/users.command';
import { webhooksCommand } from './commands/webhooks.command';

/**
 * The admin CLI: `svc [--json] <command>`. Returns the exit code: 0 done, 1 failed, 2 bad usage,
 * 78 bad configuration. Errors go to stderr (as {"error": ...} with --json).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = new Command('svc')
    .description('svc webhooks administration')
    .option('--json', 'print results as JSON (allowed anywhere on the line)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const json = () => argv.includes('--json');
  for (const command of [
    migrateCommand,
    tenantsCommand,
    apiKeysCommand,
    usersCommand,
    oauthClientsCommand,
    projectionsCommand,
    retentionCommand,
    signingKeysCommand,
    eventsCommand,
    listenCommand,
    webhooksCommand,
  ]) {
    program.addCommand(command(io, json));
  }
  for (const command of program.commands) {
    command.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
    for (const sub of command.commands) {
      sub.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
    }
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    const [message, code] =
      error instanceof CliError
        ? [error.message, error.exitCode]
        : error instanceof ConfigError
          ? [error.message, 78]
          : [`unexpected failure: ${(error as Error).message}`, 1];
    io.stderr(json() ? `${JSON.stringify({ error: message })}\n` : `svc: ${message}\n`);
    return code;
  }
}
