import { Command } from 'commander';
import { isId, parseScopeList, SCOPES } from '@svc/contracts';
import { InvalidUserError, UsersService } from '@svc/oauth';
import { TenantsService } from '@svc/tenants';
import { asUsageError, CliError, CliIo, report, withDatabase } from '../cli-context';

/** The password as piped in: one trailing line break is the terminal's, not the password's. */
const passwordFrom = (input: string) => input.replace(/\r?\n$/, '');

export function usersCommand(io: CliIo, json: () => boolean): Command {
  const users = new Command('users').description(
    'manage the people who sign in to the authorization server',
  );
  users
    .command('create')
    .description('create a user; the password is read from standard input')
    .requiredOption('--email <email>', 'the sign-in name')
    .requiredOption('--tenant <tenant_id>', 'the tenant the user acts in')
    .requiredOption(
      '--scopes <scopes>',
      `the most a grant may carry, comma-separated: ${SCOPES.join(', ')}`,
    )
    .action(async (options: { email: string; tenant: string; scopes: string }) => {
      const { scopes, unknown } = parseScopeList(options.scopes);
      if (unknown.length > 0) {
        throw new CliError(
          `unknown scopes: ${unknown.join(', ')}; known scopes: ${SCOPES.join(', ')}`,
          2,
        );
      }
      const password = passwordFrom(await io.stdin());
      const user = await withDatabase(io, async (db) => {
        if (!isId('ten', options.tenant) || !(await new TenantsService(db).find(options.tenant))) {
          throw new CliError(`no tenant ${options.tenant}`);
        }
        return new UsersService(db)
          .create({ tenantId: options.tenant, email: options.email, password, scopes })
          .catch(asUsageError(InvalidUserError));
      });
      const view = {
        id: user.id,
        tenant_id: user.tenantId,
        email: user.email,
        scopes: user.allowedScopes,
        created_at: user.createdAt.toISOString(),
      };
      report(io, json(), view, [
        `created user ${user.id} (${user.email}) in tenant ${user.tenantId}`,
      ]);
    });
  return users;
}
