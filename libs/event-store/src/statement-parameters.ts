/**
 * The parameters of one SQL statement assembled from parts (a group commit's data-modifying
 * CTEs): each part adds its values and writes the placeholder it gets back, so parts written
 * apart never clash over `$n`.
 */
export class StatementParameters {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
