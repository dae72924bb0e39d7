import { compileFilter } from './compile-filter';
import { FILTER_LIMITS } from './filter-limits';

function problemsOf(filter: unknown): { field: string; detail: string }[] {
  const compilation = compileFilter(filter);
  return compilation.ok ? [] : compilation.problems;
}

const fieldsOf = (filter: unknown) => problemsOf(filter).map(({ field }) => field);

describe('compileFilter: refusals name the path in the filter', () => {
  it.each([
    [null, 'filter'],
    [[], 'filter'],
    ['type', 'filter'],
    [new Date(0), 'filter'],
  ])('refuses %j as a whole filter', (filter, field) => {
    expect(fieldsOf(filter)).toEqual([field]);
  });

  it.each([
    ['$regex', { data: { severity: { $regex: '^h' } } }, 'filter.data.severity.$regex'],
    ['$where', { $where: 'true' }, 'filter.$where'],
    ['$ne', { type: { $ne: 'x' } }, 'filter.type.$ne'],
    ['$elemMatch', { data: { tags: { $elemMatch: 'prod' } } }, 'filter.data.tags.$elemMatch'],
    ['$', { type: { $: 1 } }, 'filter.type.$'],
  ])('refuses the unknown operator %s, naming it', (operator, filter, field) => {
    const problems = problemsOf(filter);
    expect(problems).toEqual([
      { field, detail: expect.stringContaining(`unknown operator ${operator};`) },
    ]);
  });

  it('refuses value operators at the top of a filter, where there is no value to test', () => {
    expect(problemsOf({ $eq: 1 })).toEqual([
      { field: 'filter.$eq', detail: expect.stringContaining('stands under a field name') },
    ]);
    expect(fieldsOf({ $or: [{ $in: ['a'] }] })).toEqual(['filter.$or[0].$in']);
  });

  it('refuses an object mixing operators and field names', () => {
    expect(problemsOf({ data: { severity: 'high', $or: [{ score: 1 }] } })).toEqual([
      { field: 'filter.data', detail: expect.stringContaining('mixes operators ($or)') },
    ]);
    expect(fieldsOf({ type: 'a', $not: { type: 'b' } })).toEqual(['filter']);
  });

  it('refuses an empty object as a condition, saying why', () => {
    expect(problemsOf({ data: {} })).toEqual([
      {
        field: 'filter.data',
        detail: expect.stringContaining('could mean "equals {}" or "anything"'),
      },
    ]);
    expect(fieldsOf({ type: { $not: {} } })).toEqual(['filter.type.$not']);
    expect(fieldsOf({ type: { $or: ['a', {}] } })).toEqual(['filter.type.$or[1]']);
  });

  it.each([
    [{ type: { $and: [] } }, 'filter.type.$and'],
    [{ $or: [] }, 'filter.$or'],
    [{ $or: { type: 'a' } }, 'filter.$or'],
    [{ $or: ['alert.created'] }, 'filter.$or[0]'],
    [{ $not: 'alert.created' }, 'filter.$not'],
    [{ type: { $in: 'alert.created' } }, 'filter.type.$in'],
    [{ type: { $in: ['a', { b: 1 }] } }, 'filter.type.$in[1]'],
    [{ type: { $eq: { b: 1 } } }, 'filter.type.$eq'],
    [{ type: { $gt: true } }, 'filter.type.$gt'],
    [{ type: { $lte: null } }, 'filter.type.$lte'],
    [{ type: { $lt: ['a'] } }, 'filter.type.$lt'],
    [{ type: { $exists: 'yes' } }, 'filter.type.$exists'],
    [{ type: { $startsWith: 1 } }, 'filter.type.$startsWith'],
    [{ data: { score: Number.NaN } }, 'filter.data.score'],
    [{ data: { score: { $gt: Infinity } } }, 'filter.data.score.$gt'],
    [{ data: { tags: ['a', undefined] } }, 'filter.data.tags[1]'],
    [{ data: { when: new Date(0) } }, 'filter.data.when'],
    [{ data: { '': 'x' } }, 'filter.data[""]'],
    [{ 'device.name': { $in: [() => 1] } }, 'filter["device.name"].$in[0]'],
  ])('refuses %j at %s', (filter, field) => {
    expect(fieldsOf(filter)).toEqual([field]);
  });

  it('refuses a hole in a sparse array, which JSON cannot express', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(fieldsOf({ $or: [{ type: 'a' }, , { type: 'b' }] })).toEqual(['filter.$or[1]']);
    // eslint-disable-next-line no-sparse-arrays
    expect(fieldsOf({ type: { $in: ['a', , 'b'] } })).toEqual(['filter.type.$in[1]']);
  });

  it('reports every problem of a filter, in document order', () => {
    expect(
      fieldsOf({ type: { $regex: 'x' }, data: { severity: { $in: 'high' }, score: { $gt: {} } } }),
    ).toEqual(['filter.type.$regex', 'filter.data.severity.$in', 'filter.data.score.$gt']);
  });

  it('refuses a cyclic object as not JSON', () => {
    const cyclic: Record<string, unknown> = { type: 'a' };
    cyclic.self = cyclic;
    expect(problemsOf(cyclic)).toEqual([
      { field: 'filter', detail: expect.stringContaining('no cycles') },
    ]);
  });
});

/** An object nested `levels` deep, counting itself, around `innermost`: {"a":{"a":…}}. */
function nested(levels: number, innermost: unknown = 'x'): Record<string, unknown> {
  let filter = innermost;
  for (let level = 0; level < levels; level += 1) filter = { a: filter };
  return filter as Record<string, unknown>;
}

const pathOfLevel = (level: number) => 'filter' + '.a'.repeat(level - 1);

/** A valid filter of exactly `bytes` bytes of JSON, of fields holding short strings of `unit`. */
function filterOfBytes(bytes: number, unit = 'x'): Record<string, string> {
  const filter: Record<string, string> = {};
  const size = () => Buffer.byteLength(JSON.stringify(filter));
  for (let index = 0; size() + 250 < bytes; index += 1) filter[`f${index}`] = unit.repeat(100);
  filter.last = '';
  filter.last = 'x'.repeat(bytes - size());
  return filter;
}

/** `count` fields, each with one operator: {"f0":{"$neq":"x"},"f1":…}. */
function filterOfOperators(count: number): Record<string, unknown> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, index) => [`f${index}`, { $neq: 'x' }]),
  );
}

describe('compileFilter: limits, just within and just beyond', () => {
  const limits = FILTER_LIMITS;

  it(`takes ${limits.maxSerializedBytes} bytes of JSON and refuses one more, alone`, () => {
    expect(Buffer.byteLength(JSON.stringify(filterOfBytes(limits.maxSerializedBytes)))).toBe(4096);
    expect(problemsOf(filterOfBytes(limits.maxSerializedBytes))).toEqual([]);
    expect(problemsOf(filterOfBytes(limits.maxSerializedBytes + 1))).toEqual([
      { field: 'filter', detail: 'is 4097 bytes of JSON: a filter is at most 4096' },
    ]);
  });

  it('counts the size in UTF-8 bytes, not in characters', () => {
    const accented = filterOfBytes(limits.maxSerializedBytes + 1, 'é');
    expect(JSON.stringify(accented).length).toBeLessThan(limits.maxSerializedBytes);
    expect(fieldsOf(accented)).toEqual(['filter']);
  });

  it(`takes ${limits.maxDepth} levels of objects and refuses a ninth, naming it`, () => {
    expect(problemsOf(nested(limits.maxDepth))).toEqual([]);
    expect(problemsOf(nested(limits.maxDepth + 1))).toEqual([
      { field: pathOfLevel(9), detail: expect.stringContaining('nested 9 levels deep') },
    ]);
  });

  it('counts arrays as levels too: of $in, of $or, and of plain values', () => {
    expect(problemsOf(nested(limits.maxDepth - 2, { $in: ['x'] }))).toEqual([]);
    expect(fieldsOf(nested(limits.maxDepth - 1, { $in: ['x'] }))).toEqual([
      `${pathOfLevel(8)}.$in`,
    ]);
    expect(fieldsOf(nested(limits.maxDepth - 1, { $or: ['x'] }))).toEqual([
      `${pathOfLevel(8)}.$or`,
    ]);
    expect(fieldsOf(nested(limits.maxDepth, ['x']))).toEqual([`${pathOfLevel(9)}`]);
    expect(fieldsOf({ $not: nested(limits.maxDepth) })).toEqual([
      `filter.$not${'.a'.repeat(limits.maxDepth - 1)}`,
    ]);
  });

  it(`takes ${limits.maxOperators} operators and refuses the next, naming it`, () => {
    expect(problemsOf(filterOfOperators(limits.maxOperators))).toEqual([]);
    expect(problemsOf(filterOfOperators(limits.maxOperators + 1))).toEqual([
      { field: 'filter.f64.$neq', detail: expect.stringContaining('at most 64 operators') },
    ]);
    const nestedOperators = { type: { $and: Array.from({ length: 64 }, () => ({ $neq: 'x' })) } };
    expect(fieldsOf(nestedOperators)).toEqual(['filter.type.$and[63].$neq']);
  });

  it(`takes strings of ${limits.maxStringLength} characters and refuses longer, wherever they are`, () => {
    const within = 'x'.repeat(limits.maxStringLength);
    const beyond = within + 'x';
    expect(problemsOf({ type: within, data: { tags: { $in: [[within]] } } })).toEqual([]);
    expect(fieldsOf({ type: beyond })).toEqual(['filter.type']);
    expect(fieldsOf({ type: { $startsWith: beyond } })).toEqual(['filter.type.$startsWith']);
    expect(fieldsOf({ type: { $gt: beyond } })).toEqual(['filter.type.$gt']);
    expect(problemsOf({ data: { severity: { $in: ['low', 'high', 'medium', beyond] } } })).toEqual([
      { field: 'filter.data.severity.$in[3]', detail: 'is longer than 256 characters' },
    ]);
  });

  it('counts characters as code points, so that an emoji counts once', () => {
    expect(problemsOf({ type: '🚨'.repeat(limits.maxStringLength) })).toEqual([]);
    expect(fieldsOf({ type: '🚨'.repeat(limits.maxStringLength + 1) })).toEqual(['filter.type']);
  });

  it(`takes ${limits.maxListItems} items in $in and $nin and refuses more`, () => {
    const items = (count: number) => Array.from({ length: count }, (_, index) => index);
    expect(problemsOf({ data: { score: { $in: items(100), $nin: items(100) } } })).toEqual([]);
    expect(problemsOf({ data: { score: { $nin: items(101) } } })).toEqual([
      { field: 'filter.data.score.$nin', detail: 'has 101 items: $nin takes at most 100' },
    ]);
    expect(fieldsOf({ data: { score: { $in: items(101) } } })).toEqual(['filter.data.score.$in']);
  });

  it(`takes field names of ${limits.maxFieldNameLength} characters and refuses longer`, () => {
    const within = 'f'.repeat(limits.maxFieldNameLength);
    expect(problemsOf({ data: { [within]: 1 } })).toEqual([]);
    expect(problemsOf({ data: { [`${within}f`]: 1 } })).toEqual([
      {
        field: `filter.data.${within}f`,
        detail: 'a field name is at most 64 characters',
      },
    ]);
  });
});
