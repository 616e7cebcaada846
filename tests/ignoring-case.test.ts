/**
 * "Ignoring case" means it for every letter, in every list (C: Responses, `fuzzy`; §4 `displayName`,
 * `sourceDisplayName`, the write by name). SQLite folds A–Z only, so the lists filtered in SQL missed
 * "Écran" for `?fuzzy=écran` while the lists filtered in memory found it, and a write by name to
 * `ölpumpe` created a second variable beside "Ölpumpe" (http/lists.ts, `containsIgnoringCase`).
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from './helpers/app';

const NAME = 'Ölpumpe Écran';

async function made(t: TestApp, path: string, body: Record<string, unknown>) {
  const res = await t.call('POST', path, { as: 'admin', body });
  expect(res.status).toBe(201);
  return res.body as { _id: number };
}

const names = (res: { body: Array<{ displayName: string }> }) => res.body.map((e) => e.displayName);

describe('ignoring case beyond ASCII', () => {
  it('fuzzy finds the same entities in every list, whatever the case of an accented letter', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'buehne', { displayName: NAME });
    const base = { subsystemExternalId: 'buehne', displayName: NAME };
    await made(t, '/variables', { ...base, externalRef: 'pump' });
    await made(t, '/events', { ...base, externalRef: 'pump' });
    const parameter = await made(t, '/parameters', { ...base, externalRef: 'pump' });
    await made(t, '/presets', { ...base, parameters: [{ parameter: parameter._id, value: 'x' }] });
    await made(t, '/assets', { ...base, externalRef: 'pump' });
    await made(t, '/playables', { ...base, externalRef: 'pump' });
    for (const path of ['/subsystems', '/variables', '/events', '/parameters', '/presets', '/assets', '/playables']) {
      for (const needle of ['écran', 'ÉCRAN', 'ölpumpe é', 'PUMPE']) {
        const res = await t.call('GET', path, { as: 'viewer', query: { fuzzy: needle } });
        expect({ path, needle, found: names(res) }).toEqual({ path, needle, found: [NAME] });
      }
      const none = await t.call('GET', path, { as: 'viewer', query: { fuzzy: 'écrans' } });
      expect({ path, found: names(none) }).toEqual({ path, found: [] });
    }
  });

  it('displayName and sourceDisplayName filters match a name whatever the case of its letters', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'buehne', { displayName: 'Bühne Süd' });
    await made(t, '/variables', { subsystemExternalId: 'buehne', externalRef: 'pump', displayName: NAME });
    const queries: Array<Record<string, string | boolean>> = [
      { displayName: 'ölpumpe écran' },
      { displayName: 'ÖLPUMPE ÉCRAN' },
      { sourceDisplayName: 'BÜHNE SÜD', platformManaged: false },
      { sourceDisplayName: 'bühne süd', displayName: 'Ölpumpe écran' },
    ];
    for (const query of queries) {
      const res = await t.call('GET', '/variables', { as: 'viewer', query });
      expect({ query, found: names(res) }).toEqual({ query, found: [NAME] });
    }
    const other = await t.call('GET', '/variables', { as: 'viewer', query: { displayName: 'ölpumpe ecran' } });
    expect(names(other)).toEqual([]);
  });

  it('a value written by name finds the variable whatever the case of its letters, creating none', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'buehne');
    const variable = await made(t, '/variables', {
      subsystemExternalId: 'buehne',
      externalRef: 'pump',
      displayName: NAME,
    });
    const path = `/variable/lastValue/buehne/${encodeURIComponent('ölpumpe écran')}`;
    const res = await t.call('PUT', path, { as: 'integration', body: { value: '42' } });
    expect(res.status).toBe(200);
    expect(res.body._id).toBe(variable._id);
    const all = await t.call('GET', '/variables', {
      as: 'viewer',
      query: { subsystemExternalId: 'buehne', platformManaged: false },
    });
    expect(all.body.map((v: { externalRef: string; lastValue: string }) => [v.externalRef, v.lastValue])).toEqual([
      ['pump', '42'],
    ]);
    expect((await t.call('PUT', path, { body: { value: '1' } })).status).toBe(401);
    expect((await t.call('PUT', path, { as: 'viewer', body: { value: '1' } })).status).toBe(403);
  });
});
