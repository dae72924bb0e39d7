import { decodeTime } from 'ulid';
import { ID_PREFIXES, isId } from './ids';

/**
 * Delivery data expires (ADR 0023); the history of endpoints, tenants, keys and grants is kept.
 * Streams whose ids carry these prefixes are delivery data: a delivery's events, and the record of
 * a message the engine refused.
 */
export const EXPIRING_STREAM_PREFIXES = [ID_PREFIXES.delivery, ID_PREFIXES.rejection] as const;

/**
 * The instant a row's retention counts from: the creation time of its stream, read from the
 * ULID of the stream's id, for delivery data; null for history that is kept. The same id always
 * gives the same key, so every event of one stream lands in one partition, and uniqueness within
 * a partition is uniqueness of the stream.
 */
export function retentionKeyOf(streamId: string): Date | null {
  for (const prefix of EXPIRING_STREAM_PREFIXES) {
    if (isId(prefix, streamId)) {
      return new Date(decodeTime(streamId.slice(prefix.length + 1)));
    }
  }
  return null;
}

/** The key as PostgreSQL stores it: kept history sorts before every partition of delivery data. */
export function retentionKeyColumn(streamId: string): string {
  return retentionKeyOf(streamId)?.toISOString() ?? '-infinity';
}

/**
 * When an event's delivery data counts from: the publisher's `created_at`, so that every copy of
 * one event gets the same delivery ids and partition, unless it lies outside the window of
 * partitions that surely exist (half the retention back, one partition ahead); then the time
 * the engine took it.
 */
export function eventRetentionTime(
  createdAt: string,
  receivedAt: Date,
  window: { retentionMs: number; partitionWidthMs: number },
): Date {
  const created = Date.parse(createdAt);
  const now = receivedAt.getTime();
  const inWindow =
    Number.isFinite(created) &&
    created >= now - window.retentionMs / 2 &&
    created <= now + window.partitionWidthMs;
  return inWindow ? new Date(created) : receivedAt;
}
