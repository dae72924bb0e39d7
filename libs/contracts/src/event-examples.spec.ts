import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { EVENT_CATALOGUE } from './event-catalogue';
import { EVENT_EXAMPLES } from './event-examples';
import { EVENT_TYPES } from './event-types';
import { validateEnvelope } from './envelope-validation';

describe('the example of each event type', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);

  it('exists for every type of the catalogue, and for nothing else', () => {
    expect(Object.keys(EVENT_EXAMPLES).sort()).toEqual([...EVENT_TYPES].sort());
    for (const entry of EVENT_CATALOGUE) {
      expect(EVENT_EXAMPLES[entry.type].type).toBe(entry.type);
    }
  });

  it.each(EVENT_CATALOGUE.map((entry) => [entry.type, entry] as const))(
    '%s is a whole envelope whose data its type describes',
    (type, entry) => {
      const example = EVENT_EXAMPLES[type];
      // The envelope as the engine checks every message (spec 2.2).
      expect(validateEnvelope(example)).toEqual({ ok: true, envelope: example });
      const validate = ajv.compile(entry.dataSchema);
      expect([validate(example.data), validate.errors ?? []]).toEqual([true, []]);
    },
  );

  it('names one tenant in all, never a secret', () => {
    expect(new Set(Object.values(EVENT_EXAMPLES).map((e) => e.tenant_id)).size).toBe(1);
    expect(JSON.stringify(EVENT_EXAMPLES)).not.toMatch(/secret/i);
  });

  it('gives each example an id of its own', () => {
    const ids = Object.values(EVENT_EXAMPLES).map((example) => example.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
