import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One row of the append-only log. Rows are only ever inserted. */
@Entity({ name: 'events' })
@Index('events_stream_version_key', ['streamId', 'version'], { unique: true })
export class StoredEvent {
  /** Global order of the log; a bigint, read as a string to keep its precision. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  position!: string;

  @Column({ name: 'stream_id', type: 'text' })
  streamId!: string;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'jsonb' })
  data!: Record<string, unknown>;

  @Column({ type: 'jsonb', default: () => "'{}'::jsonb" })
  metadata!: Record<string, unknown>;

  @Column({ name: 'recorded_at', type: 'timestamptz', default: () => 'now()' })
  recordedAt!: Date;
}
