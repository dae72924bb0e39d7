import { type CompiledFilter, compileFilter } from './compile-filter';

function compiled(filter: unknown): CompiledFilter {
  const compilation = compileFilter(filter);
  if (!compilation.ok) throw new Error(`refused: ${JSON.stringify(compilation.problems)}`);
  return compilation.filter;
}

const explain = (filter: unknown, envelope: unknown) => compiled(filter).explain(envelope);

const ALERT = {
  type: 'alert.created',
  data: { severity: 'high', score: 7, device: { env: 'prod' } },
};

describe('CompiledFilter.explain names the deciding clause', () => {
  const issueExample = { data: { severity: { $in: ['high', 'critical'] } } };

  it("names the $in of the issue's example, matched or not (one clause decides both ways)", () => {
    expect(explain(issueExample, ALERT)).toEqual({
      matched: true,
      decidedBy: 'filter.data.severity.$in',
    });
    expect(explain(issueExample, { data: { severity: 'low' } })).toEqual({
      matched: false,
      decidedBy: 'filter.data.severity.$in',
    });
  });

  it('names the whole filter when several clauses all held', () => {
    const filter = { type: 'alert.created', data: { severity: 'high' } };
    expect(explain(filter, ALERT)).toEqual({ matched: true, decidedBy: 'filter' });
    expect(explain({ data: { severity: 'high', score: 7 } }, ALERT)).toEqual({
      matched: true,
      decidedBy: 'filter.data',
    });
    expect(explain({}, ALERT)).toEqual({ matched: true, decidedBy: 'filter' });
  });

  it('names the first failing clause in document order, innermost', () => {
    const filter = { type: 'alert.closed', data: { severity: 'low' } };
    expect(explain(filter, ALERT).decidedBy).toBe('filter.type');
    expect(explain({ data: { severity: 'low', type: 'x' } }, ALERT).decidedBy).toBe(
      'filter.data.severity',
    );
    expect(explain({ data: { score: { $gt: 1, $lt: 5 } } }, ALERT).decidedBy).toBe(
      'filter.data.score.$lt',
    );
    expect(explain({ data: { device: { env: { $startsWith: 'stag' } } } }, ALERT)).toEqual({
      matched: false,
      decidedBy: 'filter.data.device.env.$startsWith',
    });
  });

  it('descends into $and, in a field and at the top', () => {
    expect(explain({ data: { score: { $and: [{ $gt: 1 }, { $lt: 5 }] } } }, ALERT)).toEqual({
      matched: false,
      decidedBy: 'filter.data.score.$and[1].$lt',
    });
    expect(explain({ $and: [{ type: 'alert.created' }, { data: { score: 1 } }] }, ALERT)).toEqual({
      matched: false,
      decidedBy: 'filter.$and[1].data.score',
    });
    expect(explain({ $and: [{ type: 'alert.created' }, { data: { score: 7 } }] }, ALERT)).toEqual({
      matched: true,
      decidedBy: 'filter.$and',
    });
  });

  it('names the first matching branch of an $or, and the $or itself when none matched', () => {
    const filter = { $or: [{ type: 'alert.closed' }, { data: { severity: 'high' } }, {}] };
    expect(explain(filter, ALERT)).toEqual({
      matched: true,
      decidedBy: 'filter.$or[1].data.severity',
    });
    expect(explain({ $or: [{ type: 'x' }, { type: 'y' }] }, ALERT)).toEqual({
      matched: false,
      decidedBy: 'filter.$or',
    });
    expect(explain({ data: { severity: { $or: ['low', { $in: ['high'] }] } } }, ALERT)).toEqual({
      matched: true,
      decidedBy: 'filter.data.severity.$or[1].$in',
    });
    const twoFieldBranch = { $or: [{ type: 'alert.created', data: { score: 7 } }] };
    expect(explain(twoFieldBranch, ALERT)).toEqual({ matched: true, decidedBy: 'filter.$or[0]' });
  });

  it('names the $not itself, both ways, not what decided inside it', () => {
    expect(explain({ $not: { type: 'alert.created' } }, ALERT)).toEqual({
      matched: false,
      decidedBy: 'filter.$not',
    });
    expect(explain({ data: { severity: { $not: { $in: ['low'] } } } }, ALERT)).toEqual({
      matched: true,
      decidedBy: 'filter.data.severity.$not',
    });
  });

  it('quotes field names a dot would misread', () => {
    expect(explain({ data: { 'device.env': 'prod' } }, ALERT)).toEqual({
      matched: false,
      decidedBy: 'filter.data["device.env"]',
    });
  });
});
