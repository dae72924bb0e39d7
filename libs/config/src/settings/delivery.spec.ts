import { loadSections } from '../section';
import { delivery, deliveryTimeout, fairness } from './delivery';
import { jetstream } from './messaging';

const engine = [deliveryTimeout, delivery, fairness, jetstream] as const;

describe('delivery and JetStream settings', () => {
  it('defaults to the spec: 10 s timeout, 5 attempts, delays 5 s, 30 s, 5 min, 30 min, 2 h', () => {
    const { delivery: settings, jetstream: streams } = loadSections(engine, {});
    expect(settings.timeoutMs).toBe(10_000);
    expect(settings.maxAttempts).toBe(5);
    expect(settings.retryScheduleMs).toEqual([5_000, 30_000, 300_000, 1_800_000, 7_200_000]);
    expect(streams).toMatchObject({
      eventsStream: 'SVC_EVENTS',
      consumer: 'svc-delivery',
      maxAgeMs: 7 * 86_400_000,
    });
  });

  it('reads a shortened schedule for tests and refuses what is not a duration', () => {
    expect(
      loadSections(engine, { DELIVERY_RETRY_SCHEDULE: '100ms, 200ms,1s' }).delivery.retryScheduleMs,
    ).toEqual([100, 200, 1000]);
    expect(() => loadSections(engine, { DELIVERY_RETRY_SCHEDULE: '5s,soon' })).toThrow(
      /"soon" is not a duration/,
    );
    expect(() => loadSections(engine, { DELIVERY_TIMEOUT: '10' })).toThrow(/DELIVERY_TIMEOUT/);
  });
});

describe('fairness between tenants (ADR 0032)', () => {
  it('defaults to 16 lanes, a tenant hot at half the intake, lanes holding at most 75 % of the concurrency', () => {
    expect(loadSections([fairness], {}).delivery.fairness).toEqual({
      maxLanes: 16,
      hotTenantShare: 0.5,
      laneConcurrencyShare: 0.75,
      tenantWeights: {},
    });
  });

  it('reads weights per tenant, and 0 lanes to turn lanes off', () => {
    expect(
      loadSections([fairness], {
        INTAKE_LANES_MAX: '0',
        INTAKE_HOT_TENANT_SHARE: '0.8',
        INTAKE_LANE_CONCURRENCY_SHARE: '0.5',
        TENANT_WEIGHTS: 'ten_x=2, ten_y = 0.5',
      }).delivery.fairness,
    ).toEqual({
      maxLanes: 0,
      hotTenantShare: 0.8,
      laneConcurrencyShare: 0.5,
      tenantWeights: { ten_x: 2, ten_y: 0.5 },
    });
  });

  it('refuses shares outside (0, 1] and weights that are not tenant_id=weight above 0', () => {
    expect(() => loadSections([fairness], { INTAKE_HOT_TENANT_SHARE: '0' })).toThrow(
      /INTAKE_HOT_TENANT_SHARE: must be more than 0/,
    );
    expect(() => loadSections([fairness], { INTAKE_LANE_CONCURRENCY_SHARE: '1.5' })).toThrow(
      /INTAKE_LANE_CONCURRENCY_SHARE: must be at most 1/,
    );
    for (const bad of ['ten_x', 'x=2', 'ten_x=0', 'ten_x=-1', 'ten_x=101', 'ten_X=1']) {
      expect(() => loadSections([fairness], { TENANT_WEIGHTS: bad })).toThrow(/TENANT_WEIGHTS/);
    }
    expect(() => loadSections([fairness], { TENANT_WEIGHTS: 'ten_x=1,ten_x=2' })).toThrow(
      /ten_x is given twice/,
    );
  });
});

describe('the egress proxy (ADR 0048)', () => {
  it('is off by default and reads http://[user:pass@]host:port', () => {
    expect(loadSections(engine, {}).delivery.proxyUrl).toBeUndefined();
    expect(
      loadSections(engine, { DELIVERY_PROXY_URL: 'http://egress:s3cret@proxy.internal:3128' })
        .delivery.proxyUrl,
    ).toBe('http://egress:s3cret@proxy.internal:3128');
    expect(
      loadSections(engine, { DELIVERY_PROXY_URL: 'http://10.0.0.5:3128/' }).delivery.proxyUrl,
    ).toBe('http://10.0.0.5:3128/');
  });

  it('refuses https, a path and what is not a URL, without repeating the password', () => {
    const problem = (value: string) => {
      try {
        loadSections(engine, { DELIVERY_PROXY_URL: value });
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error(`${value} was accepted`);
    };
    expect(problem('https://u:hunter2@proxy.internal:3128')).toMatch(
      /DELIVERY_PROXY_URL.*must be an http:\/\/ URL: the CONNECT goes to the proxy in clear/,
    );
    expect(problem('http://u:hunter2@proxy.internal:3128/egress')).toMatch(/without a path/);
    expect(problem('http://proxy.internal:3128/?x=1')).toMatch(/without a path/);
    expect(problem('proxy.internal:3128')).toMatch(/DELIVERY_PROXY_URL/);
    expect(problem('not a url')).toMatch(/is not a URL/);
    for (const value of ['https://u:hunter2@proxy.internal:3128', 'http://u:hunter2@p:1/x']) {
      expect(problem(value)).not.toContain('hunter2');
    }
  });
});
