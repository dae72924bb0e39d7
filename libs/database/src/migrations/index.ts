import { Foundation1763740000000 } from './1763740000000-foundation';

/** Every migration in order. The schema comes from these only; `synchronize` stays off. */
export const MIGRATIONS = [Foundation1763740000000];

export const MIGRATIONS_TABLE = 'schema_migrations';
