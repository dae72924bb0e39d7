import type { Exposition } from './promql-names';

/**
 * Metrics the alert rules may read beyond the apps' own: those of the exporters that the
 * components of deploy/kubernetes run and components/dependency-monitors scrapes, each under its
 * own job. The apps' metrics are checked against real scrapes (monitoring-queries.e2e-spec.ts);
 * these exporters do not run here, so their names are written down from their upstream sources,
 * at the versions the components pin:
 *
 * - prometheus-nats-exporter 0.20.1 (natsio/prometheus-nats-exporter, the nats-cluster
 *   component's sidecar, run with -healthz -jsz=streams -use_internal_server_name):
 *   collector/healthz.go (gnatsd_healthz_status: 0 healthy, 1 not or unreachable;
 *   gnatsd_healthz_status_value) and collector/jsz.go (jetstream_server_* with the server
 *   labels, jetstream_stream_* with the stream labels added);
 * - CloudNativePG 1.30.0's instance manager (every PostgreSQL pod, port `metrics`):
 *   config/manager/default-monitoring.yaml (the pg_replication query: cnpg_pg_replication_lag in
 *   seconds, _in_recovery, _is_wal_receiver_up, _streaming_replicas) and
 *   pkg/management/postgres/webserver/metricserver/pg_collector.go (cnpg_collector_*).
 *
 * Only what the rules need is listed, with every label those series carry; a rule on another
 * name fails the check until it is added here from the exporter's source.
 */
export interface Exporter {
  /** The `job` label components/dependency-monitors gives its targets. */
  job: string;
  metrics: string[];
  labels: string[];
}

const NATS_SERVER_LABELS = [
  'server_id',
  'server_name',
  'cluster',
  'domain',
  'meta_leader',
  'is_meta_leader',
];
const NATS_STREAM_LABELS = [
  ...NATS_SERVER_LABELS,
  'account',
  'account_name',
  'account_id',
  'stream_name',
  'stream_leader',
  'is_stream_leader',
  'stream_raft_group',
];

export const EXPORTERS: Record<string, Exporter> = {
  'prometheus-nats-exporter': {
    job: 'svc-webhooks-nats',
    metrics: [
      'gnatsd_healthz_status',
      'gnatsd_healthz_status_value',
      'jetstream_server_jetstream_disabled',
      'jetstream_server_total_streams',
      'jetstream_server_total_consumers',
      'jetstream_server_total_messages',
      'jetstream_server_total_message_bytes',
      'jetstream_server_max_memory',
      'jetstream_server_max_storage',
      'jetstream_stream_total_messages',
      'jetstream_stream_total_bytes',
      'jetstream_stream_first_seq',
      'jetstream_stream_last_seq',
      'jetstream_stream_consumer_count',
    ],
    labels: [...NATS_STREAM_LABELS, 'value'],
  },
  cloudnative_pg: {
    job: 'svc-webhooks-pg',
    metrics: [
      'cnpg_pg_replication_lag',
      'cnpg_pg_replication_in_recovery',
      'cnpg_pg_replication_is_wal_receiver_up',
      'cnpg_pg_replication_streaming_replicas',
      'cnpg_collector_up',
      'cnpg_collector_sync_replicas',
      'cnpg_collector_fencing_on',
      'cnpg_collector_nodes_used',
    ],
    labels: ['cluster', 'value'],
  },
};

/** The exporters' names, as an exposition the names check adds to the apps' scrapes. */
export function exportersExposition(): Exposition {
  return {
    metrics: new Set(Object.values(EXPORTERS).flatMap((exporter) => exporter.metrics)),
    labels: new Set(Object.values(EXPORTERS).flatMap((exporter) => exporter.labels)),
  };
}

/** Which exporter a metric name belongs to, if any. */
export function exporterOf(metric: string): Exporter | undefined {
  return Object.values(EXPORTERS).find((exporter) => exporter.metrics.includes(metric));
}
