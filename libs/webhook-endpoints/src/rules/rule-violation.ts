/** A broken rule on one field of a request, in words a client developer can act on. */
export interface RuleViolation {
  field: string;
  detail: string;
}
