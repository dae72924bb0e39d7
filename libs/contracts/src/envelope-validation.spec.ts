import { validateEnvelope } from './envelope-validation';

const valid = () => ({
  id: 'evt_01jq7v3k2m4n5p6q7r8s9t0v1w',
  type: 'alert.created',
  created_at: '2025-03-01T10:15:30.123Z',
  tenant_id: 'ten_01jq7v3k2m4n5p6q7r8s9t0v1w',
  data: { id: 'alr_1', severity: 'high' },
});

function problemsOf(value: unknown): string[] {
  const result = validateEnvelope(value);
  if (result.ok) {
    throw new Error('expected the envelope to be refused');
  }
  return result.problems;
}

describe('validateEnvelope', () => {
  it('accepts a valid envelope and hands it back typed', () => {
    const envelope = valid();
    expect(validateEnvelope(envelope)).toEqual({ ok: true, envelope });
  });

  it('accepts a timestamp without fractional seconds and an empty data object', () => {
    expect(validateEnvelope({ ...valid(), created_at: '2025-03-01T10:15:30Z', data: {} }).ok).toBe(
      true,
    );
  });

  it.each(['id', 'type', 'created_at', 'tenant_id', 'data'])('requires %s', (field) => {
    const envelope: Record<string, unknown> = valid();
    delete envelope[field];
    expect(problemsOf(envelope)).toEqual([`/${field}: is required`]);
  });

  it('lists every missing field at once', () => {
    expect(problemsOf({})).toHaveLength(5);
  });

  it.each([
    ['id', 'wh_01jq7v3k2m4n5p6q7r8s9t0v1w', '/id: must be evt_'],
    ['id', 'evt_', '/id: must be evt_'],
    ['tenant_id', 'tenant_01jq7v3k2m4n5p6q7r8s9t0v1w', '/tenant_id: must be ten_'],
    ['tenant_id', 'ten_UPPER', '/tenant_id: must be ten_'],
  ])('refuses %s %s', (field, value, problem) => {
    const problems = problemsOf({ ...valid(), [field]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0].startsWith(problem)).toBe(true);
  });

  it('refuses an unknown type', () => {
    expect(problemsOf({ ...valid(), type: 'alert.exploded' })).toEqual([
      '/type: must be equal to one of the allowed values',
    ]);
  });

  it('refuses a property the envelope does not have', () => {
    expect(problemsOf({ ...valid(), extra: 1 })).toEqual(['/extra: is not an envelope field']);
  });

  it('refuses a timestamp with an offset other than Z', () => {
    expect(problemsOf({ ...valid(), created_at: '2025-03-01T12:15:30+02:00' })).toEqual([
      '/created_at: must be in UTC (end with Z)',
    ]);
  });

  it.each(['yesterday', '2025-03-01', '2025-13-01T10:15:30Z'])(
    'refuses %s as a timestamp',
    (created_at) => {
      expect(problemsOf({ ...valid(), created_at })).toContain(
        '/created_at: must be an ISO 8601 date-time such as 2025-01-31T12:00:00Z',
      );
    },
  );

  it.each([[null], [[1, 2]], ['text'], [42]])('refuses data that is %j', (data) => {
    expect(problemsOf({ ...valid(), data })).toEqual(['/data: must be object']);
  });

  it.each([[null], [[]], ['{"id":"evt_1"}'], [7], [undefined]])(
    'refuses %j as an envelope',
    (value) => {
      expect(problemsOf(value)).toEqual(['(envelope): must be object']);
    },
  );
});
