import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUNBOOKS } from './deploy-files';
import { exporterOf } from './exporter-metrics';
import { alertRules } from './monitoring-files';
import { namesInQuery } from './promql-names';
import { kebabCase, runbookFiles, runbookPath, runbookProblems } from './runbooks';

/**
 * The alert rules of deploy/monitoring/prometheus-rules.yaml as an on-call engineer reads them:
 * labelled, annotated, each with its runbook in docs/runbooks (runbooks.ts).
 */
describe('alert rules', () => {
  it('page with a severity, a summary, a description and a runbook note', () => {
    const alerts = alertRules();
    expect(alerts.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining([
        'SvcWebhooksApiHigh5xxRatio',
        'SvcWebhooksApiLatencyP99High',
        'SvcWebhooksAppDown',
        'SvcWebhooksDeliveriesAbandoned',
        'SvcWebhooksDeliveryDeadLetters',
        'SvcWebhooksDeliveryDueBacklogHigh',
        'SvcWebhooksDeliveryFailureRatioHigh',
        'SvcWebhooksDeliveryLatencyP99High',
        'SvcWebhooksEventLoopLagHigh',
      ]),
    );
    for (const rule of alerts) {
      expect({ alert: rule.alert, severity: rule.labels?.severity }).toEqual({
        alert: rule.alert,
        severity: expect.stringMatching(/^(critical|warning|info)$/),
      });
      expect(rule.for).toMatch(/^\d+[smh]$/);
      for (const key of ['summary', 'description', 'runbook']) {
        expect({ alert: rule.alert, key, empty: !rule.annotations?.[key]?.trim() }).toEqual({
          alert: rule.alert,
          key,
          empty: false,
        });
      }
    }
  });

  it('include the consumer-lag and dependency-outage alerts', () => {
    const alerts = new Map(alertRules().map((rule) => [rule.alert, rule]));
    const uses = (alert: string) => String(alerts.get(alert)?.expr ?? '');
    expect(uses('SvcWebhooksDeliveryConsumerLagHigh')).toContain(
      'svc_delivery_consumer_pending_messages',
    );
    expect(uses('SvcWebhooksDeliveryConsumerAckPendingHigh')).toContain(
      'svc_delivery_consumer_ack_pending_messages',
    );
    expect(uses('SvcWebhooksNatsDisconnected')).toMatch(/svc_nats_connected\{[^}]*\}\) == 0$/);
    expect(uses('SvcWebhooksDatabasePoolSaturated')).toContain('svc_database_pool_waiting_clients');
    expect(uses('SvcWebhooksDatabaseUnreachable')).toContain('check="postgres"');
    expect(uses('SvcWebhooksDeliveryEngineNotReady')).toContain(
      'svc_readiness_check_ok{job="svc-webhooks", app="delivery"}',
    );
    expect(uses('SvcWebhooksDeliveryStopped')).toContain('svc_readiness_check_ok');
    for (const alert of ['SvcWebhooksNatsDisconnected', 'SvcWebhooksDatabaseUnreachable']) {
      expect(alerts.get(alert)?.labels?.severity).toBe('critical');
      expect(alerts.get(alert)?.for).toMatch(/^[1-9]m$/); // "for some minutes"
    }
  });

  it('page for a JetStream node or quorum lost, a PostgreSQL standby not streaming; warn on a failover and a lagging standby', () => {
    const alerts = new Map(alertRules().map((rule) => [rule.alert, rule]));
    const expected: [string, string, RegExp][] = [
      ['SvcWebhooksJetStreamNodeLost', 'critical', /gnatsd_healthz_status/],
      ['SvcWebhooksJetStreamQuorumLost', 'critical', /is_stream_leader="true"/],
      ['SvcWebhooksPostgresFailover', 'warning', /changes\(cnpg_pg_replication_in_recovery/],
      [
        'SvcWebhooksPostgresStandbyNotStreaming',
        'critical',
        /cnpg_pg_replication_streaming_replicas/,
      ],
      ['SvcWebhooksPostgresStandbyLagging', 'warning', /cnpg_pg_replication_lag/],
    ];
    for (const [alert, severity, uses] of expected) {
      const rule = alerts.get(alert);
      expect({ alert, severity: rule?.labels?.severity }).toEqual({ alert, severity });
      expect(String(rule?.expr)).toMatch(uses);
    }
  });

  it("select an exporter's metrics by its job, and aggregate them by bounded labels only", () => {
    const problems: string[] = [];
    for (const rule of alertRules()) {
      const expr = String(rule.expr);
      const { metrics, labels } = namesInQuery(expr);
      for (const metric of metrics) {
        const exporter = exporterOf(metric);
        if (!exporter) continue;
        const uses = expr.match(new RegExp(`\\b${metric}\\b[^(\\s]*`, 'g')) ?? [];
        for (const use of uses) {
          if (!use.startsWith(`${metric}{job="${exporter.job}"`)) {
            problems.push(`${rule.alert}: ${use} (job="${exporter.job}" expected)`);
          }
        }
      }
      if (metrics.some((metric) => exporterOf(metric))) {
        // never per server id, pod or leader name: those change with every reschedule
        const unbounded = labels.filter((label) =>
          ['server_id', 'server_name', 'pod', 'instance', 'stream_leader', 'meta_leader'].includes(
            label,
          ),
        );
        if (unbounded.length > 0) problems.push(`${rule.alert}: by ${unbounded.join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('name, in their runbooks, the exporter they need scraped and its job label', () => {
    const missing: string[] = [];
    for (const rule of alertRules()) {
      const jobs = new Set(
        namesInQuery(String(rule.expr)).metrics.flatMap((metric) => exporterOf(metric)?.job ?? []),
      );
      const text = readFileSync(join(RUNBOOKS, `${kebabCase(rule.alert)}.md`), 'utf8');
      for (const job of jobs) {
        if (!text.includes(`\`job="${job}"\``)) missing.push(`${rule.alert}: job="${job}"`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('have distinct names', () => {
    const names = alertRules().map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('runbooks', () => {
  it('every alert links its runbook, and every runbook belongs to an alert', () => {
    const files = runbookFiles();
    expect(files.length).toBe(alertRules().length);
    expect(runbookProblems(alertRules(), files)).toEqual([]);
  });

  it('the index lists every runbook with its severity', () => {
    const rows = readFileSync(join(RUNBOOKS, 'README.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| ['));
    expect(rows.map((row) => row.replace(/\s+/g, ' '))).toEqual(
      alertRules().map(
        (rule) => `| [${rule.alert}](${kebabCase(rule.alert)}.md) | ${rule.labels?.severity} |`,
      ),
    );
  });

  it('names runbooks after their alerts in kebab case', () => {
    expect(runbookPath('SvcWebhooksApiLatencyP99High')).toBe(
      'docs/runbooks/svc-webhooks-api-latency-p99-high.md',
    );
    expect(kebabCase('SvcWebhooksApiHigh5xxRatio')).toBe('svc-webhooks-api-high5xx-ratio');
  });

  it('reports a missing, wrong or unknown runbook_url, a bad runbook and an orphan (the check can fail)', () => {
    const good =
      '# SvcWebhooksX\n\n**Severity:** warning.\n\n## Meaning\n## Impact\n## Diagnosis\n## Mitigation\n';
    const files: Record<string, string> = {
      'docs/runbooks/svc-webhooks-x.md': good,
      'docs/runbooks/svc-webhooks-y.md': '# SvcWebhooksY\n\n**Severity:** info.\n\n## Meaning\n',
      'docs/runbooks/svc-webhooks-orphan.md': good,
    };
    const alert = (name: string, annotations: Record<string, string>, severity = 'warning') => ({
      alert: name,
      expr: 'up == 0',
      labels: { severity },
      annotations,
    });
    expect(
      runbookProblems(
        [
          alert('SvcWebhooksX', { runbook_url: 'docs/runbooks/svc-webhooks-x.md' }),
          alert('SvcWebhooksY', { runbook_url: 'docs/runbooks/svc-webhooks-y.md' }, 'critical'),
          alert('SvcWebhooksZ', {}),
          alert('SvcWebhooksW', { runbook_url: 'docs/runbooks/w.md' }),
        ],
        Object.keys(files).sort(),
        (path) => files[path],
      ),
    ).toEqual([
      'SvcWebhooksY: docs/runbooks/svc-webhooks-y.md does not say "**Severity:** critical."',
      'SvcWebhooksY: docs/runbooks/svc-webhooks-y.md has no "## Impact" section',
      'SvcWebhooksY: docs/runbooks/svc-webhooks-y.md has no "## Diagnosis" section',
      'SvcWebhooksY: docs/runbooks/svc-webhooks-y.md has no "## Mitigation" section',
      'SvcWebhooksZ: no runbook_url annotation',
      'SvcWebhooksW: runbook_url is docs/runbooks/w.md, not docs/runbooks/svc-webhooks-w.md',
      'SvcWebhooksW: docs/runbooks/w.md does not exist',
      'docs/runbooks/svc-webhooks-orphan.md: no alert links to it',
    ]);
  });
});
