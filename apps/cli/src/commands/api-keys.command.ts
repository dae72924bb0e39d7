import { Command } from 'commander';
import { isId, parseScopeList, SCOPES } from '@svc/contracts';
import { ApiKey, ApiKeysService } from '@svc/identity';
import { TenantsService } from '@svc/tenants';
import { CliError, CliIo, report, withDatabase } from '../cli-context';

const view = (key: ApiKey) => ({
  id: key.id,
  tenant_id: key.tenantId,
  environment: key.environment,
  scopes: key.scopes,
  key_hint: `svc_${key.environment}_...${key.keyHint}`,
  created_at: key.createdAt.toISOString(),
  revoked_at: key.revokedAt?.toISOString() ?? null,
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
});

export function apiKeysCommand(io: CliIo, json: () => boolean): Command {
  const apiKeys = new Command('api-keys').description('manage API keys');
  apiKeys
    .command('create')
    .description('create an API key for a tenant; the key is printed once and never stored')
    .requiredOption('--tenant <tenant_id>', 'the tenant the key acts for')
    .requiredOption('--scopes <scopes>', `comma-separated scopes: ${SCOPES.join(', ')}`)
    .option(
      '--sandbox',
      'make a sandbox key (svc_test_...) instead of a production key (svc_live_...)',
    )
    .action(async (options: { tenant: string; scopes: string; sandbox?: boolean }) => {
      const { scopes, unknown } = parseScopeList(options.scopes);
      if (unknown.length > 0) {
        throw new CliError(
          `unknown scopes: ${unknown.join(', ')}; known scopes: ${SCOPES.join(', ')}`,
          2,
        );
      }
      if (scopes.length === 0) {
        throw new CliError('name at least one scope', 2);
      }
      const created = await withDatabase(io, async (db) => {
        if (!isId('ten', options.tenant) || !(await new TenantsService(db).find(options.tenant))) {
          throw new CliError(`no tenant ${options.tenant}`);
        }
        return new ApiKeysService(db).create({
          tenantId: options.tenant,
          scopes,
          environment: options.sandbox ? 'test' : 'live',
        });
      });
      report(io, json(), { ...view(created.record), key: created.key }, [
        `created API key ${created.record.id} for tenant ${created.record.tenantId}`,
        `scopes: ${created.record.scopes.join(' ')}`,
        '',
        `  ${created.key}`,
        '',
        'Store it now: it is shown only this once.',
      ]);
    });
  apiKeys
    .command('revoke')
    .description('revoke an API key; requests with it fail from now on')
    .requiredOption('--id <key_id>', 'the key id (key_...) shown at creation and by list')
    .action(async (options: { id: string }) => {
      const revoked = await withDatabase(io, async (db) => {
        const service = new ApiKeysService(db);
        await service.revoke(options.id);
        return isId('key', options.id) ? service.find(options.id) : null;
      });
      if (!revoked) {
        throw new CliError(`no API key ${options.id}`);
      }
      report(io, json(), view(revoked), [
        `revoked ${revoked.id} at ${revoked.revokedAt?.toISOString()}`,
      ]);
    });
  apiKeys
    .command('list')
    .description("list a tenant's API keys (never the keys themselves)")
    .requiredOption('--tenant <tenant_id>', 'the tenant')
    .action(async (options: { tenant: string }) => {
      const keys = await withDatabase(io, (db) =>
        new ApiKeysService(db).listForTenant(options.tenant),
      );
      report(
        io,
        json(),
        { data: keys.map(view) },
        keys.map(
          (key) =>
            `${key.id}  ${view(key).key_hint}  ${key.revokedAt ? 'revoked' : 'active'}  ${key.scopes.join(' ')}`,
        ),
      );
    });
  return apiKeys;
}
