import { describe, expect, it } from 'bun:test';
import { scheduleApp } from '../routes-test-support';

describe('targets (rule 17)', () => {
  it('an item whose event is deleted is targetMissing and re-links when the same pair appears again', async () => {
    const t = await scheduleApp();
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z' });
    expect((await t.call('DELETE', `/events/${t.event._id}`, { as: 'admin' })).status).toBe(204);
    const missing = (await t.call('GET', '/schedules/1', { as: 'admin' })).body;
    expect(missing).toMatchObject({
      targetMissing: true,
      itemId: t.event._id,
      subsystemExternalId: 'media',
      externalRef: 'cue-1',
      subsystemId: null,
      command: null,
    });
    const again = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'cue-1', command: 'GO 2' },
    });
    const relinked = (await t.call('GET', '/schedules/1', { as: 'admin' })).body;
    expect(relinked).toMatchObject({ targetMissing: false, itemId: again.body._id, command: 'GO 2' });
  });

  it('a deleted playable marks its items missing too', async () => {
    const t = await scheduleApp();
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-16T10:00:00Z',
      endTime: '2026-01-16T11:00:00Z',
    });
    await t.call('DELETE', `/playables/${t.playable._id}`, { as: 'admin' });
    expect((await t.call('GET', '/schedules/1', { as: 'admin' })).body.targetMissing).toBe(true);
    await t.register({ externalRef: 'show-1', displayName: 'Show again' });
    expect((await t.call('GET', '/schedules/1', { as: 'admin' })).body).toMatchObject({
      targetMissing: false,
      displayName: 'Show again',
    });
  });
});

describe('targets when their subsystem goes', () => {
  it('deleting the subsystem marks its items missing and re-registering re-links them', async () => {
    const t = await scheduleApp();
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z' });
    expect((await t.call('DELETE', '/subsystems/media', { as: 'admin' })).status).toBe(204);
    expect((await t.call('GET', '/schedules/1', { as: 'admin' })).body).toMatchObject({
      targetMissing: true,
      subsystemExternalId: 'media',
      externalRef: 'cue-1',
    });
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'media' } });
    const again = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'cue-1', command: 'GO' },
    });
    expect((await t.call('GET', '/schedules/1', { as: 'admin' })).body).toMatchObject({
      targetMissing: false,
      itemId: again.body._id,
    });
    expect(t.events.filter((e) => e.type === 'scheduleditem.updated').map((e) => e.data)).toEqual([
      { _id: 1, changed: ['targetMissing'] },
      { _id: 1, changed: ['itemId', 'targetMissing'] },
    ]);
  });
});
