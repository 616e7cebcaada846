import { describe, expect, it } from 'bun:test';
import { tickVariableHealth } from './health';
import { errorBody, variableApp as setup, validation } from './test-support';

const RULES = [
  ['warning', '>', 50],
  ['error', '>', 90],
  ['error', 'matches', '^ERR'],
];

describe('health', () => {
  it('is unknown while off or before a value; 0 once a value exists without rules', async () => {
    const t = setup();
    const off = await t.make({ externalRef: 'off' });
    expect((await t.write(off._id, '1')).body.healthState).toBe(-1);
    const on = await t.make({ externalRef: 'on', healthEnabled: true });
    expect(on.healthState).toBe(-1);
    expect((await t.write(on._id, '1')).body.healthState).toBe(0);
  });

  it('a worse state waits for the grace period (tick on the fake clock), a better one applies at once', async () => {
    const t = setup();
    const v = await t.make({ healthEnabled: true, healthGracePeriod: 10, healthRules: RULES });
    expect((await t.write(v._id, '10')).body.healthState).toBe(0);
    const pending = await t.write(v._id, '95');
    expect(pending.body).toMatchObject({ healthState: 0, healthGracePeriodRemaining: 10 });
    t.clock.advance(9000);
    expect(await tickVariableHealth(t.deps)).toBe(0);
    expect((await t.call('GET', `/variables/${v._id}`, { as: 'viewer' })).body.healthGracePeriodRemaining).toBe(1);
    t.clock.advance(1000);
    expect(await tickVariableHealth(t.deps)).toBe(1);
    const read = await t.call('GET', `/variables/${v._id}`, { as: 'viewer' });
    expect(read.body).toMatchObject({ healthState: 2, healthGracePeriodRemaining: null });
    expect((await t.write(v._id, '60')).body.healthState).toBe(1);
    expect((await t.write(v._id, '1')).body.healthState).toBe(0);
    expect(t.events.filter((e) => e.type === 'variable.health_changed').map((e) => e.data)).toEqual([
      { _id: v._id, healthState: 0, previousHealthState: -1 },
      { _id: v._id, healthState: 2, previousHealthState: 0 },
      { _id: v._id, healthState: 1, previousHealthState: 2 },
      { _id: v._id, healthState: 0, previousHealthState: 1 },
    ]);
  });

  it('a worse value that stops matching within the grace period never takes effect', async () => {
    const t = setup();
    const v = await t.make({ healthEnabled: true, healthGracePeriod: 5, healthRules: RULES });
    await t.write(v._id, '1');
    await t.write(v._id, 'ERR 1');
    t.clock.advance(3000);
    await t.write(v._id, '2');
    t.clock.advance(5000);
    await tickVariableHealth(t.deps);
    expect((await t.call('GET', `/variables/${v._id}`, { as: 'viewer' })).body.healthState).toBe(0);
  });

  it('compares numerically when both sides are numbers, textually otherwise; ordering never matches text', async () => {
    const t = setup();
    const v = await t.make({
      healthEnabled: true,
      healthGracePeriod: 1,
      healthRules: [
        ['error', '==', '10'],
        ['warning', '>', 5],
        ['warning', 'contains', 'warn'],
        ['error', '!contains', 'o'],
      ],
    });
    const state = async (value: string) => {
      await t.write(v._id, value);
      t.clock.advance(1000);
      await tickVariableHealth(t.deps);
      return (await t.call('GET', `/variables/${v._id}`, { as: 'viewer' })).body.healthState;
    };
    expect(await state('10.0')).toBe(2);
    expect(await state('7o')).toBe(0);
    expect(await state('ok')).toBe(0);
    expect(await state('warn ok')).toBe(1);
  });

  it.each([
    ['x', '/healthRules', 'must be an array of rules [state, operator, operand]'],
    [
      [['warning', '>']],
      '/healthRules/0',
      'must be [state, operator, operand]: state warning or error, operator one of == != > >= < <= contains !contains matches',
    ],
    [
      [
        ['warning', '>', 1],
        ['fatal', '>', 1],
      ],
      '/healthRules/1',
      'must be [state, operator, operand]: state warning or error, operator one of == != > >= < <= contains !contains matches',
    ],
    [
      [['error', 'like', 1]],
      '/healthRules/0',
      'must be [state, operator, operand]: state warning or error, operator one of == != > >= < <= contains !contains matches',
    ],
    [[['error', '>', { a: 1 }]], '/healthRules/0', 'must have a string, number or boolean operand'],
    [[['error', 'matches', '(']], '/healthRules/0', 'must have a valid regular expression'],
    [[['error', 'matches', 'x'.repeat(201)]], '/healthRules/0', 'must have a pattern of at most 200 characters'],
    [[['error', 'matches', '(a+)+$']], '/healthRules/0', 'must not nest quantifiers (the pattern could run forever)'],
    [Array.from({ length: 21 }, () => ['error', '>', 1]), '/healthRules', 'must have at most 20 entries'],
  ])('refuses healthRules %#', async (healthRules, path, message) => {
    const t = setup();
    const v = await t.make();
    const res = await t.call('PATCH', `/variables/${v._id}`, { as: 'admin', body: { healthRules, description: 'no' } });
    expect(res.body).toEqual(validation(res, path, message));
    expect((await t.call('GET', `/variables/${v._id}`, { as: 'admin' })).body.description).toBe('');
  });

  it('changing rules re-evaluates the current value', async () => {
    const t = setup();
    const v = await t.make({ healthEnabled: true, lastValue: '99' });
    expect(v.healthState).toBe(0);
    const res = await t.call('PATCH', `/variables/${v._id}`, {
      as: 'admin',
      body: { healthRules: [['warning', '<', 100]], healthGracePeriod: 1 },
    });
    expect(res.body).toMatchObject({ healthState: 0, healthGracePeriodRemaining: 1 });
    const off = await t.call('PATCH', `/variables/${v._id}`, { as: 'admin', body: { healthEnabled: false } });
    expect(off.body).toMatchObject({ healthState: -1, healthGracePeriodRemaining: null });
  });
});

describe('composites', () => {
  async function inputs(t: ReturnType<typeof setup>) {
    const a = await t.make({ externalRef: 'a', lastValue: '2' });
    const b = await t.make({ externalRef: 'b', lastValue: '5' });
    const c = await t.make({ externalRef: 'c', lastValue: 'text' });
    return [a._id, b._id, c._id] as number[];
  }

  it.each([
    ['sum', '7'],
    ['min', '2'],
    ['max', '5'],
    ['avg', '3.5'],
    ['any', 'true'],
    ['all', 'false'],
    ['worst', '-1'],
  ])('%s computes from the inputs (non-numbers skipped)', async (fn, expected) => {
    const t = setup();
    const ids = await inputs(t);
    const comp = await t.make({ externalRef: 'total', composite: true, compositeDefinition: [fn, ...ids] });
    expect(comp).toMatchObject({
      lastValue: expected,
      compositeMetrics: ids,
      compositeDefinition: [fn, ...ids.map(String)],
      compositeDefinitionText: `${fn}(${ids.map((i) => `#${i}`).join(', ')})`,
    });
  });

  it('recomputes when an input changes, with source composite; clients cannot write it (409)', async () => {
    const t = setup();
    const [a, b] = await inputs(t);
    const comp = await t.make({ externalRef: 'total', composite: true, compositeDefinition: ['sum', a, b] });
    await t.write(a as number, '10');
    const read = await t.call('GET', `/variables/${comp._id}`, { as: 'viewer' });
    expect(read.body.lastValue).toBe('15');
    const h = await t.call('GET', `/variables/${comp._id}/history`, { as: 'viewer' });
    expect(h.body[0]).toMatchObject({ value: '15', source: 'composite', by: `variable:${a}` });
    const refused = await t.write(comp._id, '1');
    expect(refused.body).toEqual(
      errorBody(refused, 409, 'conflict', 'the value of a composite variable is computed from its inputs'),
    );
  });

  it('drops a deleted input and recomputes', async () => {
    const t = setup();
    const [a, b] = await inputs(t);
    const comp = await t.make({ externalRef: 'total', composite: true, compositeDefinition: ['sum', a, b] });
    await t.call('DELETE', `/variables/${a}`, { as: 'admin' });
    const read = await t.call('GET', `/variables/${comp._id}`, { as: 'viewer' });
    expect(read.body).toMatchObject({ lastValue: '5', compositeDefinition: ['sum', String(b)] });
  });

  it('with every input deleted, reads back ["sum"] and takes the whole variable back in a PUT (400, then 409)', async () => {
    const t = setup();
    const [a, b] = await inputs(t);
    const comp = await t.make({ externalRef: 'total', composite: true, compositeDefinition: ['sum', a, b] });
    for (const id of [a, b]) await t.call('DELETE', `/variables/${id}`, { as: 'admin' });
    const read = await t.call('GET', `/variables/${comp._id}`, { as: 'viewer' });
    expect(read.body.compositeDefinition).toEqual(['sum']);
    const back = await t.call('PUT', `/variables/${comp._id}`, { as: 'admin', body: { ...read.body, unit: 'W' } });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ unit: 'W', composite: true, compositeDefinition: ['sum'] });
    // A new definition still needs its inputs, and another value is still refused.
    const value = await t.call('PUT', `/variables/${comp._id}`, { as: 'admin', body: { lastValue: '42' } });
    expect(value.status).toBe(409);
    const empty = await t.call('PUT', `/variables/${comp._id}`, {
      as: 'admin',
      body: { compositeDefinition: ['max'] },
    });
    expect(empty.status).toBe(400);
  });

  it('refuses unknown, self and cyclic inputs and a bad function', async () => {
    const t = setup();
    const [a, b] = await inputs(t);
    const unknown = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'x', composite: true, compositeDefinition: ['sum', a, 999] },
    });
    expect(unknown.body).toEqual(validation(unknown, '/compositeDefinition/2', 'names a variable that does not exist'));
    const fn = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'x', composite: true, compositeDefinition: ['median', a] },
    });
    expect(fn.body).toEqual(
      validation(fn, '/compositeDefinition/0', 'must be one of sum, min, max, avg, any, all, worst'),
    );
    const c1 = await t.make({ externalRef: 'c1', composite: true, compositeDefinition: ['sum', a] });
    const c2 = await t.make({ externalRef: 'c2', composite: true, compositeDefinition: ['sum', c1._id, b] });
    const self = await t.call('PATCH', `/variables/${c1._id}`, {
      as: 'admin',
      body: { compositeDefinition: ['sum', c1._id] },
    });
    expect(self.body).toEqual(validation(self, '/compositeDefinition/1', 'must not name the variable itself'));
    const cycle = await t.call('PATCH', `/variables/${c1._id}`, {
      as: 'admin',
      body: { compositeDefinition: ['sum', a, c2._id] },
    });
    expect(cycle.body).toEqual(validation(cycle, '/compositeDefinition/2', 'makes a cycle of composite variables'));
    const tooMany = await t.call('PATCH', `/variables/${c1._id}`, {
      as: 'admin',
      body: { compositeDefinition: ['sum', ...Array(51).fill(a)] },
    });
    expect(tooMany.status).toBe(400);
  });

  it('the list filters by each health state (−1, 0, 1, 2)', async () => {
    const t = setup();
    const make = (externalRef: string) =>
      t.make({ externalRef, healthEnabled: true, healthGracePeriod: 1, healthRules: RULES });
    await make('unknown');
    await t.write((await make('healthy'))._id, '10');
    await t.write((await make('warning'))._id, '60');
    await t.write((await make('error'))._id, 'ERR 7');
    t.clock.advance(1000);
    await tickVariableHealth(t.deps);
    for (const [state, refs] of [
      ['-1', ['unknown']],
      ['0', ['healthy']],
      ['1', ['warning']],
      ['2', ['error']],
    ] as const) {
      const res = await t.call('GET', '/variables', {
        as: 'viewer',
        query: { healthState: state, platformManaged: 'false' },
      });
      expect(res.body.map((v: { externalRef: string }) => v.externalRef)).toEqual([...refs]);
    }
  });
});
