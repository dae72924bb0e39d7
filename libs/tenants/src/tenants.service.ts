import { newId } from '@svc/contracts';
import { DataSource } from 'typeorm';
import { Tenant } from './tenant.entity';

export const TENANT_NAME_MAX_LENGTH = 200;

export class InvalidTenantNameError extends Error {}

export class TenantsService {
  constructor(private readonly dataSource: DataSource) {}

  async create(name: string): Promise<Tenant> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > TENANT_NAME_MAX_LENGTH) {
      throw new InvalidTenantNameError(
        `a tenant name is 1 to ${TENANT_NAME_MAX_LENGTH} characters`,
      );
    }
    const tenant = this.dataSource
      .getRepository(Tenant)
      .create({ id: newId('ten'), name: trimmed });
    return this.dataSource.getRepository(Tenant).save(tenant);
  }

  find(id: string): Promise<Tenant | null> {
    return this.dataSource.getRepository(Tenant).findOneBy({ id });
  }

  list(): Promise<Tenant[]> {
    return this.dataSource.getRepository(Tenant).find({ order: { id: 'ASC' } });
  }
}
