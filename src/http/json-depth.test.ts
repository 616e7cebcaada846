/**
 * A body nested thousands of levels deep is refused with the one validation body before recursive
 * code reads it (it once answered 500 on POST /playlists); ordinary nesting is untouched.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, rowCount } from '../../tests/helpers/app';
import { errorBody } from '../../tests/helpers/errors';
import { MAX_NESTING } from './body';

const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const tooDeep = (res: { headers: Headers }) =>
  errorBody(res, 400, 'validation', `body is nested more than ${MAX_NESTING} levels deep`, [
    { path: '/', message: `must be nested at most ${MAX_NESTING} levels deep` },
  ]);

describe('deeply nested bodies', () => {
  const t = makeTestApp();

  it.each([
    ['POST', '/playlists'],
    ['POST', '/events'],
    ['POST', '/subsystems'],
    ['POST', '/variables/1/value'],
  ])('%s %s refuses 100 000 levels of objects and of arrays, and stores nothing', async (method, path) => {
    const before = rowCount(t, 'schedule_playlists') + rowCount(t, 'events') + rowCount(t, 'subsystems');
    for (const rawBody of [deepObject(100_000), deepArray(100_000), `{"name":"x","metadata":${deepObject(65)}}`]) {
      const res = await t.call(method, path, { as: 'admin', rawBody, headers: { 'content-type': 'application/json' } });
      expect(res.body).toEqual(tooDeep(res));
    }
    expect(rowCount(t, 'schedule_playlists') + rowCount(t, 'events') + rowCount(t, 'subsystems')).toBe(before);
  });

  it('takes 64 levels, and brackets inside strings do not count', async () => {
    await addSubsystem(t, 'deep');
    const inString = JSON.stringify({ externalId: 'deep', description: '[{'.repeat(500) });
    const res = await t.call('POST', '/subsystems', { as: 'admin', rawBody: inString });
    expect(res.status).toBe(200);
    const nested = `{"externalId":"deep","x":${deepObject(MAX_NESTING - 1)}}`;
    expect((await t.call('POST', '/subsystems', { as: 'admin', rawBody: nested })).status).toBe(200);
  });
});
