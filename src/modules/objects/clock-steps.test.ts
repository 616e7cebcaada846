/**
 * The days in the trash (`media.trashDays`, §12 "deleted media stays restorable for 7 days") while
 * the wall clock steps (NTP, an operator's date change) and across a restart whose clock is behind
 * what was stored (service.ts `followWallClock`): they count elapsed time.
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { systemPrincipal } from '../../core/principal';
import { purgeExpired } from './service';
import { textBytes, uploadedObject } from './test-support';

const DAY = 86_400_000;
const purge = (t: TestApp) => purgeExpired(t.deps, systemPrincipal());
const read = async (t: TestApp, id: number) => (await t.call('GET', `/objects/${id}`, { as: 'viewer' })).body;

async function trashed(t: TestApp) {
  const obj = await uploadedObject(t, 'show.txt', textBytes('tonight'));
  expect((await t.call('DELETE', `/objects/${obj._id}`, { as: 'operator' })).status).toBe(204);
  return obj;
}

describe('the trash while the wall clock steps', () => {
  it('a step of 8 days ahead does not purge media deleted an hour ago; it stays its 7 days', async () => {
    const t = makeTestApp();
    purge(t);
    const obj = await trashed(t);
    t.clock.advance(3_600_000);
    t.clock.setWall(t.clock.now() + 8 * DAY);
    expect(purge(t)).toBe(0);
    expect(await read(t, obj._id)).toMatchObject({
      status: 'deleted',
      purgeAt: new Date(t.clock.now() + 7 * DAY - 3_600_000).toISOString(),
    });
    const restored = await t.call('POST', `/objects/${obj._id}/restore`, { as: 'operator' });
    expect(restored.body).toMatchObject({ status: 'uploaded' });
    expect((await t.call('GET', `/objects/${obj._id}/content`, { as: 'viewer' })).text).toBe('tonight');
  });

  it('a step of 3 days back does not keep it 10 days', async () => {
    const t = makeTestApp();
    purge(t);
    const obj = await trashed(t);
    t.clock.setWall(t.clock.now() - 3 * DAY);
    t.clock.advance(7 * DAY - 1000);
    expect(purge(t)).toBe(0);
    t.clock.advance(1000);
    expect(purge(t)).toBe(1);
    expect((await t.call('GET', `/objects/${obj._id}`, { as: 'viewer' })).status).toBe(404);
  });

  it('an object deleted in the second after a step, before the purge saw it, keeps its 7 days', async () => {
    const t = makeTestApp();
    purge(t);
    t.clock.setWall(t.clock.now() + 30 * DAY);
    const obj = await trashed(t);
    expect(await read(t, obj._id)).toMatchObject({ purgeAt: new Date(t.clock.now() + 7 * DAY).toISOString() });
    expect(purge(t)).toBe(0);
    expect(await read(t, obj._id)).toMatchObject({ purgeAt: new Date(t.clock.now() + 7 * DAY).toISOString() });
  });
});

describe('a restart whose clock is behind the trash (an RTC that lost time)', () => {
  it('counts the 7 days from the start, not until the clock reaches a deletion stamped ahead of it', async () => {
    const first = makeTestApp();
    const obj = await trashed(first);
    first.deps.sqlite.close();
    const t = makeTestApp({ config: { dataDir: first.deps.config.dataDir } });
    t.clock.setWall(first.clock.now() - 2 * DAY);
    expect(purge(t)).toBe(0);
    t.clock.advance(7 * DAY);
    expect(purge(t)).toBe(1);
    expect((await t.call('GET', `/objects/${obj._id}`, { as: 'viewer' })).status).toBe(404);
  });
});
