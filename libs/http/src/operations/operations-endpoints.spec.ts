import { Registry } from 'prom-client';
import { OperationsEndpoints, READINESS_METRIC } from './operations-endpoints';
import { ReadinessCheck } from './readiness-check';

function check(name: string, answers: () => Promise<void>): ReadinessCheck {
  return { name, check: answers };
}

describe('OperationsEndpoints', () => {
  it('exports each readiness check as svc_readiness_check_ok, run at each scrape', async () => {
    let natsUp = false;
    const registry = new Registry();
    const endpoints = new OperationsEndpoints(
      [
        check('postgres', () => Promise.resolve()),
        check('nats', () => (natsUp ? Promise.resolve() : Promise.reject(new Error('no NATS')))),
      ],
      registry,
    );
    const scrape = async () => (await endpoints.metrics()).split('\n');

    expect(await scrape()).toEqual(
      expect.arrayContaining([
        `# TYPE ${READINESS_METRIC} gauge`,
        `${READINESS_METRIC}{check="postgres"} 1`,
        `${READINESS_METRIC}{check="nats"} 0`,
      ]),
    );
    expect(await endpoints.ready()).toEqual({
      ready: false,
      body: {
        status: 'unavailable',
        checks: { postgres: { status: 'ok' }, nats: { status: 'unavailable', reason: 'no NATS' } },
      },
    });

    natsUp = true;
    expect(await scrape()).toContain(`${READINESS_METRIC}{check="nats"} 1`);
    expect((await endpoints.ready()).ready).toBe(true);
  });

  it('replaces the gauge of an earlier instance on the same registry', async () => {
    const registry = new Registry();
    new OperationsEndpoints([check('old', () => Promise.resolve())], registry);
    const endpoints = new OperationsEndpoints([check('new', () => Promise.resolve())], registry);
    const text = await endpoints.metrics();
    expect(text).toContain(`${READINESS_METRIC}{check="new"} 1`);
    expect(text).not.toContain('check="old"');
  });
});
