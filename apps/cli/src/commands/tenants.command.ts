import { Command } from 'commander';
import { InvalidTenantNameError, Tenant, TenantsService } from '@svc/tenants';
import { asUsageError, CliIo, report, withDatabase } from '../cli-context';

const view = (tenant: Tenant) => ({
  id: tenant.id,
  name: tenant.name,
  created_at: tenant.createdAt.toISOString(),
});

export function tenantsCommand(io: CliIo, json: () => boolean): Command {
  const tenants = new Command('tenants').description('manage tenants');
  tenants
    .command('create')
    .description('create a tenant')
    .requiredOption('--name <name>', 'display name')
    .action(async (options: { name: string }) => {
      const tenant = await withDatabase(io, (db) =>
        new TenantsService(db).create(options.name).catch(asUsageError(InvalidTenantNameError)),
      );
      report(io, json(), view(tenant), [`created tenant ${tenant.id} (${tenant.name})`]);
    });
  tenants
    .command('list')
    .description('list tenants')
    .action(async () => {
      const all = await withDatabase(io, (db) => new TenantsService(db).list());
      report(
        io,
        json(),
        { data: all.map(view) },
        all.map((tenant) => `${tenant.id}  ${tenant.name}`),
      );
    });
  return tenants;
}
