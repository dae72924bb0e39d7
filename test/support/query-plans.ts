import type { DataSource } from 'typeorm';

/**
 * What the suites that prove a route's cost is bounded read from PostgreSQL's plans: the plan of
 * a statement (EXPLAIN, never run), its nodes, and the partitions of a table with their sizes.
 */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The node and every node below it. */
export const nodesOf = (node: PlanNode): PlanNode[] => [
  node,
  ...(node.Plans ?? []).flatMap(nodesOf),
];

/**
 * Pages (8 KB each) up to which a Seq Scan of a partition is the cheaper, bounded read:
 * PostgreSQL rightly reads a partition of a few pages whole rather than through an index, and
 * its cost is bounded by its size. Every larger partition must be read by an index range.
 */
export const SMALL_PARTITION_PAGES = 16;

/** The plan PostgreSQL would follow for the statement with these parameters. */
export async function planOf(
  dataSource: DataSource,
  sql: string,
  parameters: unknown[],
): Promise<PlanNode> {
  const [
    {
      'QUERY PLAN': [plan],
    },
  ] = await dataSource.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }[]>(
    `EXPLAIN (FORMAT JSON) ${sql}`,
    parameters,
  );
  return plan.Plan;
}

/** The partitions of the tables, by name, with their size in pages (as of the last ANALYZE). */
export function partitionsOf(
  dataSource: DataSource,
  ...tables: string[]
): Promise<{ name: string; pages: number }[]> {
  return dataSource.query<{ name: string; pages: number }[]>(
    `SELECT c.relname AS name, c.relpages AS pages FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = ANY (SELECT t::regclass FROM unnest($1::text[]) AS t)`,
    [tables],
  );
}
