import { loadSections } from '../section';
import { jetstream, nats, subjects } from './messaging';

describe('NATS settings (ADR 0020)', () => {
  it('connects to a local server without credentials by default', () => {
    expect(loadSections([nats, subjects], {})).toEqual({
      nats: { servers: ['nats://127.0.0.1:4222'] },
      jetstream: { subjectRoot: 'svc' },
    });
  });

  it('reads several servers, one way to authenticate and TLS', () => {
    expect(
      loadSections([nats], {
        NATS_URL: 'tls://a:4222, tls://b:4222',
        NATS_CREDS_FILE: '/run/nats.creds',
        NATS_TLS_CA_FILE: '/run/ca.pem',
      }).nats,
    ).toEqual({
      servers: ['tls://a:4222', 'tls://b:4222'],
      credsFile: '/run/nats.creds',
      tls: { caFile: '/run/ca.pem' },
    });
  });

  it('refuses two ways to authenticate, half a user, and a certificate without its key', () => {
    expect(() =>
      loadSections([nats], { NATS_TOKEN: 't', NATS_NKEY_SEED_FILE: '/run/seed' }),
    ).toThrow(/choose one way to authenticate, not NATS_NKEY_SEED_FILE and NATS_TOKEN/);
    expect(() => loadSections([nats], { NATS_USER: 'svc' })).toThrow(/give both or neither/);
    expect(() => loadSections([nats], { NATS_TLS_CERT_FILE: '/run/cert.pem' })).toThrow(
      /a client certificate needs its key/,
    );
  });

  it('refuses a subject root that is not subject tokens', () => {
    expect(() => loadSections([subjects], { NATS_SUBJECT_ROOT: 'svc.*' })).toThrow(
      /NATS_SUBJECT_ROOT: must be NATS subject tokens/,
    );
  });
});

describe('JetStream replicas', () => {
  it("gives the consumers their stream's replicas by default, or those configured", () => {
    expect(loadSections([jetstream], { EVENTS_STREAM_REPLICAS: '3' }).jetstream).toMatchObject({
      replicas: 3,
      consumerReplicas: 0,
    });
    expect(
      loadSections([jetstream], { EVENTS_STREAM_REPLICAS: '3', DELIVERY_CONSUMER_REPLICAS: '1' })
        .jetstream,
    ).toMatchObject({ replicas: 3, consumerReplicas: 1 });
  });

  it('refuses consumers with more replicas than their stream', () => {
    expect(() =>
      loadSections([jetstream], { EVENTS_STREAM_REPLICAS: '1', DELIVERY_CONSUMER_REPLICAS: '3' }),
    ).toThrow(/DELIVERY_CONSUMER_REPLICAS: 3 is more than EVENTS_STREAM_REPLICAS \(1\)/);
  });
});
