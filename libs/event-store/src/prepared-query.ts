import { createHash } from 'node:crypto';
import { DataSource, QueryFailedError } from 'typeorm';
import { connectionPoolOf } from './connection-pool';

/**
 * Runs a statement as a named prepared statement of `pg`: each connection parses and plans it
 * once, and PostgreSQL keeps its generic plan. For the statements run once or more per delivery
 * (the stored-body check, the group commit). Planning them each time cost more of PostgreSQL's
 * time than running them: every partition of the delivery tables is planned, as their lookups
 * cannot name one (docs/performance, ADR 0033).
 *
 * The name is the text's hash, so one text is one statement on every connection, and a
 * statement built from parts gets a name per shape. Errors are TypeORM's, as from
 * `dataSource.query`, so that callers tell them apart alike.
 */
export async function preparedQuery<Row>(
  dataSource: DataSource,
  text: string,
  values: unknown[],
): Promise<Row[]> {
  const pool = connectionPoolOf(dataSource)!;
  const name = statementName(text);
  try {
    const result = await pool.query({ name, text, values });
    return result.rows as Row[];
  } catch (error) {
    throw error instanceof Error && 'code' in error
      ? new QueryFailedError(text, values, error)
      : error;
  }
}

/** Names by text: a few dozen shapes, each hashed once rather than at every delivery. */
const names = new Map<string, string>();
const MAX_NAMES = 1000;

function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMES) {
      // More shapes than any caller makes: a bug elsewhere must not grow memory without bound.
      names.clear();
    }
    name = `svc_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}
