import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { EVENT_CATALOGUE } from './event-catalogue';
import { EVENT_FAMILIES, EVENT_TYPES } from './event-types';

describe('the event type catalogue', () => {
  it('lists every subscribable type once, in its family', () => {
    expect(EVENT_CATALOGUE.map((entry) => entry.type)).toEqual([...EVENT_TYPES]);
    for (const entry of EVENT_CATALOGUE) {
      expect(EVENT_FAMILIES).toContain(entry.family);
      expect(entry.type.startsWith(`${entry.family}.`)).toBe(true);
      expect(entry.description.length).toBeGreaterThan(10);
    }
  });

  it('gives each type a valid JSON Schema of its data, which accepts the resource and refuses no id', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    for (const entry of EVENT_CATALOGUE) {
      const validate = ajv.compile(entry.dataSchema);
      const id = (entry.dataSchema.required as string[])[0];
      expect(validate({ [id]: 'x_1', severity: 'high', extra: 'kept' })).toBe(true);
      expect(validate({ [id]: 'x_1', severity: 'apocalyptic' })).toBe(
        !('severity' in (entry.dataSchema.properties as object)),
      );
      expect(validate({})).toBe(false);
    }
  });
});
