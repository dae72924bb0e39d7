import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { EVENT_CATALOGUE } from './event-catalogue';
import { EVENT_FAMILIES, EVENT_TYPES, isOperationalEventType } from './event-types';

describe('the event type catalogue', () => {
  const ajv = new Ajv2020({ strict: true });
  addFormats(ajv);
  const schemaOf = (type: string) =>
    ajv.compile(EVENT_CATALOGUE.find((entry) => entry.type === type)!.dataSchema);

  it('lists every subscribable type once, in its family', () => {
    expect(EVENT_CATALOGUE.map((entry) => entry.type)).toEqual([...EVENT_TYPES]);
    for (const entry of EVENT_CATALOGUE) {
      expect(EVENT_FAMILIES).toContain(entry.family);
      expect(entry.type.startsWith(`${entry.family}.`)).toBe(true);
      expect(entry.description.length).toBeGreaterThan(10);
    }
  });

  it('gives each platform type a valid JSON Schema of its data, which accepts the resource and refuses no id', () => {
    for (const entry of EVENT_CATALOGUE.filter((e) => !isOperationalEventType(e.type))) {
      const validate = ajv.compile(entry.dataSchema);
      const id = (entry.dataSchema.required as string[])[0];
      expect(validate({ [id]: 'x_1', severity: 'high', extra: 'kept' })).toBe(true);
      expect(validate({ [id]: 'x_1', severity: 'apocalyptic' })).toBe(
        !('severity' in (entry.dataSchema.properties as object)),
      );
      expect(validate({})).toBe(false);
    }
  });

  describe('the webhook family (ADR 0030)', () => {
    const about = {
      endpoint_id: 'wh_01jq7v3k2m4n5p6q7r8s9t0v1w',
      url: 'https://hooks.example.com/svc',
      environment: 'live',
      at: '2026-03-01T10:15:30.000Z',
    };
    const delivery_id = 'del_01jq7v3k2m4n5p6q7r8s9t0v1x';

    it('describes a degraded endpoint, with the delivery that degraded it', () => {
      const validate = schemaOf('webhook.endpoint.degraded');
      expect(validate({ ...about, reason: 'delivery_abandoned', delivery_id })).toBe(true);
      expect(validate({ ...about, reason: 'delivery_abandoned' })).toBe(false);
      expect(
        validate({ ...about, environment: 'prod', reason: 'delivery_abandoned', delivery_id }),
      ).toBe(false);
    });

    it('describes a reactivation, whose delivery is null after a recover', () => {
      const validate = schemaOf('webhook.endpoint.reactivated');
      expect(validate({ ...about, reason: 'recovered', delivery_id: null })).toBe(true);
      expect(validate({ ...about, reason: 'delivery_succeeded', delivery_id })).toBe(true);
      expect(validate({ ...about, reason: 'because', delivery_id })).toBe(false);
    });

    it('describes a disabled endpoint, answered 410', () => {
      const validate = schemaOf('webhook.endpoint.disabled');
      expect(validate({ ...about, reason: 'gone', delivery_id, status_code: 410 })).toBe(true);
      expect(validate({ ...about, reason: 'gone', delivery_id, status_code: 404 })).toBe(false);
    });

    it('describes an abandoned delivery, with its event and its last failure', () => {
      const validate = schemaOf('webhook.delivery.abandoned');
      const abandoned = {
        ...about,
        reason: 'attempts_exhausted',
        delivery_id,
        event_id: 'evt_1',
        event_type: 'alert.created',
        attempts: 5,
      };
      expect(validate({ ...abandoned, status_code: 500, error_kind: null })).toBe(true);
      expect(validate({ ...abandoned, status_code: null, error_kind: 'timeout' })).toBe(true);
      expect(validate({ ...abandoned, attempts: 0 })).toBe(false);
    });

    it('describes a test event by the endpoint it is sent to', () => {
      const validate = schemaOf('webhook.test');
      expect(validate({ endpoint_id: about.endpoint_id, message: 'hello' })).toBe(true);
      expect(validate({ message: 'hello' })).toBe(false);
    });

    it('never carries a secret', () => {
      for (const entry of EVENT_CATALOGUE.filter((e) => isOperationalEventType(e.type))) {
        expect(JSON.stringify(entry.dataSchema)).not.toMatch(/secret/i);
      }
    });
  });
});
