import { z } from 'zod';
import { duration, durations, integer, optionalText, setting, share } from '../kinds';
import { section } from '../section';

/** The largest weight a tenant's lane may be given (ADR 0032). */
export const MAX_TENANT_WEIGHT = 100;

/**
 * Hot-tenant lanes (ADR 0032): a tenant holding a disproportionate share of the main intake while
 * it is saturated and behind gets a JetStream consumer of its own for its backlog, so that the
 * other tenants' events are not queued behind it.
 */
export interface FairnessSettings {
  /** Lanes open at once, across engines (each a durable consumer); 0 turns lanes off. */
  maxLanes: number;
  /** The share of the main intake's messages in hand one tenant must hold to get a lane. */
  hotTenantShare: number;
  /**
   * The most of DELIVERY_MAX_CONCURRENCY the lanes' attempts may hold together while other
   * attempts run or wait (the rest is kept for every other tenant's events and the retries).
   */
  laneConcurrencyShare: number;
  /**
   * A tenant's weight when its lane shares the engine with other lanes: each lane may hold
   * deliveries in proportion to its weight among the open lanes' (their sum counted as at least
   * 1, so a weight below 1 holds a lane back even alone); absent: 1.
   */
  tenantWeights: Record<string, number>;
}

export interface DeliverySettings {
  /** An attempt's budget, from connecting to the last byte of the answer. */
  timeoutMs: number;
  /** Delay before attempt n+1 after attempt n failed: entry n-1. */
  retryScheduleMs: number[];
  maxAttempts: number;
  maxConcurrency: number;
  maxConcurrencyPerEndpoint: number;
  schedulerIntervalMs: number;
  /** PEM file of CAs trusted besides the system ones (tests use their own CA). */
  extraCaFile?: string;
  /**
   * `http://[user:pass@]host:port`: every connection of the engine (deliveries, OAuth token
   * requests) goes through this proxy's CONNECT tunnels (ADR 0048); absent: straight out.
   */
  proxyUrl?: string;
  /** Fairness between tenants: hot-tenant lanes (ADR 0032). */
  fairness: FairnessSettings;
}

/** `ten_x=2,ten_y=0.5`: a weight per tenant id (ADR 0032); tenants not named weigh 1. */
const tenantWeights = z
  .string()
  .default('')
  .transform((raw, ctx) => {
    const weights: Record<string, number> = {};
    for (const item of raw.split(',').map((part) => part.trim())) {
      if (item.length === 0) continue;
      const match = /^(ten_[0-9a-z]{1,64})\s*=\s*(\d+(?:\.\d+)?)$/.exec(item);
      const weight = match ? Number(match[2]) : NaN;
      if (!match || !(weight > 0 && weight <= MAX_TENANT_WEIGHT)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${item}" is not tenant_id=weight with a weight above 0 and at most ${MAX_TENANT_WEIGHT}, such as ten_x=2`,
        });
        continue;
      }
      if (match[1] in weights) {
        ctx.addIssue({ code: 'custom', message: `${match[1]} is given twice` });
      }
      weights[match[1]] = weight;
    }
    return weights;
  });

/**
 * The egress proxy's URL (ADR 0048). `http` only: the engine asks the proxy for a tunnel with a
 * CONNECT request in clear and then speaks TLS with the receiver inside that tunnel, end to end,
 * so the proxy never sees a delivery; TLS to the proxy itself would only wrap TLS in TLS. No path,
 * query or fragment: a CONNECT proxy is a host and a port. Messages never repeat the value (it may
 * hold the proxy's password).
 */
const proxyUrl = z
  .string()
  .min(1)
  .optional()
  .superRefine((raw, ctx) => {
    if (raw === undefined) return;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not a URL such as http://proxy.internal:3128' });
      return;
    }
    if (parsed.protocol !== 'http:') {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be an http:// URL: the CONNECT goes to the proxy in clear and TLS to the receiver runs inside the tunnel',
      });
    }
    if (parsed.hostname === '') {
      ctx.addIssue({ code: 'custom', message: 'must name the proxy host' });
    }
    if ((parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search || parsed.hash) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be http://[user:pass@]host:port, without a path',
      });
    }
  });

const DELIVERY_TIMEOUT = setting(
  duration('10s'),
  "an attempt's budget, from connecting to the last byte of the answer (the API's test sends wait for it too)",
);

/** The attempt's time budget: the engine sends within it, the API's test call waits for it. */
export const deliveryTimeout = section({
  name: 'delivery timeout',
  variables: { DELIVERY_TIMEOUT },
  build: (values): { delivery: Pick<DeliverySettings, 'timeoutMs'> } => ({
    delivery: { timeoutMs: values.DELIVERY_TIMEOUT },
  }),
});

/** How the engine sends: retries, concurrency, the retry scheduler, extra CAs. */
export const delivery = section({
  name: 'delivery',
  variables: {
    DELIVERY_RETRY_SCHEDULE: setting(
      durations('5s,30s,5m,30m,2h'),
      'delays before attempts 2, 3, ...; the last repeats if attempts outnumber it',
    ),
    DELIVERY_MAX_ATTEMPTS: setting(integer(5, 1, 20), 'attempts before a delivery is abandoned'),
    DELIVERY_MAX_CONCURRENCY: setting(integer(256, 1, 10_000), 'attempts in flight per engine'),
    DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT: setting(
      integer(8, 1, 1000),
      'attempts in flight per endpoint and engine; more wait in the schedule',
    ),
    DELIVERY_SCHEDULER_INTERVAL: setting(
      duration('500ms'),
      'how often an engine looks for due retries',
    ),
    DELIVERY_EXTRA_CA_FILE: setting(
      optionalText('file path'),
      'PEM file of CAs trusted besides the system ones (tests, the local stack)',
    ),
    DELIVERY_PROXY_URL: setting(
      { schema: proxyUrl, default: 'none', format: '`http://[user:pass@]host:port`' },
      'CONNECT proxy for all outgoing connections, deliveries and OAuth token requests (ADR 0048); absent: direct',
    ),
  },
  build: (values): { delivery: Omit<DeliverySettings, 'timeoutMs' | 'fairness'> } => ({
    delivery: {
      retryScheduleMs: values.DELIVERY_RETRY_SCHEDULE,
      maxAttempts: values.DELIVERY_MAX_ATTEMPTS,
      maxConcurrency: values.DELIVERY_MAX_CONCURRENCY,
      maxConcurrencyPerEndpoint: values.DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT,
      schedulerIntervalMs: values.DELIVERY_SCHEDULER_INTERVAL,
      extraCaFile: values.DELIVERY_EXTRA_CA_FILE,
      proxyUrl: values.DELIVERY_PROXY_URL,
    },
  }),
});

/** Fairness between tenants in the engine's intake: hot-tenant lanes (ADR 0032). */
export const fairness = section({
  name: 'intake lanes',
  variables: {
    INTAKE_LANES_MAX: setting(
      integer(16, 0, 256),
      'hot-tenant lanes open at once across engines, each a JetStream consumer while open; `0` turns lanes off (ADR 0032)',
    ),
    INTAKE_HOT_TENANT_SHARE: setting(
      share(0.5),
      "share of the main intake's recent messages that makes a tenant hot (and gives it a lane while the intake is behind)",
    ),
    INTAKE_LANE_CONCURRENCY_SHARE: setting(
      share(0.75),
      "the most of `DELIVERY_MAX_CONCURRENCY` the lanes' attempts hold while other attempts run or wait",
    ),
    TENANT_WEIGHTS: setting(
      {
        schema: tenantWeights,
        default: 'empty',
        format: `\`tenant_id=weight\`, comma-separated; weights above 0, at most ${MAX_TENANT_WEIGHT}`,
      },
      "`ten_x=2,ten_y=0.5`: a tenant's lane's share among the open lanes (tenants not named: 1)",
    ),
  },
  build: (values): { delivery: { fairness: FairnessSettings } } => ({
    delivery: {
      fairness: {
        maxLanes: values.INTAKE_LANES_MAX,
        hotTenantShare: values.INTAKE_HOT_TENANT_SHARE,
        laneConcurrencyShare: values.INTAKE_LANE_CONCURRENCY_SHARE,
        tenantWeights: values.TENANT_WEIGHTS,
      },
    },
  }),
});
