import { ENVELOPE_LIMITS, envelopeTextProblem } from './envelope-text';

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('envelopeTextProblem', () => {
  it('accepts an ordinary envelope, strings with braces, quotes and escapes included', () => {
    const text = JSON.stringify({
      id: 'evt_1',
      type: 'alert.created',
      tenant_id: 'ten_a',
      data: { title: 'a "quoted" {brace} [bracket], comma\\', list: [{ a: 1 }, { a: 2 }] },
    });
    expect(envelopeTextProblem(text)).toBeNull();
  });

  it('accepts nesting up to the limit and refuses one level more', () => {
    expect(envelopeTextProblem(nested(ENVELOPE_LIMITS.maxDepth))).toBeNull();
    expect(envelopeTextProblem(nested(ENVELOPE_LIMITS.maxDepth + 1))).toEqual({
      reason: 'envelope-too-deep',
      detail: 'nested deeper than 32 levels',
    });
  });

  it('counts arrays as levels too', () => {
    expect(envelopeTextProblem(`{"data":${'['.repeat(40)}${']'.repeat(40)}}`)?.reason).toBe(
      'envelope-too-deep',
    );
  });

  it('finds 20,000 levels without overflowing the stack', () => {
    expect(envelopeTextProblem(nested(20_000))?.reason).toBe('envelope-too-deep');
  });

  it('refuses a member named twice in the envelope, wherever the second one stands', () => {
    const text =
      '{"id":"evt_1","type":"alert.created","tenant_id":"ten_b","data":{},"tenant_id":"ten_a"}';
    expect(envelopeTextProblem(text)).toEqual({
      reason: 'duplicate-member',
      detail: 'member "tenant_id" appears twice in one object',
    });
  });

  it('refuses a member named twice at any depth, and two spellings of one name', () => {
    expect(envelopeTextProblem('{"data":{"x":{"k":1,"k":2}}}')?.reason).toBe('duplicate-member');
    expect(envelopeTextProblem('{"data":{"type":1,"\\u0074ype":2}}')?.reason).toBe(
      'duplicate-member',
    );
  });

  it('allows one name in sibling objects and as a string value', () => {
    expect(
      envelopeTextProblem('{"a":{"k":1},"b":{"k":"k"},"c":[{"k":1},{"k":2}],"k":"a"}'),
    ).toBeNull();
  });
});
