export * from './tenant.entity';
export * from './tenants.service';
