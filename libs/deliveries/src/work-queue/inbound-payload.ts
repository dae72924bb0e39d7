/** The event exactly as received, stored before its first delivery is attempted (ADR 0045). */
export interface InboundPayload {
  eventId: string;
  tenantId: string;
  type: string;
  body: string;
  traceContext: Record<string, string> | null;
  /**
   * The body's retention key, the same as its deliveries' (ADR 0023: `eventRetentionTime`). One
   * value for every copy of the event, so the body is stored once.
   */
  retentionKey: Date;
}
